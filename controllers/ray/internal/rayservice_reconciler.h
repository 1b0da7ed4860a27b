// The RayService controller's reconciler, shared by the files that define its steps:
//   rayservice_controller.cpp  the round (Reconcile), the finalizer, validation, suspend,
//                              cleanUpRayClusterInstance, reconcileRayCluster, wiring
//   rayservice_serve.cpp       reconcileServe (the Serve config cache, the dashboard), and
//                              updateHeadPodServeLabel (the head's Serve proxy)
//   rayservice_status.cpp      reconcileServicesToReadyCluster, calculateStatus,
//                              reconcilePromotionAndServingStatus, the conditions, the
//                              initializing timeout, numServeEndpoints
//   rayservice_traffic.cpp     NewClusterWithIncrementalUpgrade: reconcileGateway,
//                              reconcileHTTPRoute, reconcilePerClusterServeService, the
//                              target_capacity steps (rayservice_incremental_upgrade.h)
// The public surface is rayservice_controller.h; this header is the controller's own.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>

#include "controllers/ray/dashboard_client.h"
#include "controllers/ray/httpproxy_client.h"
#include "controllers/ray/internal/event_action.h"
#include "controllers/ray/internal/rayservice_types.h"
#include "controllers/ray/operator_options.h"
#include "fakekube/api/json.h"
#include "fakekube/api/status.h"
#include "fakekube/runtime/manager.h"

namespace fakekube::ray {

// ServiceDefaultRequeueDuration and RayClusterDeletionDelayDuration.
inline constexpr std::chrono::seconds kRayServiceDefaultRequeueDuration{2};
inline constexpr std::chrono::seconds kRayClusterDeletionDelayDuration{60};

// What reconcileServe answers: whether the cluster's applications all run, and their statuses as
// status.*ServiceStatus.applicationStatuses holds them (null when the cluster was not asked).
struct ServeOutcome {
  bool ready = false;
  Json applications;
};

class RayServiceReconciler {
 public:
  RayServiceReconciler(Manager& manager, OperatorOptions options, DashboardClientFactory dashboards,
                       HttpProxyClientFactory proxies);

  ReconcileOutcome reconcile(const ReconcileRequest& request);

 private:
  Client& client() { return manager_.client(); }
  TimePoint now() { return manager_.executor().clock().now(); }
  void event(const Json& rayService, std::string_view type, std::string_view reason,
             const std::string& message) {
    (void)recorder_.event(rayService, type, reason, eventActionOf(reason), message);
  }

  // rayservice_controller.cpp
  ReconcileOutcome reconcileRound(Json& rayService, const Json& original);
  // The active's and the pending cluster's Serve applications (reconcileServe on each).
  Result<std::pair<ServeOutcome, ServeOutcome>> reconcileServeApplications(Json& rayService,
                                                                           const Json& active,
                                                                           const Json& pending);
  ReconcileOutcome handleDeletion(Json& rayService, bool hasRayClustersToClean);
  ReconcileOutcome failValidation(Json& rayService, std::string_view errType,
                                  const std::string& message);
  ReconcileResult handleSuspend(Json& rayService, std::optional<Status>* error);
  Result<bool> deleteRayServiceOwnedResources(const Json& rayService);
  Result<void> updateStatusIfChanged(const Json& original, Json& rayService);
  Result<bool> cleanUpRayClusterInstance(const Json& rayService);
  void cleanUpServeConfigCache(const Json& rayService);
  // The active and pending RayClusters (null when absent).
  Result<std::pair<Json, Json>> reconcileRayCluster(const Json& rayService);
  Result<Json> createRayClusterInstance(const Json& rayService);
  Result<void> updateRayClusterInstance(const Json& rayService, Json& cluster,
                                        std::string_view which);
  std::string generateRayClusterName(const std::string& rayServiceName);

  // The feature gate and the upgrade type (isIncrementalUpgradeEnabled).
  bool incrementalUpgrade(const Json& rayService) const {
    return isIncrementalUpgradeEnabled(rayService, options_.rayServiceIncrementalUpgrade);
  }

