// The cases of KubeRay's NewClusterWithIncrementalUpgrade whose results are values, from
// rayservice_controller_unit_test.go (TestCreateGateway, TestCreateHTTPRoute,
// TestReconcileServeTargetCapacity, TestCheckIfNeedTargetCapacityUpdate,
// TestReconcileRollbackState, TestShouldCompleteIncrementalRollback) and utils' util_test.go and
// validation_test.go (TestIsGatewayReady, TestIsHTTPRouteReady, TestGetWeightsFromHTTPRoute,
// TestIsHTTPRouteEqual, TestIsGatewayEqual, TestValidateClusterUpgradeOptions). The steps that read
// and write objects run end to end in rayservice_incremental_upgrade_test.cpp.
#include <gtest/gtest.h>

#include <string>

#include "controllers/ray/constants.h"
#include "controllers/ray/internal/pod_builder.h"
#include "controllers/ray/internal/rayservice_incremental_upgrade.h"
#include "controllers/ray/internal/rayservice_types.h"
#include "controllers/ray/internal/rayservice_validation.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/sim/clock.h"

namespace fakekube::ray {
namespace {

using std::chrono::seconds;

const TimePoint kNow = TimePoint{} + std::chrono::hours(24 * 365 * 50);

// makeIncrementalUpgradeRayService: with or without clusterUpgradeOptions.
Json incrementalRayService(bool withOptions, std::int32_t stepSize = 10, std::int32_t interval = 30,
                           std::int32_t maxSurge = 100) {
  Json service = {{"apiVersion", "ray.io/v1"},
                  {"kind", "RayService"},
                  {"metadata", {{"name", "incremental-ray-service"}, {"namespace", "test-ns"}}},
                  {"spec",
                   {{"upgradeStrategy", {{"type", "NewClusterWithIncrementalUpgrade"}}},
                    {"rayClusterConfig", {{"enableInTreeAutoscaling", true}}}}}};
  if (withOptions) {
    service["spec"]["upgradeStrategy"]["clusterUpgradeOptions"] = {
        {"gatewayClassName", "gateway-class"},
        {"stepSizePercent", stepSize},
        {"intervalSeconds", interval},
        {"maxSurgePercent", maxSurge}};
  }
  return service;
}

void setSide(Json& rayService, const char* side, const std::string& cluster,
             std::optional<int> traffic, std::optional<int> capacity) {
  Json& status = rayService["status"][side];
  status["rayClusterName"] = cluster;
  if (traffic) status["trafficRoutedPercent"] = *traffic;
  if (capacity) status["targetCapacity"] = *capacity;
}

Json namedCluster(const std::string& name) {
  return {{"metadata", {{"name", name}, {"namespace", "test-ns"}}}};
}

Json gatewayWith(bool ready) {
  Json gateway = {{"metadata", {{"name", "test-rayservice-gateway"}, {"namespace", "test-ns"}}}};
  const char* status = ready ? "True" : "False";
  gateway["status"]["conditions"] = {{{"type", "Accepted"}, {"status", status}},
                                     {{"type", "Programmed"}, {"status", status}}};
  return gateway;
}

Json httpRouteWith(bool ready, const std::string& parent = "test-rayservice-gateway") {
  const char* status = ready ? "True" : "False";
  return {{"metadata", {{"name", "test-rayservice-httproute"}, {"namespace", "test-ns"}}},
          {"status",
           {{"parents",
             {{{"parentRef", {{"name", parent}, {"namespace", "test-ns"}}},
               {"conditions",
                {{{"type", "Accepted"}, {"status", status}},
                 {{"type", "ResolvedRefs"}, {"status", status}}}}}}}}}};
}

TEST(RayServiceIncrementalUpgradeUnitTest, TestCreateGateway) {
  auto gateway = createGateway(incrementalRayService(true));
  ASSERT_TRUE(gateway.has_value());
  EXPECT_EQ(jsonAt(*gateway, {"metadata", "name"}), "incremental-ray-service-gateway");
  EXPECT_EQ(jsonAt(*gateway, {"metadata", "namespace"}), "test-ns");
  EXPECT_EQ(jsonAt(*gateway, {"spec", "gatewayClassName"}), "gateway-class");
  const Json& listeners = jsonAt(*gateway, {"spec", "listeners"});
  ASSERT_EQ(listeners.size(), 1u);
  EXPECT_EQ(listeners[0], Json({{"name", "http"}, {"protocol", "HTTP"}, {"port", 80}}));
  // missing ClusterUpgradeOptions
  EXPECT_FALSE(createGateway(incrementalRayService(false)).has_value());
}

// TestCreateHTTPRoute: the weights createHTTPRoute computes and the route it builds.
class CreateHTTPRouteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    service = incrementalRayService(true, 10, 30);
    setSide(service, "activeServiceStatus", "rayservice-active", 100, 100);
    setSide(service, "pendingServiceStatus", "rayservice-pending", 0, 30);
  }
  void migratedSecondsAgo(int ago) {
    service["status"]["pendingServiceStatus"]["lastTrafficMigratedTime"] =
        formatRfc3339(kNow - seconds(ago));
  }
  std::pair<std::int32_t, std::int32_t> weights(bool pendingReady) {
    return calculateTrafficRoutedPercent(service, pendingReady, kNow).value();
  }
  Json service;
};

