// NewClusterWithIncrementalUpgrade: KubeRay's RayService upgrade that moves traffic to the new
// cluster in steps through a Gateway API Gateway and HTTPRoute (gateway_api.h), scaling each
// cluster's Serve applications by `target_capacity` as it goes (the design of
// ray-project/enhancements' 2024-12-4-ray-service-incr-upgrade). These are KubeRay's helpers for
// it (utils/util.go) and the pure parts of the controller's steps (rayservice_controller.go); the
// steps that read and write objects are RayServiceReconciler's (rayservice_reconciler.h,
// rayservice_incremental_upgrade.cpp).
//
// spec.upgradeStrategy:
//   type: NewClusterWithIncrementalUpgrade
//   clusterUpgradeOptions:
//     gatewayClassName   the Gateway's class (an implementation installed by the admin)
//     maxSurgePercent    how far target_capacity moves in one step (default 100)
//     stepSizePercent    how far the traffic moves in one step (<= maxSurgePercent)
//     intervalSeconds    the least time between two traffic steps
// status.activeServiceStatus / pendingServiceStatus, each:
//   targetCapacity           the target_capacity sent to that cluster's Serve config
//   trafficRoutedPercent     its backendRef's weight in the HTTPRoute
//   lastTrafficMigratedTime  when that weight last changed
//
// The objects: <rayservice>-gateway (one HTTP listener on port 80, the options' class),
// <rayservice>-httproute (parent the Gateway; one rule, path prefix "/", backendRefs the active
// and the pending cluster's <cluster>-serve-svc with their weights), and a serve Service per
// cluster, <cluster>-serve-svc, owned by its RayCluster.
//
// The steps, one per reconcile while the upgrade lasts (the pending cluster starts at target
// capacity 0 and traffic 0; the active one at 100 and 100):
//   1. the pending cluster's target capacity rises by maxSurgePercent (only when the traffic it
//      gets has caught up with its capacity, and while the two capacities add up to <= 100);
//   2. its traffic rises by stepSizePercent, capped by its capacity, once intervalSeconds passed
//      since its last change (and only while its applications all run);
//   3. with the capacities above 100 in total, the active cluster's capacity falls by
//      maxSurgePercent;
// until the active capacity is 0 and the pending traffic 100: the pending cluster is promoted,
// and the old one deleted after rayClusterDeletionDelaySeconds.
//
// Rollback: a rayClusterConfig changed back to the active cluster's (or to a third spec) while
// the upgrade runs sets RollbackInProgress True / DesiredClusterSpecChanged; the same steps run
// backwards (traffic back to the active cluster, its capacity back to 100, the pending one's to
// 0), then the pending cluster is dropped (UpgradeInProgress False / NoPendingCluster) and a
// third spec starts a fresh upgrade.
//
// Difference from upstream: InconsistentRayServiceStatuses compares targetCapacity,
// trafficRoutedPercent and lastTrafficMigratedTime by value; upstream compares the Go pointers,
// so it writes the status on every round once they are set.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"
#include "fakekube/sim/clock.h"

