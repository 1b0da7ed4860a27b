// jsonAt: the value at a path of object keys in a document, or null when any step is missing or
// not an object. For reading specs and statuses whose optional parts may be absent, without
// operator[] (which would insert) or at() (which throws).
#pragma once

#include <initializer_list>
#include <string_view>

#include "fakekube/api/json.h"

namespace fakekube {

// jsonAt(pod, {"spec", "template", "spec"}): a reference into `document`, or to a static null.
const Json& jsonAt(const Json& document, std::initializer_list<std::string_view> path);

}  // namespace fakekube
