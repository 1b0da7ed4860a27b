// Kubernetes protobuf request bodies, decoded into the JSON object a JSON client would have sent.
//
// kubectl's typed clients (`kubectl create deployment|configmap|secret|namespace|job|...`, the
// DELETE that `kubectl drain` sends, client-go leader election and event recorders) send bodies as
// Content-Type application/vnd.kubernetes.protobuf. fakekube stores JSON documents, so the HTTP
// layer turns such a body into JSON here and then takes the usual JSON path.
//
// The body is the 4 magic bytes "k8s\0" and a runtime.Unknown message
//   {typeMeta=1 {apiVersion=1, kind=2}, raw=2, contentEncoding=3, contentType=4}
// whose raw bytes are the object's own message (proto2, written by gogo-protobuf). The object is
// decoded with the schema table of protobuf_schema.h into JSON that follows the Go types' JSON
// tags: omitempty scalars that are zero are dropped, pointers that were set are kept even when
// zero, an unset creationTimestamp is null, times are RFC 3339, quantities their string,
// IntOrString a number or a string, []byte fields base64. apiVersion and kind come from the
// envelope.
//
// Errors, as metav1.Status:
//   415 UnsupportedMediaType: the kind is not in the table, or the object carries a field the table
//       does not list (the message names the field's path, its message and number), or the
//       envelope asks for a content encoding or type other than plain protobuf. A gap in the table
//       is reported, never silently dropped; such clients can send application/json instead.
//   400 BadRequest: the body is not a well-formed Kubernetes protobuf body (bad magic, truncated
//       varint, length past the end, a wire type that does not match the field, an IntOrString of
//       unknown type, a time outside years 0-9999, managed fields that are not JSON).
// Any input yields a value or one of these errors; nothing is read out of bounds, recursion is
// bounded by the schema, and invalid UTF-8 in strings becomes U+FFFD as encoding/json writes it.
#pragma once

#include <string_view>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {

inline constexpr std::string_view kKubernetesProtobufMediaType =
    "application/vnd.kubernetes.protobuf";

// The JSON object of a Kubernetes protobuf request body.
Result<Json> decodeKubernetesProtobuf(std::string_view body);

}  // namespace fakekube
