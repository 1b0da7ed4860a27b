#include "controllers/ray/internal/rayservice_serve.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "controllers/ray/constants.h"
#include "controllers/ray/internal/naming.h"
#include "controllers/ray/internal/rayservice_incremental_upgrade.h"
#include "controllers/ray/internal/rayservice_reconciler.h"
#include "controllers/ray/internal/rayservice_types.h"
#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/api/yaml.h"

namespace fakekube::ray {

namespace {

// The Ray container's port named "serve", else 8000 (FindContainerPort).
int rayContainerServingPort(const Json& pod) {
  const Json& containers = jsonAt(pod, {"spec", "containers"});
  if (!containers.is_array() || containers.empty()) return kDefaultServingPort;
  for (const Json& port : jsonArrayAt(containers[kRayContainerIndex], "ports")) {
    if (stringField(port, "name") == kServingPortName &&
        jsonAt(port, {"containerPort"}).is_number_integer()) {
      return jsonAt(port, {"containerPort"}).get<int>();
    }
  }
  return kDefaultServingPort;
}

std::string cacheKey(const Json& rayService) {
  return meta::namespace_(rayService) + "/" + meta::name(rayService);
}

}  // namespace

std::pair<bool, std::string> checkIfNeedSubmitServeApplications(const std::string& cached,
                                                                const std::string& serveConfigV2,
                                                                const Json& applications) {
  if (cached.empty()) return {true, "Nothing has been cached for the cluster."};
  if (!applications.is_object() || applications.empty()) {
    return {true,
            "No Serve application found in the RayCluster. A possible reason is that the head "
            "Pod crashed and GCS FT was not enabled."};
  }
  if (cached != serveConfigV2) {
    return {true, "Current V2 Serve config doesn't match cached Serve config."};
  }
  return {false, "Current V2 Serve config matches cached Serve config."};
}

Result<ServeStatus> getAndCheckServeStatus(RayDashboardClientInterface& dashboard) {
  auto statuses = dashboard.getMultiApplicationStatus();
  if (!statuses) {
    return tl::unexpected(Status::generic(
        500, "InternalError",
        fmt::format("failed to get Serve application statuses from the dashboard. If you observe "
                    "this error consistently, please check "
                    "https://docs.ray.io/en/latest/cluster/kubernetes/troubleshooting/"
                    "rayservice-troubleshooting.html for more details. err: {}",
                    statuses.error().message)));
  }
  ServeStatus out;
  out.ready = true;
  for (const auto& [rawName, app] : *statuses) {
    const std::string name = rawName.empty() ? std::string(kDefaultServeAppName) : rawName;
    Json status = Json::object();
    if (!app.status.empty()) status["status"] = app.status;
    if (!app.message.empty()) status["message"] = app.message;
    // The switch waits for every application, so that no request is dropped.
    if (app.status != kApplicationRunning) out.ready = false;
    Json deployments = Json::object();
    for (const auto& [deploymentName, deployment] : app.deployments) {
      Json d = Json::object();
      if (!deployment.status.empty()) d["status"] = deployment.status;
      if (!deployment.message.empty()) d["message"] = deployment.message;
      deployments[deploymentName] = std::move(d);
    }
    if (!deployments.empty()) status["serveDeploymentStatuses"] = std::move(deployments);
    out.applications[name] = std::move(status);
  }
  if (out.applications.empty()) out.ready = false;
  return out;
}

Status serveUpdateError(const Status& dashboardError) {
  return Status::generic(
      500, "InternalError",
      fmt::format("fail to create / update Serve applications. If you observe this error "
                  "consistently, please check \"Issue 5: Fail to create / update Serve "
                  "applications.\" in https://docs.ray.io/en/master/cluster/kubernetes/"
                  "troubleshooting/rayservice-troubleshooting.html#kuberay-raysvc-troubleshoot "
                  "for more details. err: {}",
                  dashboardError.message));
}

Result<std::string> serveConfigJson(const std::string& serveConfigV2) {
  auto decoded = decodeYaml(serveConfigV2);
  if (!decoded) return tl::unexpected(decoded.error());
  if (decoded->is_null()) return std::string("{}");
  if (!decoded->is_object()) {
    return tl::unexpected(
        Status::badRequest("error unmarshaling JSON: while decoding JSON: json: cannot unmarshal " +
                           std::string(decoded->is_array() ? "array" : "string") +
                           " into Go value of type map[string]interface {}"));
  }
  return decoded->dump();
}

Result<ServeOutcome> RayServiceReconciler::reconcileServe(Json& rayService,
                                                          const Json& rayCluster) {
  // The head must be ready first (its dashboard answers only then); waiting costs no status
  // write.
  if (!isStatusConditionTrue(jsonAt(rayCluster, {"status", "conditions"}), kHeadPodReady)) {
    return ServeOutcome{};
  }
  auto url = fetchHeadServiceUrl(rayCluster);
  if (!url) return tl::unexpected(url.error());
  auto dashboard = dashboards_(rayCluster, *url);
  if (!dashboard) return tl::unexpected(dashboard.error());

  const std::string clusterName = meta::name(rayCluster);
  const std::string ns = meta::namespace_(rayCluster);
  // During an incremental upgrade the new config goes to the pending cluster only; during its
  // rollback the pending cluster, on its way out, keeps the config it has.
  const bool isActiveCluster = clusterName == activeClusterName(rayService);
  const bool upgradeInProgress =
      incrementalUpgrade(rayService) && isRayServiceConditionTrue(rayService, kUpgradeInProgress);
  const bool rollbackInProgress =
      incrementalUpgrade(rayService) && isRayServiceConditionTrue(rayService, kRollbackInProgress);
  const bool skipConfigUpdate = (isActiveCluster && upgradeInProgress && !rollbackInProgress) ||
                                (!isActiveCluster && rollbackInProgress);

  const std::string cached = getServeConfigFromCache(rayService, clusterName);
  auto status = getAndCheckServeStatus(**dashboard);
  if (!status) return tl::unexpected(status.error());
  auto [shouldUpdate, reason] =
      checkIfNeedSubmitServeApplications(cached, serveConfigV2(rayService), status->applications);
  if (shouldUpdate && !skipConfigUpdate) {
    if (auto updated = updateServeDeployment(rayService, **dashboard, clusterName); !updated) {
      event(rayService, "Warning", "FailedToUpdateServeApplications",
            fmt::format("Failed to update serve applications to the RayCluster {}/{}: {}", ns,
                        clusterName, updated.error().message));
      return tl::unexpected(updated.error());
    }
    event(rayService, "Normal", "UpdatedServeApplications",
          fmt::format("Updated serve applications to the RayCluster {}/{}", ns, clusterName));
  }
  if (upgradeInProgress && checkIfNeedTargetCapacityUpdate(rayService).first) {
    if (auto updated = reconcileServeTargetCapacity(rayService, rayCluster, **dashboard);
        !updated) {
      event(rayService, "Warning", "FailedToUpdateTargetCapacity",
            fmt::format("Failed to update target_capacity of serve applications to the RayCluster "
                        "{}/{}: {}",
                        ns, clusterName, updated.error().message));
      return tl::unexpected(updated.error());
    }
    event(rayService, "Normal", "UpdatedServeTargetCapacity",
          fmt::format("Updated target_capacity of serve applications to to the RayCluster {}/{}",
                      ns, clusterName));
  }
  return ServeOutcome{status->ready, std::move(status->applications)};
}

Result<void> RayServiceReconciler::updateServeDeployment(const Json& rayService,
                                                         RayDashboardClientInterface& dashboard,
                                                         const std::string& clusterName) {
  auto body = serveConfigJson(serveConfigV2(rayService));
  if (!body) return tl::unexpected(body.error());
  // An incremental upgrade starts a cluster's Serve at the target_capacity its status holds, not
  // at 100 %.
  if (incrementalUpgrade(rayService)) {
    std::optional<std::int32_t> targetCapacity;
    if (clusterName == activeClusterName(rayService)) {
      targetCapacity = serviceStatusPercent(rayService, "activeServiceStatus", "targetCapacity");
    } else if (clusterName == pendingClusterName(rayService)) {
      targetCapacity = serviceStatusPercent(rayService, "pendingServiceStatus", "targetCapacity");
    }
    if (targetCapacity) {
      Json config = Json::parse(*body, nullptr, false);
      if (config.is_object()) config["target_capacity"] = *targetCapacity;
      body = config.dump();
    }
  }
  if (auto updated = dashboard.updateDeployments(*body); !updated) {
    return tl::unexpected(serveUpdateError(updated.error()));
  }
  cacheServeConfig(rayService, clusterName);
  return {};
}

std::string RayServiceReconciler::getServeConfigFromCache(const Json& rayService,
                                                          const std::string& clusterName) {
  std::lock_guard lock(cacheMutex_);
  auto it = serveConfigs_.find(cacheKey(rayService));
  if (it == serveConfigs_.end()) return "";
  auto config = it->second.find(clusterName);
  return config == it->second.end() ? "" : config->second;
}

void RayServiceReconciler::cacheServeConfig(const Json& rayService,
                                            const std::string& clusterName) {
  const std::string config = serveConfigV2(rayService);
  if (config.empty()) return;
  std::lock_guard lock(cacheMutex_);
  serveConfigs_[cacheKey(rayService)][clusterName] = config;
}

Result<std::string> RayServiceReconciler::fetchHeadServiceUrl(const Json& rayCluster) {
  const std::string ns = meta::namespace_(rayCluster);
  const std::string serviceName =
      headServiceName(CrdType::RayCluster, rayCluster, meta::name(rayCluster));
  auto service = client().get(kServices, ns, serviceName);
  if (!service) return tl::unexpected(service.error());
  for (const Json& port : jsonArrayAt(jsonObjectAt(*service, "spec"), "ports")) {
    if (stringField(port, "name") != kDashboardPortName) continue;
    return fmt::format("{}.{}.svc.{}:{}", serviceName, ns, options_.clusterDomain,
                       port.value("port", 0));
  }
  return tl::unexpected(Status::internal(fmt::format("{} port is not found", kDashboardPortName)));
}

Result<void> RayServiceReconciler::updateHeadPodServeLabel(const Json& rayService,
                                                           const Json& rayCluster) {
  const std::string ns = meta::namespace_(rayCluster);
  const std::string clusterName = meta::name(rayCluster);
  ListOptions heads;
  heads.labelSelector =
      fmt::format("{}={},{}={}", kRayClusterLabelKey, clusterName, kRayNodeTypeLabelKey, kHeadNode);
  auto listed = client().list(kPods, ns, heads);
  if (!listed) return tl::unexpected(listed.error());
  const Json& items = jsonArrayAt(*listed, "items");
  if (items.empty()) {
    return tl::unexpected(Status::internal(
        fmt::format("found 0 head. cluster name {}, namespace {}", clusterName, ns)));
  }
  if (items.size() > 1) {
    return tl::unexpected(Status::internal(
        fmt::format("found multiple heads. filter labels map[{}:{} {}:{}]", kRayClusterLabelKey,
                    clusterName, kRayNodeTypeLabelKey, kHeadNode)));
  }
  Json headPod = items[0];
  const std::string oldLabel(meta::label(headPod, kRayClusterServingServiceLabelKey));
  std::string newLabel = "false";
  // A head excluded from the serve Service is never asked.
  if (!excludeHeadPodFromServeSvc(rayService)) {
    const std::string& podIp = stringField(jsonObjectAt(headPod, "status"), "podIP");
    auto proxy = proxies_(podIp, ns, meta::name(headPod), rayContainerServingPort(headPod));
    newLabel = proxy && proxy->checkProxyActorHealth() ? "true" : "false";
  }
  if (oldLabel == newLabel) return {};
  Json& labels = headPod["metadata"]["labels"];
  if (!labels.is_object()) labels = Json::object();
  labels[std::string(kRayClusterServingServiceLabelKey)] = newLabel;
  const std::string podName = meta::name(headPod);
  if (auto updated = client().update(kPods, std::move(headPod)); !updated) {
    event(rayService, "Warning", "FailedToUpdateHeadPodServeLabel",
          fmt::format("Failed to update the serve label to \"{}\" for the Head Pod {}/{}: {}",
                      newLabel, ns, podName, updated.error().message));
    return tl::unexpected(updated.error());
  }
  event(rayService, "Normal", "UpdatedHeadPodServeLabel",
        fmt::format("Updated the serve label to \"{}\" for the Head Pod {}/{}", newLabel, ns,
                    podName));
  return {};
}

}  // namespace fakekube::ray
