// The reconcile contract of a Controller (see controller.h, reconcile.h): what each outcome does
// to the queue, the metrics, concurrency, and the two acceptance tests of the issue — a status
// update that conflicts and converges, and 100 objects with two workers.
#include "fakekube/runtime/controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "fakekube/api/resources.h"
#include "fakekube/runtime/builder.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/runtime/runtime_fixture.h"

namespace fakekube::runtimetest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::ElementsAre;

// A controller with no informer: the tests enqueue by hand and script the outcomes.
class ControllerContractTest : public RuntimeTest {
 protected:
  // Runs `outcomes` in order (the last one repeats), recording when each round started.
  std::unique_ptr<Controller> scripted(std::vector<ReconcileOutcome> outcomes, int workers = 1) {
    script = std::move(outcomes);
    ControllerOptions options;
    options.name = "test";
    options.maxConcurrentReconciles = workers;
    return std::make_unique<Controller>(ex, std::move(options),
                                        Reconciler([this](const ReconcileRequest& r) {
                                          roundsMs.push_back(elapsedMs());
                                          keys.push_back(r.key());
                                          std::size_t i = std::min(next++, script.size() - 1);
                                          return script[i];
                                        }));
  }

  // Starts `c`, hands it the key default/a and lets `time` pass; answers its metrics then.
  ReconcileMetrics reconcileKeyAFor(Controller& c, Duration time) {
    c.start();
    c.enqueue(req("a"));
    ex.advance(time);
    return c.metrics();
  }

  std::vector<ReconcileOutcome> script;
  std::size_t next = 0;
  std::vector<long long> roundsMs;
  std::vector<std::string> keys;
};

ReconcileOutcome ok() { return ReconcileResult{}; }
ReconcileOutcome after(Duration d) { return ReconcileResult{d, false}; }
ReconcileOutcome failed() { return reconcileError(Status::internal("boom")); }

TEST_F(ControllerContractTest, NothingIsReconciledBeforeStart) {
  auto c = scripted({ok()});
  c->enqueue(req("a"));
  ex.advance(seconds(1));
  EXPECT_TRUE(roundsMs.empty());
  c->start();
  ex.runUntilIdle();
  EXPECT_THAT(keys, ElementsAre("default/a"));
}

TEST_F(ControllerContractTest, SuccessForgetsTheKey) {
  auto c = scripted({ok()});
  const ReconcileMetrics m = reconcileKeyAFor(*c, seconds(10));
  EXPECT_THAT(roundsMs, ElementsAre(0));
  EXPECT_EQ(m.success, 1u);
  EXPECT_EQ(m.total(), 1u);
  EXPECT_EQ(m.errors, 0u);
  EXPECT_EQ(c->queue().numRequeues("default/a"), 0);
  EXPECT_EQ(m.reconcileTime.count, 1u);
  EXPECT_EQ(m.activeWorkers, 0);
  EXPECT_EQ(m.maxConcurrentReconciles, 1);
}

TEST_F(ControllerContractTest, ErrorBacksOff5_10_20msAndIgnoresRequeueAfter) {
  // Each error also asks for RequeueAfter = 1 s, which must be ignored.
  ReconcileOutcome errWithResult = reconcileError(Status::internal("boom"), {seconds(1), false});
  auto c = scripted({errWithResult, errWithResult, errWithResult, ok()});
  const ReconcileMetrics m = reconcileKeyAFor(*c, seconds(10));
  EXPECT_THAT(roundsMs, ElementsAre(0, 5, 15, 35));
  EXPECT_EQ(m.errors, 3u);
  EXPECT_EQ(m.error, 3u);
  EXPECT_EQ(m.success, 1u);
  EXPECT_EQ(m.terminalErrors, 0u);
  // The success forgot the failures: the next error starts again at 5 ms.
  EXPECT_EQ(c->queue().numRequeues("default/a"), 0);
}

