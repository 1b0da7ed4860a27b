// The simulated Volcano scheduler on a cluster (controllers/volcano/internal/volcano_scheduler.h):
// the PodGroup and Queue API, sessions on virtual time, gang all-or-nothing, priority order and a
// Queue's capability.
#include "controllers/volcano/internal/volcano_scheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "controllers/volcano/internal/volcano_api.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fixtures/test_cluster.h"
#include "tests/controllers/volcano/volcano_fixture.h"

namespace fakekube::volcano::testing {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Nodes of 8 cpu each (NodeConfig's default), the cluster's parts, and the Volcano scheduler.
TestClusterOptions volcanoCluster(int nodes, std::uint64_t seed = 1) {
  return {.seed = seed, .nodes = nodes, .operators = {{"volcano", [](Manager& manager) {
                                                         return addVolcanoScheduler(manager);
                                                       }}}};
}

// A PodGroup `name` of `members` pods of `cpu` each, minMember `minMember`, minResources their sum.
void createGang(TestCluster& cluster, const std::string& name, int members, int minMember, int cpu,
                const std::string& queue = "default", const std::string& priorityClass = "") {
  Json group = podGroupDocument("default", name, queue, minMember, "",
                                {{"cpu", std::to_string(cpu * minMember)}});
  group["metadata"].erase("uid");
  group["metadata"].erase("creationTimestamp");
  if (!priorityClass.empty()) group["spec"]["priorityClassName"] = priorityClass;
  ASSERT_TRUE(cluster.client().create(kPodGroups, group)) << name;
  for (int i = 0; i < members; ++i) {
    Json pod =
        podDocument("default", name + "-" + std::to_string(i), name, std::to_string(cpu), "1Gi");
    pod["metadata"].erase("uid");
    pod["metadata"].erase("creationTimestamp");
    pod.erase("status");
    ASSERT_TRUE(cluster.client().create(kPods, pod)) << name << i;
  }
}

int boundMembers(TestCluster& cluster, const std::string& group) {
  int bound = 0;
  for (const Json& pod : cluster.list(kPods, "default")) {
    if (meta::annotation(pod, kGroupNameAnnotation) == group && !podNodeName(pod).empty()) ++bound;
  }
  return bound;
}

std::string phaseOf(TestCluster& cluster, const std::string& group) {
  auto got = cluster.get(kPodGroups, "default", group);
  if (!got) return "";
  const Json& phase = jsonAt(*got, {"status", "phase"});
  return phase.is_string() ? phase.get<std::string>() : "";
}

TEST(VolcanoScheduler, ServesPodGroupsAndQueuesWithTheDefaultQueue) {
  TestCluster cluster(volcanoCluster(1));
  ASSERT_TRUE(cluster.start());
  cluster.runFor(seconds(2));
  auto queue = cluster.get(kQueues, "", "default");
  ASSERT_TRUE(queue) << queue.error().str();
  EXPECT_EQ(jsonAt(*queue, {"spec", "weight"}), 1);
  EXPECT_EQ(jsonAt(*queue, {"status", "state"}), "Open");
  // spec.queue defaults to "default"; minMember must not be negative.
  Json group = podGroupDocument("default", "pg", "", 1, "");
  group["spec"].erase("queue");
  group["metadata"].erase("uid");
  auto created = cluster.client().create(kPodGroups, group);
  ASSERT_TRUE(created) << created.error().str();
  EXPECT_EQ(jsonAt(*created, {"spec", "queue"}), "default");
  group["metadata"]["name"] = "negative";
  group["spec"]["minMember"] = -1;
  auto refused = cluster.client().create(kPodGroups, group);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, 422);
  EXPECT_THAT(refused.error().message, HasSubstr("spec.minMember"));
}

// Volcano's own CRD files, applied first, govern the kinds: the install keeps them as they are.
TEST(VolcanoScheduler, VolcanosOwnDefinitionsAppliedFirstAreKept) {
  Json own = podGroupCustomResourceDefinition();
  own["metadata"]["annotations"] = {{"helm.sh/resource-policy", "keep"}};
  own["spec"]["versions"][0].erase("subresources");  // Volcano's PodGroup has none
  TestCluster cluster(
      {.seed = 1,
       .nodes = 1,
       .objects = {own},
       .operators = {{"volcano", [](Manager& manager) { return addVolcanoScheduler(manager); }}}});
  ASSERT_TRUE(cluster.start());
  cluster.runFor(seconds(2));
  auto kept = cluster.get(kCustomResourceDefinitions, "", "podgroups.scheduling.volcano.sh");
  ASSERT_TRUE(kept);
  EXPECT_EQ(meta::annotation(*kept, "helm.sh/resource-policy"), "keep");
  EXPECT_TRUE(jsonAt((*kept)["spec"]["versions"][0], {"subresources"}).is_null());
  EXPECT_TRUE(cluster.get(kQueues, "", "default"));
  // Without a status subresource the scheduler writes the group whole, as Volcano does.
  createGang(cluster, "job", 2, 2, 2);
  EXPECT_TRUE(
      cluster.eventually([&] { return phaseOf(cluster, "job") == "Running"; }, seconds(10)));
}

TEST(VolcanoScheduler, AGangThatFitsIsBoundWholeAndRunning) {
  TestCluster cluster(volcanoCluster(2));
  ASSERT_TRUE(cluster.start());
  createGang(cluster, "job", 3, 3, 2);
  ASSERT_TRUE(
      cluster.eventually([&] { return phaseOf(cluster, "job") == "Running"; }, seconds(10)));
  EXPECT_EQ(boundMembers(cluster, "job"), 3);
  EXPECT_TRUE(cluster.eventually(
      [&] {
        auto group = cluster.get(kPodGroups, "default", "job");
        return group && jsonAt(*group, {"status", "running"}) == 3;
      },
      seconds(30)));
}

TEST(VolcanoScheduler, AGroupLargerThanTheClusterStaysPendingWithTheUnschedulableCondition) {
  TestCluster cluster(volcanoCluster(2));  // 16 cpu
  ASSERT_TRUE(cluster.start());
  createGang(cluster, "huge", 5, 5, 4);  // 20 cpu: more than 16 x 1.2 = 19.2
  cluster.runFor(seconds(30));
  EXPECT_EQ(phaseOf(cluster, "huge"), "Pending");
  EXPECT_EQ(boundMembers(cluster, "huge"), 0);
  auto group = cluster.get(kPodGroups, "default", "huge");
  ASSERT_TRUE(group);
  const Json& conditions = jsonAt(*group, {"status", "conditions"});
  ASSERT_TRUE(conditions.is_array() && conditions.size() == 1) << group->dump();
  EXPECT_EQ(conditions[0]["type"], "Unschedulable");
  EXPECT_EQ(conditions[0]["status"], "True");
  EXPECT_EQ(conditions[0]["reason"], "NotEnoughResources");
  EXPECT_EQ(conditions[0]["message"],
            "5/5 tasks in gang unschedulable: pod group is not ready, 5 Pending, 5 minAvailable; "
            "Pending: 5 Unschedulable");
  // The PodGroup's events: overcommit's refusal and the gang's.
  bool overused = false;
  bool gang = false;
  for (const Json& event : cluster.list(kEvents, "default")) {
    if (jsonAt(event, {"involvedObject", "name"}) != "huge") continue;
    const std::string message = event.value("message", "");
    overused |= message == "resource in cluster is overused: overused cpu";
    gang |= event.value("type", "") == "Warning" &&
            message.rfind("5/5 tasks in gang unschedulable", 0) == 0;
  }
  EXPECT_TRUE(overused);
  EXPECT_TRUE(gang);
  // Each pod carries PodScheduled=False with the group's fit error, and a FailedScheduling event.
  for (int i = 0; i < 5; ++i) {
    auto pod = cluster.get(kPods, "default", "huge-" + std::to_string(i));
    ASSERT_TRUE(pod);
    const Json* scheduled = nullptr;
    for (const Json& c : jsonArrayAt(jsonAt(*pod, {"status"}), "conditions")) {
      if (c.value("type", "") == "PodScheduled") scheduled = &c;
    }
    ASSERT_NE(scheduled, nullptr) << pod->dump();
    EXPECT_EQ(scheduled->value("status", ""), "False");
    EXPECT_EQ(scheduled->value("reason", ""), "Unschedulable");
    EXPECT_EQ(scheduled->value("message", ""),
              "pod group is not ready, 5 Pending, 5 minAvailable; Pending: 5 Unschedulable");
  }
}

TEST(VolcanoScheduler, AllOrNothingNeverLeavesAPartlyBoundGroup) {
  // Six gangs of three 3-cpu pods on three 8-cpu nodes: two pods a node, so two gangs at a time.
  TestCluster cluster(volcanoCluster(3, 5));
  ASSERT_TRUE(cluster.start());
  for (int g = 0; g < 6; ++g) createGang(cluster, "g" + std::to_string(g), 3, 3, 3);
  bool partial = false;
  auto check = [&] {
    for (int g = 0; g < 6; ++g) {
      const int bound = boundMembers(cluster, "g" + std::to_string(g));
      partial |= bound != 0 && bound != 3;
    }
    return false;
  };
  (void)cluster.runUntil(check, seconds(60));
  EXPECT_FALSE(partial);
  int running = 0;
  for (int g = 0; g < 6; ++g) running += boundMembers(cluster, "g" + std::to_string(g)) == 3;
  EXPECT_EQ(running, 2);
}

TEST(VolcanoScheduler, AHigherPriorityGroupJumpsTheQueue) {
  TestCluster cluster(volcanoCluster(1));  // 8 cpu: one 6-cpu gang at a time
  ASSERT_TRUE(cluster.start());
  ASSERT_TRUE(cluster.client().create(kPriorityClasses, Json{{"apiVersion", "scheduling.k8s.io/v1"},
                                                             {"kind", "PriorityClass"},
                                                             {"metadata", {{"name", "high"}}},
                                                             {"value", 1000}}));
  createGang(cluster, "low", 3, 3, 2);
  createGang(cluster, "high", 3, 3, 2, "default", "high");
  ASSERT_TRUE(
      cluster.eventually([&] { return phaseOf(cluster, "high") == "Running"; }, seconds(10)));
  cluster.runFor(seconds(10));
  EXPECT_EQ(boundMembers(cluster, "high"), 3);
  EXPECT_EQ(boundMembers(cluster, "low"), 0);
  EXPECT_EQ(phaseOf(cluster, "low"), "Pending");
}

TEST(VolcanoScheduler, AQueueCapabilityCapsWhatItAdmits) {
  TestCluster cluster(volcanoCluster(4));  // 32 cpu: room for both gangs
  ASSERT_TRUE(cluster.start());
  ASSERT_TRUE(cluster.client().create(kQueues, queueDocument("team", 1, {{"cpu", "8"}})));
  createGang(cluster, "first", 3, 3, 2, "team");
  createGang(cluster, "second", 3, 3, 2, "team");
  ASSERT_TRUE(
      cluster.eventually([&] { return phaseOf(cluster, "first") == "Running"; }, seconds(10)));
  cluster.runFor(seconds(10));
  EXPECT_EQ(phaseOf(cluster, "second"), "Pending");
  EXPECT_EQ(boundMembers(cluster, "second"), 0);
  auto queue = cluster.get(kQueues, "", "team");
  ASSERT_TRUE(queue);
  EXPECT_EQ(jsonAt(*queue, {"status", "running"}), 1);
  EXPECT_EQ(jsonAt(*queue, {"status", "pending"}), 1);
  EXPECT_EQ(jsonAt(*queue, {"status", "allocated", "cpu"}), "6");
}

}  // namespace
}  // namespace fakekube::volcano::testing