  // rayservice_serve.cpp
  Result<ServeOutcome> reconcileServe(Json& rayService, const Json& rayCluster);
  Result<void> updateHeadPodServeLabel(const Json& rayService, const Json& rayCluster);
  Result<std::string> fetchHeadServiceUrl(const Json& rayCluster);
  Result<void> updateServeDeployment(const Json& rayService, RayDashboardClientInterface& dashboard,
                                     const std::string& clusterName);
  std::string getServeConfigFromCache(const Json& rayService, const std::string& clusterName);
  void cacheServeConfig(const Json& rayService, const std::string& clusterName);

  // rayservice_status.cpp
  Result<std::pair<Json, Json>> reconcileServicesToReadyCluster(const Json& rayService,
                                                                const Json& rayCluster);
  Result<Json> reconcileServices(const Json& rayService, const Json& rayCluster, bool head);
  Result<void> calculateStatus(Json& rayService, const Json& headService, const Json& serveService,
                               const Json& activeCluster, const Json& pendingCluster,
                               const Json& activeApplications, const Json& pendingApplications,
                               const Json& httpRoute);
  void updateTrafficRoutedPercent(Json& rayService, const Json& httpRoute,
                                  const Json& pendingCluster);
  void completeIncrementalRollback(Json& rayService, Json& pendingCluster);
  Result<std::int64_t> calculateNumServeEndpoints(const Json& rayService, const Json& activeCluster,
                                                  const Json& pendingCluster);
  Result<bool> reconcilePromotionAndServingStatus(const Json& headService, const Json& serveService,
                                                  Json& rayService, const Json& pendingCluster);
  void calculateConditions(Json& rayService);
  void markFailedOnInitializingTimeout(Json& rayService);
  Result<std::int64_t> calculateNumServeEndpointsFromSlices(const std::string& ns,
                                                            const std::string& serviceName);

  // rayservice_traffic.cpp
  // The per-cluster Services, the Gateway and the HTTPRoute of one round (the route, or null).
  Result<Json> reconcileIncrementalUpgradeRouting(const Json& rayService, const Json& active,
                                                  const Json& pending, bool isPendingClusterReady);
  Result<void> reconcileGateway(const Json& rayService);
  Result<Json> createHTTPRoute(const Json& rayService, bool isPendingClusterReady);
  Result<Json> reconcileHTTPRoute(const Json& rayService, bool isPendingClusterReady);
  Result<void> reconcilePerClusterServeService(const Json& rayService, const Json& rayCluster);
  std::pair<bool, std::string> checkIfNeedTargetCapacityUpdate(const Json& rayService);
  Result<void> reconcileServeTargetCapacity(Json& rayService, const Json& rayCluster,
                                            RayDashboardClientInterface& dashboard);
  Result<void> applyServeTargetCapacity(Json& rayService, const Json& rayCluster,
                                        RayDashboardClientInterface& dashboard,
                                        std::int32_t goalTargetCapacity);
  // getRayClusterByNamespacedName of the active or the pending cluster the status names.
  Result<Json> getRayClusterByName(const Json& rayService, const std::string& name);

  Manager& manager_;
  const OperatorOptions options_;
  DashboardClientFactory dashboards_;
  HttpProxyClientFactory proxies_;
  EventRecorder& recorder_;

  // In memory only, as upstream keeps them: a restarted operator has neither.
  // The Serve config last sent to each cluster, by "<ns>/<rayservice>" then cluster name
  // (upstream's ServeConfigs LRU).
  std::mutex cacheMutex_;
  std::map<std::string, std::map<std::string, std::string>> serveConfigs_;
  // When each dangling RayCluster may go (upstream's RayClusterDeletionTimestamps), by
  // "<ns>/<cluster>".
  std::map<std::string, TimePoint> deletionTimestamps_;
  std::mutex randomMutex_;
  std::mt19937_64 random_;
};

}  // namespace fakekube::ray