TEST_F(CreateHTTPRouteTest, PendingClusterNotReadySoNoTrafficShift) {
  migratedSecondsAgo(31);
  EXPECT_EQ(weights(false), std::make_pair(100, 0));
}

TEST_F(CreateHTTPRouteTest, TimeSinceLastTrafficMigratedTimeBelowIntervalSeconds) {
  migratedSecondsAgo(0);
  EXPECT_EQ(weights(true), std::make_pair(100, 0));
}

TEST_F(CreateHTTPRouteTest, TimeSinceLastTrafficMigratedTimeAtLeastIntervalSeconds) {
  migratedSecondsAgo(31);
  service["status"]["pendingServiceStatus"]["targetCapacity"] = 60;
  EXPECT_EQ(weights(true), std::make_pair(90, 10));
  const Json route = buildHttpRoute(service, gatewayWith(true), namedCluster("rayservice-active"),
                                    namedCluster("rayservice-pending"), 90, 10);
  EXPECT_EQ(jsonAt(route, {"metadata", "name"}), "incremental-ray-service-httproute");
  const Json& backends = jsonAt(route, {"spec", "rules"})[0]["backendRefs"];
  ASSERT_EQ(backends.size(), 2u);
  EXPECT_EQ(backends[0]["name"], "rayservice-active-serve-svc");
  EXPECT_EQ(backends[0]["weight"], 90);
  EXPECT_EQ(backends[0]["port"], 8000);
  EXPECT_EQ(backends[1]["name"], "rayservice-pending-serve-svc");
  EXPECT_EQ(backends[1]["weight"], 10);
  const Json& parent = jsonAt(route, {"spec", "parentRefs"})[0];
  EXPECT_EQ(parent, Json({{"name", "test-rayservice-gateway"}, {"namespace", "test-ns"}}));
}

TEST_F(CreateHTTPRouteTest, TrafficRoutedPercentCappedToPendingTargetCapacity) {
  migratedSecondsAgo(31);
  service["status"]["pendingServiceStatus"]["targetCapacity"] = 5;
  EXPECT_EQ(weights(true), std::make_pair(95, 5));
}

TEST_F(CreateHTTPRouteTest, CalledWithMissingClusterUpgradeOptions) {
  service["spec"]["upgradeStrategy"].erase("clusterUpgradeOptions");
  EXPECT_FALSE(calculateTrafficRoutedPercent(service, true, kNow).has_value());
}

TEST_F(CreateHTTPRouteTest, NoOngoingUpgradePendingClusterDoesNotExist) {
  service["status"]["pendingServiceStatus"] = Json::object();
  EXPECT_EQ(weights(false), std::make_pair(100, 0));
  const Json route =
      buildHttpRoute(service, gatewayWith(true), namedCluster("rayservice-active"), Json(), 100, 0);
  EXPECT_EQ(jsonAt(route, {"spec", "rules"})[0]["backendRefs"].size(), 1u);
}

// Rollback moves the traffic the other way, timed by the active cluster's last migration.
TEST_F(CreateHTTPRouteTest, RollbackShiftsTrafficBackToTheActiveCluster) {
  setSide(service, "activeServiceStatus", "rayservice-active", 70, 100);
  setSide(service, "pendingServiceStatus", "rayservice-pending", 30, 30);
  setRayServiceCondition(service, kRollbackInProgress, "True", kDesiredClusterSpecChanged, "",
                         kNow);
  EXPECT_EQ(weights(false), std::make_pair(80, 20));
}

