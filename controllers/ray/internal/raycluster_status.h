// The status of a RayCluster (KubeRay's calculateStatus, the counting helpers of utils/util.go and
// InconsistentRayClusterStatus of utils/consistency.go).
//
// calculateStatus computes the status of the RayCluster as the round read it, from what the cache
// shows now, and answers the body of the status write: the RayCluster without its spec (a status
// write takes everything but .status from the stored object) and with the new status:
//   ReplicaFailure      True with the error's tag as reason (FailedCreateWorkerPod, ...) when the
//                       round failed with a tagged error; removed when the round had no error
//   observedGeneration  metadata.generation
//   counts              from every pod labelled ray.io/cluster=<name>: readyWorkerReplicas
//                       (workers Running with PodReady True), availableWorkerReplicas (workers
//                       Running), desiredWorkerReplicas (sum of the groups' desired pods),
//                       min/maxWorkerReplicas (x numOfHosts, suspended groups skipped)
//   desired resources   desiredCPU/Memory/GPU/TPU: the head's plus replicas x numOfHosts of each
//                       group's pod (requests, else limits), as quantities
//   state               "ready" when the round had no error, the pods number desired + 1 and all
//                       run (CheckAllPodsRunning: at least one pod, all Running, any PodReady
//                       condition True); "suspended" when spec.suspend and no pod is left; the
//                       state is otherwise kept (a ready cluster that lost a worker stays ready)
//   HeadPodReady        False/HeadPodNotFound without a head pod, else the head's PodReady
//   RayClusterProvisioned  until it is True (and the cluster is not Suspended): True /
//                       AllPodRunningAndReadyFirstTime once all pods run, else False /
//                       RayClusterPodsProvisioning. Once True it is not recomputed, except that
//                       suspending resets it.
//   RayClusterSuspending / RayClusterSuspended  the suspend state machine: spec.suspend sets
//                       Suspending; when no pod is left Suspending turns False and Suspended True;
//                       spec.suspend false turns Suspended False
//   endpoints, head     the head Service's named ports (nodePort, else targetPort); the head
//                       pod's IP and name; the Service's clusterIP (the head pod's IP when it is
//                       headless) and name. No head Service is an error.
//   lastUpdateTime      now; stateTransitionTimes[state] = now when the state changed
// Conditions follow metav1's SetStatusCondition: lastTransitionTime changes only when the status
// does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/api/object.h"
#include "fakekube/api/status.h"
#include "fakekube/sim/clock.h"

namespace fakekube::ray {

// A failed step of a round: the error, and the ReplicaFailure reason it is tagged with ("" for
// untagged errors).
struct ReconcileFailure {
  Status status;
  std::string replicaFailureReason;
};

// metav1 SetStatusCondition on a conditions array (created when null).
void setStatusCondition(Json& conditions, std::string_view type, std::string_view status,
                        std::string_view reason, std::string_view message, TimePoint now);
void removeStatusCondition(Json& conditions, std::string_view type);

// FindRayClusterSuspendStatus: "RayClusterSuspending", "RayClusterSuspended" or "".
std::string findRayClusterSuspendStatus(const Json& rayCluster);

// CheckAllPodsRunning.
bool checkAllPodsRunning(const std::vector<ObjectPtr>& pods);

// Sums of resource quantities, rendered as Kubernetes renders a Quantity ("2", "500m", "3Gi").
struct DesiredResources {
  std::string cpu = "0";
  std::string memory = "0";
  std::string gpu = "0";
  std::string tpu = "0";
};
DesiredResources calculateDesiredResources(const Json& rayCluster);

// The new RayCluster (a copy of `instance` with the new status), or the error that stopped the
// computation (no head Service, several head pods). `pods` are the pods labelled
// ray.io/cluster=<name> in its namespace and `headServices` the Services labelled as its head,
// as the cache shows them now (the controller lists them; KubeRay lists them inside).
Result<Json> calculateStatus(const Json& instance, const ReconcileFailure* reconcileError,
                             const std::vector<ObjectPtr>& pods,
                             const std::vector<ObjectPtr>& headServices, TimePoint now);

// InconsistentRayClusterStatus: state, reason, the five replica counts, endpoints, head or
// conditions differ. Timestamps and observedGeneration alone do not cause a write.
bool inconsistentRayClusterStatus(const Json& oldStatus, const Json& newStatus);

}  // namespace fakekube::ray
