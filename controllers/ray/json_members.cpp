#include "controllers/ray/internal/json_members.h"

#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"

namespace fakekube::ray {

const Json& memberOrNull(const Json& object, std::string_view key) {
  static const Json kNull;
  const Json* found = jsonFind(object, key);
  return found != nullptr ? *found : kNull;
}

const std::string& stringMember(const Json& object, std::string_view key) {
  static const std::string kEmpty;
  const Json& value = memberOrNull(object, key);
  return value.is_string() ? value.get_ref<const std::string&>() : kEmpty;
}

std::string stringAt(const Json& document, std::initializer_list<std::string_view> path) {
  const Json& value = jsonAt(document, path);
  return value.is_string() ? value.get<std::string>() : "";
}

}  // namespace fakekube::ray
