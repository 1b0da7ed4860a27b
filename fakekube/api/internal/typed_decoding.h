// The type errors kube-apiserver's decoding reports for built-in kinds.
//
// kube-apiserver decodes a built-in object's JSON into its Go struct (sigs.k8s.io/json over
// encoding/json), so a value of the wrong JSON type never reaches validation: the request is a 400
// BadRequest such as
//   ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number
//   into Go struct field ConfigMap.data of type string
// (the handler's transformDecodeError prefix, then encoding/json's UnmarshalTypeError: the JSON
// value's kind, the innermost Go struct's name with the field's JSON path from the top of the
// object, and the Go type). fakekube stores JSON documents, so the API server checks the same
// types here, with the field table of protobuf_schema.h — which already names every field's JSON
// name and Go shape for the kinds kubectl's typed clients send — as the description of the Go
// types. Rules, as encoding/json applies them:
//   - null is always accepted (it leaves the zero value);
//   - strings must be strings, booleans booleans; integers must be integer literals in range
//     (1.5 or 1e3 into an int32 is "number 1.5"); []byte fields (Secret.data, ConfigMap.binaryData)
//     must be standard base64 ("illegal base64 data at input byte N", Go's CorruptInputError);
//   - structs must be objects, slices arrays, maps objects (the value's kind is named: "string",
//     "number", "bool", "array", "object");
//   - quantities, times, IntOrString and managed fields have their own decoders and are not
//     checked here; fields the table does not list are not checked either.
// The first error in the walk is reported (encoding/json also reports its first). Kinds outside
// the table pass unchecked.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {

// encoding/json's first error decoding `object` into the Go type of `kind` in `apiVersion`.
std::optional<std::string> goDecodingError(std::string_view apiVersion, std::string_view kind,
                                           const Json& object);

// The 400 BadRequest kube-apiserver answers for that error, or nullopt.
std::optional<Status> checkFieldTypes(std::string_view apiVersion, std::string_view kind,
                                      const Json& object);

}  // namespace fakekube
