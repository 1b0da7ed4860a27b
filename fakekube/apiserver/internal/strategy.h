// Per-kind rules of the API server (the "strategies" of k8s.io/kubernetes/pkg/registry): what a
// create resets and defaults, what counts as a generation change, and the kind-specific checks.
#pragma once

#include "fakekube/api/json.h"
#include "fakekube/api/resource_registry.h"
#include "fakekube/api/status.h"

namespace fakekube::strategy {

// Before a create is validated, once the server set name and creationTimestamp: drops status for
// kinds with a status subresource (pods start Pending, namespaces Active, CRDs Established), sets
// generation, and fills the defaults the real API server fills (pod restartPolicy, Deployment
// replicas, imagePullPolicy from the image's tag, ...).
void prepareForCreate(const ResourceInfo& info, Json& object);

// Once the created object is valid and has its uid: what is made from the uid (a Job's
// generated selector and the labels its pods carry).
void prepareWithUid(const ResourceInfo& info, Json& object);

// Before an update is validated: fills the defaults the decoder fills into every body (those of
// pod specs, Services and workloads, as prepareForCreate does), and what the server allocated and
// a client may omit (a Service's cluster IPs).
void prepareForUpdate(const ResourceInfo& info, Json& updated, const Json& old);

// Whether an update from `old` to `updated` bumps metadata.generation.
bool generationChanged(const ResourceInfo& info, const Json& updated, const Json& old);

// Kind-specific validation beyond object metadata.
FieldErrors validateCreate(const ResourceInfo& info, const Json& object);
FieldErrors validateUpdate(const ResourceInfo& info, const Json& updated, const Json& old);

}  // namespace fakekube::strategy
