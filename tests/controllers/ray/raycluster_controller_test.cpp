// The RayCluster controller against an API server with no kubelet, as KubeRay's envtest suite
// (raycluster_controller_test.go) and unit tests (raycluster_controller_unit_test.go) run it: the
// test plays the kubelet by writing pod status. Each test names the upstream case it mirrors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fakekube/api/conditions.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/interceptor.h"
#include "tests/controllers/ray/ray_fixture.h"
#include "tests/support/forwarding_client.h"

namespace fakekube::ray::testing {
namespace {

using std::chrono::seconds;

// Describe("Static RayCluster"): replicas 3, min 0, max 4.
TEST_F(RayClusterTest, StaticRayClusterHeadServiceWorkersReadyReplaceAndClamp) {
  startOperatorWithCluster(sampleRayCluster("raycluster-sample", 3, 0, 4));

  // "Check the number of worker Pods": 3, plus one head, and the head Service.
  EXPECT_EQ(workerPods("raycluster-sample").size(), 3u);
  EXPECT_EQ(headPods("raycluster-sample").size(), 1u);
  auto service = client->get(kServices, "default", "raycluster-sample-head-svc");
  ASSERT_TRUE(service.has_value());
  EXPECT_FALSE(events("CreatedService").empty());
  // The three creates of one round are one events.k8s.io/v1 series (the note, which names the
  // pod, is not compared): the second create patched it to count 2, the third is counted by the
  // recorder alone until client-go's refresh.
  EXPECT_EQ(events("CreatedWorkerPod").size(), 1u);
  EXPECT_EQ(timesRecorded("CreatedWorkerPod"), 2);
  EXPECT_EQ(events("CreatedHeadPod").size(), 1u);

  // "RayCluster's .status.state should be updated to 'ready' shortly after all Pods are Running".
  EXPECT_EQ(state(getCluster("raycluster-sample")), "");
  setAllPodsRunningAndReady("raycluster-sample");
  run(seconds(1));
  Json rc = getCluster("raycluster-sample");
  EXPECT_EQ(state(rc), "ready");
  EXPECT_TRUE(rc["status"]["stateTransitionTimes"].contains("ready"));
  EXPECT_EQ(rc["status"]["readyWorkerReplicas"], 3);
  EXPECT_EQ(rc["status"]["availableWorkerReplicas"], 3);
  EXPECT_EQ(rc["status"]["desiredWorkerReplicas"], 3);
  EXPECT_FALSE(rc["status"].contains("minWorkerReplicas"));  // 0, omitted
  EXPECT_EQ(rc["status"]["maxWorkerReplicas"], 4);

  // "Delete a worker Pod, and KubeRay should create a new one".
  const std::string victim = meta::name(workerPods("raycluster-sample")[0]);
  ASSERT_TRUE(client->deleteObject(kPods, "default", victim, {.gracePeriodSeconds = 0}));
  run(seconds(1));
  auto workers = workerPods("raycluster-sample");
  EXPECT_EQ(workers.size(), 3u);
  for (const Json& w : workers) EXPECT_NE(meta::name(w), victim);

  // "Update all Pods to Running" then replicas 5 > maxReplicas 4: clamped to 4 pods.
  rc = getCluster("raycluster-sample");
  rc["spec"]["workerGroupSpecs"][0]["replicas"] = 5;
  ASSERT_TRUE(client->update(kRayClusters, rc));
  run(seconds(1));
  EXPECT_EQ(workerPods("raycluster-sample").size(), 4u);
  EXPECT_EQ(getCluster("raycluster-sample")["status"]["desiredWorkerReplicas"], 4);
}

// Describe("Suspend RayCluster atomically"): all pods deleted, state suspended, Suspended True,
// Provisioned False, head.podName gone; resume -> ready again.
TEST_F(RayClusterTest, SuspendDeletesAllPodsAndResumeRecreatesThem) {
  startOperatorWithCluster(sampleRayCluster("raycluster-suspend", 3, 0, 4));
  setAllPodsRunningAndReady("raycluster-suspend");
  run(seconds(1));
  ASSERT_EQ(state(getCluster("raycluster-suspend")), "ready");
  EXPECT_EQ(conditionStatus(getCluster("raycluster-suspend"), "RayClusterProvisioned"), "True");

  Json rc = getCluster("raycluster-suspend");
  rc["spec"]["suspend"] = true;
  ASSERT_TRUE(client->update(kRayClusters, rc));
  run(seconds(1));
  // Suspending True first; the next round (2 s) deletes the pods.
  EXPECT_EQ(conditionStatus(getCluster("raycluster-suspend"), "RayClusterSuspending"), "True");
  run(seconds(3));
  // Without a kubelet the pods keep their deletionTimestamp for their grace period; remove them
  // as the kubelet would.
  for (const Json& pod : pods("ray.io/cluster=raycluster-suspend")) {
    EXPECT_TRUE(meta::isDeleting(pod));
    (void)client->deleteObject(kPods, "default", meta::name(pod), {.gracePeriodSeconds = 0});
  }
  run(seconds(3));
  rc = getCluster("raycluster-suspend");
  EXPECT_TRUE(pods("ray.io/cluster=raycluster-suspend").empty());
  EXPECT_EQ(state(rc), "suspended");
  EXPECT_EQ(conditionStatus(rc, "RayClusterSuspended"), "True");
  EXPECT_EQ(conditionStatus(rc, "RayClusterSuspending"), "False");
  EXPECT_EQ(conditionStatus(rc, "RayClusterProvisioned"), "False");
  EXPECT_FALSE(rc["status"]["head"].contains("podName"));
  EXPECT_TRUE(rc["status"]["stateTransitionTimes"].contains("suspended"));
  EXPECT_FALSE(events("DeletedPod").empty());

  // Resume.
  rc["spec"]["suspend"] = false;
  ASSERT_TRUE(client->update(kRayClusters, rc));
  run(seconds(3));
  EXPECT_EQ(conditionStatus(getCluster("raycluster-suspend"), "RayClusterSuspended"), "False");
  run(seconds(3));
  EXPECT_EQ(workerPods("raycluster-suspend").size(), 3u);
  setAllPodsRunningAndReady("raycluster-suspend");
  run(seconds(1));
  rc = getCluster("raycluster-suspend");
  EXPECT_EQ(state(rc), "ready");
  EXPECT_EQ(conditionStatus(rc, "RayClusterProvisioned"), "True");
}

// Describe("Suspend RayCluster worker group"): only that group's workers go.
TEST_F(RayClusterTest, SuspendingOneWorkerGroupDeletesOnlyItsWorkers) {
  startOperator();
  Json spec = sampleRayCluster("raycluster-group", 2, 0, 4);
  Json second = spec["spec"]["workerGroupSpecs"][0];
  second["groupName"] = "second";
  spec["spec"]["workerGroupSpecs"].push_back(second);
  createCluster(spec);
  run(seconds(1));
  ASSERT_EQ(workerPods("raycluster-group").size(), 4u);

  Json rc = getCluster("raycluster-group");
  rc["spec"]["workerGroupSpecs"][0]["suspend"] = true;
  ASSERT_TRUE(client->update(kRayClusters, rc));
  run(seconds(1));
  EXPECT_TRUE(pods("ray.io/cluster=raycluster-group,ray.io/group=workergroup", true).empty());
  EXPECT_EQ(pods("ray.io/cluster=raycluster-group,ray.io/group=second", true).size(), 2u);
  rc = getCluster("raycluster-group");
  // WithSuspendedWorkerGroups: the suspended group counts for nothing.
  EXPECT_EQ(rc["status"]["desiredWorkerReplicas"], 2);
  EXPECT_EQ(rc["status"]["maxWorkerReplicas"], 4);
}

// Describe("RayCluster with a pod template in another namespace").
TEST_F(RayClusterTest, PodsStayInTheRayClustersNamespace) {
  startOperator();
  Json spec = sampleRayCluster("raycluster-ns", 1, 0, 4);
  spec["spec"]["headGroupSpec"]["template"]["metadata"] = {{"namespace", "other"}};
  spec["spec"]["workerGroupSpecs"][0]["template"]["metadata"] = {{"namespace", "other"}};
  createCluster(spec);
  run(seconds(1));
  EXPECT_EQ(headPods("raycluster-ns").size(), 1u);
  EXPECT_EQ(workerPods("raycluster-ns").size(), 1u);
  EXPECT_TRUE(pods("ray.io/cluster=raycluster-ns", false, "other").empty());
}

// TestReconcile_RemoveWorkersToDelete_OK (autoscaler off): the named pods go, and the group
// is refilled to its replicas in the same round.
TEST_F(RayClusterTest, Diff0WorkersToDeleteAreDeletedAndReplaced) {
  startOperatorWithCluster(sampleRayCluster("rc", 3, 0, 5));
  auto before = workerPods("rc");
  ASSERT_EQ(before.size(), 3u);
  Json rc = getCluster("rc");
  rc["spec"]["workerGroupSpecs"][0]["scaleStrategy"] = {
      {"workersToDelete", Json::array({meta::name(before[0]), meta::name(before[1]), "gone"})}};
  ASSERT_TRUE(client->update(kRayClusters, rc));
  run(seconds(1));
  auto after = workerPods("rc");
  EXPECT_EQ(after.size(), 3u);
  for (const Json& pod : after) {
    EXPECT_NE(meta::name(pod), meta::name(before[0]));
    EXPECT_NE(meta::name(pod), meta::name(before[1]));
  }
  // The NotFound "gone" is ignored; two deletions were recorded.
  EXPECT_EQ(timesRecorded("DeletedWorkerPod"), 2);
}

// TestReconcile_RemoveWorkersToDelete_RandomDelete / _NoRandomDelete: with the autoscaler on,
// a surplus beyond workersToDelete is deleted only with ENABLE_RANDOM_POD_DELETE.
TEST_F(RayClusterTest, RemoveWorkersToDeleteRandomDeleteOnlyWhenEnabled) {
  for (bool randomDelete : {false, true}) {
    SCOPED_TRACE(randomDelete ? "random delete" : "no random delete");
    const std::string name = randomDelete ? "rc-random" : "rc-norandom";
    manager.reset();
    startOperator({.enableRandomPodDelete = randomDelete});
    Json spec = sampleRayCluster(name, 4, 0, 5);
    spec["spec"]["enableInTreeAutoscaling"] = true;
    createCluster(spec);
    run(seconds(1));
    auto before = workerPods(name);
    ASSERT_EQ(before.size(), 4u);
    Json rc = getCluster(name);
    rc["spec"]["workerGroupSpecs"][0]["replicas"] = 1;
    rc["spec"]["workerGroupSpecs"][0]["scaleStrategy"] = {
        {"workersToDelete", Json::array({meta::name(before[0])})}};
    ASSERT_TRUE(client->update(kRayClusters, rc));
    run(seconds(1));
    EXPECT_EQ(workerPods(name).size(), randomDelete ? 1u : 3u);
  }
}

// The verbs of the pod writes the controller makes.
class RecordPodWrites : public Interceptor {
 public:
  std::optional<Status> before(const Request& request) override {
    if (request.resource.resource == "pods" && request.subresource.empty() &&
        (request.verb == Verb::Create || request.verb == Verb::Delete)) {
      verbs.push_back(verbName(request.verb));
    }
    return std::nullopt;
  }
  std::vector<std::string> verbs;
};

// TestReconcile_PodCrash_DiffLess0_OK / PodEvicted_DiffLess0_OK and
// TestReconcile_TerminatedWorkers_NoAutoscaler: Failed and Succeeded workers are deleted, the
// round that deletes them creates nothing and ends with "delete 2 unhealthy worker Pods"; a later
// round (once the cache shows them gone) replaces them. The pods here are bound to a node (the
// scheduler runs, no kubelet), so a deleted pod lingers for its grace period as on a real node.
TEST_F(RayClusterTest, TerminatedWorkersAreDeletedThenReplaced) {
  auto writes = std::make_shared<RecordPodWrites>();
  startCluster(1, {"scheduler"});
  startOperatorWithCluster(sampleRayCluster("rc", 3, 0, 5));
  auto workers = workerPods("rc");
  ASSERT_EQ(workers.size(), 3u);
  const auto errorsBefore = controller->metrics().error;
  server->addInterceptor(writes);
  setPodPhase(workers[0], "Failed");     // crashed / evicted
  setPodPhase(workers[1], "Succeeded");  // exited 0
  run(seconds(1));
  server->removeInterceptor(writes.get());
  // A terminal pod is deleted at once (no grace period), and the next round refills the group:
  // deletes first, in a round that failed, then the creates.
  EXPECT_THAT(writes->verbs, ::testing::ElementsAre("delete", "delete", "create", "create"));
  EXPECT_EQ(controller->metrics().error, errorsBefore + 1);
  EXPECT_EQ(timesRecorded("DeletedWorkerPod"), 2);
  auto after = workerPods("rc");
  EXPECT_EQ(after.size(), 3u);
  for (const Json& pod : after) {
    EXPECT_NE(meta::name(pod), meta::name(workers[0]));
    EXPECT_NE(meta::name(pod), meta::name(workers[1]));
  }
}

// What a kubelet reports of a head pod whose Ray container exited with an error: Running, the
// container terminated.
void setRunningWithRayContainerTerminated(InProcessClient& client, const Json& pod) {
  Json head = client.get(kPods, "default", meta::name(pod)).value();
  head["status"]["phase"] = "Running";
  head["status"]["containerStatuses"] =
      Json::array({{{"name", "ray-head"},
                    {"ready", false},
                    {"restartCount", 0},
                    {"image", "rayproject/ray:2.46.0"},
                    {"imageID", ""},
                    {"state", {{"terminated", {{"exitCode", 1}, {"reason", "Error"}}}}}}});
  ASSERT_TRUE(client.updateStatus(kPods, head));
}

// TestReconcile_RunningPods_RayContainerTerminated and TestReconcile_TerminatedHead_RestartPolicy:
// a Running pod whose Ray container terminated is replaced only under restartPolicy Never.
TEST_F(RayClusterTest, RunningHeadWithTerminatedRayContainerDependsOnRestartPolicy) {
  startOperatorWithCluster(sampleRayCluster("rc", 0, 0, 5));
  auto heads = headPods("rc");
  ASSERT_EQ(heads.size(), 1u);
  ASSERT_NO_FATAL_FAILURE(setRunningWithRayContainerTerminated(*client, heads[0]));
  run(seconds(1));
  // restartPolicy Always (the default): kept, the kubelet restarts the container.
  EXPECT_EQ(headPods("rc").size(), 1u);
  EXPECT_TRUE(events("DeletedHeadPod").empty());

  // The same with restartPolicy Never on a fresh cluster: deleted.
  Json spec = sampleRayCluster("rc-never", 0, 0, 5);
  spec["spec"]["headGroupSpec"]["template"]["spec"]["restartPolicy"] = "Never";
  createCluster(spec);
  run(seconds(1));
  heads = headPods("rc-never");
  ASSERT_EQ(heads.size(), 1u);
  ASSERT_NO_FATAL_FAILURE(setRunningWithRayContainerTerminated(*client, heads[0]));
  run(seconds(1));
  EXPECT_FALSE(events("DeletedHeadPod").empty());
  EXPECT_FALSE(client->get(kPods, "default", meta::name(heads[0])).has_value());
  // (An unscheduled pod goes at once; the next round created a new head.)
  ASSERT_EQ(headPods("rc-never").size(), 1u);
  EXPECT_NE(meta::name(headPods("rc-never")[0]), meta::name(heads[0]));
}

// TestShouldDeletePod.
TEST(ShouldDeletePodTest, PhasesAndRayContainerState) {
  auto pod = [](const std::string& phase, const std::string& restartPolicy, bool terminated) {
    Json p = {{"metadata", {{"name", "p"}}},
              {"spec",
               {{"restartPolicy", restartPolicy},
                {"containers", Json::array({{{"name", "ray"}}, {{"name", "sidecar"}}})}}},
              {"status", {{"phase", phase}}}};
    Json state =
        terminated ? Json{{"terminated", {{"exitCode", 1}}}} : Json{{"running", Json::object()}};
    // Container statuses in another order than the containers: found by name.
    p["status"]["containerStatuses"] =
        Json::array({{{"name", "sidecar"}, {"state", {{"running", Json::object()}}}},
                     {{"name", "ray"}, {"state", state}}});
    return p;
  };
  EXPECT_TRUE(shouldDeletePod(pod("Failed", "Always", false), "worker").first);
  EXPECT_TRUE(shouldDeletePod(pod("Succeeded", "Always", false), "head").first);
  EXPECT_TRUE(shouldDeletePod(pod("Running", "Never", true), "worker").first);
  EXPECT_FALSE(shouldDeletePod(pod("Running", "Always", true), "worker").first);
  EXPECT_FALSE(shouldDeletePod(pod("Running", "OnFailure", true), "worker").first);
  EXPECT_FALSE(shouldDeletePod(pod("Running", "Never", false), "worker").first);
  EXPECT_FALSE(shouldDeletePod(pod("Pending", "Never", false), "worker").first);
  EXPECT_THAT(shouldDeletePod(pod("Failed", "Always", false), "worker").second,
              ::testing::HasSubstr("which is a terminal state"));
}

// TestReconcileHeadService: 0 -> created, 1 -> left alone, 2 -> the round fails.
TEST_F(RayClusterTest, ReconcileHeadServiceCreatesOneAndRefusesDuplicates) {
  startOperatorWithCluster(sampleRayCluster("rc", 1, 0, 5));
  auto list = client->list(kServices, "default", {.labelSelector = "ray.io/cluster=rc"});
  ASSERT_EQ((*list)["items"].size(), 1u);
  const std::string rv = meta::resourceVersion((*list)["items"][0]);

  // Another round (a label change) leaves the one Service alone.
  Json rc = getCluster("rc");
  meta::setLabel(rc, "touch", "1");
  ASSERT_TRUE(client->update(kRayClusters, rc));
  run(seconds(1));
  EXPECT_EQ(meta::resourceVersion(client->get(kServices, "default", "rc-head-svc").value()), rv);

  // A second Service with the same labels: every round errors, the pods are left as they are.
  Json duplicate = client->get(kServices, "default", "rc-head-svc").value();
  duplicate["metadata"] = {
      {"name", "duplicate"}, {"namespace", "default"}, {"labels", duplicate["metadata"]["labels"]}};
  duplicate["spec"].erase("clusterIPs");
  ASSERT_TRUE(client->create(kServices, duplicate));
  const auto errorsBefore = controller->metrics().error;
  rc = getCluster("rc");
  meta::setLabel(rc, "touch", "2");
  ASSERT_TRUE(client->update(kRayClusters, rc));
  run(seconds(1));
  EXPECT_GT(controller->metrics().error, errorsBefore);
}

// TestUpdateEndpoints and the head IP/name rules: endpoints are the Service's named target ports;
// with the default headless Service, serviceIP is the head pod's IP.
TEST_F(RayClusterTest, EndpointsAndHeadInfoWithHeadlessService) {
  startOperatorWithCluster(sampleRayCluster("rc", 0, 0, 5));
  Json svc = client->get(kServices, "default", "rc-head-svc").value();
  EXPECT_EQ(svc["spec"]["clusterIP"], "None");
  EXPECT_EQ(svc["spec"]["publishNotReadyAddresses"], true);
  setAllPodsRunningAndReady("rc");
  run(seconds(1));
  Json rc = getCluster("rc");
  EXPECT_EQ(rc["status"]["endpoints"], Json({{"client", "10001"},
                                             {"dashboard", "8265"},
                                             {"gcs-server", "6379"},
                                             {"metrics", "8080"}}));
  const Json head = headPods("rc")[0];
  EXPECT_EQ(rc["status"]["head"]["podName"], meta::name(head));
  EXPECT_EQ(rc["status"]["head"]["podIP"], head["status"]["podIP"]);
  EXPECT_EQ(rc["status"]["head"]["serviceIP"], head["status"]["podIP"]);
  EXPECT_EQ(rc["status"]["head"]["serviceName"], "rc-head-svc");
}

// Not an upstream case: how a new RayCluster's first round ends depends on whether the cache has
// seen the head Service the round created by the time calculateStatus (updateHeadInfo) looks for
// it, four API calls later. A cache that waits for the executor never has: the round fails with
// "unable to find head service" and the next round, moved by the events, writes the status. A
// cache that catches up on read (InformerOptions::catchUpOnRead) has, as a real informer usually
// has: the first round writes the status and no round fails.
TEST_F(RayClusterTest, FirstRoundFailsToFindItsHeadServiceInACacheThatWaitsForTheExecutor) {
  startOperatorWithCluster(sampleRayCluster("rc", 2, 0, 5));
  EXPECT_EQ(controller->metrics().error, 1u);
  EXPECT_EQ(getCluster("rc")["status"]["head"]["serviceName"], "rc-head-svc");
}

TEST_F(RayClusterTest, FirstRoundFindsItsHeadServiceInACacheThatCatchesUpOnRead) {
  ManagerOptions managerOptions;
  managerOptions.cache.defaults.catchUpOnRead = true;
  startOperator({}, managerOptions);
  createCluster(sampleRayCluster("rc", 2, 0, 5));
  run(seconds(1));
  EXPECT_EQ(controller->metrics().error, 0u);
  EXPECT_EQ(workerPods("rc").size(), 2u);  // and no duplicate worker from a round that ran early
  Json rc = getCluster("rc");
  EXPECT_EQ(rc["status"]["head"]["serviceName"], "rc-head-svc");
  EXPECT_EQ(rc["status"]["desiredWorkerReplicas"], 2);
}

// The head IP rule with ENABLE_RAY_HEAD_CLUSTER_IP_SERVICE: serviceIP is the ClusterIP.
TEST_F(RayClusterTest, HeadServiceIpIsTheClusterIpWhenNotHeadless) {
  startOperator({.enableRayHeadClusterIpService = true});
  createCluster(sampleRayCluster("rc", 0, 0, 5));
  run(seconds(1));
  Json svc = client->get(kServices, "default", "rc-head-svc").value();
  ASSERT_NE(svc["spec"].value("clusterIP", ""), "None");
  setAllPodsRunningAndReady("rc");
  run(seconds(1));
  EXPECT_EQ(getCluster("rc")["status"]["head"]["serviceIP"], svc["spec"]["clusterIP"]);
}

// TestGetHeadPodIPAndNameFromService / updateHeadInfo without a head pod: names only.
// TestReconcile_UpdateClusterReason / ObservedGeneration: a spec change bumps the generation and
// the status follows.
TEST_F(RayClusterTest, ObservedGenerationFollowsTheSpec) {
  startOperatorWithCluster(sampleRayCluster("rc", 1, 0, 5));
  Json rc = getCluster("rc");
  EXPECT_EQ(rc["status"]["observedGeneration"], rc["metadata"]["generation"]);
  rc["spec"]["workerGroupSpecs"][0]["replicas"] = 2;
  ASSERT_TRUE(client->update(kRayClusters, rc));
  run(seconds(1));
  rc = getCluster("rc");
  EXPECT_EQ(rc["metadata"]["generation"], 2);
  EXPECT_EQ(rc["status"]["observedGeneration"], 2);
  EXPECT_EQ(rc["status"]["desiredWorkerReplicas"], 2);
}

// TestCalculateStatus: counts and desired resources (head 1 CPU/2G + 3 workers x 1 CPU/1G, one
// worker with a GPU limit).
TEST_F(RayClusterTest, CalculateStatusCountsAndDesiredResources) {
  startOperator();
  Json spec = sampleRayCluster("rc", 3, 1, 5);
  spec["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]["resources"]["limits"]
      ["nvidia.com/gpu"] = "1";
  createCluster(spec);
  run(seconds(1));
  auto workers = workerPods("rc");
  ASSERT_EQ(workers.size(), 3u);
  setPodRunningAndReady(workers[0]);
  setPodRunningAndReady(workers[1], /*ready=*/false);
  run(seconds(1));
  Json status = getCluster("rc")["status"];
  EXPECT_EQ(status["readyWorkerReplicas"], 1);
  EXPECT_EQ(status["availableWorkerReplicas"], 2);
  EXPECT_EQ(status["desiredWorkerReplicas"], 3);
  EXPECT_EQ(status["minWorkerReplicas"], 1);
  EXPECT_EQ(status["maxWorkerReplicas"], 5);
  EXPECT_EQ(status["desiredCPU"], "4");
  EXPECT_EQ(status["desiredMemory"], "5G");
  EXPECT_EQ(status["desiredGPU"], "3");
  EXPECT_EQ(status["desiredTPU"], "0");
  EXPECT_NE(status.value("state", ""), "ready");
}

// TestCalculateStatusWithoutDesiredReplicas / Replicas_Optional: unset replicas -> minReplicas;
// replicas above max -> max; below min -> min.
TEST_F(RayClusterTest, ReplicasOptionalAndClamped) {
  startOperator();
  Json noReplicas = sampleRayCluster("rc-nil", 0, 2, 5);
  noReplicas["spec"]["workerGroupSpecs"][0].erase("replicas");
  createCluster(noReplicas);
  createCluster(sampleRayCluster("rc-low", 1, 3, 5));
  createCluster(sampleRayCluster("rc-high", 9, 0, 2));
  run(seconds(1));
  EXPECT_EQ(workerPods("rc-nil").size(), 2u);
  EXPECT_EQ(workerPods("rc-low").size(), 3u);
  EXPECT_EQ(workerPods("rc-high").size(), 2u);
}

// TestReconcile_Multihost_Replicas: numOfHosts multiplies the pods of a group.
TEST_F(RayClusterTest, MultihostReplicasMultiplyPods) {
  startOperator();
  Json spec = sampleRayCluster("rc", 2, 0, 5);
  spec["spec"]["workerGroupSpecs"][0]["numOfHosts"] = 3;
  createCluster(spec);
  run(seconds(1));
  EXPECT_EQ(workerPods("rc").size(), 6u);
  Json status = getCluster("rc")["status"];
  EXPECT_EQ(status["desiredWorkerReplicas"], 6);
  EXPECT_EQ(status["maxWorkerReplicas"], 15);
  // TestReconcileHeadlessService: the multi-host group's hosts find each other through it.
  auto headless = client->get(kServices, "default", "rc-headless");
  ASSERT_TRUE(headless.has_value());
  EXPECT_EQ((*headless)["metadata"]["labels"]["ray.io/headless-worker-svc"], "rc");
  EXPECT_EQ((*headless)["spec"]["clusterIP"], "None");
  EXPECT_EQ((*headless)["spec"]["selector"],
            Json({{"ray.io/cluster", "rc"}, {"ray.io/node-type", "worker"}}));
  EXPECT_EQ((*headless)["metadata"]["ownerReferences"][0]["kind"], "RayCluster");
}

// TestReconcile_RayClusterProvisionedCondition and StateTransitionTimes_NoStateChange: False
// while pods are provisioning, True once all run, and it stays True when a worker later goes
// unready; a round without a state change leaves stateTransitionTimes alone.
TEST_F(RayClusterTest, ProvisionedConditionAndStateTransitionTimes) {
  startOperatorWithCluster(sampleRayCluster("rc", 1, 0, 5));
  Json rc = getCluster("rc");
  EXPECT_EQ(conditionStatus(rc, "RayClusterProvisioned"), "False");
  EXPECT_EQ(findCondition(rc, "RayClusterProvisioned")->value("reason", ""),
            "RayClusterPodsProvisioning");
  EXPECT_EQ(conditionStatus(rc, "HeadPodReady"), "False");

  run(seconds(5));
  setAllPodsRunningAndReady("rc");
  run(seconds(1));
  rc = getCluster("rc");
  EXPECT_EQ(conditionStatus(rc, "RayClusterProvisioned"), "True");
  EXPECT_EQ(findCondition(rc, "RayClusterProvisioned")->value("reason", ""),
            "AllPodRunningAndReadyFirstTime");
  EXPECT_EQ(conditionStatus(rc, "HeadPodReady"), "True");
  EXPECT_EQ(findCondition(rc, "HeadPodReady")->value("reason", ""), "HeadPodRunningAndReady");
  const Json readyAt = rc["status"]["stateTransitionTimes"]["ready"];

  run(seconds(10));
  setPodRunningAndReady(workerPods("rc")[0], /*ready=*/false);
  run(seconds(1));
  rc = getCluster("rc");
  EXPECT_EQ(conditionStatus(rc, "RayClusterProvisioned"), "True");
  EXPECT_EQ(state(rc), "ready");                           // state is kept once ready
  EXPECT_EQ(rc["status"]["readyWorkerReplicas"], Json());  // 0, omitted
  EXPECT_EQ(rc["status"]["stateTransitionTimes"]["ready"], readyAt);
}

// TestReconcile_ReplicaFailure / ReconcileErrorBackAndForth and FailedPodCreation events: a
// refused worker create sets ReplicaFailure (FailedCreateWorkerPod) and a Warning Event; once
// creates work again the condition is removed.
class RefuseWorkerCreates : public Interceptor {
 public:
  std::optional<Status> before(const Request& request) override {
    if (refuse && request.verb == Verb::Create && request.resource.resource == "pods" &&
        request.body && meta::label(*request.body, "ray.io/node-type") == "worker") {
      return Status::forbidden({"", "pods"}, "", "exceeded quota: compute-resources");
    }
    return std::nullopt;
  }
  bool refuse = true;
};

TEST_F(RayClusterTest, ReplicaFailureConditionComesAndGoes) {
  auto refuse = std::make_shared<RefuseWorkerCreates>();
  server->addInterceptor(refuse);
  startOperatorWithCluster(sampleRayCluster("rc", 2, 0, 5));
  Json rc = getCluster("rc");
  ASSERT_EQ(conditionStatus(rc, "ReplicaFailure"), "True");
  EXPECT_EQ(findCondition(rc, "ReplicaFailure")->value("reason", ""), "FailedCreateWorkerPod");
  EXPECT_THAT(findCondition(rc, "ReplicaFailure")->value("message", ""),
              ::testing::HasSubstr("exceeded quota"));
  auto warnings = events("FailedToCreateWorkerPod");
  ASSERT_FALSE(warnings.empty());
  EXPECT_EQ(warnings[0]["type"], "Warning");
  EXPECT_TRUE(workerPods("rc").empty());
  EXPECT_EQ(headPods("rc").size(), 1u);  // created earlier in the same round, kept

  refuse->refuse = false;
  run(seconds(3));  // the 2 s requeue of the failed round
  rc = getCluster("rc");
  EXPECT_EQ(findCondition(rc, "ReplicaFailure"), nullptr);
  EXPECT_EQ(workerPods("rc").size(), 2u);
  server->removeInterceptor(refuse.get());
}

// TestDeleteAllPods: pods already terminating are not deleted again (no second DeleteCollection).
class CountDeleteCollections : public Interceptor {
 public:
  std::optional<Status> before(const Request& request) override {
    if (request.verb == Verb::DeleteCollection && request.resource.resource == "pods") ++count;
    return std::nullopt;
  }
  int count = 0;
};

TEST_F(RayClusterTest, DeleteAllPodsSkipsTerminatingPods) {
  auto counter = std::make_shared<CountDeleteCollections>();
  server->addInterceptor(counter);
  startCluster(1, {"scheduler"});  // bound pods: deletion is graceful, they linger terminating
  startOperatorWithCluster(sampleRayCluster("rc", 2, 0, 5));
  Json rc = getCluster("rc");
  rc["spec"]["suspend"] = true;
  ASSERT_TRUE(client->update(kRayClusters, rc));
  run(seconds(3));
  EXPECT_EQ(counter->count, 1);
  // Terminating pods linger (no kubelet); the rounds that follow see only terminating pods.
  run(seconds(6));
  EXPECT_EQ(counter->count, 1);
  EXPECT_EQ(pods("ray.io/cluster=rc").size(), 3u);
  server->removeInterceptor(counter.get());
}

// TestReconcile_ManagedBy: a RayCluster managed by another controller is left alone.
TEST_F(RayClusterTest, ManagedByAnotherControllerIsSkipped) {
  startOperator();
  Json spec = sampleRayCluster("rc", 1, 0, 5);
  spec["spec"]["managedBy"] = "kueue.x-k8s.io/multikueue";
  createCluster(spec);
  run(seconds(1));
  EXPECT_TRUE(pods("ray.io/cluster=rc").empty());
  EXPECT_FALSE(client->get(kServices, "default", "rc-head-svc").has_value());
  EXPECT_FALSE(getCluster("rc").contains("status"));
}

// ValidateRayClusterMetadata / Spec: a Warning Event and nothing else, no requeue.
TEST_F(RayClusterTest, InvalidMetadataAndSpecGiveWarningEvents) {
  startOperator();
  createCluster(sampleRayCluster(std::string(54, 'a'), 1, 0, 5));
  Json badSpec = sampleRayCluster("bad-spec", 1, 3, 2);  // min > max
  createCluster(badSpec);
  run(seconds(1));
  auto metadata = events("InvalidRayClusterMetadata");
  ASSERT_EQ(metadata.size(), 1u);
  EXPECT_THAT(metadata[0].value("message", ""),
              ::testing::HasSubstr("RayCluster name should be no more than 53 characters"));
  auto spec = events("InvalidRayClusterSpec");
  ASSERT_EQ(spec.size(), 1u);
  EXPECT_THAT(spec[0].value("message", ""),
              ::testing::HasSubstr("has minReplicas 3 greater than maxReplicas 2"));
  EXPECT_EQ(spec[0]["type"], "Warning");
  EXPECT_TRUE(pods("").empty());
  run(seconds(600));
  EXPECT_EQ(timesRecorded("InvalidRayClusterSpec"), 1) << "no requeue";
}

// The Recreate upgrade strategy: a change of the pod template deletes every pod; the next rounds
// create them from the new spec. A replicas change alone does not.
TEST_F(RayClusterTest, RecreateUpgradeStrategyRecreatesAllPodsOnTemplateChange) {
  startOperator();
  Json spec = sampleRayCluster("rc", 1, 0, 5);
  spec["spec"]["upgradeStrategy"] = {{"type", "Recreate"}};
  createCluster(spec);
  run(seconds(1));
  const std::string oldHead = meta::name(headPods("rc")[0]);
  EXPECT_FALSE(
      meta::annotation(headPods("rc")[0], "ray.io/upgrade-strategy-recreate-hash").empty());

  Json rc = getCluster("rc");
  rc["spec"]["workerGroupSpecs"][0]["replicas"] = 2;
  ASSERT_TRUE(client->update(kRayClusters, rc));
  run(seconds(1));
  EXPECT_EQ(meta::name(headPods("rc")[0]), oldHead) << "scaling is not a spec change";
  EXPECT_EQ(workerPods("rc").size(), 2u);

  rc = getCluster("rc");
  rc["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["image"] =
      "rayproject/ray:2.47.0";
  ASSERT_TRUE(client->update(kRayClusters, rc));
  run(seconds(1));
  EXPECT_FALSE(events("DeletedPod").empty());
  run(seconds(3));
  auto heads = headPods("rc");
  ASSERT_EQ(heads.size(), 1u);
  EXPECT_NE(meta::name(heads[0]), oldHead);
  EXPECT_EQ(heads[0]["spec"]["containers"][0]["image"], "rayproject/ray:2.47.0");
  EXPECT_EQ(workerPods("rc").size(), 2u);
}

// An upgradeStrategy on a RayCluster created by a RayJob is refused.
TEST_F(RayClusterTest, UpgradeStrategyOnlyOnUserCreatedClusters) {
  startOperator();
  Json spec = sampleRayCluster("rc", 1, 0, 5);
  spec["metadata"]["labels"] = {{"ray.io/originated-from-crd", "RayJob"}};
  spec["spec"]["upgradeStrategy"] = {{"type", "Recreate"}};
  createCluster(spec);
  run(seconds(1));
  auto warnings = events("InvalidRayClusterSpec");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0].value("message", ""),
              ::testing::HasSubstr("upgradeStrategy cannot be set when RayCluster is created by "
                                   "RayJob"));
  EXPECT_TRUE(pods("").empty());
}

// ENABLE_DETERMINISTIC_HEAD_POD_NAME: the head pod is "<cluster>-head".
TEST_F(RayClusterTest, DeterministicHeadPodName) {
  startOperator({.enableDeterministicHeadPodName = true});
  createCluster(sampleRayCluster("rc", 0, 0, 5));
  run(seconds(1));
  auto heads = headPods("rc");
  ASSERT_EQ(heads.size(), 1u);
  EXPECT_EQ(meta::name(heads[0]), "rc-head");
}

// disable-provisioned-head-restart: a provisioned cluster whose head is gone is left without one.
TEST_F(RayClusterTest, DisableProvisionedHeadRestart) {
  startOperator();
  Json spec = sampleRayCluster("rc", 0, 0, 5);
  spec["metadata"]["annotations"] = {{"ray.io/disable-provisioned-head-restart", "true"}};
  createCluster(spec);
  run(seconds(1));
  setAllPodsRunningAndReady("rc");
  run(seconds(1));
  ASSERT_EQ(conditionStatus(getCluster("rc"), "RayClusterProvisioned"), "True");
  ASSERT_TRUE(client->deleteObject(kPods, "default", meta::name(headPods("rc")[0]),
                                   {.gracePeriodSeconds = 0}));
  run(seconds(5));
  EXPECT_TRUE(headPods("rc").empty());
  EXPECT_EQ(conditionStatus(getCluster("rc"), "HeadPodReady"), "False");
}

// A RayCluster deleted: its expectations go, its pods go with the garbage collector (owner
// references), nothing is recreated.
TEST_F(RayClusterTest, OwnerReferencesPointAtTheRayCluster) {
  // (A single-host cluster has no headless worker Service.)
  startOperator();
  Json created = createCluster(sampleRayCluster("rc", 1, 0, 5));
  run(seconds(1));
  for (const Json& pod : pods("ray.io/cluster=rc")) {
    ASSERT_TRUE(pod["metadata"].contains("ownerReferences"));
    const Json& ref = pod["metadata"]["ownerReferences"][0];
    EXPECT_EQ(ref["kind"], "RayCluster");
    EXPECT_EQ(ref["uid"], created["metadata"]["uid"]);
    EXPECT_EQ(ref["controller"], true);
  }
  Json svc = client->get(kServices, "default", "rc-head-svc").value();
  EXPECT_EQ(svc["metadata"]["ownerReferences"][0]["uid"], created["metadata"]["uid"]);
  EXPECT_FALSE(client->get(kServices, "default", "rc-headless").has_value());
}

// A Client that is not an InProcessClient (as RestClient is not): the manager cannot tell the
// kind of a resource, so the controller names its For kind itself.
using fakekube::testing::ForwardingClient;

TEST_F(RayClusterTest, RunsOverAClientThatIsNotInProcess) {
  ForwardingClient remote(*client);
  manager = std::make_unique<Manager>(ex, remote);
  ASSERT_FALSE(manager->kindFor(kRayClusters).has_value());
  auto added = addRayClusterController(*manager);
  ASSERT_TRUE(added.has_value()) << added.error().message;
  controller = *added;
  manager->start();
  createCluster(sampleRayCluster("rc", 2, 0, 5));
  run(seconds(1));
  EXPECT_EQ(headPods("rc").size(), 1u);
  EXPECT_EQ(workerPods("rc").size(), 2u);
  // Owns() works without kindFor: a worker's status change enqueues the RayCluster.
  setAllPodsRunningAndReady("rc");
  run(seconds(1));
  EXPECT_EQ(state(getCluster("rc")), "ready");
}

// Bad input never crashes the operator: RayClusters with fields of the wrong type (as far as the
// CRD's schema lets them in) end as Warning Events or errors, and a good RayCluster created after
// them is still served.
TEST_F(RayClusterTest, MalformedRayClustersDoNotStopTheController) {
  startOperator();
  std::vector<Json> bad;
  Json noHead = sampleRayCluster("no-head");
  noHead["spec"].erase("headGroupSpec");
  bad.push_back(noHead);
  Json groupsNotAList = sampleRayCluster("groups-object");
  groupsNotAList["spec"]["workerGroupSpecs"] = {{"groupName", "x"}};
  bad.push_back(groupsNotAList);
  Json replicasString = sampleRayCluster("replicas-string");
  replicasString["spec"]["workerGroupSpecs"][0]["replicas"] = "three";
  bad.push_back(replicasString);
  Json containerString = sampleRayCluster("container-string");
  containerString["spec"]["headGroupSpec"]["template"]["spec"]["containers"] =
      Json::array({"ray-head"});
  bad.push_back(containerString);
  Json portsOdd = sampleRayCluster("ports-odd");
  portsOdd["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["ports"] =
      Json::array({{{"containerPort", "6379"}, {"name", 7}}});
  bad.push_back(portsOdd);
  Json startParamsOdd = sampleRayCluster("params-odd");
  startParamsOdd["spec"]["headGroupSpec"]["rayStartParams"] = {{"num-cpus", 2}, {"block", false}};
  bad.push_back(startParamsOdd);
  Json noSpec = sampleRayCluster("no-spec");
  noSpec.erase("spec");
  bad.push_back(noSpec);
  for (Json& rc : bad) (void)client->create(kRayClusters, rc);  // the schema may refuse some
  run(seconds(5));

  createCluster(sampleRayCluster("good", 2, 0, 5));
  run(seconds(1));
  EXPECT_EQ(headPods("good").size(), 1u);
  EXPECT_EQ(workerPods("good").size(), 2u);
  EXPECT_TRUE(pods("ray.io/cluster=no-head").empty());
  EXPECT_TRUE(pods("ray.io/cluster=container-string").empty());
  EXPECT_EQ(controller->metrics().panics, 0u) << "no reconcile threw";
}

// TestReconcile_ServeService (ray.io/enable-serve-service): <cluster>-serve-svc over the head's
// serve ports; without a serve port the round fails and says why.
TEST_F(RayClusterTest, ServeServiceWithTheAnnotation) {
  startOperator();
  Json spec = sampleRayCluster("rc", 1, 0, 5);
  spec["metadata"]["annotations"] = {{"ray.io/enable-serve-service", "true"}};
  spec["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["ports"].push_back(
      {{"containerPort", 8000}, {"name", "serve"}});
  createCluster(spec);
  run(seconds(1));
  auto svc = client->get(kServices, "default", "rc-serve-svc");
  ASSERT_TRUE(svc.has_value());
  EXPECT_EQ((*svc)["metadata"]["labels"]["ray.io/serve"], "rc-serve");
  EXPECT_EQ((*svc)["metadata"]["labels"]["ray.io/originated-from-crd"], "RayCluster");
  EXPECT_EQ((*svc)["spec"]["selector"], Json({{"ray.io/cluster", "rc"}}));
  ASSERT_EQ((*svc)["spec"]["ports"].size(), 1u);
  EXPECT_EQ((*svc)["spec"]["ports"][0]["port"], 8000);

  Json noPort = sampleRayCluster("rc-noport", 1, 0, 5);
  noPort["metadata"]["annotations"] = {{"ray.io/enable-serve-service", "true"}};
  createCluster(noPort);
  run(seconds(1));
  EXPECT_FALSE(client->get(kServices, "default", "rc-noport-serve-svc").has_value());
  EXPECT_TRUE(workerPods("rc-noport").empty()) << "the steps stop at the first error";
}

}  // namespace
}  // namespace fakekube::ray::testing
