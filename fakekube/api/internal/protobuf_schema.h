// ProtobufSchema: the field numbers, JSON names and JSON rules of the Kubernetes protobuf messages
// that fakekube decodes (see protobuf.h).
//
// Kubernetes generates its .proto files from the Go types (go-to-protobuf): every field of a type
// is a proto2 `optional`, `repeated` or `map` field named as in its JSON tag. The wire bytes alone
// cannot say how a value maps to JSON, so each field here also carries what the Go struct says:
//   - keepZero: the Go field is a pointer (or has no `omitempty`). gogo-protobuf writes a pointer
//     only when it is set, so a zero on the wire is a value the client chose (`replicas: 0`,
//     `runAsUser: 0`) and is kept. Every other scalar is a non-pointer with `omitempty`, which
//     gogo writes always and encoding/json drops when zero; the decoder drops it too.
//   - nullWhenUnset: a slice without `omitempty` (PodSpec.containers, PolicyRule.verbs): when its
//     message carries no element, encoding/json writes null, and so does the decoder.
//   - inlined: an embedded struct (`json:",inline"`, e.g. Probe's ProbeHandler, Volume's
//     VolumeSource): its fields appear in the enclosing JSON object.
// Messages always become JSON objects when present (gogo writes non-pointer structs always, and
// encoding/json never omits a struct), so `"strategy": {}` and `"status": {}` appear as they do in
// a JSON client's body.
//
// The table covers what kubectl's generators and typed clients send (see protobuf_schema.cpp for
// the kinds). Field numbers were checked against the generated.proto files of k8s.io/api and
// k8s.io/apimachinery (the v1.32 generation) and against bodies captured from kubectl 1.32. A
// message or field the table does not list is not guessed: the decoder reports it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fakekube {

// What one field's value is on the wire and in JSON.
enum class ProtobufValue : std::uint8_t {
  String,       // length-delimited, a JSON string
  Bytes,        // length-delimited, a base64 JSON string ([]byte)
  Bool,         // varint
  Int32,        // varint, sign-extended to 64 bits when negative
  Int64,        // varint
  Message,      // length-delimited, a nested message (ProtobufField::message names it)
  Time,         // metav1.Time {seconds=1, nanos=2}: RFC 3339 seconds, null when empty
  MicroTime,    // metav1.MicroTime: RFC 3339 with microseconds, null when empty
  Quantity,     // resource.Quantity {string=1}: the string
  IntOrString,  // intstr.IntOrString {type=1, intVal=2, strVal=3}: a number or a string
  FieldsV1,     // metav1.FieldsV1 {Raw=1}: the JSON document it holds
};

enum class ProtobufShape : std::uint8_t {
  Single,
  Repeated,  // a JSON array; numeric elements may come packed or one per tag
  Map,       // map<string, value>: repeated entries {key=1, value=2}, a JSON object
};

struct ProtobufField {
  int number = 0;
  std::string jsonName;  // empty when inlined
  ProtobufValue value = ProtobufValue::String;
  ProtobufShape shape = ProtobufShape::Single;
  bool keepZero = false;
  bool nullWhenUnset = false;
  bool inlined = false;
  std::string message;  // the full proto name of a Message value ("k8s.io.api.core.v1.Container")
};

struct ProtobufMessage {
  std::string name;  // the full proto name
  std::vector<ProtobufField> fields;

  // The field with this number, or nullptr when the table does not list it.
  const ProtobufField* field(int number) const;
};

// The message that encodes objects of `kind` in `apiVersion` ("apps/v1", "Deployment"), or nullptr
// when the table does not cover it. DeleteOptions is accepted in every API version, as the API
// server registers it in every group.
const ProtobufMessage* protobufMessageForKind(std::string_view apiVersion, std::string_view kind);

// The message with this full proto name, or nullptr.
const ProtobufMessage* protobufMessageNamed(std::string_view name);

// Every message of the table, for checks of the table itself.
std::vector<const ProtobufMessage*> allProtobufMessages();

// Every (apiVersion, kind) the table covers, DeleteOptions listed once under "v1".
std::vector<std::pair<std::string, std::string>> protobufKinds();

}  // namespace fakekube
