// Server-side apply: PATCH with Content-Type application/apply-patch+yaml, what
// `kubectl apply --server-side` and controller-runtime's client.Apply send.
//
// The body is a partial object, the "applied configuration": the fields its field manager wants
// set. The API server creates the object from it when it does not exist, and otherwise merges it
// into the live object: objects merge key by key, null removes a field, scalars replace, and lists
// follow the kind's PatchSchema: a list-map (containers by name, conditions by type, a CRD's
// x-kubernetes-list-type: map) merges element by element on its keys, a set (finalizers,
// x-kubernetes-list-type: set) gains the applied values, and any other list is replaced.
//
// Who owns which field, the conflicts between managers and the removal of what a manager no
// longer applies are managed_fields.h's; it calls pruneAppliedConfiguration below. Merged list
// elements keep the live order, new ones are appended in the applied order.
#pragma once

#include <string_view>

#include "fakekube/api/internal/patch_schema.h"
#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {

// The applied configuration in an apply body: JSON, or YAML typed as Kubernetes types it (see
// yaml.h). An empty body is an empty object. Anything else than an object is a 400 BadRequest,
// "error decoding YAML: ...", as is text that does not parse.
Result<Json> parseAppliedConfiguration(std::string_view body);

// Merges `applied` into `live` in place under `schema`.
void mergeAppliedConfiguration(Json& live, const Json& applied, const PatchSchema& schema);

// Removes from `merged` each field, list-map element and set element in `lastApplied` (the
// fields a manager applied last time, a FieldsV1 set) that `owned` (every manager's set now, the
// manager's new configuration included) does not hold: what the manager stopped applying and
// nobody else owns (structured-merge-diff's Updater.prune). A field removed takes what is below
// it; an owned field is kept and looked into.
void pruneAppliedConfiguration(Json& merged, const Json& lastApplied, const Json& owned,
                               const PatchSchema& schema);

}  // namespace fakekube
