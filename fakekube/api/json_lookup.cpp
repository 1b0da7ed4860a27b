#include "fakekube/api/json_lookup.h"

#include <nlohmann/json.hpp>

namespace fakekube {

const Json& jsonAt(const Json& document, std::initializer_list<const char*> path) {
  static const Json kNull;
  const Json* current = &document;
  for (const char* key : path) {
    if (!current->is_object()) return kNull;
    auto it = current->find(key);
    if (it == current->end()) return kNull;
    current = &*it;
  }
  return *current;
}

}  // namespace fakekube
