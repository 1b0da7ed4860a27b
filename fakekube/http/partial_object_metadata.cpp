#include "fakekube/http/internal/partial_object_metadata.h"

#include <nlohmann/json.hpp>

namespace fakekube {

Json partialObjectMetadata(const Json& object, const std::string& apiVersion) {
  Json metadata = Json::object();
  if (auto it = object.find("metadata"); it != object.end() && it->is_object()) metadata = *it;
  return {{"kind", "PartialObjectMetadata"},
          {"apiVersion", apiVersion},
          {"metadata", std::move(metadata)}};
}

Json partialObjectMetadataList(const ObjectList& list, const std::string& apiVersion) {
  Json metadata = {{"resourceVersion", list.resourceVersion}};
  if (!list.continueToken.empty()) metadata["continue"] = list.continueToken;
  Json items = Json::array();
  for (const auto& item : list.items) items.push_back(partialObjectMetadata(*item, apiVersion));
  return {{"kind", "PartialObjectMetadataList"},
          {"apiVersion", apiVersion},
          {"metadata", std::move(metadata)},
          {"items", std::move(items)}};
}

}  // namespace fakekube
