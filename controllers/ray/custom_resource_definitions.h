// The CustomResourceDefinitions the KubeRay operator serves: ray.io/v1 RayCluster, RayJob and
// RayService, as a real cluster has them after KubeRay's CRDs are installed (Namespaced, v1 served
// and stored, v1alpha1 served, the status subresource, KubeRay's printer columns and schemas with
// its defaults). The schemas are the project's own: every field the controllers read or write,
// with KubeRay's types and defaults; pod templates keep unknown fields. The API server prunes,
// defaults and validates RayClusters, RayJobs and RayServices by them (docs/custom-resources.md).
//
// installCustomResourceDefinitions() creates them, or leaves an existing definition alone (a
// user may have applied KubeRay's own CRD files, which then govern defaulting and pruning).
#pragma once

#include <vector>

#include "fakekube/api/group_version.h"
#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {
class Client;
}

namespace fakekube::ray {

inline const GroupVersionResource kRayClusters{"ray.io", "v1", "rayclusters"};
inline const GroupVersionResource kRayJobs{"ray.io", "v1", "rayjobs"};
inline const GroupVersionResource kRayServices{"ray.io", "v1", "rayservices"};

// rayclusters.ray.io, rayjobs.ray.io and rayservices.ray.io as apiextensions.k8s.io/v1 objects.
Json rayClusterCustomResourceDefinition();
Json rayJobCustomResourceDefinition();
Json rayServiceCustomResourceDefinition();

// Creates each definition that does not exist yet; AlreadyExists is not an error.
Result<void> installCustomResourceDefinitions(Client& client);
// The same for the given definitions only.
Result<void> installCustomResourceDefinitions(Client& client, const std::vector<Json>& definitions);

}  // namespace fakekube::ray
