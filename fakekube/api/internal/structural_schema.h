// StructuralSchema: one CustomResourceDefinition version's openAPIV3Schema, compiled once, doing
// to every custom resource what kube-apiserver does with a structural schema.
//
// kube-apiserver never stores or serves a custom resource as the client sent it. Each time it
// decodes one (a create, an update or patch result, and each read from storage) it
//   1. prunes fields the schema does not know (k8s.io/apiextensions-apiserver schema/pruning):
//      an object keeps only its `properties`, or every key when it has `additionalProperties`;
//      `x-kubernetes-preserve-unknown-fields` keeps unknown keys (while still pruning below the
//      properties it names); `x-kubernetes-embedded-resource` keeps apiVersion, kind and
//      metadata; the root is an embedded resource; a metadata object keeps only ObjectMeta's
//      fields. An `x-kubernetes-int-or-string` or untyped schema without properties drops the
//      keys of an object found there, as upstream does;
//   2. drops null values where the schema says neither nullable nor default;
//   3. fills defaults (schema/defaulting): a missing property, or a null one that is not
//      nullable, takes the schema's `default` (itself pruned when the schema is compiled), and
//      defaulting continues inside it. Defaults live under properties, items and
//      additionalProperties only, so a preserve-unknown subtree without properties gets none.
// and on a write it validates the result (pkg/apiserver/validation over kube-openapi's
// validator): type (integer is not number, but 2.0 is an integer), nullable, enum, required,
// minimum/maximum and their exclusive forms, multipleOf, maxLength/minLength (counted in
// characters), pattern (ECMAScript syntax), maxItems/minItems, uniqueItems,
// maxProperties/minProperties and the cheap formats (date-time, date, byte, uuid, ipv4); a string
// longer than 16 KiB fails any pattern (std::regex would recurse once per character). Errors
// carry kube-apiserver's field paths and messages, e.g.
//   spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"
//   spec.mode: Unsupported value: "x": supported values: "a", "b"
//   spec.size: Invalid value: 9: spec.size in body should be less than or equal to 5
//   spec.name: Required value
// An update is validated with ratcheting (CRDValidationRatcheting, on by default since 1.30): a
// value equal to the replaced object's value at the same path (same types: 1 is not 1.0) is not
// checked, so a field made invalid by a later schema change, and left as it was, does not fail
// the update. Object members correlate by key; list items do not (a list is ratcheted only when
// it is unchanged as a whole, where kube-apiserver also correlates the items of map and set
// lists). A status write thus checks the status it brings and the root, not the unchanged spec.
// allOf/anyOf/oneOf/not and x-kubernetes-validations (CEL) are not implemented: a schema using
// them is accepted and those keywords are ignored.
//
// The compiled form is a flat vector of nodes built without recursion. The walks over an object
// recurse only along the schema, whose nesting compile() bounds (kMaxDepth), so neither a deep
// document nor a deep schema can exhaust the stack. Thread-safe once compiled (immutable).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {

// A member's place in a document: its keys and list indexes from the root.
using MemberPath = std::vector<std::variant<std::string, std::size_t>>;

// A path as kube-apiserver's decoding names an unknown field: keys after dots, indexes in
// brackets ("spec.workerGroupSpecs[0].bogus").
std::string strictDecodingPath(const MemberPath& path);

class StructuralSchema {
 public:
  // Schemas nested deeper than this are refused: far beyond what any generated CRD has (a
  // RayJob's pod templates reach about 20), and it bounds every walk's recursion.
  static constexpr std::size_t kMaxDepth = 256;

  // Compiles an openAPIV3Schema; nullptr when it is not one, with the reasons appended to
  // `errors` at `field` and below (the CustomResourceDefinition's
  // spec.versions[i].schema.openAPIV3Schema).
  static std::shared_ptr<const StructuralSchema> compile(const Json& openAPIV3Schema,
                                                         std::string_view field,
                                                         FieldErrors& errors);
  ~StructuralSchema();
  StructuralSchema(const StructuralSchema&) = delete;
  StructuralSchema& operator=(const StructuralSchema&) = delete;

  // Steps 1-3 above on a whole custom resource. Returns whether anything changed. With
  // `unknownFields`, appends the path of each member step 1 dropped, as the apiextensions
  // decoder tracks them for fieldValidation (the unknown members of metadata, and every key
  // of an object where the schema has none, included); the walk is the same either way.
  bool decode(Json& object, std::vector<MemberPath>* unknownFields = nullptr) const;
  // Validation of a decoded custom resource, in kube-apiserver's order and wording.
  FieldErrors validate(const Json& object) const;
  // The same for an update replacing `old` (decoded too), with ratcheting (above).
  FieldErrors validateUpdate(const Json& object, const Json& old) const;
  // The same for a write of the status subresource: only `.status` is validated, against the
  // schema's `status` property, as kube-apiserver's status strategy does (the rest of the object
  // is the stored one, which its own write validated). Nothing when the schema declares no status.
  FieldErrors validateStatusUpdate(const Json& object, const Json& old) const;
  // The schema as the definition wrote it (to tell whether a definition's update changed it).
  const Json& source() const;
  // Whether any default is declared (reads of objects stored earlier need decoding only then,
  // or when the schema prunes).
  bool hasDefaults() const;

 private:
  struct Compiled;
  explicit StructuralSchema(std::unique_ptr<Compiled> compiled);
  std::unique_ptr<Compiled> compiled_;
};

}  // namespace fakekube
