// Reading KubeRay's documents member by member, as the Go operator reads its typed structs: an
// absent member, or one of another type, reads as Go's zero value (null, "", false) instead of
// throwing or inserting. The helpers every file of the operator reads specs and statuses with;
// the path lookups under them are fakekube's (api/json_lookup.h: jsonFind, jsonAt,
// jsonObjectAt).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "fakekube/api/json.h"

namespace fakekube::ray {

// object[key], or a static null when `object` is not an object or has no such member: a
// reference into `object`, which must outlive it.
const Json& memberOrNull(const Json& object, std::string_view key);

// object[key]'s text, or "" when it is absent or not a string: a reference into `object`, which
// must outlive it.
const std::string& stringMember(const Json& object, std::string_view key);

// The text at a path of keys (jsonAt(document, path)), or "" when a step is missing or the value
// is not a string. A copy: `document` may be a temporary.
std::string stringAt(const Json& document, std::initializer_list<std::string_view> path);

}  // namespace fakekube::ray
