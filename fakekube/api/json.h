// Objects are JSON documents end to end. This header names the document
// type without pulling in nlohmann/json.hpp, which is the heaviest header in the tree: include it
// from headers, and include <nlohmann/json.hpp> only in .cpp files that touch document contents.
#pragma once

#include <nlohmann/json_fwd.hpp>

namespace fakekube {

using Json = nlohmann::json;

}  // namespace fakekube