TEST_F(ControllerContractTest, TerminalErrorIsNotRetriedButCounted) {
  auto c = scripted({terminalError(Status::badRequest("spec is invalid")), ok()});
  const ReconcileMetrics m = reconcileKeyAFor(*c, seconds(100));
  EXPECT_THAT(roundsMs, ElementsAre(0));
  EXPECT_EQ(m.terminalErrors, 1u);
  EXPECT_EQ(m.errors, 1u);
  EXPECT_EQ(m.error, 1u);
  // A later event still reconciles the key.
  c->enqueue(req("a"));
  ex.runUntilIdle();
  EXPECT_THAT(roundsMs, ElementsAre(0, 100000));
}

TEST_F(ControllerContractTest, RequeueAfterForgetsAndAddsWithDelay) {
  auto c = scripted({failed(), failed(), after(seconds(2)), after(seconds(2)), ok()});
  c->start();
  c->enqueue(req("a"));
  ex.advance(seconds(10));
  // Errors at 0 and 5 ms; then requeueAfter 2 s twice; then done.
  EXPECT_THAT(roundsMs, ElementsAre(0, 5, 15, 2015, 4015));
  auto m = c->metrics();
  EXPECT_EQ(m.requeueAfter, 2u);
  EXPECT_EQ(m.errors, 2u);
  EXPECT_EQ(m.success, 1u);
  // The requeueAfter forgot the failures: an error now waits 5 ms again.
  EXPECT_EQ(c->queue().numRequeues("default/a"), 0);
}

TEST_F(ControllerContractTest, RequeueIsRateLimitedButNotAnError) {
  auto c = scripted({ReconcileResult{Duration{0}, true}, ReconcileResult{Duration{0}, true}, ok()});
  const ReconcileMetrics m = reconcileKeyAFor(*c, seconds(1));
  EXPECT_THAT(roundsMs, ElementsAre(0, 5, 15));
  EXPECT_EQ(m.requeue, 2u);
  EXPECT_EQ(m.errors, 0u);
}

// Why a few of 3,000 RayClusters created at once wait about 300 s for their last status write
// (docs/ray-operator.md). Nothing is lost: this is controller-runtime's queue and default rate
// limiter, and it delays such a key the same way there. `failingAtOnce` other keys fail once at
// t = 0 (each RayCluster's first round fails: the cache has not seen the head Service it has just
// created). Each failure spends a token of the 10 qps / burst 100 bucket that every key of the
// controller shares, so the bucket ends (failingAtOnce - 100) / 10 s in debt. Then the key
// "default/target":
//   t = 0     its round wrote a status and asks for requeueAfter 2 s;
//   t = 1 s   an event (a worker Pod became Ready) makes the waiting item ready at once. Handed
//             out, the item is gone, and with it the 2 s ready time;
//             that round fails (a conflict: the cache had not seen the status write yet, and the
//             event of that write reconciles nothing, the For predicate drops status changes);
//   then      the retry waits for the shared bucket, not for its own 5 ms backoff.
// Returns when the target's rounds started, in ms.
std::vector<long long> targetRoundsAfterBucketDebt(SimExecutor& ex, int failingAtOnce) {
  const TimePoint start = ex.now();
  std::vector<long long> targetRounds;
  std::set<std::string> failedOnce;
  ControllerOptions options;  // the default rate limiter
  options.name = "test";
  Reconciler reconciler = [&](const ReconcileRequest& r) -> ReconcileOutcome {
    if (r.name != "target") {
      if (failedOnce.insert(r.name).second) return failed();
      return ok();
    }
    targetRounds.push_back(std::chrono::duration_cast<milliseconds>(ex.now() - start).count());
    switch (targetRounds.size()) {
      case 1:
        return after(seconds(2));
      case 2:
        return reconcileError(Status::conflictModified({"example.com", "widgets"}, r.name),
                              {seconds(2), false});
      default:
        return ok();
    }
  };
  Controller c(ex, std::move(options), std::move(reconciler));
  c.start();
  for (int i = 0; i < failingAtOnce; ++i) c.enqueue(req("other-" + std::to_string(i)));
  c.enqueue(req("target"));
  ex.advance(seconds(1));
  c.enqueue(req("target"));  // the event
  ex.advance(seconds(60));
  EXPECT_EQ(failedOnce.size(), static_cast<std::size_t>(failingAtOnce));
  return targetRounds;
}

