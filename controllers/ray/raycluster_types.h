// The typed view of a RayCluster (KubeRay's apis/ray/v1/raycluster_types.go) over its JSON
// document.
//
// A RayCluster stays JSON end to end, as every object in fakekube does, so that no field a user
// sent is lost on a status write. These accessors read the parts the controller acts on and give
// KubeRay's defaults where a field is absent: a worker group's replicas reads as unset (the
// controller then uses minReplicas), minReplicas 0, maxReplicas MaxInt32, numOfHosts 1 (the
// CRD's default; KubeRay itself treats a non-defaulted 0 the same way when counting pods).
// Getters never throw: a missing or badly typed field reads as absent.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fakekube/api/json.h"

namespace fakekube::ray {

// Values of status.state (ClusterState).
inline constexpr std::string_view kStateReady = "ready";
inline constexpr std::string_view kStateSuspended = "suspended";

// Condition types (RayClusterConditionType) and reasons.
inline constexpr std::string_view kRayClusterProvisioned = "RayClusterProvisioned";
inline constexpr std::string_view kHeadPodReady = "HeadPodReady";
inline constexpr std::string_view kRayClusterReplicaFailure = "ReplicaFailure";
inline constexpr std::string_view kRayClusterSuspending = "RayClusterSuspending";
inline constexpr std::string_view kRayClusterSuspended = "RayClusterSuspended";
inline constexpr std::string_view kAllPodRunningAndReadyFirstTime =
    "AllPodRunningAndReadyFirstTime";
inline constexpr std::string_view kRayClusterPodsProvisioning = "RayClusterPodsProvisioning";
inline constexpr std::string_view kHeadPodNotFound = "HeadPodNotFound";
inline constexpr std::string_view kHeadPodRunningAndReady = "HeadPodRunningAndReady";
inline constexpr std::string_view kUnknownReason = "Unknown";

// spec.upgradeStrategy.type values.
inline constexpr std::string_view kUpgradeRecreate = "Recreate";
inline constexpr std::string_view kUpgradeNone = "None";

// KUBERAY_VERSION as the operator stamps it on head pods.
inline constexpr std::string_view kKubeRayVersionValue = "nightly";

// Which custom resource created a RayCluster (ray.io/originated-from-crd), CRDType.
enum class CrdType { RayCluster, RayJob, RayService };
CrdType creatorCrdType(const Json& rayCluster);
const char* crdTypeName(CrdType type);

// One entry of spec.workerGroupSpecs (WorkerGroupSpec).
struct WorkerGroupSpec {
  std::string groupName;
  std::optional<std::int32_t> replicas;
  std::optional<std::int32_t> minReplicas;
  std::optional<std::int32_t> maxReplicas;
  std::int32_t numOfHosts = 1;
  bool suspend = false;
  std::vector<std::string> workersToDelete;  // scaleStrategy.workersToDelete
  const Json* raw = nullptr;                 // the group as written (template, rayStartParams...)
};

// spec.workerGroupSpecs, in order.
std::vector<WorkerGroupSpec> workerGroupSpecs(const Json& rayCluster);

// spec.headGroupSpec (an empty object when absent).
const Json& headGroupSpec(const Json& rayCluster);
// <group>.template.spec (an empty object when absent).
const Json& podSpecOf(const Json& group);
// spec.enableInTreeAutoscaling == true (IsAutoscalingEnabled).
bool isAutoscalingEnabled(const Json& rayCluster);
// spec.suspend == true.
bool isSuspendRequested(const Json& rayCluster);
// spec.managedBy if it names a controller other than KubeRay (ManagedByExternalController).
std::optional<std::string> managedByExternalController(const Json& rayCluster);
// spec.upgradeStrategy.type, if set.
std::optional<std::string> upgradeStrategyType(const Json& rayCluster);
// GCS fault tolerance: spec.gcsFaultToleranceOptions set or ray.io/ft-enabled "true".
bool isGcsFaultToleranceEnabled(const Json& rayCluster);

// The desired pods of a group: clamp(replicas, min, max) x numOfHosts; unset replicas -> min;
// unset max -> MaxInt32; a suspended group -> 0 (GetWorkerGroupDesiredReplicas).
std::int32_t workerGroupDesiredReplicas(const WorkerGroupSpec& group);

// object[key] when it is a string, else "" (never throws, whatever the object holds): a
// reference into `object`, which must outlive it.
const std::string& stringField(const Json& object, std::string_view key);

// status.conditions helpers with metav1 semantics (meta.FindStatusCondition and friends).
const Json* findStatusCondition(const Json& conditions, std::string_view type);
bool isStatusConditionTrue(const Json& conditions, std::string_view type);

}  // namespace fakekube::ray
