// The RayService controller's Services and status steps: reconcileServicesToReadyCluster,
// calculateStatus (with an incremental upgrade's traffic and rollback),
// reconcilePromotionAndServingStatus, calculateConditions, the initializing timeout and
// numServeEndpoints (rayservice_reconciler.h).
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

#include "controllers/ray/constants.h"
#include "controllers/ray/internal/naming.h"
#include "controllers/ray/internal/rayservice_cluster.h"
#include "controllers/ray/internal/rayservice_incremental_upgrade.h"
#include "controllers/ray/internal/rayservice_reconciler.h"
#include "controllers/ray/internal/rayservice_services.h"
#include "controllers/ray/internal/rayservice_types.h"
#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"

namespace fakekube::ray {

namespace {

const std::string& selectedCluster(const Json& service) {
  return stringField(jsonObjectAt(jsonObjectAt(service, "spec"), "selector"), kRayClusterLabelKey);
}

}  // namespace

Result<std::pair<Json, Json>> RayServiceReconciler::reconcileServicesToReadyCluster(
    const Json& rayService, const Json& rayCluster) {
  auto head = reconcileServices(rayService, rayCluster, /*head=*/true);
  if (!head) return tl::unexpected(head.error());
  auto serve = reconcileServices(rayService, rayCluster, /*head=*/false);
  if (!serve) return tl::unexpected(serve.error());
  return std::make_pair(std::move(*head), std::move(*serve));
}

Result<Json> RayServiceReconciler::reconcileServices(const Json& rayService, const Json& rayCluster,
                                                     bool head) {
  auto built = head ? buildHeadServiceForRayService(rayService, rayCluster, options_)
                    : buildServeServiceForRayService(rayService, rayCluster,
                                                     options_.rayServiceIncrementalUpgrade);
  if (!built) return tl::unexpected(built.error());
  Json service = std::move(*built);
  const std::string ns = meta::namespace_(rayService);
  const std::string name = meta::name(service);
  auto existing = client().get(kServices, ns, name);
  if (existing) {
    // Only when the RayService switches clusters.
    if (selectedCluster(service) == selectedCluster(*existing)) return std::move(*existing);
    // The clusterIP is immutable: the Service keeps its own, so clients keep their address.
    Json updated = std::move(*existing);
    const Json clusterIp = jsonAt(updated, {"spec", "clusterIP"});
    updated["spec"] = service["spec"];
    if (!clusterIp.is_null()) updated["spec"]["clusterIP"] = clusterIp;
    auto written = client().update(kServices, std::move(updated));
    if (!written) {
      event(
          rayService, "Warning", "FailedToUpdateService",
          fmt::format("Failed to update the service {}/{}, {}", ns, name, written.error().message));
      return tl::unexpected(written.error());
    }
    event(rayService, "Normal", "UpdatedService",
          fmt::format("Updated the service {}/{}", ns, name));
    return std::move(*written);
  }
  if (!isNotFound(existing.error())) return tl::unexpected(existing.error());
  meta::addOwnerReference(service, meta::controllerRefTo(rayService));
  auto created = client().create(kServices, service);
  if (!created) {
    event(rayService, "Warning", "FailedToCreateService",
          fmt::format("Failed to create the service {}/{}, {}", ns, name, created.error().message));
    return tl::unexpected(created.error());
  }
  event(rayService, "Normal", "CreatedService", fmt::format("Created the service {}/{}", ns, name));
  return std::move(*created);
}

Result<bool> RayServiceReconciler::reconcilePromotionAndServingStatus(const Json& headService,
                                                                      const Json& serveService,
                                                                      Json& rayService,
                                                                      const Json& pendingCluster) {
  // Both Services point at one cluster, the active or the pending one. Upstream panics
  // otherwise; here it is an error of the round, and nothing is written.
  const std::string pointsTo = selectedCluster(headService);
  if (pointsTo != selectedCluster(serveService)) {
    return tl::unexpected(
        Status::internal("headSvc and serveSvc are not pointing to the same cluster"));
  }
  const std::string pending = pendingClusterName(rayService);
  const std::string active = activeClusterName(rayService);
  if (pointsTo != pending && pointsTo != active) {
    return tl::unexpected(Status::internal(
        "clusterName from services is not equal to pendingCluster or activeCluster"));
  }
  bool shouldPromote = false;
  if (incrementalUpgrade(rayService)) {
    // Promoted once the traffic has fully moved (never while rolling back), or at once when the
    // RayService's first cluster comes up.
    if (isRayServiceConditionTrue(rayService, kUpgradeInProgress)) {
      shouldPromote = !isRayServiceConditionTrue(rayService, kRollbackInProgress) &&
                      isIncrementalUpgradeComplete(rayService, pendingCluster);
    } else {
      shouldPromote = active.empty() && !pending.empty();
    }
  } else {
    // Blue/green: the promotion is done when the selector has switched.
    shouldPromote = active != pointsTo;
  }
  if (shouldPromote) {
    Json& status = rayService["status"];
    status["activeServiceStatus"] = status["pendingServiceStatus"];
    status["pendingServiceStatus"] = Json::object();
  }
  return pointsTo == pending;
}

Result<void> RayServiceReconciler::calculateStatus(
    Json& rayService, const Json& headService, const Json& serveService, const Json& activeCluster,
    const Json& pendingClusterRead, const Json& activeApplications, const Json& pendingApplications,
    const Json& httpRoute) {
  Json& status = rayService["status"];
  status["observedGeneration"] = meta::generation(rayService);
  auto sideStatus = [&](const char* side, const Json& cluster, const Json& applications) {
    Json& s = status[side];
    if (!s.is_object()) s = Json::object();
    const Json& clusterStatus = jsonAt(cluster, {"status"});
    s["rayClusterStatus"] = clusterStatus.is_object() ? clusterStatus : Json::object();
    if (applications.is_object() && !applications.empty()) {
      s["applicationStatuses"] = applications;
    } else {
      s.erase("applicationStatuses");
    }
  };
  sideStatus("activeServiceStatus", activeCluster, activeApplications);
  sideStatus("pendingServiceStatus", pendingClusterRead, pendingApplications);

  Json pendingCluster = pendingClusterRead;
  bool isPendingClusterServing = false;
  if (!headService.is_null() && !serveService.is_null()) {
    if (incrementalUpgrade(rayService)) {
      updateTrafficRoutedPercent(rayService, httpRoute, pendingCluster);
    }
    auto serving =
        reconcilePromotionAndServingStatus(headService, serveService, rayService, pendingCluster);
    if (!serving) return tl::unexpected(serving.error());
    isPendingClusterServing = *serving;
  }
  if (isRayServiceConditionTrue(rayService, kRollbackInProgress)) {
    completeIncrementalRollback(rayService, pendingCluster);
  }

  // The pending cluster's name is written in this round's status before the next round creates
  // it, so that a restarted operator creates it under the same name.
  if (shouldPrepareNewCluster(rayService, activeCluster, pendingCluster, isPendingClusterServing,
                              options_.enableZeroDowntime, options_.rayServiceIncrementalUpgrade)) {
    status["pendingServiceStatus"] = {
        {"rayClusterName", generateRayClusterName(meta::name(rayService))}};
    // An incremental upgrade's new cluster starts at 0 % (the RayService's first at 100 %).
    if (incrementalUpgrade(rayService)) {
      status["pendingServiceStatus"]["targetCapacity"] =
          activeClusterName(rayService).empty() ? 100 : 0;
    }
  }

  auto endpoints = calculateNumServeEndpoints(rayService, activeCluster, pendingCluster);
  if (!endpoints) return tl::unexpected(endpoints.error());
  status["numServeEndpoints"] = *endpoints;

  calculateConditions(rayService);
  // serviceStatus is the Ready condition.
  if (isRayServiceConditionTrue(rayService, kRayServiceReady)) {
    status["serviceStatus"] = std::string(kServiceStatusRunning);
  } else {
    status.erase("serviceStatus");
  }
  return {};
}

void RayServiceReconciler::updateTrafficRoutedPercent(Json& rayService, const Json& httpRoute,
                                                      const Json& pendingCluster) {
  Json& status = rayService["status"];
  const auto [activeWeight, pendingWeight] = getWeightsFromHttpRoute(httpRoute, rayService);
  const std::string migrated = formatRfc3339(now());
  auto record = [&](const char* side, std::int32_t weight) {
    const auto old = serviceStatusPercent(rayService, side, "trafficRoutedPercent").value_or(-1);
    status[side]["trafficRoutedPercent"] = weight;
    if (weight != old) status[side]["lastTrafficMigratedTime"] = migrated;
  };
  if (activeWeight >= 0) record("activeServiceStatus", activeWeight);
  if (pendingWeight >= 0 && !pendingCluster.is_null())
    record("pendingServiceStatus", pendingWeight);
}

void RayServiceReconciler::completeIncrementalRollback(Json& rayService, Json& pendingCluster) {
  if (!shouldCompleteIncrementalRollback(rayService, pendingCluster)) return;
  // Back on the active cluster: the pending one goes, the upgrade state machine resets.
  rayService["status"]["pendingServiceStatus"] = Json::object();
  pendingCluster = Json();
  removeRayServiceCondition(rayService, kRollbackInProgress);
  setRayServiceCondition(rayService, kUpgradeInProgress, "False", kNoPendingCluster,
                         "Rollback complete, active Ray cluster exists and no pending Ray cluster",
                         now());
}

Result<std::int64_t> RayServiceReconciler::calculateNumServeEndpoints(const Json& rayService,
                                                                      const Json& activeCluster,
                                                                      const Json& pendingCluster) {
  const std::string ns = meta::namespace_(rayService);
  // An incremental upgrade routes through the per-cluster serve Services, and both clusters
  // serve while it lasts.
  const bool incremental = incrementalUpgrade(rayService);
  const std::string serveService = incremental && !activeCluster.is_null()
                                       ? generateServeServiceName(meta::name(activeCluster))
                                       : serveServiceNameForRayService(rayService);
  auto endpoints = calculateNumServeEndpointsFromSlices(ns, serveService);
  if (!endpoints || !incremental || pendingCluster.is_null()) return endpoints;
  auto pendingEndpoints = calculateNumServeEndpointsFromSlices(
      ns, generateServeServiceName(meta::name(pendingCluster)));
  if (!pendingEndpoints) return pendingEndpoints;
  return *endpoints + *pendingEndpoints;
}

void RayServiceReconciler::calculateConditions(Json& rayService) {
  const TimePoint t = now();
  const Json& conditions = jsonAt(rayService, {"status", "conditions"});
  if (!conditions.is_array() || conditions.empty()) {
    const std::string message = "RayService is initializing";
    setRayServiceCondition(rayService, kRayServiceReady, "False", kRayServiceInitializing, message,
                           t);
    setRayServiceCondition(rayService, kUpgradeInProgress, "False", kRayServiceInitializing,
                           message, t);
  }
  const Json& endpoints = jsonAt(rayService, {"status", "numServeEndpoints"});
  if (endpoints.is_number_integer() && endpoints.get<std::int64_t>() > 0) {
    setRayServiceCondition(rayService, kRayServiceReady, "True", kNonZeroServeEndpoints,
                           "Number of serve endpoints is greater than 0", t);
  } else if (isRayServiceConditionTrue(rayService, kRayServiceReady)) {
    setRayServiceCondition(rayService, kRayServiceReady, "False", kZeroServeEndpoints,
                           "Number of serve endpoints dropped to 0", t);
  } else {
    // After the endpoint check: endpoints that appear win over the timeout.
    markFailedOnInitializingTimeout(rayService);
  }

  const std::string active = activeClusterName(rayService);
  const std::string pending = pendingClusterName(rayService);
  if (!active.empty() && !pending.empty()) {
    setRayServiceCondition(rayService, kUpgradeInProgress, "True", kBothActivePendingClustersExist,
                           "Both active and pending Ray clusters exist", t);
  } else if (!active.empty()) {
    setRayServiceCondition(rayService, kUpgradeInProgress, "False", kNoPendingCluster,
                           "Active Ray cluster exists and no pending Ray cluster", t);
  } else {
    const Json* upgrade = findRayServiceCondition(rayService, kUpgradeInProgress);
    // Not while it initializes, or after it timed out.
    if (upgrade == nullptr || (stringField(*upgrade, "reason") != kRayServiceInitializing &&
                               stringField(*upgrade, "reason") != kRayServiceInitializingTimeout)) {
      setRayServiceCondition(rayService, kUpgradeInProgress, "Unknown", kNoActiveCluster,
                             "No active Ray cluster exists, and the RayService is not "
                             "initializing. Please open a GitHub issue in the KubeRay repository.",
                             t);
    }
  }
}

void RayServiceReconciler::markFailedOnInitializingTimeout(Json& rayService) {
  const auto timeout = initializingTimeout(rayService).timeout;
  if (!timeout) return;
  const Json* ready = findRayServiceCondition(rayService, kRayServiceReady);
  if (ready == nullptr || stringField(*ready, "status") != "False" ||
      stringField(*ready, "reason") != kRayServiceInitializing) {
    return;
  }
  TimePoint since;
  if (!parseRfc3339(stringField(*ready, "lastTransitionTime"), &since)) return;
  const Duration initializing = now() - since;
  if (initializing < *timeout) return;
  // The clusters go (cleanUpRayClusterInstance deletes whatever the status no longer names).
  Json& status = rayService["status"];
  status["activeServiceStatus"].erase("rayClusterName");
  status["pendingServiceStatus"].erase("rayClusterName");
  setRayServiceCondition(
      rayService, kRayServiceReady, "False", kRayServiceInitializingTimeout,
      fmt::format("RayService failed to become ready within the configured timeout of {}. Time "
                  "spent initializing: {}",
                  goDurationString(*timeout), goDurationString(initializing)),
      now());
  event(rayService, "Warning", "RayServiceInitializingTimeout",
        fmt::format("RayService initializing timeout exceeded after {} (configured timeout: {})",
                    goDurationString(initializing), goDurationString(*timeout)));
}

Result<std::int64_t> RayServiceReconciler::calculateNumServeEndpointsFromSlices(
    const std::string& ns, const std::string& serviceName) {
  ListOptions options;
  options.labelSelector = "kubernetes.io/service-name=" + serviceName;
  auto listed = client().list(kEndpointSlices, ns, options);
  if (!listed) return tl::unexpected(listed.error());
  // A pod in several slices (dual stack) counts once, by its uid.
  std::set<std::string> readyPods;
  for (const Json& slice : jsonArrayAt(*listed, "items")) {
    for (const Json& endpoint : jsonArrayAt(slice, "endpoints")) {
      const Json& ready = jsonAt(endpoint, {"conditions", "ready"});
      if (!ready.is_boolean() || !ready.get<bool>()) continue;
      const std::string& uid = stringField(jsonObjectAt(endpoint, "targetRef"), "uid");
      if (!uid.empty()) readyPods.insert(uid);
    }
  }
  return static_cast<std::int64_t>(readyPods.size());
}

}  // namespace fakekube::ray
