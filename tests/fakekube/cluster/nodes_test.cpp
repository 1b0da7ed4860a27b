// Nodes as a kubelet registers them, made NotReady and Ready again; what happens to the pods of a
// node that stops being Ready.
#include "fakekube/cluster/nodes.h"

#include <gtest/gtest.h>

#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "pod_lifecycle_fixture.h"

namespace fakekube::clustertest {
namespace {

class NodesTest : public PodLifecycleTest {};

TEST_F(NodesTest, AddNodeRegistersARealisticNode) {
  NodeConfig config;
  config.name = "gpu-1";
  config.cpu = "16";
  config.memory = "64Gi";
  config.gpu = "4";
  config.labels = {{"pool", "gpu"}};
  Json first = addNode("cpu-1");
  Json node = addNode(config);
  EXPECT_EQ(first["spec"]["podCIDR"], "10.244.0.0/24");
  EXPECT_EQ(node["spec"]["podCIDR"], "10.244.1.0/24");
  EXPECT_EQ(node["spec"]["podCIDRs"], Json::array({"10.244.1.0/24"}));
  EXPECT_EQ(node["metadata"]["labels"]["kubernetes.io/hostname"], "gpu-1");
  EXPECT_EQ(node["metadata"]["labels"]["pool"], "gpu");
  Json allocatable = {{"cpu", "16"},
                      {"memory", "64Gi"},
                      {"pods", "110"},
                      {"ephemeral-storage", "100Gi"},
                      {"nvidia.com/gpu", "4"}};
  EXPECT_EQ(node["status"]["allocatable"], allocatable);
  EXPECT_EQ(node["status"]["capacity"], allocatable);
  EXPECT_FALSE(first["status"]["allocatable"].contains("nvidia.com/gpu"));
  EXPECT_EQ(node["status"]["addresses"][0],
            Json({{"type", "InternalIP"}, {"address", "172.18.0.3"}}));
  EXPECT_EQ(node["status"]["nodeInfo"]["kubeletVersion"], "v1.30.0");
  Json ready = condition(node, "Ready");
  EXPECT_EQ(ready["status"], "True");
  EXPECT_EQ(ready["reason"], "KubeletReady");
  EXPECT_EQ(ready["lastTransitionTime"], at(seconds(0)));
  EXPECT_EQ(condition(node, "MemoryPressure")["status"], "False");
  // A freed pod range is used again.
  remove(kNodes, "", "cpu-1");
  EXPECT_EQ(addNode("cpu-2")["spec"]["podCIDR"], "10.244.0.0/24");
}

TEST_F(NodesTest, NotReadyAndReadyAgain) {
  addNode("node-a");
  run(seconds(10));
  Json node = must(setNodeNotReady(*client, ex.clock(), "node-a"));
  Json ready = condition(node, "Ready");
  EXPECT_EQ(ready["status"], "Unknown");
  EXPECT_EQ(ready["reason"], "NodeStatusUnknown");
  EXPECT_EQ(ready["message"], "Kubelet stopped posting node status.");
  EXPECT_EQ(ready["lastTransitionTime"], at(seconds(10)));
  EXPECT_EQ(condition(node, "DiskPressure")["status"], "Unknown");

  run(seconds(10));
  node = must(setNodeReady(*client, ex.clock(), "node-a"));
  EXPECT_EQ(condition(node, "Ready")["status"], "True");
  EXPECT_EQ(condition(node, "Ready")["lastTransitionTime"], at(seconds(20)));

  node = must(setNodeNotReady(*client, ex.clock(), "node-a", NodeFailure::KubeletNotReady));
  EXPECT_EQ(condition(node, "Ready")["status"], "False");
  EXPECT_EQ(condition(node, "Ready")["reason"], "KubeletNotReady");
  EXPECT_EQ(condition(node, "MemoryPressure")["status"], "False");

  node = must(setNodeUnschedulable(*client, "node-a", true));
  EXPECT_EQ(node["spec"]["unschedulable"], true);
  node = must(setNodeUnschedulable(*client, "node-a", false));
  EXPECT_FALSE(node["spec"].contains("unschedulable"));
}

TEST_F(NodesTest, PodsOfANotReadyNodeAreNotReadyAtOnceAndLostAfterTheEvictionDelay) {
  addNode("node-a");
  startCluster();
  createPod(podWith("web", {container("main", "nginx:1.27")}));
  Json tolerant = podWith("tolerant", {container("main", "nginx:1.27")});
  tolerant["spec"]["tolerations"] = Json::array({{{"key", "node.kubernetes.io/unreachable"},
                                                  {"operator", "Exists"},
                                                  {"effect", "NoExecute"},
                                                  {"tolerationSeconds", 30}}});
  createPod(tolerant);
  run(seconds(10));
  ASSERT_EQ(condition(getPod("web"), "Ready")["status"], "True");

  const Duration failedAt = seconds(10);
  must(setNodeNotReady(*client, ex.clock(), "node-a"));
  runUntilIdle();
  Json p = getPod("web");
  EXPECT_EQ(condition(p, "Ready")["status"], "False");
  EXPECT_EQ(condition(p, "Ready")["lastTransitionTime"], at(failedAt));
  EXPECT_EQ(p["status"]["phase"], "Running");
  // No new pod goes to the lost node.
  createPod(podWith("late", {container("main", "nginx:1.27")}));
  runUntilIdle();
  EXPECT_EQ(podNodeName(getPod("late")), "");
  EXPECT_EQ(condition(getPod("late"), "PodScheduled")["reason"], "Unschedulable");

  // The pod's own toleration (30 s) wins over the default 300 s.
  run(seconds(30));
  EXPECT_EQ(getPod("tolerant")["status"]["phase"], "Failed");
  run(seconds(270) - milliseconds(1));
  EXPECT_EQ(getPod("web")["status"]["phase"], "Running");
  run(milliseconds(1));
  p = getPod("web");
  EXPECT_EQ(p["status"]["phase"], "Failed");
  EXPECT_EQ(p["status"]["reason"], "NodeLost");
  EXPECT_EQ(p["status"]["message"], "Node node-a which was running pod web is unresponsive");
  EXPECT_EQ(kubelet->runningProcesses(), 2u);  // the node is lost: nothing reaches it

  // Back again: the kubelet kills what the API says ended, and the waiting pod is scheduled.
  must(setNodeReady(*client, ex.clock(), "node-a"));
  run(seconds(2));
  EXPECT_EQ(getPod("web")["status"]["phase"], "Failed");
  EXPECT_EQ(podNodeName(getPod("late")), "node-a");
  EXPECT_EQ(getPod("late")["status"]["phase"], "Running");
  EXPECT_EQ(kubelet->runningProcesses(), 1u);
}

TEST_F(NodesTest, APodOfANodeThatRecoversInTimeIsReadyAgain) {
  addNode("node-a");
  startCluster();
  createPod(podWith("web", {container("main", "nginx:1.27")}));
  run(seconds(10));
  must(setNodeNotReady(*client, ex.clock(), "node-a", NodeFailure::KubeletNotReady));
  run(seconds(60));
  EXPECT_EQ(condition(getPod("web"), "Ready")["status"], "False");
  must(setNodeReady(*client, ex.clock(), "node-a"));
  runUntilIdle();
  Json p = getPod("web");
  EXPECT_EQ(condition(p, "Ready")["status"], "True");
  EXPECT_EQ(condition(p, "Ready")["lastTransitionTime"], at(seconds(70)));
  run(minutes(10));
  EXPECT_EQ(getPod("web")["status"]["phase"], "Running");
}

}  // namespace
}  // namespace fakekube::clustertest
