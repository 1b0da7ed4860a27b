// In-tree autoscaling end to end: the operator puts the autoscaler container into the head pod
// and gives it its ServiceAccount, Role and RoleBinding; the simulated autoscaler
// (controllers/ray/sim/ray_autoscaler.h) patches the RayCluster through the API server to the
// demand the test sets, and the operator turns replicas and workersToDelete into pods — as in
// KubeRay's envtest "Simulate Ray Autoscaler scales up / scales down", with the autoscaler itself
// doing the patching. A cluster of simulated nodes runs every pod, on virtual time.
#include <gtest/gtest.h>

#include "controllers/ray/internal/autoscaler_rbac.h"
#include "tests/controllers/ray/ray_fixture.h"

namespace fakekube::ray::testing {
namespace {

class RayAutoscalerTest : public RayClusterTest {
 protected:
  void SetUp() override {
    RayClusterTest::SetUp();
    ClusterOptions options;
    options.nodes = 3;
    cluster = std::make_unique<Cluster>(ex, *server, options);
    RaySimulationOptions simulation;
    simulation.autoscaler.demand = demand;
    simulation.autoscaler.client = client.get();
    addRayBehaviors(cluster->behaviors(), simulation);
    ASSERT_TRUE(cluster->start().has_value());
    ex.runUntilIdle();
  }

  Json autoscalingCluster(const std::string& name) {
    Json rc = sampleRayCluster(name, 0, 0, 5);
    rc["spec"]["enableInTreeAutoscaling"] = true;
    rc["spec"]["autoscalerOptions"] = {{"idleTimeoutSeconds", 30}};
    return rc;
  }
  const Json& groupSpec(const Json& rc) { return rc["spec"]["workerGroupSpecs"][0]; }
  Json workersToDelete(const std::string& name) {
    const Json rc = getCluster(name);
    return jsonAt(groupSpec(rc), {"scaleStrategy", "workersToDelete"});
  }
  int runningWorkers(const std::string& name) {
    int running = 0;
    for (const Json& pod : workerPods(name)) {
      if (jsonAt(pod, {"status", "phase"}) == "Running") ++running;
    }
    return running;
  }
  std::string autoscalerLog(const std::string& name) {
    auto heads = headPods(name);
    if (heads.empty()) return "";
    auto text =
        cluster->podLogs().read("default", meta::name(heads[0]), {.container = "autoscaler"});
    return text ? *text : "";
  }

