#include "fakekube/api/object.h"

#include <nlohmann/json.hpp>

namespace fakekube {

Json ObjectList::toJson() const {
  Json metadata = {{"resourceVersion", resourceVersion}};
  if (!continueToken.empty()) metadata["continue"] = continueToken;
  Json array = Json::array();
  for (const auto& item : items) array.push_back(*item);
  return {{"apiVersion", apiVersion},
          {"kind", kind},
          {"metadata", std::move(metadata)},
          {"items", std::move(array)}};
}

}  // namespace fakekube
