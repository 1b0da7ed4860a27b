// JSON Patch (RFC 6902): PATCH with Content-Type application/json-patch+json.
//
// A patch is a JSON array of operations applied in order to a copy of the document; if any
// operation fails, nothing is applied and the document is returned untouched:
//
//   {"op":"add",     "path":P, "value":V}  set a member / insert before an array index ("-"
//   appends)
//   {"op":"remove",  "path":P}             P must exist
//   {"op":"replace", "path":P, "value":V}  P must exist
//   {"op":"move",    "from":F, "path":P}   remove F then add it at P; P may not be inside F
//   {"op":"copy",    "from":F, "path":P}   add a copy of F at P
//   {"op":"test",    "path":P, "value":V}  fail unless P exists and equals V
//
// Paths are JSON Pointers (RFC 6901): "" is the whole document, "/a/0/b~1c" walks member "a",
// index 0, member "b/c" ("~1" is "/", "~0" is "~"). Array indices are "0" or digits without a
// leading zero. Members other than op/path/from/value are ignored.
//
// Errors follow the API server's split:
//   400 BadRequest  the patch is malformed: not JSON, not an array of objects, an operation with a
//                   missing or unknown "op", a missing "path"/"from"/"value" it needs, or a path
//                   that is not a JSON Pointer. Message `error decoding patch: ...`.
//   422 Invalid     a well-formed patch that does not apply to this document: a missing path,
//                   an index out of range, a failed test. Messages like
//                   `jsonpatch remove operation does not apply: doc is missing path: "/spec/x"`
//                   and `testing value /metadata/name failed`.
//   413             more than kMaxJsonPatchOperations operations (as Kubernetes limits them).
#pragma once

#include <cstddef>
#include <string_view>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {

// The API server refuses larger patches (maxJSONPatchOperations).
inline constexpr size_t kMaxJsonPatchOperations = 10000;

// Parses `patchText` and applies it to a copy of `doc`.
Result<Json> applyJsonPatch(const Json& doc, std::string_view patchText);

// The same for a patch that is already parsed (the JSON array of operations). A different name
// rather than an overload: a string literal converts to both std::string_view and Json.
Result<Json> applyParsedJsonPatch(const Json& doc, const Json& patch);

}  // namespace fakekube
