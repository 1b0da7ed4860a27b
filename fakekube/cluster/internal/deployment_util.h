// The arithmetic of Deployments (pkg/controller/deployment/util): how far a rollout may surge
// and how many pods may be unavailable, the annotations a Deployment leaves on its ReplicaSets,
// proportional scaling, and the Available / Progressing conditions. Pure functions over the JSON
// documents; the DeploymentController (deployment_controller.h) is what acts on them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/sim/clock.h"

namespace fakekube::workload {

inline constexpr std::string_view kRevisionAnnotation = "deployment.kubernetes.io/revision";
inline constexpr std::string_view kDesiredReplicasAnnotation =
    "deployment.kubernetes.io/desired-replicas";
inline constexpr std::string_view kMaxReplicasAnnotation = "deployment.kubernetes.io/max-replicas";

// spec.replicas (1 when unset, the API server's default).
std::int64_t specReplicas(const Json& object);
// An integer field of status (0 when unset).
std::int64_t statusCount(const Json& object, const char* key);
bool isRollingUpdate(const Json& deployment);
// spec.minReadySeconds.
std::int64_t minReadySeconds(const Json& object);

// intstr.GetScaledValueFromIntOrPercent: an int as is, "25%" of `total` rounded up or down.
std::int64_t scaledValue(const Json& intOrPercent, std::int64_t total, bool roundUp);
// MaxSurge / MaxUnavailable of a RollingUpdate Deployment (0 for Recreate). When both resolve to
// 0, maxUnavailable is 1 (ResolveFenceposts); maxUnavailable never exceeds spec.replicas.
std::int64_t maxSurge(const Json& deployment);
std::int64_t maxUnavailable(const Json& deployment);

// The deployment.kubernetes.io/revision of an object (0 when absent or not a number).
std::int64_t revisionOf(const Json& object);
// The highest revision among `replicaSets`.
std::int64_t maxRevision(const std::vector<Json>& replicaSets);

// Sums over ReplicaSets: spec.replicas, status.replicas, status.readyReplicas,
// status.availableReplicas.
std::int64_t sumSpecReplicas(const std::vector<const Json*>& replicaSets);
std::int64_t sumStatus(const std::vector<const Json*>& replicaSets, const char* key);

// Oldest first (creationTimestamp, then name).
void sortByCreation(std::vector<Json*>& replicaSets);

// The desired-replicas annotation of a ReplicaSet, if set.
std::optional<std::int64_t> desiredReplicasAnnotation(const Json& rs);
// Sets desired-replicas and max-replicas; whether anything changed.
bool setReplicasAnnotations(Json& rs, std::int64_t desired, std::int64_t max);
bool replicasAnnotationsNeedUpdate(const Json& rs, std::int64_t desired, std::int64_t max);
// SetNewReplicaSetAnnotations: copies the Deployment's annotations (all but its own bookkeeping
// ones and kubectl's last-applied-configuration), raises the revision to `newRevision`, and for a
// new ReplicaSet sets the replicas annotations. Whether anything changed.
bool setNewReplicaSetAnnotations(const Json& deployment, Json& rs, const std::string& newRevision,
                                 bool exists);

// NewRSNewReplicas: the size the new ReplicaSet may grow to now.
std::int64_t newReplicaSetReplicas(const Json& deployment, std::int64_t allSpecReplicas,
                                   std::int64_t newReplicaSetSpecReplicas);
// IsSaturated: the new ReplicaSet runs all the Deployment's replicas, all available.
bool isSaturated(const Json& deployment, const Json* rs);
// GetProportion: how much of a proportional scale `rs` takes.
std::int64_t proportion(const Json& rs, const Json& deployment, std::int64_t toAdd,
                        std::int64_t added);

// --- conditions (DeploymentCondition: type, status, lastUpdateTime, lastTransitionTime,
// reason, message) ---
Json newDeploymentCondition(std::string_view type, std::string_view status, std::string_view reason,
                            std::string_view message, TimePoint now);
const Json* deploymentCondition(const Json& status, std::string_view type);
// SetDeploymentCondition: nothing when status and reason are the same; otherwise replaces the
// condition (moved to the end), keeping lastTransitionTime when the status did not change.
void setDeploymentCondition(Json& status, Json condition);
void removeDeploymentCondition(Json& status, std::string_view type);

bool hasProgressDeadline(const Json& deployment);
// DeploymentComplete / DeploymentProgressing / DeploymentTimedOut of util.
bool deploymentComplete(const Json& deployment, const Json& newStatus);
bool deploymentProgressing(const Json& deployment, const Json& newStatus);
bool deploymentTimedOut(const Json& deployment, const Json& newStatus, TimePoint now);

}  // namespace fakekube::workload
