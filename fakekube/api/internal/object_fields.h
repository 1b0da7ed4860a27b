// ObjectFields: the fields of a document as FieldSets (field_set.h), the two walks field
// ownership is built from (structured-merge-diff's typed/tofieldset.go and typed/compare.go, with
// a PatchSchema in place of the OpenAPI models):
//
//  - fieldsOf: the fields an applied configuration sets, which its manager then owns. Every leaf
//    (a scalar, an atomic list or object, a null, an empty object), every list-map element
//    (`k:{"name":"c"}`, a member beside its own fields) and set element (`v:"a"`). An object's
//    own node is not a member (a struct field is owned through its leaves);
//  - compare: what changed between two versions of an object, as one walk over both: the fields
//    added or modified (`changed`) and those removed (`removed`). A node that appears or goes
//    is itself changed or removed, with every node below it (`f:labels` gains "." when the
//    labels map is new).
//
// Both leave out what kube-apiserver never records (StripMetaManager): apiVersion, kind and the
// metadata the server keeps (name, namespace, uid, resourceVersion, generation,
// creationTimestamp, selfLink, managedFields), and the metadata node itself. A Scope leaves out
// what a write cannot change: a kind's status on the main resource (its strategy's reset
// fields), everything but the status on the status subresource.
//
// An object created by an update is compared with the zero value of its Go type
// (zeroValue), as kube-apiserver compares it with `new(Deployment)`: the nested structs a Go
// value always has (spec, spec.template, ...) exist there, so creating them is not owning them
// as a whole, while a labels map or a list-map element the object brings is.
#pragma once

#include <string_view>

#include "fakekube/api/internal/patch_schema.h"
#include "fakekube/api/json.h"

namespace fakekube::object_fields {

// The part of an object a request writes.
struct Scope {
  // A top-level member left out ("status" on the main resource of a kind with a status
  // subresource), or empty.
  std::string_view ignored;
  // The only top-level member considered ("status" on the status subresource), or empty.
  std::string_view only;
};

// The fields of `object` (an applied configuration), as its manager's set.
Json fieldsOf(const Json& object, const PatchSchema& schema, const Scope& scope);

// What changed from `before` to `after` (both objects): the fields added or modified into
// `changed`, those removed into `removed` (both FieldsV1 sets, made empty first). `zero` (the
// kind's zeroValue) stands in for the nested structs `before` lacks, as the Go value has them.
void compare(const Json& before, const Json& after, const Json& zero, const PatchSchema& schema,
             const Scope& scope, Json& changed, Json& removed);

// The zero value of a built-in kind's Go type as the server's converter renders it (the nested
// structs and non-omitempty lists it always has); an empty object for custom resources.
const Json& zeroValue(std::string_view group, std::string_view kind, bool custom);

}  // namespace fakekube::object_fields