TEST_F(ControllerContractTest, ErrorAfterAnEventWaitsForTheSharedBucketNotItsRequeueAfter) {
  // 300 failures at t = 0: the bucket is 200 tokens in debt; at 1 s it has refilled 10 of them,
  // so the target's failure waits 191 tokens, 19.1 s. Nothing runs at 2 s: the requeueAfter was
  // consumed by the event.
  EXPECT_THAT(targetRoundsAfterBucketDebt(ex, 300), ElementsAre(0, 1000, 20100));
}

TEST_F(ControllerContractTest, ErrorAfterAnEventRetriesAfter5msWhenTheBucketHasTokens) {
  // The same, with a bucket that has tokens left (50 failures): the retry is the key's own first
  // backoff, 5 ms. The bucket's debt alone makes the difference.
  EXPECT_THAT(targetRoundsAfterBucketDebt(ex, 50), ElementsAre(0, 1000, 1005));
}

TEST_F(ControllerContractTest, ExceptionIsCaughtAndTreatedAsError) {
  int rounds = 0;
  ControllerOptions options;
  options.name = "throws";
  Controller c(ex, std::move(options), Reconciler([&](const ReconcileRequest&) -> ReconcileOutcome {
                 roundsMs.push_back(elapsedMs());
                 if (++rounds == 1) throw std::runtime_error("nil pointer dereference");
                 return ReconcileResult{};
               }));
  const ReconcileMetrics m = reconcileKeyAFor(c, seconds(1));
  EXPECT_THAT(roundsMs, ElementsAre(0, 5));
  EXPECT_EQ(m.panics, 1u);
  EXPECT_EQ(m.errors, 1u);
  EXPECT_EQ(m.success, 1u);
}

TEST_F(ControllerContractTest, AsyncExceptionAndDoubleDoneAreHandled) {
  int rounds = 0;
  ControllerOptions options;
  options.name = "async";
  Controller c(ex, std::move(options),
               AsyncReconciler([&](const ReconcileRequest&, ReconcileDone done) {
                 roundsMs.push_back(elapsedMs());
                 if (++rounds == 1) throw std::runtime_error("boom");
                 done(ReconcileResult{});
                 done(reconcileError(Status::internal("ignored: second call")));
               }));
  const ReconcileMetrics m = reconcileKeyAFor(c, seconds(1));
  EXPECT_THAT(roundsMs, ElementsAre(0, 5));
  EXPECT_EQ(m.panics, 1u);
  EXPECT_EQ(m.errors, 1u);
  EXPECT_EQ(m.success, 1u);
  EXPECT_EQ(m.total(), 2u);
}

TEST_F(ControllerContractTest, ReconcileTimeIsMeasuredOnTheExecutorClock) {
  ControllerOptions options;
  options.name = "slow";
  Controller c(ex, std::move(options),
               AsyncReconciler([&](const ReconcileRequest&, ReconcileDone done) {
                 ex.postAfter(milliseconds(30), [done] { done(ReconcileResult{}); });
               }));
  const ReconcileMetrics m = reconcileKeyAFor(c, seconds(1));
  EXPECT_EQ(m.reconcileTime.count, 1u);
  EXPECT_NEAR(m.reconcileTime.sum, 0.030, 1e-9);
  // Bucket 0.025 does not hold it, 0.05 does.
  EXPECT_EQ(m.reconcileTime.counts[2], 0u);
  EXPECT_EQ(m.reconcileTime.counts[3], 1u);
}

