// What the RayCluster controller refuses to act on (KubeRay's utils/validation.go). Each check
// answers the error message KubeRay gives, or nothing.
//
// rayClusterReconcile reacts to a failure as KubeRay does: a Warning Event
// (InvalidRayClusterMetadata / InvalidRayClusterSpec / InvalidRayClusterStatus) and, for metadata,
// spec and upgrade strategy, no requeue (a user has to change the object, which triggers a new
// round); an invalid status is an error with the usual 2 s requeue.
//
//   metadata   name at most 53 characters and a DNS-1035 label
//   spec       the head and every worker group have a container; without the autoscaler each
//              group sets minReplicas and maxReplicas; neither is negative; min <= max;
//              rayStartParams["labels"] is refused (use the group's labels) and those labels
//              must be valid; resources not both in rayStartParams and `resources`; a group
//              cannot be suspended with the autoscaler on; RAY_enable_autoscaler_v2 needs the
//              autoscaler
//   upgrade    spec.upgradeStrategy.type is Recreate or None, and only on a RayCluster created
//              directly (not by a RayJob or RayService)
//   status     RayClusterSuspending and RayClusterSuspended are not both True
// Not modelled: the GCS fault tolerance, auth, TLS, network policy, history server and
// idle-timeout rules (the controller does not model those features).
#pragma once

#include <optional>
#include <string>

#include "fakekube/api/json.h"

namespace fakekube::ray {

std::optional<std::string> validateRayClusterMetadata(const Json& rayCluster);
std::optional<std::string> validateRayClusterSpec(const Json& rayCluster);
std::optional<std::string> validateRayClusterUpgradeOptions(const Json& rayCluster);
std::optional<std::string> validateRayClusterStatus(const Json& rayCluster);

}  // namespace fakekube::ray
