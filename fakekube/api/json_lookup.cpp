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

Json& jsonMember(Json& object, std::string_view key) {
  if (object.is_null()) object = Json::object();
  if (!object.is_object()) return object[std::string(key)];  // throws the usual type_error
  auto& members = object.get_ref<Json::object_t&>();
  auto it = members.lower_bound(key);
  if (it == members.end() || it->first != key) {
    it = members.emplace_hint(it, std::piecewise_construct, std::forward_as_tuple(key),
                              std::forward_as_tuple());
  }
  return it->second;
}

}  // namespace fakekube
