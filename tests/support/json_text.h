// J(text): the document a test writes as JSON text (Json::parse, which throws on a malformed
// one). The one copy of it for the test files that spell their documents this way: a unity batch
// holding several of them would otherwise see it defined once per file.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "fakekube/api/json.h"

namespace fakekube::testing {

inline Json J(std::string_view text) { return Json::parse(text); }

}  // namespace fakekube::testing
