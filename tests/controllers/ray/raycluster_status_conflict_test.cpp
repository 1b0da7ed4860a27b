// Why a few of 3,000 RayClusters created at once stay at readyWorkerReplicas 1 for about 300 s
// although both workers are Ready (BM_RayClustersReady at 3,000; docs/ray-operator.md). Nothing
// is lost and nothing here is a fakekube artefact: it is what KubeRay does on controller-runtime's
// priority queue and default rate limiter.
//
//   1. A round, woken by the first worker's Ready, writes readyWorkerReplicas 1 and asks for
//      requeueAfter 2 s.
//   2. The second worker's Ready reaches the Pod informer before the RayCluster informer has seen
//      that write. Its event makes the waiting item ready at once, and the item, with its 2 s,
//      is handed out and gone.
//   3. That round reads the RayCluster from the cache, without the write: its status update
//      conflicts, and the error asks for a rate-limited retry.
//   4. The write's own event reconciles nothing: the For predicate (generation, labels,
//      annotations) drops a status-only change.
//   5. So the retry is all that is left, and it is rate limited: max(5 ms·2^n for the key, the 10
//      qps / burst 100 bucket that all keys share). With 3,000 RayClusters, each first round
//      failed ("unable to find head service": the cache has not seen the Service the round has
//      just created), and those failures have put the bucket ~300 s in debt.
//
// The tests play the kubelet, lag the RayCluster informer behind the Pod informer, and put the
// shared bucket in debt by hand with rate-limited adds of other keys (what the other RayClusters'
// failures do).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fakekube/api/resources.h"
#include "tests/controllers/ray/ray_fixture.h"

namespace fakekube::ray::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class RayClusterStatusConflictTest : public RayClusterTest {
 protected:
  // A RayCluster of two workers whose head and first worker are Ready, its status settled at
  // readyWorkerReplicas 1. Then the RayCluster informer lags 1 s behind the Pod informer, the
  // first worker's Ready is written again (a new Ready transition: the round it wakes writes a
  // status), and 100 ms later, before that write has reached the cache, the second worker
  // becomes Ready. `otherFailures` rate-limited adds of other keys come just before.
  void secondWorkerReadyBeforeTheCacheSeesTheStatusWrite(int otherFailures) {
    startOperator();
    createCluster(sampleRayCluster("rc", 2, 2, 2));
    run(seconds(1));
    workers = workerPods("rc");
    ASSERT_EQ(workers.size(), 2u);
    for (const Json& head : headPods("rc")) setPodRunningAndReady(head);
    setPodRunningAndReady(workers[0], /*ready=*/false);
    run(seconds(10));
    ASSERT_EQ(getCluster("rc")["status"].value("readyWorkerReplicas", 0), 0);

    manager->cache().informerFor(kRayClusters).setDeliveryDelay(seconds(1));
    setPodRunningAndReady(workers[0]);
    run();  // the round woken by the first worker writes its status
    ASSERT_EQ(getCluster("rc")["status"].value("readyWorkerReplicas", 0), 1);
    run(milliseconds(100));

    errorsBefore = controller->metrics().errors;
    for (int i = 0; i < otherFailures; ++i) {
      controller->queue().addRateLimited("default/other-" + std::to_string(i));
    }
    setPodRunningAndReady(workers[1]);
    run();  // the round woken by the second worker: its status write conflicts
    ASSERT_EQ(controller->metrics().errors, errorsBefore + 1);
    ASSERT_EQ(getCluster("rc")["status"].value("readyWorkerReplicas", 0), 1);
    conflictAt = ex.now();
  }

  std::vector<Json> workers;
  std::uint64_t errorsBefore = 0;
  TimePoint conflictAt;
};

TEST_F(RayClusterStatusConflictTest, AConflictAfterTheLastReadyWaitsForTheSharedBucket) {
  // 300 failures at once: the bucket is 200 tokens (20 s) in debt, and the conflict's retry
  // waits 20.1 s. Until then nothing reconciles the RayCluster: neither the 2 s requeue (the
  // event used it), nor the RayCluster's status event (filtered), nor the Pods (unchanged).
  secondWorkerReadyBeforeTheCacheSeesTheStatusWrite(300);
  run(seconds(20));
  EXPECT_EQ(getCluster("rc")["status"].value("readyWorkerReplicas", 0), 1);
  EXPECT_NE(state(getCluster("rc")), "ready");
  EXPECT_EQ(controller->metrics().errors, errorsBefore + 1);  // no round ran since the conflict

  run(milliseconds(200));
  Json rc = getCluster("rc");
  EXPECT_EQ(rc["status"].value("readyWorkerReplicas", 0), 2);
  EXPECT_EQ(state(rc), "ready");
}

TEST_F(RayClusterStatusConflictTest, WithTokensInTheBucketTheConflictIsRetriedWithinASecond) {
  // The same without the other failures: the retries back off 5 ms, 10 ms, ... and the first one
  // after the cache has caught up (1 s after the write) succeeds.
  secondWorkerReadyBeforeTheCacheSeesTheStatusWrite(0);
  ASSERT_TRUE(runUntil(
      [&] { return getCluster("rc")["status"].value("readyWorkerReplicas", 0) == 2; }, seconds(5)));
  EXPECT_LT(ex.now() - conflictAt, seconds(2));
  EXPECT_EQ(state(getCluster("rc")), "ready");
  EXPECT_GT(controller->metrics().errors, errorsBefore + 1);  // the retries before the catch-up
}

}  // namespace
}  // namespace fakekube::ray::testing