TEST_F(ControllerContractTest, ShutDownLetsTheReconcileInFlightFinishAndStartsNothing) {
  std::vector<std::string> started;
  ReconcileDone pending;
  ControllerOptions options;
  options.name = "drain";
  Controller c(ex, std::move(options),
               AsyncReconciler([&](const ReconcileRequest& r, ReconcileDone done) {
                 started.push_back(r.key());
                 pending = done;
               }));
  c.start();
  c.enqueue(req("a"));
  c.enqueue(req("b"));
  ex.runUntilIdle();
  ASSERT_THAT(started, ElementsAre("default/a"));
  c.shutDown();
  pending(reconcileError(Status::internal("failed")));  // its requeue is dropped
  ex.advance(seconds(10));
  EXPECT_THAT(started, ElementsAre("default/a"));
  EXPECT_EQ(c.metrics().activeWorkers, 0);
  EXPECT_EQ(c.metrics().errors, 1u);
}

TEST_F(ControllerContractTest, DestroyedControllerLeavesNoLiveWork) {
  ReconcileDone pending;
  int rounds = 0;
  {
    ControllerOptions options;
    options.name = "gone";
    Controller c(ex, std::move(options),
                 AsyncReconciler([&](const ReconcileRequest&, ReconcileDone done) {
                   ++rounds;
                   pending = done;
                 }));
    c.start();
    c.enqueue(req("a"));
    c.enqueue(req("b"), AddOptions{seconds(1)});
    ex.runUntilIdle();
    ASSERT_EQ(rounds, 1);
  }
  pending(ReconcileResult{});  // the controller is gone: nothing happens
  ex.advance(seconds(10));
  EXPECT_EQ(rounds, 1);
}

// Acceptance: a status update conflicts because another writer changed the object between the
// read and the write; the reconcile returns the 409, is retried with backoff (5 ms), re-reads
// and converges.
class ConflictTest : public RuntimeTest {
 protected:
  // Sets status.observedSize from spec.size, with the resourceVersion it read from the cache.
  // `betweenReadAndWrite` runs once, after the first read.
  Reconciler reconciler(Manager& manager) {
    return [this, &manager](const ReconcileRequest& r) -> ReconcileOutcome {
      attemptsMs.push_back(elapsedMs());
      auto read = manager.client().get(kWidgets, r.namespace_, r.name);
      if (!read) {
        if (isNotFound(read.error())) return ReconcileResult{};
        return reconcileError(read.error());
      }
      Json w = std::move(*read);
      if (betweenReadAndWrite) std::exchange(betweenReadAndWrite, nullptr)();
      w["status"] = {{"observedSize", w["spec"]["size"]}};
      auto written = manager.client().updateStatus(kWidgets, w);
      if (!written) {
        outcomes.push_back(std::to_string(written.error().code));
        return reconcileError(written.error());
      }
      outcomes.push_back("ok");
      return ReconcileResult{};
    };
  }

  // The controller of Widgets (their generation changes) that runs reconciler().
  Result<Controller*> widgetController(Manager& manager) {
    return ControllerBuilder(manager)
        .forResource(kWidgets, predicate::generationChanged())
        .complete(reconciler(manager));
  }

  std::function<void()> betweenReadAndWrite;
  std::vector<long long> attemptsMs;
  std::vector<std::string> outcomes;
};

