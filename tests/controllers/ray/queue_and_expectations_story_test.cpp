// The work-queue story as tests: how the priority queue, two workers, the cache's lag, the scale
// expectations and their 30 s timeout, and status-write conflicts shape the RayCluster controller.
// Everything runs on virtual time; where pods must become Running and Ready, the cluster's
// scheduler and kubelets do it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/ray/internal/redis_cleanup_job.h"
#include "fakekube/api/conditions.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/interceptor.h"
#include "tests/controllers/ray/ray_fixture.h"

namespace fakekube::ray::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// 100 RayClusters (head + 2 workers) with maxConcurrentReconciles 2 all reach ready; the queue
// never runs more than 2 reconciles at once and never one key twice.
TEST_F(RayClusterTest, HundredRayClustersWithTwoWorkersAllReachReady) {
  startCluster(/*nodes=*/40);
  startOperator({.reconcileConcurrency = 2});
  for (int i = 0; i < 100; ++i) {
    createCluster(sampleRayCluster("rc-" + std::to_string(i), 2, 0, 5));
  }
  auto allReady = [&] {
    auto list = client->list(kRayClusters, "default");
    if (!list) return false;
    int ready = 0;
    for (const Json& rc : (*list)["items"]) ready += state(rc) == "ready";
    return ready == 100;
  };
  // Checked once per virtual second (a check after every task would cost more than the run).
  int waited = 0;
  while (!allReady() && waited < 300) {
    run(seconds(1));
    ++waited;
  }
  ASSERT_TRUE(allReady());
  EXPECT_LT(waited, 60) << "virtual seconds to all ready";
  const ReconcileMetrics metrics = controller->metrics();
  RecordProperty("virtualSecondsToReady", waited);
  RecordProperty("reconciles", static_cast<int>(metrics.total()));
  EXPECT_EQ(metrics.maxConcurrentReconciles, 2);
  EXPECT_LE(metrics.peakActiveWorkers, 2);
  EXPECT_EQ(metrics.overlappingReconciles, 0u);
  EXPECT_EQ(pods("ray.io/node-type=worker", true).size(), 200u);
  EXPECT_EQ(pods("ray.io/node-type=head", true).size(), 100u);
}

// Counts the worker pods the server ever held at once for a cluster.
class WorkerHighWaterMark : public Interceptor {
 public:
  explicit WorkerHighWaterMark(ApiServer& server) : server_(server) {}
  void after(const Request& request, std::optional<Status>& error) override {
    if (error || request.resource.resource != "pods" ||
        (request.verb != Verb::Create && request.verb != Verb::Delete)) {
      return;
    }
    ListOptions options;
    options.labelSelector = "ray.io/node-type=worker";
    auto list = server_.list({"", "v1", "pods"}, "default", options);
    if (list) peak = std::max<std::size_t>(peak, list->toJson()["items"].size());
  }
  std::size_t peak = 0;

 private:
  ApiServer& server_;
};

// With informer lag on pods, the round right after a create (the status write requeues it 2 s
// later, when the cache still shows neither the head pod nor the worker) creates no duplicate:
// the Create expectations hold the head group and the worker group back until the cache sees
// the pods. (Without expectations this test sees a second head and a second worker.)
TEST_F(RayClusterTest, InformerLagSecondRoundAfterCreateMakesNoDuplicateWorker) {
  auto watermark = std::make_shared<WorkerHighWaterMark>(*server);
  server->addInterceptor(watermark);
  manager = std::make_unique<Manager>(ex, *server);
  InformerOptions lagging;
  lagging.deliveryDelay = seconds(5);
  ASSERT_TRUE(manager->cache().setResourceOptions(kPods, lagging));
  auto added = addRayClusterController(*manager);
  ASSERT_TRUE(added.has_value());
  controller = *added;
  manager->start();
  run();
  createCluster(sampleRayCluster("rc", 1, 0, 5));
  run();
  ASSERT_EQ(workerPods("rc").size(), 1u);
  const auto roundsAfterCreate = controller->metrics().total();
  // Rounds at +2 s and +4 s (status writes requeue after 2 s); the cache shows the pods at +5 s.
  run(seconds(2));
  ListOptions options;
  options.labelSelector = "ray.io/cluster=rc";
  auto cached = manager->client().list(kPods, "default", options);
  ASSERT_TRUE(cached.has_value());
  EXPECT_TRUE((*cached)["items"].empty()) << "the cache has not seen the pods 2 s after";
  run(seconds(2));
  EXPECT_GT(controller->metrics().total(), roundsAfterCreate) << "a second round ran";
  run(seconds(10));
  EXPECT_EQ(workerPods("rc").size(), 1u);
  EXPECT_EQ(headPods("rc").size(), 1u);
  EXPECT_EQ(watermark->peak, 1u);
  server->removeInterceptor(watermark.get());
}

