#include "controllers/ray/internal/rayservice_incremental_upgrade.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "controllers/ray/constants.h"
#include "controllers/ray/internal/gateway_api.h"
#include "controllers/ray/internal/rayservice_cluster.h"
#include "controllers/ray/internal/rayservice_serve.h"
#include "controllers/ray/internal/rayservice_types.h"
#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/sim/clock.h"

namespace fakekube::ray {
namespace {

std::optional<std::int32_t> optionalInt32(const Json& object, std::string_view key) {
  const Json* value = jsonFind(object, key);
  if (value == nullptr || !value->is_number_integer()) return std::nullopt;
  return static_cast<std::int32_t>(value->get<std::int64_t>());
}

Json& serviceStatusOf(Json& rayService, std::string_view side) {
  Json& status = jsonMember(rayService, "status");
  Json& sideStatus = jsonMember(status, side);
  if (!sideStatus.is_object()) sideStatus = Json::object();
  return sideStatus;
}

// GetServePort: the head container's port named "serve", else 8000.
std::int32_t getServePort(const Json& rayCluster) {
  const Json& containers =
      jsonAt(rayCluster, {"spec", "headGroupSpec", "template", "spec", "containers"});
  if (!containers.is_array() || containers.empty()) return kDefaultServingPort;
  for (const Json& port : jsonArrayAt(containers[0], "ports")) {
    if (stringField(port, "name") != kServingPortName) continue;
    if (auto number = optionalInt32(port, "containerPort")) return *number;
  }
  return kDefaultServingPort;
}

Json backendRef(const std::string& clusterName, const std::string& ns, std::int32_t port,
                std::int32_t weight) {
  return {{"name", generateServeServiceName(clusterName)},
          {"namespace", ns},
          {"port", port},
          {"weight", weight}};
}

// ptr.Deref of a string field for the equality checks: absent reads as "".
std::string stringOrEmpty(const Json& object, std::string_view key) {
  return stringField(object, key);
}

bool sameParentRefs(const Json& existing, const Json& desired) {
  const Json& e = jsonArrayAt(existing, "parentRefs");
  const Json& d = jsonArrayAt(desired, "parentRefs");
  if (e.size() != d.size()) return false;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (stringOrEmpty(e[i], "name") != stringOrEmpty(d[i], "name") ||
        stringOrEmpty(e[i], "namespace") != stringOrEmpty(d[i], "namespace")) {
      return false;
    }
  }
  return true;
}

// A list compared as upstream does for hostnames and filters: null and empty alike.
bool sameOptionalList(const Json& existing, const Json& desired, std::string_view key) {
  const Json& e = jsonArrayAt(existing, key);
  const Json& d = jsonArrayAt(desired, key);
  if (e.size() != d.size()) return false;
  return e.empty() || sameJson(e, d);
}

bool sameBackendRefs(const Json& existingRule, const Json& desiredRule) {
  const Json& e = jsonArrayAt(existingRule, "backendRefs");
  const Json& d = jsonArrayAt(desiredRule, "backendRefs");
  if (e.size() != d.size()) return false;
  for (std::size_t j = 0; j < d.size(); ++j) {
    if (stringOrEmpty(e[j], "name") != stringOrEmpty(d[j], "name") ||
        stringOrEmpty(e[j], "namespace") != stringOrEmpty(d[j], "namespace") ||
        optionalInt32(e[j], "weight").value_or(1) != optionalInt32(d[j], "weight").value_or(1) ||
        optionalInt32(e[j], "port").value_or(0) != optionalInt32(d[j], "port").value_or(0)) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<ClusterUpgradeOptions> getRayServiceClusterUpgradeOptions(const Json& rayService) {
  const Json& json = jsonAt(rayService, {"spec", "upgradeStrategy", "clusterUpgradeOptions"});
  if (!json.is_object()) return std::nullopt;
  ClusterUpgradeOptions options;
  options.maxSurgePercent = optionalInt32(json, "maxSurgePercent").value_or(100);
  options.stepSizePercent = optionalInt32(json, "stepSizePercent");
  options.intervalSeconds = optionalInt32(json, "intervalSeconds");
  options.gatewayClassName = stringField(json, "gatewayClassName");
  return options;
}

std::optional<std::string> validateClusterUpgradeOptions(const Json& rayService) {
  if (!isAutoscalingEnabled({{"spec", jsonAt(rayService, {"spec", "rayClusterConfig"})}})) {
    return "Ray Autoscaler is required for NewClusterWithIncrementalUpgrade";
  }
  const auto options = getRayServiceClusterUpgradeOptions(rayService);
  if (!options) return "ClusterUpgradeOptions are required for NewClusterWithIncrementalUpgrade";
  if (options->maxSurgePercent < 0 || options->maxSurgePercent > 100) {
    return "maxSurgePercent must be between 0 and 100";
  }
  if (!options->stepSizePercent || *options->stepSizePercent < 0 ||
      *options->stepSizePercent > 100) {
    return "stepSizePercent must be between 0 and 100";
  }
  if (*options->stepSizePercent > options->maxSurgePercent) {
    return "stepSizePercent must be less than or equal to maxSurgePercent";
  }
  if (!options->intervalSeconds || *options->intervalSeconds <= 0) {
    return "intervalSeconds must be greater than 0";
  }
  if (options->gatewayClassName.empty()) {
    return "gatewayClassName is required for NewClusterWithIncrementalUpgrade";
  }
  return std::nullopt;
}

std::string generateServeServiceName(const std::string& name) {
  return fmt::format("{}-{}", name, kServeServiceSuffix);
}

std::string rayServiceGatewayName(const Json& rayService) {
  return meta::name(rayService) + "-gateway";
}

std::string rayServiceHttpRouteName(const Json& rayService) {
  return meta::name(rayService) + "-httproute";
}

std::optional<std::int32_t> serviceStatusPercent(const Json& rayService, std::string_view side,
                                                 std::string_view field) {
  return optionalInt32(jsonObjectAt(jsonObjectAt(rayService, "status"), side), field);
}

bool isGatewayReady(const Json& gateway) {
  const Json& conditions = jsonAt(gateway, {"status", "conditions"});
  return isStatusConditionTrue(conditions, kGatewayConditionAccepted) &&
         isStatusConditionTrue(conditions, kGatewayConditionProgrammed);
}

bool isHttpRouteReady(const Json& gateway, const Json& httpRoute) {
  if (httpRoute.is_null()) return false;
  for (const Json& parent : jsonArrayAt(jsonObjectAt(httpRoute, "status"), "parents")) {
    const Json& parentRef = jsonObjectAt(parent, "parentRef");
    if (stringField(parentRef, "name") != meta::name(gateway)) continue;
    if (const Json* ns = jsonFind(parentRef, "namespace");
        ns != nullptr && ns->is_string() && *ns != meta::namespace_(gateway)) {
      continue;
    }
    const Json& conditions = jsonAt(parent, {"conditions"});
    if (isStatusConditionTrue(conditions, kRouteConditionAccepted) &&
        isStatusConditionTrue(conditions, kRouteConditionResolvedRefs)) {
      return true;
    }
  }
  return false;
}

bool isGatewayEqual(const Json& existing, const Json& desired) {
  if (existing.is_null() || desired.is_null()) return existing.is_null() && desired.is_null();
  const Json& e = jsonObjectAt(existing, "spec");
  const Json& d = jsonObjectAt(desired, "spec");
  if (stringField(e, "gatewayClassName") != stringField(d, "gatewayClassName")) return false;
  const Json& eListeners = jsonArrayAt(e, "listeners");
  const Json& dListeners = jsonArrayAt(d, "listeners");
  if (eListeners.size() != dListeners.size()) return false;
  for (std::size_t i = 0; i < dListeners.size(); ++i) {
    if (stringField(eListeners[i], "name") != stringField(dListeners[i], "name") ||
        stringField(eListeners[i], "protocol") != stringField(dListeners[i], "protocol") ||
        optionalInt32(eListeners[i], "port") != optionalInt32(dListeners[i], "port")) {
      return false;
    }
  }
  return true;
}

bool isHttpRouteEqual(const Json& existing, const Json& desired) {
  if (existing.is_null() || desired.is_null()) return existing.is_null() && desired.is_null();
  const Json& e = jsonObjectAt(existing, "spec");
  const Json& d = jsonObjectAt(desired, "spec");
  if (!sameOptionalList(e, d, "hostnames") || !sameParentRefs(e, d)) return false;
  const Json& eRules = jsonArrayAt(e, "rules");
  const Json& dRules = jsonArrayAt(d, "rules");
  if (eRules.size() != dRules.size()) return false;
  for (std::size_t i = 0; i < dRules.size(); ++i) {
    if (!sameJson(jsonAt(eRules[i], {"matches"}), jsonAt(dRules[i], {"matches"})) ||
        !sameOptionalList(eRules[i], dRules[i], "filters") ||
        !sameBackendRefs(eRules[i], dRules[i])) {
      return false;
    }
  }
  return true;
}

std::pair<std::int32_t, std::int32_t> getWeightsFromHttpRoute(const Json& httpRoute,
                                                              const Json& rayService) {
  const std::string active = activeClusterName(rayService);
  const std::string pending = pendingClusterName(rayService);
  std::int32_t activeWeight = -1;
  std::int32_t pendingWeight = -1;
  const Json& rules = jsonArrayAt(jsonObjectAt(httpRoute, "spec"), "rules");
  if (rules.empty()) return {activeWeight, pendingWeight};
  for (const Json& backend : jsonArrayAt(rules[0], "backendRefs")) {
    const std::string& name = stringField(backend, "name");
    const std::int32_t weight = optionalInt32(backend, "weight").value_or(0);
    if (!active.empty() && name.find(active) != std::string::npos) activeWeight = weight;
    if (!pending.empty() && name.find(pending) != std::string::npos) pendingWeight = weight;
  }
  return {activeWeight, pendingWeight};
}

bool isIncrementalUpgradeComplete(const Json& rayService, const Json& pendingCluster) {
  return !pendingCluster.is_null() &&
         serviceStatusPercent(rayService, "activeServiceStatus", "targetCapacity").value_or(-1) ==
             0 &&
         serviceStatusPercent(rayService, "pendingServiceStatus", "trafficRoutedPercent")
                 .value_or(-1) == 100;
}

Result<Json> createGateway(const Json& rayService) {
  const auto options = getRayServiceClusterUpgradeOptions(rayService);
  if (!options) {
    return tl::unexpected(
        Status::badRequest("Missing RayService ClusterUpgradeOptions during upgrade."));
  }
  return Json{
      {"apiVersion", "gateway.networking.k8s.io/v1"},
      {"kind", "Gateway"},
      {"metadata",
       {{"name", rayServiceGatewayName(rayService)}, {"namespace", meta::namespace_(rayService)}}},
      {"spec",
       {{"gatewayClassName", options->gatewayClassName},
        {"listeners", Json::array({{{"name", kGatewayListenerPortName},
                                    {"protocol", "HTTP"},
                                    {"port", kDefaultGatewayListenerPort}}})}}}};
}

Result<std::pair<std::int32_t, std::int32_t>> calculateTrafficRoutedPercent(
    const Json& rayService, bool isPendingClusterReady, TimePoint now) {
  std::int32_t active =
      serviceStatusPercent(rayService, "activeServiceStatus", "trafficRoutedPercent").value_or(100);
  std::int32_t pending =
      serviceStatusPercent(rayService, "pendingServiceStatus", "trafficRoutedPercent").value_or(0);
  const auto options = getRayServiceClusterUpgradeOptions(rayService);
  if (!options) {
    return tl::unexpected(Status::badRequest("ClusterUpgradeOptions are not set during upgrade."));
  }
  const std::int32_t pendingCapacity =
      serviceStatusPercent(rayService, "pendingServiceStatus", "targetCapacity").value_or(0);
  const std::int32_t activeCapacity =
      serviceStatusPercent(rayService, "activeServiceStatus", "targetCapacity").value_or(100);
  const bool rollback = isRayServiceConditionTrue(rayService, kRollbackInProgress);
  // The cluster traffic moves to has reached its capacity: no step.
  if ((pending == pendingCapacity && !rollback) || (rollback && active == activeCapacity)) {
    return std::make_pair(active, pending);
  }
  // The time of the cluster whose traffic rises.
  const Json& last =
      jsonAt(rayService, {"status", rollback ? "activeServiceStatus" : "pendingServiceStatus",
                          "lastTrafficMigratedTime"});
  TimePoint lastTime;
  const bool hasLast = last.is_string() && parseRfc3339(last.get<std::string>(), &lastTime);
  const Duration interval = std::chrono::seconds(options->intervalSeconds.value_or(0));
  if (hasLast && now - lastTime < interval) return std::make_pair(active, pending);
  const std::int32_t step = options->stepSizePercent.value_or(0);
  if (rollback) {
    active = std::min({100, active + step, activeCapacity});
    pending = 100 - active;
  } else if (isPendingClusterReady) {
    pending = std::min({100, pending + step, pendingCapacity});
    active = 100 - pending;
  }
  return std::make_pair(active, pending);
}

Json buildHttpRoute(const Json& rayService, const Json& gateway, const Json& activeCluster,
                    const Json& pendingCluster, std::int32_t activeWeight,
                    std::int32_t pendingWeight) {
  const std::string ns = meta::namespace_(gateway);
  Json backendRefs = Json::array(
      {backendRef(meta::name(activeCluster), ns, getServePort(activeCluster), activeWeight)});
  if (!pendingCluster.is_null()) {
    backendRefs.push_back(
        backendRef(meta::name(pendingCluster), ns, getServePort(pendingCluster), pendingWeight));
  }
  Json rule = {{"matches", Json::array({{{"path", {{"type", "PathPrefix"}, {"value", "/"}}}}})},
               {"backendRefs", std::move(backendRefs)}};
  return {{"apiVersion", "gateway.networking.k8s.io/v1"},
          {"kind", "HTTPRoute"},
          {"metadata", {{"name", rayServiceHttpRouteName(rayService)}, {"namespace", ns}}},
          {"spec",
           {{"parentRefs", Json::array({{{"name", meta::name(gateway)}, {"namespace", ns}}})},
            {"rules", Json::array({std::move(rule)})}}}};
}

std::optional<std::int32_t> goalTargetCapacity(Json& rayService, const std::string& clusterName) {
  // Both sides exist before either is held: adding a member may move its siblings.
  serviceStatusOf(rayService, "activeServiceStatus");
  serviceStatusOf(rayService, "pendingServiceStatus");
  Json& activeStatus = serviceStatusOf(rayService, "activeServiceStatus");
  Json& pendingStatus = serviceStatusOf(rayService, "pendingServiceStatus");
  if (!optionalInt32(activeStatus, "targetCapacity")) activeStatus["targetCapacity"] = 100;
  if (!optionalInt32(pendingStatus, "targetCapacity")) pendingStatus["targetCapacity"] = 0;
  const std::int32_t activeCapacity = *optionalInt32(activeStatus, "targetCapacity");
  const std::int32_t pendingCapacity = *optionalInt32(pendingStatus, "targetCapacity");
  const std::int32_t maxSurge = getRayServiceClusterUpgradeOptions(rayService)
                                    .value_or(ClusterUpgradeOptions{})
                                    .maxSurgePercent;
  const bool isActive = clusterName == stringField(activeStatus, "rayClusterName");
  const bool isPending = clusterName == stringField(pendingStatus, "rayClusterName");
  const bool overHundred = activeCapacity + pendingCapacity > 100;
  if (isRayServiceConditionTrue(rayService, kRollbackInProgress)) {
    // Backwards: traffic back first, then the pending capacity down, the active one up.
    if (activeCapacity != optionalInt32(activeStatus, "trafficRoutedPercent").value_or(0)) {
      return std::nullopt;
    }
    if (overHundred && isPending) return std::max(0, pendingCapacity - maxSurge);
    if (!overHundred && isActive) return std::min(100, activeCapacity + maxSurge);
    return std::nullopt;
  }
  // The capacity waits for the traffic to catch up.
  if (pendingCapacity != optionalInt32(pendingStatus, "trafficRoutedPercent").value_or(0)) {
    return std::nullopt;
  }
  if (isActive && overHundred) return std::max(0, activeCapacity - maxSurge);
  if (isPending && !overHundred) return std::min(100, pendingCapacity + maxSurge);
  return std::nullopt;
}

std::pair<bool, std::string> checkIfNeedTargetCapacityUpdate(const Json& rayService,
                                                             const Json& gateway,
                                                             const Json& httpRoute) {
  if (activeClusterName(rayService).empty() || pendingClusterName(rayService).empty()) {
    return {false,
            "Both active and pending RayCluster instances are required for "
            "NewClusterWithIncrementalUpgrade."};
  }
  if (!isGatewayReady(gateway)) {
    return {false, "Gateway for RayService NewClusterWithIncrementalUpgrade is not ready."};
  }
  if (!isHttpRouteReady(gateway, httpRoute)) {
    return {false, "HTTPRoute for RayService NewClusterWithIncrementalUpgrade is not ready."};
  }
  auto percent = [&](std::string_view side, std::string_view field) {
    return serviceStatusPercent(rayService, side, field);
  };
  if (!percent("activeServiceStatus", "targetCapacity") ||
      !percent("activeServiceStatus", "trafficRoutedPercent")) {
    return {true, "Active RayServiceStatus missing TargetCapacity or TrafficRoutedPercent."};
  }
  if (!percent("pendingServiceStatus", "targetCapacity") ||
      !percent("pendingServiceStatus", "trafficRoutedPercent")) {
    return {true, "Pending RayServiceStatus missing TargetCapacity or TrafficRoutedPercent."};
  }
  const std::int32_t activeCapacity = *percent("activeServiceStatus", "targetCapacity");
  const std::int32_t pendingCapacity = *percent("pendingServiceStatus", "targetCapacity");
  const std::int32_t pendingTraffic = *percent("pendingServiceStatus", "trafficRoutedPercent");
  if (isRayServiceConditionTrue(rayService, kRollbackInProgress)) {
    if (activeCapacity == 100 && pendingCapacity == 0) {
      return {false, "Rollback complete: all traffic has been restored to the active cluster."};
    }
    return {true, "Rollback in progress: traffic is being restored to the active cluster."};
  }
  if (activeCapacity == 0 && pendingCapacity == 100) {
    return {false,
            "All traffic has migrated to the upgraded cluster and NewClusterWithIncrementalUpgrade "
            "is complete."};
  }
  if (pendingCapacity < 100 || pendingTraffic < 100) {
    return {true, "Pending RayCluster has not finished scaling up."};
  }
  return {true, "Active RayCluster TargetCapacity has not finished scaling down."};
}

bool shouldCompleteIncrementalRollback(const Json& rayService, const Json& pendingCluster) {
  const bool pendingHealthy =
      !pendingCluster.is_null() &&
      isStatusConditionTrue(jsonAt(pendingCluster, {"status", "conditions"}), kHeadPodReady);
  auto percent = [&](std::string_view side, std::string_view field) {
    return serviceStatusPercent(rayService, side, field).value_or(-1);
  };
  return percent("activeServiceStatus", "targetCapacity") == 100 &&
         percent("activeServiceStatus", "trafficRoutedPercent") == 100 &&
         (!pendingHealthy || (percent("pendingServiceStatus", "targetCapacity") == 0 &&
                              percent("pendingServiceStatus", "trafficRoutedPercent") == 0));
}

void reconcileRollbackState(Json& rayService, const Json& activeCluster, const Json& pendingCluster,
                            TimePoint now) {
  const std::string target = rayServiceClusterHash(rayService);
  const std::string key(kHashWithoutReplicasAndWorkersToDeleteKey);
  const std::string original = meta::annotation(activeCluster, key);
  const std::string pending = meta::annotation(pendingCluster, key);
  const bool rollback = isRayServiceConditionTrue(rayService, kRollbackInProgress);
  if (target == original) {
    // The user reverted the upgrade: back to the active cluster.
    if (!rollback) {
      setRayServiceCondition(rayService, kRollbackInProgress, "True", kDesiredClusterSpecChanged,
                             "Goal state reverted to original cluster, rolling back.", now);
    }
    return;
  }
  if (target == pending) {
    // On track again: the upgrade resumes.
    if (rollback) removeRayServiceCondition(rayService, kRollbackInProgress);
    return;
  }
  // A third spec: back to the active cluster first, then a fresh upgrade.
  if (!rollback) {
    setRayServiceCondition(rayService, kRollbackInProgress, "True", kDesiredClusterSpecChanged,
                           "Goal state changed mid-upgrade, rolling back to original cluster.",
                           now);
  }
}

Result<std::optional<std::string>> serveConfigWithTargetCapacity(const std::string& serveConfigV2,
                                                                 std::int32_t targetCapacity) {
  auto text = serveConfigJson(serveConfigV2);
  if (!text) return tl::unexpected(text.error());
  Json config = Json::parse(*text, nullptr, false);
  if (!config.is_object()) config = Json::object();
  if (const Json* current = jsonFind(config, "target_capacity");
      current != nullptr && current->is_number() &&
      static_cast<std::int32_t>(current->get<double>()) == targetCapacity) {
    return std::optional<std::string>();
  }
  config["target_capacity"] = targetCapacity;
  return std::optional<std::string>(config.dump());
}

}  // namespace fakekube::ray
