// What the RayJob controller refuses to act on (KubeRay's utils/validation.go: ValidateRayJob*).
// Each check answers KubeRay's error message, or nothing. The controller turns a failure into a
// Warning Event (InvalidRayJobMetadata / InvalidRayJobSpec / InvalidRayJobStatus, message
// "<ns>/<name>: <error>") and status jobDeploymentStatus = reason = ValidationFailed, message =
// the error.
//
//   metadata  name at most 47 characters (the RayCluster it creates is <name>-<5 random>, within
//             the RayCluster's 53) and a DNS-1035 label
//   spec      suspend needs shutdownAfterJobFinishes; ttlSecondsAfterFinished >= 0 and only with
//             shutdownAfterJobFinishes; deletionStrategy: either both onSuccess and onFailure
//             with a policy, or deletionRules (not with shutdownAfterJobFinishes), each rule with
//             exactly one of jobStatus / jobDeploymentStatus, ttlSeconds >= 0, no duplicate
//             (condition, policy), TTLs non-decreasing DeleteWorkers <= DeleteCluster <=
//             DeleteSelf, no DeleteCluster / DeleteWorkers with clusterSelector, no
//             DeleteWorkers with the autoscaler; no suspend with clusterSelector; rayClusterSpec
//             or clusterSelector; clusterSelector needs a non-empty ray.io/cluster, no
//             SidecarMode, no backoffLimit > 0; InteractiveMode has no backoffLimit > 0;
//             SidecarMode has no submitterPodTemplate or submitterConfig and a head
//             restartPolicy Never or unset; the rayClusterSpec passes the RayCluster's spec
//             checks; runtimeEnvYAML parses; activeDeadlineSeconds and preRunningDeadlineSeconds
//             > 0; backoffLimit >= 0
//   status    Waiting only in InteractiveMode
// The RayJobDeletionPolicy feature gate is taken as on (deletionStrategy is accepted).
#pragma once

#include <optional>
#include <string>

#include "fakekube/api/json.h"

namespace fakekube::ray {

std::optional<std::string> validateRayJobMetadata(const Json& rayJob);
std::optional<std::string> validateRayJobSpec(const Json& rayJob);
std::optional<std::string> validateRayJobStatus(const Json& rayJob);

}  // namespace fakekube::ray
