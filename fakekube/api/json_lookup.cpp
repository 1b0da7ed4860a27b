#include "fakekube/api/json_lookup.h"

#include <nlohmann/json.hpp>

namespace fakekube {

const Json& jsonAt(const Json& document, std::initializer_list<std::string_view> path) {
  static const Json kNull;
  const Json* current = &document;
  for (std::string_view key : path) {
    if (!current->is_object()) return kNull;
    auto it = current->find(key);
    if (it == current->end()) return kNull;
    current = &*it;
  }
  return *current;
}

}  // namespace fakekube
