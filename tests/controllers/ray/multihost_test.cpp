// KubeRay's multi-host worker groups (numOfHosts > 1, the RayMultiHostIndexing gate on):
// raycluster_controller_unit_test.go's TestReconcile_Multihost_Replicas and
// TestReconcile_NumOfHosts, and raycluster_controller_test.go's "RayCluster with a multi-host
// worker group", on the operator against the API server on virtual time. As in the envtest
// suite, the test plays the kubelet.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tests/controllers/ray/ray_fixture.h"

namespace fakekube::ray::testing {
namespace {

constexpr const char* kReplicaName = "ray.io/worker-group-replica-name";
constexpr const char* kReplicaIndex = "ray.io/worker-group-replica-index";
constexpr const char* kHostIndex = "ray.io/replica-host-index";

class MultiHostTest : public RayClusterTest {
 protected:
  Json multiHostCluster(const std::string& name, int replicas, int minReplicas, int maxReplicas,
                        int numOfHosts, bool autoscaling) {
    Json rc = sampleRayCluster(name, replicas, minReplicas, maxReplicas);
    rc["spec"]["workerGroupSpecs"][0]["numOfHosts"] = numOfHosts;
    rc["spec"]["enableInTreeAutoscaling"] = autoscaling;
    return rc;
  }
  // The worker pods by replica group name.
  std::map<std::string, std::vector<Json>> replicaGroups(const std::string& cluster) {
    std::map<std::string, std::vector<Json>> groups;
    for (Json& pod : workerPods(cluster)) {
      groups[meta::label(pod, kReplicaName)].push_back(std::move(pod));
    }
    return groups;
  }
  // "All multi-host pods are properly labeled": `replicas` groups of `hosts` pods, each group one
  // replica index (0..replicas-1 over the groups) and host indices 0..hosts-1.
  // `indicesFromZero`: the replica indices are 0..replicas-1 (true right after the groups were
  // created; a scale-down leaves the indices of the groups it kept).
  void expectProperlyLabeled(const std::string& cluster, int replicas, int hosts,
                             bool indicesFromZero = true) {
    auto groups = replicaGroups(cluster);
    ASSERT_EQ(static_cast<int>(groups.size()), replicas);
    std::set<std::string> replicaIndices;
    for (const auto& [replicaName, pods] : groups) {
      EXPECT_FALSE(replicaName.empty());
      EXPECT_EQ(replicaName.rfind("workergroup-", 0), 0u) << replicaName;
      ASSERT_EQ(static_cast<int>(pods.size()), hosts) << replicaName;
      std::set<std::string> hostIndices;
      for (const Json& pod : pods) {
        EXPECT_EQ(meta::label(pod, kReplicaIndex), meta::label(pods[0], kReplicaIndex));
        hostIndices.insert(meta::label(pod, kHostIndex));
      }
      std::set<std::string> expectedHosts;
      for (int h = 0; h < hosts; ++h) expectedHosts.insert(std::to_string(h));
      EXPECT_EQ(hostIndices, expectedHosts) << replicaName;
      replicaIndices.insert(meta::label(pods[0], kReplicaIndex));
    }
    EXPECT_EQ(static_cast<int>(replicaIndices.size()), replicas);
    if (!indicesFromZero) return;
    std::set<std::string> expectedIndices;
    for (int r = 0; r < replicas; ++r) expectedIndices.insert(std::to_string(r));
    EXPECT_EQ(replicaIndices, expectedIndices);
  }
  void setWorkersToDelete(const std::string& cluster, int replicas,
                          const std::vector<std::string>& names) {
    Json rc = getCluster(cluster);
    rc["spec"]["workerGroupSpecs"][0]["replicas"] = replicas;
    rc["spec"]["workerGroupSpecs"][0]["scaleStrategy"]["workersToDelete"] = names;
    ASSERT_TRUE(client->update(kRayClusters, rc).has_value());
  }
};

// Describe("RayCluster with a multi-host worker group"): replicas 3 of 4 hosts (min 0, max 4,
// autoscaler on); labelled groups, ready with the pod counts; the autoscaler's scale-down (one
// group's four pods in workersToDelete, replicas 2) and scale-up (replicas 4); a deleted host
// takes its whole group, which is replaced.
TEST_F(MultiHostTest, RayClusterWithAMultiHostWorkerGroup) {
  startOperatorWithCluster(multiHostCluster("raycluster-multihost", 3, 0, 4, 4, true));
  ASSERT_EQ(workerPods("raycluster-multihost").size(), 12u);
  expectProperlyLabeled("raycluster-multihost", 3, 4);

  // "RayCluster's .status.state transitions to 'ready' ... check pod counts are correct".
  setAllPodsRunningAndReady("raycluster-multihost");
  run(seconds(1));
  Json rc = getCluster("raycluster-multihost");
  EXPECT_EQ(state(rc), "ready");
  EXPECT_EQ(rc["status"]["desiredWorkerReplicas"], 12);
  EXPECT_EQ(rc["status"]["maxWorkerReplicas"], 16);
  EXPECT_FALSE(rc["status"].contains("minWorkerReplicas"));  // 0, omitted

  // "Simulate Ray Autoscaler scales down": the first group's four pods.
  auto groups = replicaGroups("raycluster-multihost");
  const std::string removed = groups.begin()->first;
  std::vector<std::string> names;
  for (const Json& pod : groups.begin()->second) names.push_back(meta::name(pod));
  setWorkersToDelete("raycluster-multihost", 2, names);
  run(seconds(3));
  EXPECT_EQ(workerPods("raycluster-multihost").size(), 8u);
  EXPECT_EQ(replicaGroups("raycluster-multihost").count(removed), 0u);
  // cleanUpWorkersToDelete, as the autoscaler does once the pods are gone.
  setWorkersToDelete("raycluster-multihost", 2, {});
  run(seconds(1));
  EXPECT_EQ(workerPods("raycluster-multihost").size(), 8u);

  // "Simulate Ray Autoscaler scales up": the freed replica index is taken again.
  rc = getCluster("raycluster-multihost");
  rc["spec"]["workerGroupSpecs"][0]["replicas"] = 4;
  ASSERT_TRUE(client->update(kRayClusters, rc).has_value());
  run(seconds(1));
  EXPECT_EQ(workerPods("raycluster-multihost").size(), 16u);
  expectProperlyLabeled("raycluster-multihost", 4, 4);

  // "Delete a worker Pod, and KubeRay should create a new one": its three hosts go with it and
  // a new group of four replaces them, keeping 16 pods.
  const Json victim = workerPods("raycluster-multihost")[0];
  const std::string victimGroup = meta::label(victim, kReplicaName);
  const std::string victimIndex = meta::label(victim, kReplicaIndex);
  ASSERT_TRUE(
      client->deleteObject(kPods, "default", meta::name(victim), {.gracePeriodSeconds = 0}));
  run(seconds(3));
  EXPECT_EQ(workerPods("raycluster-multihost").size(), 16u);
  auto after = replicaGroups("raycluster-multihost");
  EXPECT_EQ(after.count(victimGroup), 0u);
  expectProperlyLabeled("raycluster-multihost", 4, 4);
  bool reused = false;
  for (const auto& [name, pods] : after) {
    if (meta::label(pods[0], kReplicaIndex) == victimIndex) reused = true;
  }
  EXPECT_TRUE(reused) << "the replacement group takes the freed replica index " << victimIndex;
  EXPECT_FALSE(events("DeletedWorkerPod").empty());
}

// TestReconcile_Multihost_Replicas: without the autoscaler, desired pods are
// clamp(replicas, min, max) x numOfHosts: nil replicas -> min, below min -> min, above max -> max;
// scaling down deletes whole replica groups.
TEST_F(MultiHostTest, TestReconcile_Multihost_Replicas) {
  startOperator();
  Json nilReplicas = multiHostCluster("rc-nil", 0, 1, 10000, 4, false);
  nilReplicas["spec"]["workerGroupSpecs"][0].erase("replicas");
  createCluster(nilReplicas);
  createCluster(multiHostCluster("rc-low", 0, 1, 10000, 4, false));
  createCluster(multiHostCluster("rc-high", 4, 1, 3, 4, false));
  run(seconds(1));
  EXPECT_EQ(workerPods("rc-nil").size(), 4u);
  EXPECT_EQ(workerPods("rc-low").size(), 4u);
  EXPECT_EQ(workerPods("rc-high").size(), 12u);
  expectProperlyLabeled("rc-high", 3, 4);

  Json rc = getCluster("rc-high");
  rc["spec"]["workerGroupSpecs"][0]["replicas"] = 1;
  ASSERT_TRUE(client->update(kRayClusters, rc).has_value());
  run(seconds(1));
  EXPECT_EQ(workerPods("rc-high").size(), 4u);
  EXPECT_EQ(replicaGroups("rc-high").size(), 1u);
  expectProperlyLabeled("rc-high", 1, 4, /*indicesFromZero=*/false);
}

// TestReconcile_NumOfHosts: replicas 1 of numOfHosts 1 is one pod (no replica-group labels);
// of numOfHosts 4, four pods of one group.
TEST_F(MultiHostTest, TestReconcile_NumOfHosts) {
  startOperator();
  createCluster(multiHostCluster("rc-one", 1, 0, 5, 1, false));
  createCluster(multiHostCluster("rc-four", 1, 0, 5, 4, false));
  run(seconds(1));
  auto one = workerPods("rc-one");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(meta::label(one[0], kReplicaIndex), "0");
  EXPECT_EQ(meta::label(one[0], kReplicaName), "");
  EXPECT_EQ(meta::label(one[0], kHostIndex), "");
  EXPECT_EQ(workerPods("rc-four").size(), 4u);
  expectProperlyLabeled("rc-four", 1, 4);
}

// An unhealthy host (its pod Failed) takes its replica group with it; the group is replaced.
TEST_F(MultiHostTest, UnhealthyHostReplacesItsWholeReplicaGroup) {
  startOperatorWithCluster(multiHostCluster("rc", 2, 0, 4, 2, false));
  ASSERT_EQ(workerPods("rc").size(), 4u);
  auto groups = replicaGroups("rc");
  const std::string failedGroup = groups.begin()->first;
  std::set<std::string> failedGroupPods;
  for (const Json& pod : groups.begin()->second) failedGroupPods.insert(meta::name(pod));
  setPodPhase(groups.begin()->second[0], "Failed");
  run(seconds(3));
  auto after = replicaGroups("rc");
  EXPECT_EQ(after.size(), 2u);
  EXPECT_EQ(after.count(failedGroup), 0u);
  for (const Json& pod : workerPods("rc")) EXPECT_EQ(failedGroupPods.count(meta::name(pod)), 0u);
  expectProperlyLabeled("rc", 2, 2);
}

// With the autoscaler on, replicas lowered without workersToDelete delete nothing: the
// autoscaler alone picks the groups (unless ENABLE_RANDOM_POD_DELETE).
TEST_F(MultiHostTest, AutoscalerAlonePicksTheReplicaGroupsToDelete) {
  for (bool randomDelete : {false, true}) {
    SCOPED_TRACE(randomDelete ? "random delete" : "no random delete");
    const std::string name = randomDelete ? "rc-random" : "rc-norandom";
    manager.reset();
    startOperator({.enableRandomPodDelete = randomDelete});
    createCluster(multiHostCluster(name, 3, 0, 4, 2, true));
    run(seconds(1));
    ASSERT_EQ(workerPods(name).size(), 6u);
    Json rc = getCluster(name);
    rc["spec"]["workerGroupSpecs"][0]["replicas"] = 1;
    ASSERT_TRUE(client->update(kRayClusters, rc).has_value());
    run(seconds(1));
    EXPECT_EQ(workerPods(name).size(), randomDelete ? 2u : 6u);
  }
}

}  // namespace
}  // namespace fakekube::ray::testing
