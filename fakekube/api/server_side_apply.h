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
// What is not modelled yet: field ownership (metadata.managedFields is neither written nor read),
// so apply never reports a conflict with another manager (`force` changes nothing) and a field
// dropped from a manager's applied configuration is left in place rather than removed; merged
// list elements keep the live order, new ones are appended in the applied order.
#pragma once

#include <string_view>

#include "fakekube/api/json.h"
#include "fakekube/api/patch_schema.h"
#include "fakekube/api/status.h"

namespace fakekube {

// The applied configuration in an apply body: JSON, or YAML typed as Kubernetes types it (see
// yaml.h). An empty body is an empty object. Anything else than an object is a 400 BadRequest,
// "error decoding YAML: ...", as is text that does not parse.
Result<Json> parseAppliedConfiguration(std::string_view body);

// Merges `applied` into `live` in place under `schema`.
void mergeAppliedConfiguration(Json& live, const Json& applied, const PatchSchema& schema);

}  // namespace fakekube
