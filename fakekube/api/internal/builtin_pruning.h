// Pruning of the fields a built-in kind's Go type does not have.
//
// kube-apiserver decodes a built-in object's JSON into its Go struct, so a member the struct does
// not declare — `"bogus": 1` at the top, `spec.containers[0].imagePullPolizy`, `metadata.labelz`
// — never reaches storage: it is dropped, at any depth. What the request hears of it depends on
// the request's fieldValidation (sigs.k8s.io/json's strict decoding names each one, e.g.
// `unknown field "spec.containers[0].bogus"`: a struct field or map key after a dot, a list index
// in brackets): Warn (the default) answers a warning each, Strict refuses the request, Ignore
// says nothing. Server-side apply is stricter: structured-merge-diff refuses an applied
// configuration with an undeclared field whatever fieldValidation says.
//
// The fields come from the table of the built-in kinds' OpenAPI schemas (builtin_schema_table.h,
// Kubernetes v1.32), compiled once per process into one tree of types shared by every kind: a
// struct's fields sorted by name, so that pruning an object is a single walk of its members
// beside its type's fields (both sorted in byte order), without a lookup per member. Fields of
// free-form type (`object`: IntOrString, RawExtension, managedFields' fieldsV1, a CRD's JSON
// values) keep whatever they hold, and so does a value whose JSON type is not the field's (the
// type check of typed_decoding.h reports those). Kinds the table has no schema for are left
// alone: nothing is pruned from them. Custom resources are pruned by their own schema
// (structural_schema.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/internal/patch_schema.h"
#include "fakekube/api/internal/structural_schema.h"
#include "fakekube/api/json.h"

namespace fakekube {

// The most unknown fields one decoding names (sigs.k8s.io/json keeps its first 100 strict
// errors); pruning still drops every one.
inline constexpr std::size_t kMaxUnknownFieldsReported = 100;

// Whether the table has a schema for `kind` in `apiVersion` ("apps/v1", "v1").
bool hasBuiltinSchema(std::string_view apiVersion, std::string_view kind);

// Drops from `object` (a whole object of `kind`) every member its type does not have; answers
// the paths of what it dropped as strict decoding names them, in member order, at most
// kMaxUnknownFieldsReported. Leaves objects of kinds without a schema untouched.
std::vector<std::string> pruneUnknownFields(std::string_view apiVersion, std::string_view kind,
                                            Json& object);

// The members of an applied configuration its type does not declare, as structured-merge-diff's
// typed conversion names them: every step after a dot, a list-map element by its keys as
// `schema` gives them (`.spec.containers[name="c"].imagePullPolizy`), any other list element by
// index (`[0]`). The object is not changed.
std::vector<std::string> undeclaredFields(std::string_view apiVersion, std::string_view kind,
                                          const Json& applied, const PatchSchema& schema);

// `path`, a member of the applied configuration `applied`, as structured-merge-diff's typed
// conversion names it (the same form as undeclaredFields): how a custom resource's schema,
// pruning a copy, names what its definition does not declare.
std::string appliedFieldPath(const Json& applied, const MemberPath& path,
                             const PatchSchema& schema);

}  // namespace fakekube
