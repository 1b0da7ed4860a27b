// YAML documents as JSON, typed the way the Kubernetes API server types them.
//
// The API server reads YAML (server-side apply bodies, application/yaml requests) with
// sigs.k8s.io/yaml, which parses with go-yaml v2 and converts the result to JSON. go-yaml v2
// resolves plain (unquoted, untagged) scalars by YAML 1.1 rules, so this does too:
//   null, Null, NULL, ~ and nothing            -> null
//   y Y yes Yes YES true True TRUE on On ON     -> true (n, no, false, off likewise -> false)
//   integers: decimal, 0x hex, 0o and leading-0 octal, 0b binary, '_' separators, a sign
//   floats: 1.5, .5, 1e3, 1_000.5 (integral values become JSON integers, as after Go's JSON
//           round trip); .inf and .nan are refused (JSON cannot carry them)
//   anything else, timestamps included         -> a string
// Quoted scalars and scalars tagged !!str stay strings, so `"8080"` is a string and `8080` a
// number. Map keys become strings (`1: x` has the key "1", `yes: x` the key "true"); merge keys
// (`<<: *anchor`) are honoured; a key repeated in one map is an error, as in go-yaml v2. Only the
// first document of a multi-document stream is read, as yaml.Unmarshal does.
#pragma once

#include <string_view>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {

// The first document of `text` as JSON (null for an empty document). Errors are 400 BadRequest,
// "error converting YAML to JSON: yaml: line N: ...".
Result<Json> decodeYaml(std::string_view text);

}  // namespace fakekube
