// The placement rules end to end, through a whole Cluster on virtual time: a pod whose required
// node affinity no node matches stays Pending with kube-scheduler's FailedScheduling message, and
// a Deployment whose replicas repel each other (required pod anti-affinity on the hostname) lands
// one replica per node, the replica too many waiting for a node.
#include <gtest/gtest.h>

#include <set>

#include "fakekube/api/conditions.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/fixture.h"
#include "fakekube/cluster/cluster.h"

namespace fakekube::apitest {
namespace {

using std::chrono::seconds;

class SchedulerPlacementTest : public ApiServerTest {
 protected:
  void startCluster(int nodes) {
    cluster = std::make_unique<Cluster>(ex, *server, ClusterOptions{.nodes = nodes});
    ASSERT_TRUE(cluster->start().has_value());
    ASSERT_TRUE(ex.runUntil([&] { return cluster->manager().running(); }, seconds(1)));
  }
  void TearDown() override { cluster.reset(); }

  Json podsWithLabel(const std::string& app) {
    return list(kPods, "default", ListOptions{.labelSelector = "app=" + app})["items"];
  }
  std::vector<std::string> failedSchedulingMessages(const std::string& podName) {
    std::vector<std::string> messages;
    const Json events = list(kEvents, "default");
    for (const Json& event : events["items"]) {
      if (event["reason"] == "FailedScheduling" && event["involvedObject"]["name"] == podName) {
        messages.push_back(event["message"]);
      }
    }
    return messages;
  }

  std::unique_ptr<Cluster> cluster;
};

TEST_F(SchedulerPlacementTest, RequiredNodeAffinityNoNodeMatchesStaysPending) {
  startCluster(3);
  Json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", "pinned"}, {"namespace", "default"}}},
      {"spec",
       {{"containers", Json::array({{{"name", "main"}, {"image", "nginx:1.27"}}})},
        {"affinity",
         {{"nodeAffinity",
           {{"requiredDuringSchedulingIgnoredDuringExecution",
             {{"nodeSelectorTerms",
               Json::array({{{"matchExpressions",
                              Json::array({{{"key", "kubernetes.io/hostname"},
                                            {"operator", "In"},
                                            {"values", Json::array({"nowhere"})}}})}}})}}}}}}}}}};
  create(kPods, pod, "default");
  ex.advance(seconds(10));
  ex.runUntilIdle();

  const Json stored = get(kPods, "default", "pinned");
  EXPECT_EQ(podNodeName(stored), "");
  EXPECT_EQ(stored["status"]["phase"], "Pending");
  const std::string expected =
      "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: "
      "0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
  const Json* scheduled = findCondition(stored, "PodScheduled");
  ASSERT_NE(scheduled, nullptr);
  EXPECT_EQ((*scheduled)["status"], "False");
  EXPECT_EQ((*scheduled)["reason"], "Unschedulable");
  EXPECT_EQ((*scheduled)["message"], expected);
  EXPECT_EQ(failedSchedulingMessages("pinned"), std::vector<std::string>{expected});
}

TEST_F(SchedulerPlacementTest, DeploymentWithRequiredAntiAffinitySpreadsOneReplicaPerNode) {
  startCluster(3);
  Json deployment = {
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata", {{"name", "web"}, {"namespace", "default"}}},
      {"spec",
       {{"replicas", 4},
        {"selector", {{"matchLabels", {{"app", "web"}}}}},
        {"template",
         {{"metadata", {{"labels", {{"app", "web"}}}}},
          {"spec",
           {{"containers", Json::array({{{"name", "main"}, {"image", "nginx:1.27"}}})},
            {"affinity",
             {{"podAntiAffinity",
               {{"requiredDuringSchedulingIgnoredDuringExecution",
                 Json::array({{{"labelSelector", {{"matchLabels", {{"app", "web"}}}}},
                               {"topologyKey", "kubernetes.io/hostname"}}})}}}}}}}}}}}};
  create(kDeployments, deployment, "default");
  ex.advance(seconds(30));
  ex.runUntilIdle();

  std::set<std::string> nodes;
  std::vector<std::string> pending;
  for (const Json& pod : podsWithLabel("web")) {
    const std::string node = podNodeName(pod);
    if (node.empty()) {
      pending.push_back(pod["metadata"]["name"]);
    } else {
      EXPECT_TRUE(nodes.insert(node).second) << "two replicas on " << node;
    }
  }
  EXPECT_EQ(nodes.size(), 3u);
  ASSERT_EQ(pending.size(), 1u);
  const Json waiting = get(kPods, "default", pending[0]);
  const Json* scheduled = findCondition(waiting, "PodScheduled");
  ASSERT_NE(scheduled, nullptr);
  EXPECT_EQ((*scheduled)["message"],
            "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. preemption: "
            "0/3 nodes are available: 3 No preemption victims found for incoming pod.");
}

}  // namespace
}  // namespace fakekube::apitest
