// The typed view of a RayService (KubeRay's apis/ray/v1/rayservice_types.go) over its JSON
// document: KubeRay's names for its conditions, reasons and upgrade types, and the accessors the
// RayService controller reads the spec and status through. As with the RayCluster and the RayJob,
// the RayService stays JSON end to end (a status write never drops a field the user sent); the
// accessors never throw (a badly typed field reads as absent).
//
// The status the controller keeps (RayServiceStatuses):
//   conditions            Ready, UpgradeInProgress, RollbackInProgress, Suspending, Suspended,
//                         each with observedGeneration (metav1.Condition)
//   serviceStatus         "Running" when Ready is True, else absent (NotRunning is "")
//   activeServiceStatus / pendingServiceStatus
//                         rayClusterName, rayClusterStatus (a copy of the cluster's status),
//                         applicationStatuses {app: {status, message, serveDeploymentStatuses}},
//                         and during NewClusterWithIncrementalUpgrade targetCapacity,
//                         trafficRoutedPercent, lastTrafficMigratedTime
//   numServeEndpoints     ready endpoints of the serve Service (EndpointSlices)
//   observedGeneration, lastUpdateTime
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fakekube/api/json.h"
#include "fakekube/sim/clock.h"

namespace fakekube::ray {

// ServiceStatus: Running, or NotRunning ("").
inline constexpr std::string_view kServiceStatusRunning = "Running";

// spec.upgradeStrategy.type (RayServiceUpgradeType).
inline constexpr std::string_view kRayServiceNewCluster = "NewCluster";
inline constexpr std::string_view kRayServiceNewClusterWithIncrementalUpgrade =
    "NewClusterWithIncrementalUpgrade";
inline constexpr std::string_view kRayServiceUpgradeNone = "None";

// Ray Serve's application statuses (ApplicationStatusEnum) and deployment statuses.
inline constexpr std::string_view kApplicationNotStarted = "NOT_STARTED";
inline constexpr std::string_view kApplicationDeploying = "DEPLOYING";
inline constexpr std::string_view kApplicationRunning = "RUNNING";
inline constexpr std::string_view kApplicationDeployFailed = "DEPLOY_FAILED";
inline constexpr std::string_view kApplicationDeleting = "DELETING";
inline constexpr std::string_view kApplicationUnhealthy = "UNHEALTHY";
inline constexpr std::string_view kDeploymentUpdating = "UPDATING";
inline constexpr std::string_view kDeploymentHealthy = "HEALTHY";
inline constexpr std::string_view kDeploymentUnhealthy = "UNHEALTHY";

// Condition types (RayServiceConditionType).
inline constexpr std::string_view kRayServiceReady = "Ready";
inline constexpr std::string_view kUpgradeInProgress = "UpgradeInProgress";
inline constexpr std::string_view kRollbackInProgress = "RollbackInProgress";
inline constexpr std::string_view kRayServiceSuspending = "Suspending";
inline constexpr std::string_view kRayServiceSuspended = "Suspended";

// Condition reasons (RayServiceConditionReason).
inline constexpr std::string_view kRayServiceInitializing = "Initializing";
inline constexpr std::string_view kRayServiceInitializingTimeout = "InitializingTimeout";
inline constexpr std::string_view kZeroServeEndpoints = "ZeroServeEndpoints";
inline constexpr std::string_view kNonZeroServeEndpoints = "NonZeroServeEndpoints";
inline constexpr std::string_view kBothActivePendingClustersExist =
    "BothActivePendingClustersExist";
inline constexpr std::string_view kNoPendingCluster = "NoPendingCluster";
inline constexpr std::string_view kNoActiveCluster = "NoActiveCluster";
inline constexpr std::string_view kRayServiceValidationFailed = "ValidationFailed";
inline constexpr std::string_view kSuspendRequested = "SuspendRequested";
inline constexpr std::string_view kSuspendInProgress = "SuspendInProgress";
inline constexpr std::string_view kSuspendComplete = "SuspendComplete";
inline constexpr std::string_view kRayServiceResumed = "RayServiceResumed";
inline constexpr std::string_view kDesiredClusterSpecChanged = "DesiredClusterSpecChanged";

// The annotation that bounds how long a RayService may stay Initializing
// (RayServiceInitializingTimeoutAnnotation): a Go duration ("5m") or whole seconds ("300").
inline constexpr std::string_view kRayServiceInitializingTimeoutAnnotation =
    "ray.io/initializing-timeout";

// The Serve application name Ray reports as "" (DefaultServeAppName).
inline constexpr std::string_view kDefaultServeAppName = "default";

// Spec accessors.
std::string serveConfigV2(const Json& rayService);
bool isRayServiceSuspendRequested(const Json& rayService);
bool excludeHeadPodFromServeSvc(const Json& rayService);
// spec.rayClusterDeletionDelaySeconds, if set.
std::optional<std::int64_t> rayClusterDeletionDelaySeconds(const Json& rayService);
// spec.upgradeStrategy.type, if set.
std::optional<std::string> rayServiceUpgradeType(const Json& rayService);
// IsIncrementalUpgradeEnabled: the RayServiceIncrementalUpgrade feature gate is on
// (OperatorOptions::rayServiceIncrementalUpgrade, Beta and on by default upstream) and the type is
// NewClusterWithIncrementalUpgrade.
bool isIncrementalUpgradeEnabled(const Json& rayService, bool featureGate);

// status.activeServiceStatus.rayClusterName / status.pendingServiceStatus.rayClusterName.
std::string activeClusterName(const Json& rayService);
std::string pendingClusterName(const Json& rayService);

// The condition of `type` in status.conditions is True.
bool isRayServiceConditionTrue(const Json& rayService, std::string_view type);
// The condition of `type`, or nullptr.
const Json* findRayServiceCondition(const Json& rayService, std::string_view type);
// setCondition: metav1.SetStatusCondition with observedGeneration = status.observedGeneration
// (lastTransitionTime moves only when the status does).
void setRayServiceCondition(Json& rayService, std::string_view type, std::string_view status,
                            std::string_view reason, std::string_view message, TimePoint now);
void removeRayServiceCondition(Json& rayService, std::string_view type);

// InconsistentRayServiceStatuses: serviceStatus, numServeEndpoints or conditions differ, or the
// active or pending status differs in rayClusterName, applications (status, message,
// deployments), targetCapacity, trafficRoutedPercent or lastTrafficMigratedTime. A changed
// rayClusterStatus alone is not written (it is only for observability).
bool inconsistentRayServiceStatuses(const Json& oldStatus, const Json& newStatus);

// The ray.io/initializing-timeout annotation: nullopt when absent or empty; an error message
// (validateInitializingTimeout's) when it is not a positive Go duration or positive integer.
struct InitializingTimeout {
  std::optional<Duration> timeout;
  std::optional<std::string> invalid;
};
InitializingTimeout initializingTimeout(const Json& rayService);

// Go's time.Duration.String(): "1m30s", "300ms", "2h0m0s".
std::string goDurationString(Duration d);

}  // namespace fakekube::ray