// Deletes every worker pod right after the controller creates it, before any cache sees it.
class DeleteWorkersOnCreate : public Interceptor {
 public:
  explicit DeleteWorkersOnCreate(ApiServer& server) : server_(server) {}
  // The body is only visible before the server acts; the outcome only after.
  std::optional<Status> before(const Request& request) override {
    creatingWorker = active && request.verb == Verb::Create &&
                     request.resource.resource == "pods" && request.body &&
                     meta::label(*request.body, "ray.io/node-type") == "worker";
    return std::nullopt;
  }
  void after(const Request& request, std::optional<Status>& error) override {
    if (creatingWorker && !error) pending = true;
    creatingWorker = false;
  }
  // Run right after the create returned: delete the worker the server now holds.
  void deleteNow() {
    ListOptions options;
    options.labelSelector = "ray.io/node-type=worker";
    auto list = server_.list({"", "v1", "pods"}, "default", options);
    if (!list) {
      ADD_FAILURE() << list.error().message;
      return;
    }
    const Json items = list->toJson()["items"];
    if (items.empty()) ADD_FAILURE() << "no worker: " << list->toJson().dump();
    for (const Json& pod : items) {
      DeleteOptions now;
      now.gracePeriodSeconds = 0;
      (void)server_.deleteObject({"", "v1", "pods"}, "default", meta::name(pod), now);
      ++deleted;
    }
    pending = false;
  }
  bool active = true;
  bool creatingWorker = false;
  bool pending = false;
  int deleted = 0;

 private:
  ApiServer& server_;
};

// A worker created and deleted by someone else before the cache saw it: the Create expectation
// is never met by a Get, so the group stays blocked until the expectation times out 30 s
// (virtual) after the create; the next round then creates the replacement.
TEST_F(RayClusterTest, WorkerDeletedBeforeTheCacheSawItBlocksTheGroupUntilTheTimeout) {
  auto deleter = std::make_shared<DeleteWorkersOnCreate>(*server);
  server->addInterceptor(deleter);
  ManagerOptions managerOptions;
  managerOptions.cache.defaults.deliveryDelay = seconds(1);
  startOperator({}, std::move(managerOptions));
  createCluster(sampleRayCluster("rc", 1, 0, 5));
  // Step until the controller created the worker, then delete it at once, in the same instant.
  ASSERT_TRUE(ex.runUntil([&] { return deleter->pending; }, seconds(10)));
  const TimePoint createdAt = ex.now();
  deleter->active = false;
  deleter->deleteNow();
  ASSERT_EQ(deleter->deleted, 1);

  // Rounds keep coming (touch a label every 5 s: a generation-less change the predicate passes),
  // but the group is skipped while the expectation is pending.
  int touch = 0;
  auto touchCluster = [&] {
    Json rc = getCluster("rc");
    meta::setLabel(rc, "touch", std::to_string(++touch));
    ASSERT_TRUE(client->update(kRayClusters, rc));
  };
  // Rounds at about 6, 12, 18, 24 and 29.6 s after the create.
  while (ex.now() - createdAt + milliseconds(6100) < seconds(30)) {
    run(seconds(5));
    touchCluster();
    run(milliseconds(1100));  // the cache delivers the label change, the round runs
    EXPECT_TRUE(workerPods("rc").empty())
        << (workerPods("rc").empty() ? "" : workerPods("rc")[0]["metadata"].dump())
        << " created again "
        << std::chrono::duration_cast<milliseconds>(ex.now() - createdAt).count()
        << " ms after the first create";
  }
  run(createdAt + milliseconds(28500) - ex.now());
  touchCluster();
  run(milliseconds(1100));
  EXPECT_LT(ex.now() - createdAt, seconds(30));
  EXPECT_TRUE(workerPods("rc").empty()) << "still blocked at 29.6 s";
  // Past 30 s: the expectation has timed out; the next round creates the replacement.
  run(seconds(1));
  touchCluster();
  run(milliseconds(1100));
  EXPECT_GT(ex.now() - createdAt, seconds(30));
  EXPECT_EQ(workerPods("rc").size(), 1u);
  server->removeInterceptor(deleter.get());
}