  std::shared_ptr<RayAutoscalerDemand> demand = std::make_shared<RayAutoscalerDemand>();
};

// The demand rises to 3: the autoscaler raises replicas and three workers run; it falls to 1:
// after idleTimeoutSeconds the two newest workers, idle, go through workersToDelete with replicas
// 1, the operator deletes them, and the autoscaler then clears workersToDelete.
TEST_F(RayAutoscalerTest, DemandScalesWorkersUpThenIdleWorkersGoThroughWorkersToDelete) {
  startOperator();
  createCluster(autoscalingCluster("rc"));
  ASSERT_TRUE(runUntil([&] { return headPods("rc").size() == 1 && isPodReady(headPods("rc")[0]); },
                       seconds(60)));
  EXPECT_TRUE(workerPods("rc").empty());

  demand->set("default", "rc", "workergroup", 3);
  ASSERT_TRUE(runUntil([&] { return runningWorkers("rc") == 3; }, seconds(60)))
      << autoscalerLog("rc");
  EXPECT_EQ(groupSpec(getCluster("rc"))["replicas"], 3);
  EXPECT_NE(autoscalerLog("rc").find("Autoscaler is submitting the following patch to RayCluster "
                                     "rc in namespace default."),
            std::string::npos)
      << autoscalerLog("rc");

  // The oldest worker stays busy; the two others become idle.
  auto workers = workerPods("rc");
  std::sort(workers.begin(), workers.end(), [](const Json& a, const Json& b) {
    return std::pair(meta::creationTimestamp(a), meta::name(a)) <
           std::pair(meta::creationTimestamp(b), meta::name(b));
  });
  const std::string busy = meta::name(workers[0]);
  demand->set("default", "rc", "workergroup", 1);
  const TimePoint lowered = ex.clock().now();
  run(seconds(25));
  EXPECT_EQ(workerPods("rc").size(), 3u) << "idle for less than idleTimeoutSeconds";

  ASSERT_TRUE(runUntil([&] { return workersToDelete("rc").size() == 2; }, seconds(30)));
  EXPECT_GE(ex.clock().now() - lowered, seconds(30));
  EXPECT_EQ(groupSpec(getCluster("rc"))["replicas"], 1);
  const Json named = workersToDelete("rc");
  EXPECT_EQ(named, Json::array({meta::name(workers[1]), meta::name(workers[2])}));

  ASSERT_TRUE(runUntil([&] { return workerPods("rc").size() == 1; }, seconds(60)));
  EXPECT_EQ(meta::name(workerPods("rc")[0]), busy);
  // safe_to_scale: once those pods are gone the autoscaler patches workersToDelete away.
  ASSERT_TRUE(runUntil([&] { return workersToDelete("rc").empty(); }, seconds(30)));
  EXPECT_EQ(groupSpec(getCluster("rc"))["replicas"], 1);
  EXPECT_NE(autoscalerLog("rc").find("Cleaning up workers to delete."), std::string::npos);
  // Nothing more changes while the demand holds.
  run(seconds(120));
  EXPECT_EQ(workerPods("rc").size(), 1u);
  EXPECT_EQ(meta::name(workerPods("rc")[0]), busy);
}

// The demand is clamped to maxReplicas, and never lowers the group below minReplicas.
TEST_F(RayAutoscalerTest, DemandIsClampedToMinAndMaxReplicas) {
  startOperator();
  Json spec = autoscalingCluster("rc");
  spec["spec"]["workerGroupSpecs"][0]["minReplicas"] = 1;
  spec["spec"]["workerGroupSpecs"][0]["maxReplicas"] = 2;
  spec["spec"]["workerGroupSpecs"][0]["replicas"] = 1;
  createCluster(spec);
  demand->set("default", "rc", "workergroup", 10);
  ASSERT_TRUE(runUntil([&] { return runningWorkers("rc") == 2; }, seconds(90)));
  EXPECT_EQ(groupSpec(getCluster("rc"))["replicas"], 2);
  demand->set("default", "rc", "workergroup", 0);
  ASSERT_TRUE(runUntil([&] { return workerPods("rc").size() == 1; }, seconds(120)));
  run(seconds(120));
  EXPECT_EQ(workerPods("rc").size(), 1u);
  EXPECT_EQ(groupSpec(getCluster("rc"))["replicas"], 1);
}

// The autoscaler acts as the head's ServiceAccount: a RoleBinding the operator finds in place
// (and keeps) that binds another account leaves it Forbidden, so nothing scales.
TEST_F(RayAutoscalerTest, WithoutItsRoleBindingTheAutoscalerIsForbidden) {
  create(
      kRoleBindings,
      {{"apiVersion", "rbac.authorization.k8s.io/v1"},
       {"kind", "RoleBinding"},
       {"metadata", {{"name", "rc"}, {"namespace", "default"}}},
       {"subjects",
        Json::array(
            {{{"kind", "ServiceAccount"}, {"name", "someone-else"}, {"namespace", "default"}}})},
       {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "rc"}}}});
  startOperator();
  createCluster(autoscalingCluster("rc"));
  demand->set("default", "rc", "workergroup", 2);
  run(seconds(60));
  EXPECT_TRUE(workerPods("rc").empty());
  EXPECT_EQ(groupSpec(getCluster("rc"))["replicas"], 0);
  EXPECT_NE(autoscalerLog("rc").find(
                "rayclusters.ray.io \"rc\" is forbidden: User \"system:serviceaccount:default:rc\" "
                "cannot get resource \"rayclusters\" in API group \"ray.io\" in the namespace "
                "\"default\""),
            std::string::npos)
      << autoscalerLog("rc");
}

}  // namespace
}  // namespace fakekube::ray::testing