TEST_F(ConflictTest, StatusConflictIsRetriedWithBackoffAndConverges) {
  create(kWidgets, widget("w"));
  Manager manager(ex, *server);
  auto c = widgetController(manager);
  ASSERT_TRUE(c.has_value()) << c.error().str();
  // Another writer changes the object (an annotation: no new generation, so no new event passes
  // the predicate; only the retry can bring the next round).
  betweenReadAndWrite = [&] {
    mergePatch(kWidgets, "default", "w", {{"metadata", {{"annotations", {{"touched", "yes"}}}}}});
  };
  manager.start();
  ex.advance(seconds(1));

  EXPECT_THAT(outcomes, ElementsAre("409", "ok"));
  EXPECT_THAT(attemptsMs, ElementsAre(0, 5));
  Json stored = get(kWidgets, "default", "w");
  EXPECT_EQ(stored["status"]["observedSize"], 1);
  EXPECT_EQ(meta::annotation(stored, "touched"), "yes");
  auto m = (*c)->metrics();
  EXPECT_EQ(m.errors, 1u);
  EXPECT_EQ(m.success, 1u);
  EXPECT_EQ((*c)->queue().numRequeues("default/w"), 0);
}

TEST_F(ConflictTest, SpecChangeDuringReconcileConvergesOnTheNewSpec) {
  create(kWidgets, widget("w"));
  Manager manager(ex, *server);
  auto c = widgetController(manager);
  ASSERT_TRUE(c.has_value());
  betweenReadAndWrite = [&] { mergePatch(kWidgets, "default", "w", {{"spec", {{"size", 3}}}}); };
  manager.start();
  ex.advance(seconds(1));

  // The spec change is also an event: the merged request is ready at once, earlier than the
  // backoff, and the next round reads the new spec.
  EXPECT_THAT(outcomes, ElementsAre("409", "ok"));
  EXPECT_EQ(get(kWidgets, "default", "w")["status"]["observedSize"], 3);
}

// Acceptance: 100 objects, maxConcurrentReconciles = 2. Each reconcile spans 10 ms of virtual
// time (the asynchronous form); a third of the objects are changed during their first reconcile,
// which re-adds their key while it is locked.
TEST_F(RuntimeTest, HundredObjectsTwoWorkersNeverMoreThanTwoAndNeverOneKeyTwice) {
  constexpr int kObjects = 100;
  for (int i = 0; i < kObjects; ++i) create(kConfigMaps, configMap("cm-" + std::to_string(i)));

  ReconcileConcurrency seen;
  Manager manager(ex, *server);
  auto c = addTwoWorkerConfigMapController(manager, ex, seen, [&](const ReconcileRequest& r) {
    if (std::stoi(r.name.substr(3)) % 3 == 0) {
      mergePatch(kConfigMaps, "default", r.name, {{"data", {{"changed", "during reconcile"}}}});
    }
  });
  ASSERT_TRUE(c.has_value());
  manager.start();
  const int expectedRounds = kObjects + (kObjects + 2) / 3;  // 0, 3, ..., 99 run twice
  ASSERT_TRUE(ex.runUntil(
      [&] {
        int total = 0;
        for (const auto& [k, n] : seen.rounds) total += n;
        return total == expectedRounds && seen.active == 0;
      },
      seconds(60)));
  ex.advance(seconds(1));

  EXPECT_EQ(seen.rounds.size(), static_cast<std::size_t>(kObjects));
  for (const auto& [key, n] : seen.rounds) {
    int i = std::stoi(key.substr(std::string("default/cm-").size()));
    EXPECT_EQ(n, i % 3 == 0 ? 2 : 1) << key;
  }
  EXPECT_EQ(seen.maxActive, 2);
  EXPECT_EQ(seen.overlaps, 0);
  auto m = (*c)->metrics();
  EXPECT_EQ(m.peakActiveWorkers, 2);
  EXPECT_EQ(m.overlappingReconciles, 0u);
  EXPECT_EQ(m.maxConcurrentReconciles, 2);
  EXPECT_EQ(m.success, static_cast<std::uint64_t>(expectedRounds));
  // Two at a time, 10 ms each: the work took (rounds / 2) * 10 ms of virtual time.
  EXPECT_EQ(m.reconcileTime.count, static_cast<std::uint64_t>(expectedRounds));
}

}  // namespace
}  // namespace fakekube::runtimetest
