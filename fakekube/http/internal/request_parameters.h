// Typed query parameters of a REST request, decoded as kube-apiserver decodes them (Go's
// strconv.ParseBool and strconv.ParseInt), with its 400 messages for a bad value. Every handler
// that reads a boolean or integer parameter (list, watch, delete, patch, pods/log) goes through
// these, so one parameter is spelled and refused the same way on every route.
#pragma once

#include <cstdint>
#include <optional>

#include "fakekube/api/status.h"
#include "fakekube/http/internal/rest_types.h"

namespace fakekube {

// "1", "t", "T", "true", "TRUE", "True" / "0", "f", "F", "false", "FALSE", "False" or empty;
// nullopt when the parameter is absent.
Result<std::optional<bool>> boolParameter(const RestRequest& request, const char* name);

// A decimal int64; nullopt when the parameter is absent or empty.
Result<std::optional<std::int64_t>> intParameter(const RestRequest& request, const char* name);

}  // namespace fakekube
