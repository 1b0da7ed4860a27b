// The small rules the per-kind validators (and defaulting functions) share, with kube-apiserver's
// messages (k8s.io/apimachinery/pkg/util/validation/field and pkg/util/validation):
//
//   checkEnumeration   ""/absent -> `path: Required value`; anything else outside the list ->
//                      `path: Unsupported value: "x": supported values: "A", "B"` (the values in
//                      the order kube lists them: sets.List sorts, a literal slice does not)
//   checkNonNegative   `path: Invalid value: -1: must be greater than or equal to 0`
//   isValidPortNum     "must be between 1 and 65535, inclusive"
//   isValidPortName    IANA_SVC_NAME: at most 15 characters of [-a-z0-9], at least one letter,
//                      no "--", no '-' at either end
//
// A value arrives as untyped JSON that typed decoding has already checked (a number where kube
// has an int32 is an integer), so numbers are read as integers and anything else is skipped.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube::strategy {

// "supported values: \"A\", \"B\"" (field.NotSupported's detail).
std::string supportedValues(std::initializer_list<std::string_view> values);

// A string-valued enumeration. `requiredDetail` is what kube says when the value is empty (most
// say nothing).
void checkEnumeration(FieldErrors& errors, const Json& value, const std::string& path,
                      std::initializer_list<std::string_view> values,
                      std::string requiredDetail = {});

// An optional integer that may not be negative (ValidateNonnegativeField).
void checkNonNegative(FieldErrors& errors, const Json& value, const std::string& path);

// Whether the value is an integer (signed or unsigned), and its value.
bool integerValue(const Json& value, std::int64_t& out);

// The value if it is a string, else "" (a Go string field's zero value).
std::string stringValue(const Json& value);

// The value as field.Error renders it: a string quoted (%q), anything else as JSON text.
std::string renderValue(const Json& value);

// IsValidPortNum and IsValidPortName: the reasons the value is not valid, empty when it is.
std::vector<std::string> isValidPortNum(std::int64_t port);
std::vector<std::string> isValidPortName(std::string_view name);

// The member `key` of `parent`, made an empty object when it is not an object: the struct a
// defaulting function fills in (`objectMember(spec, "updateStrategy")`).
Json& objectMember(Json& parent, std::string_view key);

// "path[i]" and "path[key]", as field.Path.Index and Key write them.
std::string indexPath(const std::string& path, std::size_t index);
std::string keyPath(const std::string& path, std::string_view key);

}  // namespace fakekube::strategy