// Between the round's read and its status write, a user changes the spec: the status write is a
// 409 Conflict, the round is an error and is requeued, and the next round writes the status of
// the new spec.
class SpecChangeBeforeFirstStatusWrite : public Interceptor {
 public:
  explicit SpecChangeBeforeFirstStatusWrite(ApiServer& server) : server_(server) {}
  std::optional<Status> before(const Request& request) override {
    if (done || request.verb != Verb::Update || request.subresource != "status" ||
        request.resource.resource != "rayclusters") {
      return std::nullopt;
    }
    done = true;
    // The user's write lands first (through the same server, as kubectl's would).
    const std::string ns = request.body ? meta::namespace_(*request.body) : request.ns;
    auto read = server_.get(request.resource, ns, request.name);
    if (!read) return std::nullopt;
    Json current = **read;
    current["spec"]["workerGroupSpecs"][0]["replicas"] = 2;
    auto updated = server_.update(request.resource, ns, current);
    if (updated) specChanged = true;
    return std::nullopt;
  }
  void after(const Request& request, std::optional<Status>& error) override {
    if (request.verb == Verb::Update && request.subresource == "status" &&
        request.resource.resource == "rayclusters" && error && isConflict(*error)) {
      ++conflicts;
    }
  }
  bool done = false;
  bool specChanged = false;
  int conflicts = 0;

 private:
  ApiServer& server_;
};

TEST_F(RayClusterTest, SpecChangeBetweenReadAndStatusWriteIsAConflictThenTheRightStatus) {
  auto interceptor = std::make_shared<SpecChangeBeforeFirstStatusWrite>(*server);
  server->addInterceptor(interceptor);
  startOperator();
  createCluster(sampleRayCluster("rc", 1, 0, 5));
  run();
  ASSERT_TRUE(interceptor->specChanged);
  EXPECT_GE(interceptor->conflicts, 1);  // a retry may read the stale cache once more
  EXPECT_GE(controller->metrics().error, 1u);
  // The pods of the first round stay (no cross-object atomicity): one head, created once.
  EXPECT_EQ(headPods("rc").size(), 1u);
  EXPECT_EQ(events("CreatedHeadPod").size(), 1u);
  // The retry (rate limited, then the 2 s requeue) re-reads and recomputes.
  run(seconds(3));
  Json rc = getCluster("rc");
  EXPECT_EQ(workerPods("rc").size(), 2u);
  EXPECT_EQ(rc["status"]["desiredWorkerReplicas"], 2);
  EXPECT_EQ(rc["status"]["observedGeneration"], rc["metadata"]["generation"]);
  server->removeInterceptor(interceptor.get());
}

// The worker-ready story on a real (simulated) cluster: the last worker turning Ready enqueues the
// RayCluster through its owner reference, and calculateStatus sets `ready`.
TEST_F(RayClusterTest, LastWorkerReadyTurnsTheClusterReadyOnTheSimulatedCluster) {
  startCluster(/*nodes=*/2);
  startOperator();
  createCluster(sampleRayCluster("raycluster-kuberay", 2, 1, 5));
  ASSERT_TRUE(ex.runUntil([&] { return state(getCluster("raycluster-kuberay")) == "ready"; },
                          std::chrono::minutes(2)));
  Json rc = getCluster("raycluster-kuberay");
  EXPECT_EQ(rc["status"]["readyWorkerReplicas"], 2);
  EXPECT_EQ(conditionStatus(rc, "RayClusterProvisioned"), "True");
  EXPECT_EQ(conditionStatus(rc, "HeadPodReady"), "True");
  // Every pod was scheduled, initialised (wait-gcs-ready exited 0) and is Ready.
  for (const Json& pod : pods("ray.io/cluster=raycluster-kuberay", true)) {
    EXPECT_EQ(pod["status"]["phase"], "Running");
    EXPECT_FALSE(pod["spec"].value("nodeName", "").empty());
  }
  // The readiness probe's 10 s initial delay shapes when it became ready: not before it.
  EXPECT_GE(ex.now().time_since_epoch(), seconds(10));
}

// Describe("Suspend RayCluster atomically") with the real kubelets: the pods terminate
// gracefully, the cluster becomes suspended, and resuming brings it back to ready.
TEST_F(RayClusterTest, SuspendAndResumeOnTheSimulatedCluster) {
  startCluster(/*nodes=*/2);
  startOperator();
  createCluster(sampleRayCluster("rc", 2, 0, 5));
  ASSERT_TRUE(
      ex.runUntil([&] { return state(getCluster("rc")) == "ready"; }, std::chrono::minutes(2)));
  Json rc = getCluster("rc");
  rc["spec"]["suspend"] = true;
  ASSERT_TRUE(client->update(kRayClusters, rc));
  ASSERT_TRUE(
      ex.runUntil([&] { return state(getCluster("rc")) == "suspended"; }, std::chrono::minutes(2)));
  EXPECT_TRUE(pods("ray.io/cluster=rc").empty());
  rc = getCluster("rc");
  EXPECT_EQ(conditionStatus(rc, "RayClusterSuspended"), "True");
  EXPECT_EQ(conditionStatus(rc, "RayClusterProvisioned"), "False");
  EXPECT_EQ(conditionStatus(rc, "HeadPodReady"), "False");

  rc["spec"]["suspend"] = false;
  ASSERT_TRUE(client->update(kRayClusters, rc));
  ASSERT_TRUE(ex.runUntil(
      [&] {
        Json now = getCluster("rc");
        return state(now) == "ready" && conditionStatus(now, "RayClusterProvisioned") == "True";
      },
      std::chrono::minutes(2)));
  EXPECT_EQ(workerPods("rc").size(), 2u);
}

