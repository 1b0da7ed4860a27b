// The disruption controller: a PodDisruptionBudget's status counts the healthy pods it selects
// against minAvailable / maxUnavailable (numbers, and percentages of the controllers' scale).
#include "fakekube/cluster/disruption_controller.h"

#include <gtest/gtest.h>

#include "fakekube/api/resources.h"
#include "fakekube/cluster/workload_fixture.h"

namespace fakekube::workloadtest {
namespace {

Json pdb(const std::string& name, const char* key, Json value) {
  return {{"apiVersion", "policy/v1"},
          {"kind", "PodDisruptionBudget"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", {{"selector", {{"matchLabels", {{"app", "web"}}}}}, {key, std::move(value)}}}};
}

class DisruptionControllerTest : public WorkloadTest {
 protected:
  void SetUp() override {
    WorkloadTest::SetUp();
    newManager();
    ASSERT_TRUE(addDisruptionController(*manager).has_value());
    startManager();
  }
  Json webPod(const std::string& name, const Json* owner = nullptr) {
    Json p = pod(name);
    p["metadata"]["labels"] = {{"app", "web"}};
    if (owner) {
      p["metadata"]["ownerReferences"] = Json::array({{{"apiVersion", "apps/v1"},
                                                       {"kind", "ReplicaSet"},
                                                       {"name", meta::name(*owner)},
                                                       {"uid", meta::uid(*owner)},
                                                       {"controller", true}}});
    }
    return create(kPods, p);
  }
  Json status(const std::string& name) {
    return get(kPodDisruptionBudgets, "default", name)["status"];
  }
};

TEST_F(DisruptionControllerTest, MinAvailableNumber) {
  create(kPodDisruptionBudgets, pdb("web", "minAvailable", 2));
  Json a = webPod("a"), b = webPod("b"), c = webPod("c");
  run();
  Json s = status("web");
  EXPECT_EQ(s["expectedPods"], 3);
  EXPECT_EQ(s["desiredHealthy"], 2);
  EXPECT_EQ(s["currentHealthy"], 0);
  EXPECT_EQ(s["disruptionsAllowed"], 0);
  EXPECT_EQ(s["observedGeneration"], 1);
  Json allowed = condition(get(kPodDisruptionBudgets, "default", "web"), "DisruptionAllowed");
  EXPECT_EQ(allowed["status"], "False");
  EXPECT_EQ(allowed["reason"], "InsufficientPods");

  markRunning(a);
  markRunning(b);
  markRunning(c);
  run();
  s = status("web");
  EXPECT_EQ(s["currentHealthy"], 3);
  EXPECT_EQ(s["disruptionsAllowed"], 1);
  allowed = condition(get(kPodDisruptionBudgets, "default", "web"), "DisruptionAllowed");
  EXPECT_EQ(allowed["status"], "True");
  EXPECT_EQ(allowed["reason"], "SufficientPods");
}

TEST_F(DisruptionControllerTest, MaxUnavailableCountsTheControllersScale) {
  Json rs = replicaSet("web");
  rs["spec"]["replicas"] = 4;
  rs = create(kReplicaSets, rs);
  create(kPodDisruptionBudgets, pdb("web", "maxUnavailable", "50%"));
  markRunning(webPod("a", &rs));
  markRunning(webPod("b", &rs));
  markRunning(webPod("c", &rs));
  run();
  Json s = status("web");
  EXPECT_EQ(s["expectedPods"], 4) << "the ReplicaSet's scale, not the 3 pods";
  EXPECT_EQ(s["desiredHealthy"], 2);
  EXPECT_EQ(s["currentHealthy"], 3);
  EXPECT_EQ(s["disruptionsAllowed"], 1);

  mergePatch(kReplicaSets, "default", "web", {{"spec", {{"replicas", 6}}}});
  run();
  s = status("web");
  EXPECT_EQ(s["expectedPods"], 6);
  EXPECT_EQ(s["desiredHealthy"], 3);
  EXPECT_EQ(s["disruptionsAllowed"], 0);
}

}  // namespace
}  // namespace fakekube::workloadtest