// TestReconcileServeTargetCapacity.
TEST(RayServiceIncrementalUpgradeUnitTest, TestReconcileServeTargetCapacity) {
  Json service = incrementalRayService(true, 10, 30, 20);
  // Scale up pending RayCluster when total TargetCapacity < 100
  setSide(service, "activeServiceStatus", "active", 0, 70);
  setSide(service, "pendingServiceStatus", "pending", 10, 10);
  EXPECT_EQ(goalTargetCapacity(service, "pending"), 30);
  EXPECT_EQ(goalTargetCapacity(service, "active"), std::nullopt);
  // Scale down active RayCluster when total TargetCapacity > 100
  setSide(service, "activeServiceStatus", "active", 0, 80);
  setSide(service, "pendingServiceStatus", "pending", 30, 30);
  EXPECT_EQ(goalTargetCapacity(service, "active"), 60);
  EXPECT_EQ(goalTargetCapacity(service, "pending"), std::nullopt);
  // The capacity waits for the traffic.
  setSide(service, "pendingServiceStatus", "pending", 10, 30);
  EXPECT_EQ(goalTargetCapacity(service, "active"), std::nullopt);
  // What is sent: the config with target_capacity.
  auto body = serveConfigWithTargetCapacity(R"({"target_capacity": 0})", 60);
  ASSERT_TRUE(body.has_value());
  EXPECT_EQ(Json::parse(**body), Json({{"target_capacity", 60}}));
  EXPECT_EQ(serveConfigWithTargetCapacity(R"({"target_capacity": 60})", 60).value(), std::nullopt);
}

TEST(RayServiceIncrementalUpgradeUnitTest, TestCheckIfNeedTargetCapacityUpdate) {
  Json service = incrementalRayService(true);
  service["metadata"]["name"] = "test-rayservice";
  EXPECT_EQ(checkIfNeedTargetCapacityUpdate(service, Json(), Json()),
            std::make_pair(false, std::string("Both active and pending RayCluster instances are "
                                              "required for NewClusterWithIncrementalUpgrade.")));
  setSide(service, "activeServiceStatus", "active", std::nullopt, std::nullopt);
  setSide(service, "pendingServiceStatus", "pending", std::nullopt, std::nullopt);
  EXPECT_EQ(
      checkIfNeedTargetCapacityUpdate(service, gatewayWith(false), httpRouteWith(true)).second,
      "Gateway for RayService NewClusterWithIncrementalUpgrade is not ready.");
  EXPECT_EQ(
      checkIfNeedTargetCapacityUpdate(service, gatewayWith(true), httpRouteWith(false)).second,
      "HTTPRoute for RayService NewClusterWithIncrementalUpgrade is not ready.");
  setSide(service, "activeServiceStatus", "active", 0, 0);
  setSide(service, "pendingServiceStatus", "pending", 100, 100);
  EXPECT_EQ(
      checkIfNeedTargetCapacityUpdate(service, gatewayWith(true), httpRouteWith(true)),
      std::make_pair(false, std::string("All traffic has migrated to the upgraded cluster "
                                        "and NewClusterWithIncrementalUpgrade is complete.")));
  setSide(service, "activeServiceStatus", "active", 70, 70);
  setSide(service, "pendingServiceStatus", "pending", 30, 30);
  EXPECT_EQ(checkIfNeedTargetCapacityUpdate(service, gatewayWith(true), httpRouteWith(true)),
            std::make_pair(true, std::string("Pending RayCluster has not finished scaling up.")));
}