// Expectations live in the operator's memory. An operator that crashes right after creating the
// pods comes back with none; its fresh cache lists the pods the server has, so the new operator
// creates no duplicates and finishes the work.
TEST_F(RayClusterTest, OperatorRestartFinishesWithoutDuplicates) {
  startCluster(/*nodes=*/2);
  startOperator();
  createCluster(sampleRayCluster("rc", 2, 0, 5));
  run();
  ASSERT_EQ(workerPods("rc").size(), 2u);
  manager->crash();
  manager.reset();
  run(seconds(3));
  startOperator();
  ASSERT_TRUE(
      ex.runUntil([&] { return state(getCluster("rc")) == "ready"; }, std::chrono::minutes(2)));
  EXPECT_EQ(workerPods("rc", false).size(), 2u);
  EXPECT_EQ(headPods("rc", false).size(), 1u);
}

// Describe("RayCluster with GCS fault tolerance") (raycluster_controller_test.go, the Redis
// cleanup finalizer): the finalizer is added; deleting the RayCluster deletes its pods, then runs
// the Redis cleanup Job; when the Job completes the finalizer goes and the RayCluster is gone.
TEST_F(RayClusterTest, GcsFaultToleranceRedisCleanupFinalizerAndJob) {
  startCluster(/*nodes=*/2);
  cluster->behaviors().onCommand("cleanup_redis_storage",
                                 behavior::exitAfter(std::chrono::seconds(2), 0));
  startOperator();
  Json spec = sampleRayCluster("rc-ft", 1, 0, 5);
  spec["metadata"]["annotations"] = {{"ray.io/ft-enabled", "true"}};
  createCluster(spec);
  ASSERT_TRUE(
      ex.runUntil([&] { return state(getCluster("rc-ft")) == "ready"; }, std::chrono::minutes(2)));
  EXPECT_TRUE(meta::hasFinalizer(getCluster("rc-ft"), "ray.io/gcs-ft-redis-cleanup-finalizer"));

  ASSERT_TRUE(client->deleteObject(kRayClusters, "default", "rc-ft"));
  ASSERT_TRUE(
      ex.runUntil([&] { return client->get(kJobs, "default", "rc-ft-redis-cleanup").has_value(); },
                  std::chrono::minutes(1)));
  // The Job starts only once the head pod is gone.
  EXPECT_TRUE(headPods("rc-ft", false).empty());
  Json job = client->get(kJobs, "default", "rc-ft-redis-cleanup").value();
  EXPECT_EQ(job["spec"]["backoffLimit"], 0);
  EXPECT_EQ(job["spec"]["activeDeadlineSeconds"], 300);
  EXPECT_EQ(job["metadata"]["labels"]["ray.io/node-type"], "redis-cleanup");
  EXPECT_EQ(job["spec"]["template"]["spec"]["restartPolicy"], "Never");
  EXPECT_FALSE(events("CreatedRedisCleanupJob").empty());

  ASSERT_TRUE(
      ex.runUntil([&] { return !client->get(kRayClusters, "default", "rc-ft").has_value(); },
                  std::chrono::minutes(2)));
}

// A stuck cleanup: past ray.io/gcs-ft-deletion-timeout the finalizer is forced off.
TEST_F(RayClusterTest, GcsFaultToleranceFinalizerForcedOffAfterTheTimeout) {
  startCluster(/*nodes=*/2);  // the cleanup command runs forever (the default behaviour)
  startOperator();
  Json spec = sampleRayCluster("rc-stuck", 0, 0, 5);
  spec["metadata"]["annotations"] = {{"ray.io/ft-enabled", "true"},
                                     {"ray.io/gcs-ft-deletion-timeout", "60"}};
  createCluster(spec);
  run(seconds(5));
  ASSERT_TRUE(meta::hasFinalizer(getCluster("rc-stuck"), "ray.io/gcs-ft-redis-cleanup-finalizer"));
  const TimePoint deletedAt = ex.now();
  ASSERT_TRUE(client->deleteObject(kRayClusters, "default", "rc-stuck"));
  ASSERT_TRUE(
      ex.runUntil([&] { return !client->get(kRayClusters, "default", "rc-stuck").has_value(); },
                  std::chrono::minutes(5)));
  EXPECT_GE(ex.now() - deletedAt, seconds(60));
  EXPECT_FALSE(events("ForceDeletedStuckCluster").empty());
}

}  // namespace
}  // namespace fakekube::ray::testing
