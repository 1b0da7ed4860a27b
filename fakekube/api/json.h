// Objects are JSON documents end to end. This header names the document
// type without pulling in nlohmann/json.hpp, which is the heaviest header in the tree: include it
// from headers, and include <nlohmann/json.hpp> only in .cpp files that touch document contents.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "fakekube/api/json_object_map.h"

namespace fakekube {

// An object's members: a vector kept sorted by name (json_object_map.h says why, and what it does
// not promise that std::map did).
using Json = nlohmann::basic_json<JsonObjectMap>;

}  // namespace fakekube