TEST(RayServiceIncrementalUpgradeUnitTest, TestReconcileRollbackState) {
  Json base = {{"rayVersion", "2.54.0"},
               {"workerGroupSpecs", {{{"groupName", "worker-group"}, {"replicas", 1}}}}};
  Json updated = base;
  updated["rayVersion"] = "2.50.0";
  Json third = base;
  third["rayVersion"] = "2.56.0";
  const std::string baseHash = clusterHash({{"spec", base}});
  const std::string updatedHash = clusterHash({{"spec", updated}});
  const std::string key(kHashWithoutReplicasAndWorkersToDeleteKey);
  const Json active = {
      {"metadata", {{"name", "active-cluster"}, {"annotations", {{key, baseHash}}}}}};
  struct Case {
    const char* name;
    Json spec;
    std::string pendingHash;
    bool rollingBack;
    bool expectRollback;
  } cases[] = {
      {"Normal RayService upgrade, goal matches pending", updated, updatedHash, false, false},
      {"RayService Spec changed, initiate rollback", base, updatedHash, false, true},
      {"Rollback in progress, continues rolling back", base, updatedHash, true, true},
      {"Rollback canceled, user updated spec back to pending", updated, updatedHash, true, false},
      {"Third-spec scenario: Goal updated to third spec mid-upgrade", third, updatedHash, false,
       true},
      {"Fast rollback: Goal matches active, but pending already updated to match active", base,
       baseHash, false, true},
  };
  for (const Case& c : cases) {
    Json service = {{"metadata", {{"name", "test-rayservice"}, {"namespace", "test-ns"}}},
                    {"spec", {{"rayClusterConfig", c.spec}}},
                    {"status", {{"conditions", Json::array()}}}};
    if (c.rollingBack) {
      setRayServiceCondition(service, kRollbackInProgress, "True", kDesiredClusterSpecChanged,
                             "rolling back", kNow);
    }
    const Json pending = {
        {"metadata", {{"name", "pending-cluster"}, {"annotations", {{key, c.pendingHash}}}}}};
    reconcileRollbackState(service, active, pending, kNow);
    EXPECT_EQ(isRayServiceConditionTrue(service, kRollbackInProgress), c.expectRollback) << c.name;
  }
}

TEST(RayServiceIncrementalUpgradeUnitTest, TestShouldCompleteIncrementalRollback) {
  auto headReady = [](bool ready) {
    return Json{
        {"status",
         {{"conditions", {{{"type", "HeadPodReady"}, {"status", ready ? "True" : "False"}}}}}}};
  };
  struct Case {
    const char* name;
    int pendingCapacity;
    Json pendingCluster;
    bool want;
  } cases[] = {
      {"healthy pending at zero capacity and traffic — complete", 0, headReady(true), true},
      {"unhealthy pending with leftover capacity — bypass complete", 30, headReady(false), true},
      {"no pending RayCluster — complete when active is full", 0, Json(), true},
      {"healthy pending still holding target capacity — not complete", 50, headReady(true), false},
  };
  for (const Case& c : cases) {
    Json service = incrementalRayService(true);
    setSide(service, "activeServiceStatus", "a", 100, 100);
    setSide(service, "pendingServiceStatus", "p", 0, c.pendingCapacity);
    EXPECT_EQ(shouldCompleteIncrementalRollback(service, c.pendingCluster), c.want) << c.name;
  }
}

TEST(RayServiceIncrementalUpgradeUnitTest, TestIsGatewayReadyAndTestIsHTTPRouteReady) {
  EXPECT_TRUE(isGatewayReady(gatewayWith(true)));
  EXPECT_FALSE(isGatewayReady(gatewayWith(false)));
  EXPECT_FALSE(isGatewayReady(Json()));
  Json acceptedOnly = gatewayWith(true);
  acceptedOnly["status"]["conditions"].erase(1);
  EXPECT_FALSE(isGatewayReady(acceptedOnly));
  EXPECT_TRUE(isHttpRouteReady(gatewayWith(true), httpRouteWith(true)));
  EXPECT_FALSE(isHttpRouteReady(gatewayWith(true), httpRouteWith(false)));
  EXPECT_FALSE(isHttpRouteReady(gatewayWith(true), Json()));
  // Only the status of the Gateway's own parent counts.
  EXPECT_FALSE(isHttpRouteReady(gatewayWith(true), httpRouteWith(true, "another-gateway")));
}

TEST(RayServiceIncrementalUpgradeUnitTest, TestGetWeightsFromHTTPRoute) {
  Json service = incrementalRayService(true);
  setSide(service, "activeServiceStatus", "rayservice-active", std::nullopt, std::nullopt);
  setSide(service, "pendingServiceStatus", "rayservice-pending", std::nullopt, std::nullopt);
  const Json route = buildHttpRoute(service, gatewayWith(true), namedCluster("rayservice-active"),
                                    namedCluster("rayservice-pending"), 80, 20);
  EXPECT_EQ(getWeightsFromHttpRoute(route, service), std::make_pair(80, 20));
  EXPECT_EQ(getWeightsFromHttpRoute(Json(), service), std::make_pair(-1, -1));
  service["status"]["pendingServiceStatus"] = Json::object();
  EXPECT_EQ(getWeightsFromHttpRoute(route, service), std::make_pair(80, -1));
}