namespace fakekube::ray {

// GatewayListenerPortName and DefaultGatewayListenerPort.
inline constexpr std::string_view kGatewayListenerPortName = "http";
inline constexpr int kDefaultGatewayListenerPort = 80;

// spec.upgradeStrategy.clusterUpgradeOptions (absent fields: maxSurgePercent 100, the CRD's
// default; the others unset).
struct ClusterUpgradeOptions {
  std::int32_t maxSurgePercent = 100;
  std::optional<std::int32_t> stepSizePercent;
  std::optional<std::int32_t> intervalSeconds;
  std::string gatewayClassName;
};
// GetRayServiceClusterUpgradeOptions: nullopt when the RayService has none.
std::optional<ClusterUpgradeOptions> getRayServiceClusterUpgradeOptions(const Json& rayService);
// ValidateClusterUpgradeOptions: the message of the first rule broken, or nullopt.
std::optional<std::string> validateClusterUpgradeOptions(const Json& rayService);

// GenerateServeServiceName: "<name>-serve-svc".
std::string generateServeServiceName(const std::string& name);
// RayServiceGatewayNamespacedName / RayServiceHTTPRouteNamespacedName: the names.
std::string rayServiceGatewayName(const Json& rayService);
std::string rayServiceHttpRouteName(const Json& rayService);

// A status.*ServiceStatus integer field (targetCapacity, trafficRoutedPercent), if set.
std::optional<std::int32_t> serviceStatusPercent(const Json& rayService, std::string_view side,
                                                 std::string_view field);

// IsGatewayReady: Accepted and Programmed True.
bool isGatewayReady(const Json& gateway);
// IsHTTPRouteReady: the status.parents entry of `gateway` has Accepted and ResolvedRefs True.
bool isHttpRouteReady(const Json& gateway, const Json& httpRoute);
// IsGatewayEqual / IsHTTPRouteEqual: only the fields the controller sets (class and listeners'
// name, protocol, port; hostnames, parentRefs, matches, filters, backendRefs' name, namespace,
// weight, port).
bool isGatewayEqual(const Json& existing, const Json& desired);
bool isHttpRouteEqual(const Json& existing, const Json& desired);
// GetWeightsFromHTTPRoute: the weights of the backendRefs naming the active and the pending
// cluster (-1 when none does, or there is no route).
std::pair<std::int32_t, std::int32_t> getWeightsFromHttpRoute(const Json& httpRoute,
                                                              const Json& rayService);
// IsIncrementalUpgradeComplete: a pending cluster, the active capacity 0, the pending traffic 100.
bool isIncrementalUpgradeComplete(const Json& rayService, const Json& pendingCluster);

// createGateway: the Gateway the RayService wants. 400 without clusterUpgradeOptions.
Result<Json> createGateway(const Json& rayService);
// calculateTrafficRoutedPercent: the active and pending weights for this round (see the steps
// above). 400 without clusterUpgradeOptions.
Result<std::pair<std::int32_t, std::int32_t>> calculateTrafficRoutedPercent(
    const Json& rayService, bool isPendingClusterReady, TimePoint now);
// The HTTPRoute of createHTTPRoute: parent `gateway`, the active cluster's serve Service with
// `activeWeight`, the pending one's (when `pendingCluster` is not null) with `pendingWeight`.
Json buildHttpRoute(const Json& rayService, const Json& gateway, const Json& activeCluster,
                    const Json& pendingCluster, std::int32_t activeWeight,
                    std::int32_t pendingWeight);
// The target_capacity reconcileServeTargetCapacity moves `clusterName` to this round, or nullopt
// (not its turn, or traffic still catching up). Fills in missing capacities (active 100,
// pending 0) in `rayService`'s status, as upstream does.
std::optional<std::int32_t> goalTargetCapacity(Json& rayService, const std::string& clusterName);
// The Serve config (JSON text) with target_capacity set, or nullopt when it already has that
// target_capacity (applyServeTargetCapacity's early return).
Result<std::optional<std::string>> serveConfigWithTargetCapacity(const std::string& serveConfigV2,
                                                                 std::int32_t targetCapacity);
// checkIfNeedTargetCapacityUpdate: whether this round moves a target_capacity, and why (KubeRay's
// reasons), given the RayService's Gateway and HTTPRoute (null when not read).
std::pair<bool, std::string> checkIfNeedTargetCapacityUpdate(const Json& rayService,
                                                             const Json& gateway,
                                                             const Json& httpRoute);
// shouldCompleteIncrementalRollback (`pendingCluster` may be null).
bool shouldCompleteIncrementalRollback(const Json& rayService, const Json& pendingCluster);
// reconcileRollbackState: sets or clears RollbackInProgress by comparing the goal spec's hash with
// the active and pending clusters'.
void reconcileRollbackState(Json& rayService, const Json& activeCluster, const Json& pendingCluster,
                            TimePoint now);

}  // namespace fakekube::ray
