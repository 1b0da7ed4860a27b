// NewClusterWithIncrementalUpgrade end to end on virtual time, as upstream's e2eincrementalupgrade
// suite runs it against a cluster with Istio: the Gateway API's definitions, the simulated
// gateway implementation (sim/gateway_controller.h), the Ray simulation and the operator. The
// RayService gets its Gateway and HTTPRoute (TestReconcileGateway, TestReconcileHTTPRoute) and a
// serve Service per cluster (TestReconcilePerClusterServeService); an upgrade moves the traffic
// to the new cluster in steps of stepSizePercent, at least intervalSeconds apart, with the
// target_capacity leading, then deletes the old cluster; reverting the spec mid-upgrade rolls
// back.
#include "controllers/ray/internal/rayservice_incremental_upgrade.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "controllers/ray/internal/gateway_api.h"
#include "controllers/ray/sim/internal/gateway_controller.h"
#include "rayservice_fixture.h"

namespace fakekube::ray::testing {
namespace {

using ::testing::Contains;

constexpr int kStepSizePercent = 25;
constexpr int kIntervalSeconds = 10;
constexpr int kMaxSurgePercent = 50;

// rayServiceTemplate with the incremental upgrade (the autoscaler on, as the validation asks; one
// worker that stays).
Json incrementalRayService(const std::string& name) {
  Json service = rayServiceTemplate(name, "app1", 1);
  service["spec"]["upgradeStrategy"] = {{"type", "NewClusterWithIncrementalUpgrade"},
                                        {"clusterUpgradeOptions",
                                         {{"gatewayClassName", "istio"},
                                          {"stepSizePercent", kStepSizePercent},
                                          {"intervalSeconds", kIntervalSeconds},
                                          {"maxSurgePercent", kMaxSurgePercent}}}};
  Json& config = service["spec"]["rayClusterConfig"];
  config["enableInTreeAutoscaling"] = true;
  config["workerGroupSpecs"][0]["minReplicas"] = 1;
  return service;
}

class RayServiceIncrementalUpgradeTest : public RayServiceTest {
 protected:
  void SetUp() override {
    RayServiceTest::SetUp();
    ASSERT_TRUE(installGatewayApi(*client).has_value());
    gateways = std::make_unique<Manager>(ex, *server);
    ASSERT_TRUE(addGatewayControllers(*gateways).has_value());
    gateways->start();
    startOperator();
  }
  void TearDown() override {
    manager.reset();
    gateways.reset();
  }

  std::optional<int> percent(const std::string& name, const char* side, const char* field) {
    return serviceStatusPercent(rayService(name), side, field);
  }
  // The HTTPRoute's backendRefs as {service: weight}.
  std::map<std::string, int> routeWeights(const std::string& name) {
    std::map<std::string, int> weights;
    const Json route = get(kHttpRoutes, "default", name + "-httproute");
    for (const Json& rule : jsonArrayAt(jsonObjectAt(route, "spec"), "rules")) {
      for (const Json& backend : jsonArrayAt(rule, "backendRefs")) {
        weights[backend["name"].get<std::string>()] = backend["weight"].get<int>();
      }
    }
    return weights;
  }