TEST(RayServiceIncrementalUpgradeUnitTest, TestIsHTTPRouteEqualAndTestIsGatewayEqual) {
  Json service = incrementalRayService(true);
  const Json route =
      buildHttpRoute(service, gatewayWith(true), namedCluster("a"), namedCluster("b"), 80, 20);
  Json defaulted = route;  // what the API server's defaults add is not compared
  defaulted["spec"]["rules"][0]["backendRefs"][0]["kind"] = "Service";
  defaulted["spec"]["parentRefs"][0]["group"] = "gateway.networking.k8s.io";
  EXPECT_TRUE(isHttpRouteEqual(defaulted, route));
  Json moved = route;
  moved["spec"]["rules"][0]["backendRefs"][1]["weight"] = 30;
  EXPECT_FALSE(isHttpRouteEqual(moved, route));
  EXPECT_FALSE(isHttpRouteEqual(Json(), route));
  const Json gateway = createGateway(service).value();
  Json otherClass = gateway;
  otherClass["spec"]["gatewayClassName"] = "istio";
  EXPECT_TRUE(isGatewayEqual(gateway, gateway));
  EXPECT_FALSE(isGatewayEqual(otherClass, gateway));
}

TEST(RayServiceIncrementalUpgradeUnitTest, TestValidateClusterUpgradeOptions) {
  struct Case {
    const char* name;
    Json options;
    bool autoscaling;
    std::optional<std::string> error;
  } cases[] = {
      {"valid options",
       {{"gatewayClassName", "istio"}, {"stepSizePercent", 10}, {"intervalSeconds", 30}},
       true,
       std::nullopt},
      {"autoscaler off",
       {{"gatewayClassName", "istio"}, {"stepSizePercent", 10}, {"intervalSeconds", 30}},
       false,
       "Ray Autoscaler is required for NewClusterWithIncrementalUpgrade"},
      {"missing options", Json(), true,
       "ClusterUpgradeOptions are required for NewClusterWithIncrementalUpgrade"},
      {"maxSurgePercent out of range",
       {{"maxSurgePercent", 101},
        {"stepSizePercent", 10},
        {"intervalSeconds", 30},
        {"gatewayClassName", "istio"}},
       true,
       "maxSurgePercent must be between 0 and 100"},
      {"stepSizePercent missing",
       {{"intervalSeconds", 30}, {"gatewayClassName", "istio"}},
       true,
       "stepSizePercent must be between 0 and 100"},
      {"stepSizePercent above maxSurgePercent",
       {{"maxSurgePercent", 10},
        {"stepSizePercent", 20},
        {"intervalSeconds", 30},
        {"gatewayClassName", "istio"}},
       true,
       "stepSizePercent must be less than or equal to maxSurgePercent"},
      {"intervalSeconds zero",
       {{"stepSizePercent", 10}, {"intervalSeconds", 0}, {"gatewayClassName", "istio"}},
       true,
       "intervalSeconds must be greater than 0"},
      {"gatewayClassName missing",
       {{"stepSizePercent", 10}, {"intervalSeconds", 30}},
       true,
       "gatewayClassName is required for NewClusterWithIncrementalUpgrade"},
  };
  for (const Case& c : cases) {
    Json service = incrementalRayService(false);
    service["spec"]["rayClusterConfig"]["enableInTreeAutoscaling"] = c.autoscaling;
    if (!c.options.is_null())
      service["spec"]["upgradeStrategy"]["clusterUpgradeOptions"] = c.options;
    EXPECT_EQ(validateClusterUpgradeOptions(service), c.error) << c.name;
  }
  // Through ValidateRayServiceSpec only with the feature gate on.
  Json service = incrementalRayService(false);
  service["spec"]["rayClusterConfig"] = {
      {"enableInTreeAutoscaling", true},
      {"headGroupSpec",
       {{"template", {{"spec", {{"containers", Json::array({{{"name", "ray-head"}}})}}}}}}}};
  EXPECT_EQ(validateRayServiceSpec(service, /*incrementalUpgradeGate=*/true),
            "The RayService spec is invalid: ClusterUpgradeOptions are required for "
            "NewClusterWithIncrementalUpgrade");
  EXPECT_EQ(validateRayServiceSpec(service, /*incrementalUpgradeGate=*/false), std::nullopt);
}

}  // namespace
}  // namespace fakekube::ray
