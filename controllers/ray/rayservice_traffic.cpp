// The RayService controller's NewClusterWithIncrementalUpgrade steps that read and write objects
// (rayservice_incremental_upgrade.h): the per-cluster serve Services, reconcileGateway,
// reconcileHTTPRoute, and the target_capacity steps reconcileServe runs (rayservice_reconciler.h).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "controllers/ray/internal/gateway_api.h"
#include "controllers/ray/internal/rayservice_incremental_upgrade.h"
#include "controllers/ray/internal/rayservice_reconciler.h"
#include "controllers/ray/internal/rayservice_serve.h"
#include "controllers/ray/internal/rayservice_services.h"
#include "controllers/ray/internal/rayservice_types.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"

namespace fakekube::ray {

Result<Json> RayServiceReconciler::reconcileIncrementalUpgradeRouting(const Json& rayService,
                                                                      const Json& active,
                                                                      const Json& pending,
                                                                      bool isPendingClusterReady) {
  for (const Json* cluster : {&active, &pending}) {
    if (auto reconciled = reconcilePerClusterServeService(rayService, *cluster); !reconciled) {
      return tl::unexpected(reconciled.error());
    }
  }
  // The Gateway clients reach the RayService through, and the HTTPRoute splitting its traffic.
  if (auto reconciled = reconcileGateway(rayService); !reconciled) {
    return tl::unexpected(reconciled.error());
  }
  return reconcileHTTPRoute(rayService, isPendingClusterReady);
}

Result<void> RayServiceReconciler::reconcilePerClusterServeService(const Json& rayService,
                                                                   const Json& rayCluster) {
  if (rayCluster.is_null()) return {};
  auto desired =
      buildServeServiceForRayService(rayService, rayCluster, options_.rayServiceIncrementalUpgrade);
  if (!desired) return tl::unexpected(desired.error());
  // Owned by its cluster: it goes with it.
  meta::addOwnerReference(*desired, meta::controllerRefTo(rayCluster));
  const std::string ns = meta::namespace_(*desired);
  auto existing = client().get(kServices, ns, meta::name(*desired));
  if (existing) return {};
  if (!isNotFound(existing.error())) return tl::unexpected(existing.error());
  auto created = client().create(kServices, std::move(*desired));
  if (!created) return tl::unexpected(created.error());
  return {};
}

Result<void> RayServiceReconciler::reconcileGateway(const Json& rayService) {
  auto desired = createGateway(rayService);
  if (!desired) return tl::unexpected(desired.error());
  const std::string ns = meta::namespace_(rayService);
  const std::string name = meta::name(*desired);
  auto existing = client().get(kGateways, ns, name);
  if (!existing) {
    if (!isNotFound(existing.error())) return tl::unexpected(existing.error());
    meta::addOwnerReference(*desired, meta::controllerRefTo(rayService));
    if (auto created = client().create(kGateways, std::move(*desired)); !created) {
      event(rayService, "Warning", "FailedToCreateGateway",
            fmt::format("Failed to create Gateway for RayService {}/{}: {}", ns, name,
                        created.error().message));
      return tl::unexpected(created.error());
    }
    event(rayService, "Normal", "CreatedGateway",
          fmt::format("Created Gateway for RayService {}/{}", ns, name));
    return {};
  }
  if (isGatewayEqual(*existing, *desired)) return {};
  (*existing)["spec"] = (*desired)["spec"];
  if (auto updated = client().update(kGateways, std::move(*existing)); !updated) {
    event(rayService, "Warning", "FailedToUpdateGateway",
          fmt::format("Failed to update the Gateway {}/{}: {}", ns, name, updated.error().message));
    return tl::unexpected(updated.error());
  }
  event(rayService, "Normal", "UpdatedGateway", fmt::format("Updated the Gateway {}/{}", ns, name));
  return {};
}

Result<Json> RayServiceReconciler::createHTTPRoute(const Json& rayService,
                                                   bool isPendingClusterReady) {
  auto gateway =
      client().get(kGateways, meta::namespace_(rayService), rayServiceGatewayName(rayService));
  if (!gateway) return tl::unexpected(gateway.error());
  auto active = getRayClusterByName(rayService, activeClusterName(rayService));
  if (!active) return tl::unexpected(active.error());
  // No active cluster yet (the RayService's first one is still pending): no route.
  if (active->is_null()) return Json();
  auto pending = getRayClusterByName(rayService, pendingClusterName(rayService));
  if (!pending) return tl::unexpected(pending.error());
  auto weights = calculateTrafficRoutedPercent(rayService, isPendingClusterReady, now());
  if (!weights) return tl::unexpected(weights.error());
  return buildHttpRoute(rayService, *gateway, *active, *pending, weights->first, weights->second);
}

Result<Json> RayServiceReconciler::reconcileHTTPRoute(const Json& rayService,
                                                      bool isPendingClusterReady) {
  auto desired = createHTTPRoute(rayService, isPendingClusterReady);
  if (!desired) return tl::unexpected(desired.error());
  if (desired->is_null()) return Json();
  const std::string ns = meta::namespace_(*desired);
  const std::string name = meta::name(*desired);
  auto existing = client().get(kHttpRoutes, ns, name);
  if (!existing) {
    if (!isNotFound(existing.error())) return tl::unexpected(existing.error());
    meta::addOwnerReference(*desired, meta::controllerRefTo(rayService));
    auto created = client().create(kHttpRoutes, *desired);
    if (!created) {
      event(rayService, "Warning", "FailedToCreateHTTPRoute",
            fmt::format("Failed to create the HTTPRoute for RayService {}/{}: {}", ns, name,
                        created.error().message));
      return tl::unexpected(created.error());
    }
    event(rayService, "Normal", "CreatedHTTPRoute",
          fmt::format("Created HTTPRoute for RayService {}/{}", ns, name));
    return std::move(*desired);
  }
  if (isHttpRouteEqual(*existing, *desired)) return std::move(*existing);
  (*existing)["spec"] = (*desired)["spec"];
  auto updated = client().update(kHttpRoutes, std::move(*existing));
  if (!updated) {
    event(
        rayService, "Warning", "FailedToUpdateHTTPRoute",
        fmt::format("Failed to update the HTTPRoute {}/{}: {}", ns, name, updated.error().message));
    return tl::unexpected(updated.error());
  }
  event(rayService, "Normal", "UpdatedHTTPRoute",
        fmt::format("Updated the HTTPRoute {}/{}", ns, name));
  return std::move(*updated);
}

std::pair<bool, std::string> RayServiceReconciler::checkIfNeedTargetCapacityUpdate(
    const Json& rayService) {
  if (activeClusterName(rayService).empty() || pendingClusterName(rayService).empty()) {
    return ray::checkIfNeedTargetCapacityUpdate(rayService, Json(), Json());
  }
  const std::string ns = meta::namespace_(rayService);
  auto gateway = client().get(kGateways, ns, rayServiceGatewayName(rayService));
  if (!gateway) {
    return {false, "Failed to retrieve Gateway for RayService: " + gateway.error().message};
  }
  if (!isGatewayReady(*gateway))
    return ray::checkIfNeedTargetCapacityUpdate(rayService, *gateway, Json());
  auto route = client().get(kHttpRoutes, ns, rayServiceHttpRouteName(rayService));
  if (!route)
    return {false, "Failed to retrieve HTTPRoute for RayService: " + route.error().message};
  return ray::checkIfNeedTargetCapacityUpdate(rayService, *gateway, *route);
}

Result<void> RayServiceReconciler::reconcileServeTargetCapacity(
    Json& rayService, const Json& rayCluster, RayDashboardClientInterface& dashboard) {
  if (!getRayServiceClusterUpgradeOptions(rayService)) {
    return tl::unexpected(
        Status::badRequest("Missing RayService ClusterUpgradeOptions during upgrade"));
  }
  const auto goal = goalTargetCapacity(rayService, meta::name(rayCluster));
  if (!goal) return {};
  return applyServeTargetCapacity(rayService, rayCluster, dashboard, *goal);
}

Result<void> RayServiceReconciler::applyServeTargetCapacity(Json& rayService,
                                                            const Json& rayCluster,
                                                            RayDashboardClientInterface& dashboard,
                                                            std::int32_t goalTargetCapacity) {
  const std::string clusterName = meta::name(rayCluster);
  // The config last sent to the cluster, else the spec's.
  std::string config = getServeConfigFromCache(rayService, clusterName);
  if (config.empty()) config = serveConfigV2(rayService);
  auto body = serveConfigWithTargetCapacity(config, goalTargetCapacity);
  if (!body) return tl::unexpected(body.error());
  if (!*body) return {};  // already at that target_capacity
  if (auto updated = dashboard.updateDeployments(**body); !updated) {
    return tl::unexpected(serveUpdateError(updated.error()));
  }
  Json& status = rayService["status"];
  if (clusterName == activeClusterName(rayService)) {
    status["activeServiceStatus"]["targetCapacity"] = goalTargetCapacity;
  } else if (clusterName == pendingClusterName(rayService)) {
    status["pendingServiceStatus"]["targetCapacity"] = goalTargetCapacity;
  }
  return {};
}

}  // namespace fakekube::ray