  std::unique_ptr<Manager> gateways;
};

// TestReconcileGateway, TestReconcileHTTPRoute, TestReconcilePerClusterServeService: a new
// RayService's first cluster starts at 100 % and is promoted at once; it gets the Gateway (the
// options' class, one HTTP listener on 80), a route to its own serve Service with weight 100, and
// both are reported ready by the gateway implementation.
TEST_F(RayServiceIncrementalUpgradeTest, ANewRayServiceGetsItsGatewayHttpRouteAndServeService) {
  const std::string name = "incremental";
  const std::string active = createAndRunUntilReady(incrementalRayService(name));
  ASSERT_TRUE(runUntil([&] { return !routeWeights(name).empty(); }, seconds(30)));
  const Json gateway = get(kGateways, "default", name + "-gateway");
  EXPECT_EQ(jsonAt(gateway, {"spec", "gatewayClassName"}), "istio");
  EXPECT_EQ(jsonAt(gateway, {"spec", "listeners"}),
            Json::array({{{"name", "http"}, {"protocol", "HTTP"}, {"port", 80}}}));
  ASSERT_TRUE(runUntil(
      [&] {
        return isHttpRouteReady(get(kGateways, "default", name + "-gateway"),
                                get(kHttpRoutes, "default", name + "-httproute"));
      },
      seconds(10)));
  EXPECT_TRUE(isGatewayReady(get(kGateways, "default", name + "-gateway")));
  EXPECT_EQ(routeWeights(name), (std::map<std::string, int>{{active + "-serve-svc", 100}}));
  const Json serveService = get(kServices, "default", active + "-serve-svc");
  const auto owner = meta::controllerOf(serveService);
  ASSERT_TRUE(owner.has_value());
  EXPECT_EQ(owner->kind, "RayCluster");
  EXPECT_EQ(owner->name, active);
  EXPECT_EQ(jsonAt(serveService, {"spec", "selector", "ray.io/cluster"}), active);
  EXPECT_EQ(percent(name, "activeServiceStatus", "targetCapacity"), 100);
  ASSERT_TRUE(
      runUntil([&] { return percent(name, "activeServiceStatus", "trafficRoutedPercent") == 100; },
               seconds(10)));
  EXPECT_THAT(eventReasons(name), Contains("CreatedGateway"));
  EXPECT_THAT(eventReasons(name), Contains("CreatedHTTPRoute"));
  // TestReconcileGateway "updates Gateway if spec differs".
  updateSpec(name, [](Json& spec) {
    spec["upgradeStrategy"]["clusterUpgradeOptions"]["gatewayClassName"] = "envoy";
  });
  EXPECT_TRUE(runUntil(
      [&] {
        return jsonAt(get(kGateways, "default", name + "-gateway"), {"spec", "gatewayClassName"}) ==
               "envoy";
      },
      seconds(10)));
  EXPECT_THAT(eventReasons(name), Contains("UpdatedGateway"));
}

// One observation of the upgrade: the pending cluster's traffic and capacity at a virtual time.
struct Step {
  TimePoint at;
  int pendingTraffic;
  int pendingCapacity;
};

// The e2e suite's incremental upgrade: traffic moves to the new cluster by stepSizePercent, never
// ahead of its target_capacity, each step at least intervalSeconds after the last; the route's
// weights always add up to 100; once all of it moved, the new cluster is promoted, the route
// names it alone, and the old cluster (with its serve Service) is deleted.
TEST_F(RayServiceIncrementalUpgradeTest, AnUpgradeMovesTrafficInStepsThenDeletesTheOldCluster) {
  const std::string name = "stepwise";
  const std::string old = createAndRunUntilReady(incrementalRayService(name));
  ASSERT_TRUE(
      runUntil([&] { return percent(name, "activeServiceStatus", "trafficRoutedPercent") == 100; },
               seconds(30)));
  updateSpec(name, [](Json& spec) { spec["rayClusterConfig"]["rayVersion"] = "2.47.0"; });

  std::vector<Step> steps;
  std::string pending;
  ASSERT_TRUE(runUntil(
      [&] {
        const Json service = rayService(name);
        if (!pendingClusterName(service).empty()) pending = pendingClusterName(service);
        const auto traffic =
            serviceStatusPercent(service, "pendingServiceStatus", "trafficRoutedPercent");
        const auto capacity =
            serviceStatusPercent(service, "pendingServiceStatus", "targetCapacity");
        if (traffic && capacity && (steps.empty() || steps.back().pendingTraffic != *traffic)) {
          steps.push_back({ex.now(), *traffic, *capacity});
        }
        const auto weights = routeWeights(name);
        int total = 0;
        for (const auto& [backend, weight] : weights) total += weight;
        EXPECT_TRUE(weights.empty() || total == 100) << "weights add up to " << total;
        return activeClusterName(service) != old && !activeClusterName(service).empty();
      },
      seconds(600)));
  ASSERT_FALSE(pending.empty());
  EXPECT_EQ(activeClusterName(rayService(name)), pending);

  // 0, 25, 50, 75, 100: one step at a time, capped by the capacity, intervalSeconds apart.
  std::vector<int> traffic;
  for (const Step& step : steps) traffic.push_back(step.pendingTraffic);
  EXPECT_EQ(traffic, (std::vector<int>{0, 25, 50, 75, 100}));
  for (std::size_t i = 1; i < steps.size(); ++i) {
    EXPECT_LE(steps[i].pendingTraffic, steps[i].pendingCapacity);
    EXPECT_GE(steps[i].at - steps[i - 1].at, seconds(kIntervalSeconds)) << "step " << i;
  }
  EXPECT_THAT(eventReasons(name), Contains("UpdatedServeTargetCapacity"));
  EXPECT_THAT(eventReasons(name), Contains("UpdatedHTTPRoute"));

  // The new cluster alone, at 100 %; the old one goes after the deletion delay.
  ASSERT_TRUE(runUntil(
      [&] {
        return routeWeights(name) == std::map<std::string, int>{{pending + "-serve-svc", 100}};
      },
      seconds(10)));
  EXPECT_EQ(percent(name, "activeServiceStatus", "targetCapacity"), 100);
  EXPECT_TRUE(conditionTrue(name, kRayServiceReady));
  ASSERT_TRUE(runUntil([&] { return !exists(kRayClusters, "default", old); }, seconds(90)));
  EXPECT_EQ(rayClusterNames(), std::vector<std::string>{pending});
  EXPECT_TRUE(
      runUntil([&] { return !exists(kServices, "default", old + "-serve-svc"); }, seconds(30)));
  EXPECT_EQ(selectedCluster(name + "-head-svc"), pending);
  EXPECT_EQ(conditionReason(name, kUpgradeInProgress), "NoPendingCluster");
}

// TestReconcileRollbackState end to end: the spec changed back to the active cluster's while the
// upgrade runs sets RollbackInProgress; traffic returns to the active cluster, the pending
// cluster is dropped and deleted, and nothing is promoted.
TEST_F(RayServiceIncrementalUpgradeTest, RevertingTheSpecMidUpgradeRollsBack) {
  const std::string name = "rollback";
  const std::string active = createAndRunUntilReady(incrementalRayService(name));
  updateSpec(name, [](Json& spec) { spec["rayClusterConfig"]["rayVersion"] = "2.47.0"; });
  std::string pending;
  ASSERT_TRUE(runUntil(
      [&] {
        pending = pendingCluster(name);
        return percent(name, "pendingServiceStatus", "trafficRoutedPercent").value_or(0) > 0;
      },
      seconds(300)));
  updateSpec(name, [](Json& spec) { spec["rayClusterConfig"]["rayVersion"] = "2.46.0"; });
  ASSERT_TRUE(runUntil([&] { return conditionTrue(name, kRollbackInProgress); }, seconds(30)));
  ASSERT_TRUE(runUntil([&] { return pendingCluster(name).empty(); }, seconds(300)));
  EXPECT_EQ(activeClusterName(rayService(name)), active);
  EXPECT_FALSE(conditionTrue(name, kRollbackInProgress));
  EXPECT_EQ(conditionReason(name, kUpgradeInProgress), "NoPendingCluster");
  EXPECT_EQ(percent(name, "activeServiceStatus", "trafficRoutedPercent"), 100);
  EXPECT_EQ(percent(name, "activeServiceStatus", "targetCapacity"), 100);
  ASSERT_TRUE(runUntil([&] { return !exists(kRayClusters, "default", pending); }, seconds(90)));
  EXPECT_EQ(rayClusterNames(), std::vector<std::string>{active});
  EXPECT_TRUE(runUntil(
      [&] {
        return routeWeights(name) == std::map<std::string, int>{{active + "-serve-svc", 100}};
      },
      seconds(10)));
}

}  // namespace
}  // namespace fakekube::ray::testing
