// The scheduler: which node a pod lands on, the Unschedulable condition and its message, and
// the retries when capacity frees.
#include "fakekube/cluster/scheduler.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "pod_lifecycle_fixture.h"

namespace fakekube::clustertest {
namespace {

class SchedulerTest : public PodLifecycleTest {
 protected:
  // The scheduler alone: pods stay where it puts them, nothing runs.
  void SetUp() override { PodLifecycleTest::SetUp(); }
  std::string nodeOf(const std::string& name) { return podNodeName(getPod(name)); }
  void removeNow(const std::string& name) {
    DeleteOptions options;
    options.gracePeriodSeconds = 0;
    remove(kPods, "default", name, options);
  }
};

TEST_F(SchedulerTest, TwoReplicasOnTwoEmptyNodesSpread) {
  addNode("node-a");
  addNode("node-b");
  startCluster(/*withKubelet=*/false);
  createPod(podWith("web-1", {container("main", "nginx:1.27")}));
  createPod(podWith("web-2", {container("main", "nginx:1.27")}));
  runUntilIdle();
  EXPECT_EQ(nodeOf("web-1"), "node-a");  // a tie: the first name
  EXPECT_EQ(nodeOf("web-2"), "node-b");  // least allocated
  Json scheduled = condition(getPod("web-1"), "PodScheduled");
  EXPECT_EQ(scheduled["status"], "True");
  EXPECT_EQ(scheduled["lastTransitionTime"], at(seconds(0)));
  EXPECT_EQ(scheduler->bindings(), 2u);
  Json events = list(kEvents, "default");
  ASSERT_EQ(events["items"].size(), 2u);
  EXPECT_EQ(events["items"][0]["reason"], "Scheduled");
  EXPECT_EQ(events["items"][0]["source"]["component"], "default-scheduler");
  std::set<std::string> messages;
  for (const auto& e : events["items"]) messages.insert(e["message"]);
  EXPECT_TRUE(messages.count("Successfully assigned default/web-1 to node-a"));
  EXPECT_TRUE(messages.count("Successfully assigned default/web-2 to node-b"));
}

TEST_F(SchedulerTest, PodsBeyondCapacityStayPendingUntilCapacityFrees) {
  addNode("node-a", "1");
  addNode("node-b", "1");
  startCluster(/*withKubelet=*/false);
  for (const char* name : {"p1", "p2", "p3"}) {
    createPod(podWith(name, {container("main", "nginx:1.27", "600m")}));
  }
  runUntilIdle();
  EXPECT_EQ(nodeOf("p1"), "node-a");
  EXPECT_EQ(nodeOf("p2"), "node-b");
  Json waiting = getPod("p3");
  EXPECT_EQ(nodeOf("p3"), "");
  EXPECT_EQ(waiting["status"]["phase"], "Pending");
  Json scheduled = condition(waiting, "PodScheduled");
  EXPECT_EQ(scheduled["status"], "False");
  EXPECT_EQ(scheduled["reason"], "Unschedulable");
  EXPECT_EQ(scheduled["message"],
            "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 "
            "No preemption victims found for incoming pod.");
  EXPECT_EQ(scheduled["lastTransitionTime"], at(seconds(0)));
  EXPECT_EQ(scheduler->unschedulablePods(), 1u);

  // Retried every 5 minutes; the same verdict is not written again.
  const std::string rvBefore = rv(waiting);
  run(minutes(11));
  EXPECT_EQ(rv(getPod("p3")), rvBefore);
  EXPECT_EQ(nodeOf("p3"), "");

  // A bound pod is deleted: its cpu is free, and the waiting pod takes it at once.
  removeNow("p2");
  runUntilIdle();
  EXPECT_EQ(nodeOf("p3"), "node-b");
  EXPECT_EQ(condition(getPod("p3"), "PodScheduled")["status"], "True");
  EXPECT_EQ(scheduler->unschedulablePods(), 0u);
}

TEST_F(SchedulerTest, CapacityFreedByAFinishedPodOrANewNode) {
  addNode("node-a", "1");
  startCluster(/*withKubelet=*/false);
  createPod(podWith("done", {container("main", "busybox:1.36", "800m")}));
  createPod(podWith("next", {container("main", "busybox:1.36", "800m")}));
  createPod(podWith("third", {container("main", "busybox:1.36", "800m")}));
  runUntilIdle();
  EXPECT_EQ(nodeOf("done"), "node-a");
  EXPECT_EQ(nodeOf("next"), "");
  EXPECT_EQ(nodeOf("third"), "");
  // A Succeeded pod holds nothing.
  Json finished = getPod("done");
  finished["status"]["phase"] = "Succeeded";
  updateStatus(kPods, finished);
  runUntilIdle();
  EXPECT_EQ(nodeOf("next"), "node-a");
  EXPECT_EQ(nodeOf("third"), "");
  // A new node makes room for the last one.
  addNode("node-b", "1");
  runUntilIdle();
  EXPECT_EQ(nodeOf("third"), "node-b");
}

TEST_F(SchedulerTest, NodeSelectorIsHonoured) {
  NodeConfig gpuNode;
  gpuNode.name = "gpu-node";
  gpuNode.gpu = "2";
  gpuNode.labels = {{"accelerator", "nvidia"}};
  addNode("cpu-node");
  addNode(gpuNode);
  startCluster(/*withKubelet=*/false);
  Json trainer = podWith("trainer", {container("main", "pytorch:2")});
  trainer["spec"]["nodeSelector"] = {{"accelerator", "nvidia"}};
  trainer["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "2";
  createPod(trainer);
  Json nowhere = podWith("nowhere", {container("main", "pytorch:2")});
  nowhere["spec"]["nodeSelector"] = {{"accelerator", "tpu"}};
  createPod(nowhere);
  Json tooMany = podWith("too-many-gpus", {container("main", "pytorch:2")});
  tooMany["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "1";
  createPod(tooMany);
  runUntilIdle();
  EXPECT_EQ(nodeOf("trainer"), "gpu-node");
  EXPECT_EQ(nodeOf("nowhere"), "");
  EXPECT_EQ(condition(getPod("nowhere"), "PodScheduled")["message"],
            "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. "
            "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
  // Both GPUs are taken; the CPU node has none.
  EXPECT_EQ(condition(getPod("too-many-gpus"), "PodScheduled")["message"],
            "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: 0/2 nodes are "
            "available: 2 No preemption victims found for incoming pod.");
}

TEST_F(SchedulerTest, PodsForAnotherSchedulerAreLeftAlone) {
  addNode("node-a");
  startCluster(/*withKubelet=*/false);
  Json gang = podWith("gang-0", {container("main", "ray:2.9")});
  gang["spec"]["schedulerName"] = "volcano";
  createPod(gang);
  run(minutes(10));
  Json left = getPod("gang-0");
  EXPECT_EQ(podNodeName(left), "");
  EXPECT_TRUE(condition(left, "PodScheduled").is_null());
  EXPECT_EQ(left["status"]["phase"], "Pending");
  EXPECT_EQ(scheduler->bindings(), 0u);
}

TEST_F(SchedulerTest, InitContainersCountByTheirMaximum) {
  Json pod = podWith("init", {container("a", "app", "500m", "1Gi"), container("b", "app", "200m")},
                     {container("setup", "tool", "1", "512Mi"), container("warm", "tool", "300m")});
  pod["spec"]["overhead"] = {{"memory", "10Mi"}};
  auto requests = podRequests(pod);
  ASSERT_TRUE(requests.has_value()) << requests.error().str();
  EXPECT_EQ(requests->at("cpu"), 1000);                  // max(500+200, 1000, 300)
  EXPECT_EQ(requests->at("memory"), (1024 + 10) << 20);  // max(1Gi, 512Mi) + overhead

  addNode("small", "900m");
  startCluster(/*withKubelet=*/false);
  createPod(pod);
  runUntilIdle();
  EXPECT_EQ(nodeOf("init"), "");
  EXPECT_EQ(condition(this->getPod("init"), "PodScheduled")["message"],
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 "
            "No preemption victims found for incoming pod.");

  Json bad = podWith("bad", {container("a", "app", "lots")});
  EXPECT_FALSE(podRequests(bad).has_value());
}

TEST_F(SchedulerTest, TooManyPods) {
  NodeConfig tiny;
  tiny.name = "tiny";
  tiny.pods = "1";
  addNode(tiny);
  startCluster(/*withKubelet=*/false);
  createPod(podWith("first", {container("main", "nginx:1.27")}));
  createPod(podWith("second", {container("main", "nginx:1.27")}));
  runUntilIdle();
  EXPECT_EQ(nodeOf("first"), "tiny");
  EXPECT_EQ(condition(getPod("second"), "PodScheduled")["message"],
            "0/1 nodes are available: 1 Too many pods. preemption: 0/1 nodes are available: 1 No "
            "preemption victims found for incoming pod.");
}

TEST_F(SchedulerTest, NotReadyAndCordonedNodesAreSkippedUntilTheyRecover) {
  addNode("node-a");
  addNode("node-b");
  must(setNodeUnschedulable(*client, "node-a", true));
  must(setNodeNotReady(*client, ex.clock(), "node-b"));
  startCluster(/*withKubelet=*/false, /*withLifecycle=*/false);
  createPod(podWith("web", {container("main", "nginx:1.27")}));
  runUntilIdle();
  EXPECT_EQ(nodeOf("web"), "");
  EXPECT_EQ(condition(getPod("web"), "PodScheduled")["message"],
            "0/2 nodes are available: 1 node(s) had untolerated taint "
            "{node.kubernetes.io/unreachable: }, 1 node(s) were unschedulable. preemption: 0/2 "
            "nodes are available: 2 Preemption is not helpful for scheduling.");
  must(setNodeReady(*client, ex.clock(), "node-b"));
  runUntilIdle();
  EXPECT_EQ(nodeOf("web"), "node-b");
}

// The scheduler keeps each node's usage from the pod events rather than recounting every bound
// pod for each decision: a deleted pod's requests leave its node, a pod recreated under the same
// name (a new uid) counts once, and a finished one frees its share.
TEST_F(SchedulerTest, NodeUsageFollowsDeletionRecreationAndCompletion) {
  addNode("node-a", "1");
  startCluster(/*withKubelet=*/false);
  createPod(podWith("a", {container("main", "busybox:1.36", "600m")}));
  runUntilIdle();
  ASSERT_EQ(nodeOf("a"), "node-a");
  removeNow("a");
  runUntilIdle();
  createPod(podWith("a", {container("main", "busybox:1.36", "600m")}));
  runUntilIdle();
  EXPECT_EQ(nodeOf("a"), "node-a");  // the first a's 600m left with it
  createPod(podWith("b", {container("main", "busybox:1.36", "600m")}));
  runUntilIdle();
  EXPECT_EQ(nodeOf("b"), "");  // the second a's 600m count
  EXPECT_EQ(condition(getPod("b"), "PodScheduled")["message"],
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 "
            "No preemption victims found for incoming pod.");
  Json finished = getPod("a");
  finished["status"]["phase"] = "Succeeded";
  updateStatus(kPods, finished);
  runUntilIdle();
  EXPECT_EQ(nodeOf("b"), "node-a");
  createPod(podWith("c", {container("main", "busybox:1.36", "600m")}));
  runUntilIdle();
  EXPECT_EQ(nodeOf("c"), "");  // b's 600m count, the finished a's do not
}

// Pods bound before the scheduler started (by someone else) count on their node.
TEST_F(SchedulerTest, PodsBoundBeforeTheSchedulerStartedCount) {
  addNode("node-a", "1");
  addNode("node-b", "1");
  Json placed = podWith("placed", {container("main", "busybox:1.36", "600m")});
  placed["spec"]["nodeName"] = "node-a";
  createPod(placed);
  startCluster(/*withKubelet=*/false);
  createPod(podWith("web", {container("main", "busybox:1.36", "600m")}));
  runUntilIdle();
  EXPECT_EQ(nodeOf("web"), "node-b");
  createPod(podWith("more", {container("main", "busybox:1.36", "600m")}));
  runUntilIdle();
  EXPECT_EQ(nodeOf("more"), "");
  removeNow("placed");
  runUntilIdle();
  EXPECT_EQ(nodeOf("more"), "node-a");
}

// The scheduler cache's assumed pods, event-driven as in kube-scheduler: a pod is assumed on its
// node when its binding is sent and forgotten when the informer delivers it bound (its requests
// then count as bound) or deleted. With the informer 2 s behind, 70 pods (more than any batch a
// periodic check of the cache would wait for) fill a 70-cpu node by assumption alone: the 71st
// does not fit although the cache shows the node empty. Once the cache has them bound and one is
// deleted, the waiting pod takes its place at once, not at the 5-minute retry.
TEST_F(SchedulerTest, AssumedPodsHoldTheirNodeUntilTheCacheShowsThemBoundOrGone) {
  InformerOptions lagging;
  lagging.deliveryDelay = seconds(2);
  ASSERT_TRUE(manager->cache().setResourceOptions(kPods, lagging));
  addNode("node-a", "70");
  startCluster(/*withKubelet=*/false);
  for (int i = 0; i < 70; ++i) {
    createPod(podWith("pod-" + std::to_string(i), {container("main", "busybox:1.36", "1")}));
  }
  createPod(podWith("late", {container("main", "busybox:1.36", "1")}));
  run(milliseconds(2500));  // the creates arrived; the bindings have not come back yet
  for (int i = 0; i < 70; ++i) ASSERT_EQ(nodeOf("pod-" + std::to_string(i)), "node-a") << i;
  EXPECT_EQ(scheduler->bindings(), 70u);
  EXPECT_EQ(nodeOf("late"), "");
  EXPECT_EQ(condition(getPod("late"), "PodScheduled")["message"],
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 "
            "No preemption victims found for incoming pod.");
  EXPECT_EQ(manager->cache().informerFor(kPods).countByIndex("spec.nodeName", "node-a"), 0u);

  removeNow("pod-0");
  run(milliseconds(2000));  // the bindings, then the deletion, reach the cache
  EXPECT_EQ(nodeOf("late"), "node-a");
  // 69 bound in the cache; "late" is assumed until its own binding comes back.
  EXPECT_EQ(manager->cache().informerFor(kPods).countByIndex("spec.nodeName", "node-a"), 69u);
  EXPECT_EQ(scheduler->unschedulablePods(), 0u);
  createPod(podWith("one-more", {container("main", "busybox:1.36", "1")}));
  run(seconds(3));
  EXPECT_EQ(nodeOf("one-more"), "");  // 69 bound and "late": full, by what the cache shows
}

// A binding that fails forgets its assumption (kube-scheduler's ForgetPod): the retry finds the
// node as free as before, rather than holding the pod's own requests against it.
TEST_F(SchedulerTest, AFailedBindingForgetsItsAssumedPod) {
  struct FailFirstBinding : Interceptor {
    int failures = 0;
    std::optional<Status> before(const Request& request) override {
      if (request.subresource != "binding" || failures > 0) return std::nullopt;
      ++failures;
      return Status::internal("injected binding failure");
    }
  };
  auto failing = std::make_shared<FailFirstBinding>();
  server->addInterceptor(failing);
  addNode("node-a", "1");
  startCluster(/*withKubelet=*/false);
  createPod(podWith("web", {container("main", "busybox:1.36", "600m")}));
  run(seconds(1));
  EXPECT_EQ(failing->failures, 1);
  EXPECT_EQ(nodeOf("web"), "node-a");
  EXPECT_EQ(scheduler->bindings(), 1u);
  EXPECT_EQ(scheduler->unschedulablePods(), 0u);
  server->removeInterceptor(failing.get());
}

// From 100 nodes on, a decision stops filtering once it has found numFeasibleNodesToFind
// feasible nodes (100 of 120 here: 50% - 120/125 = 50% is 60, raised to the minimum of 100), and
// the next decision starts where it stopped (nextStartNodeIndex). Nodes 80..99 are twice as big,
// so they score best while empty. The first pod is filtered against nodes 0..99 and takes
// node-080; the second against nodes 100..119 and 0..79, which leave the big ones out: it takes
// node-000 (the first name among equal scores), where scoring every node would give node-081.
TEST_F(SchedulerTest, LargeClustersFilterOnlyTheFeasibleNodesToFind) {
  for (int i = 0; i < 120; ++i) {
    addNode(fmt::format("node-{:03}", i), i >= 80 && i < 100 ? "16" : "8");
  }
  startCluster(/*withKubelet=*/false);
  createPod(podWith("first", {container("main", "nginx:1.27", "1")}));
  runUntilIdle();
  EXPECT_EQ(nodeOf("first"), "node-080");
  createPod(podWith("second", {container("main", "nginx:1.27", "1")}));
  runUntilIdle();
  EXPECT_EQ(nodeOf("second"), "node-000");
  // A pod that fits nowhere has been filtered against every node.
  createPod(podWith("huge", {container("main", "nginx:1.27", "64")}));
  runUntilIdle();
  EXPECT_EQ(condition(getPod("huge"), "PodScheduled")["message"],
            "0/120 nodes are available: 120 Insufficient cpu. preemption: 0/120 nodes are "
            "available: 120 No preemption victims found for incoming pod.");
}

TEST_F(SchedulerTest, NoNodesAtAll) {
  startCluster(/*withKubelet=*/false);
  createPod(podWith("web", {container("main", "nginx:1.27")}));
  runUntilIdle();
  EXPECT_EQ(condition(getPod("web"), "PodScheduled")["message"],
            "no nodes available to schedule pods");
  addNode("late");
  runUntilIdle();
  EXPECT_EQ(nodeOf("web"), "late");
}

}  // namespace
}  // namespace fakekube::clustertest
