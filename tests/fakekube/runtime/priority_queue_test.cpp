#include "fakekube/runtime/priority_queue.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "fakekube/sim/sim_executor.h"

namespace fakekube {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::ElementsAre;

// One reconcile as a test worker saw it; times are offsets from the start of the test.
struct Round {
  std::string key;
  int priority = 0;
  Duration start{};
  Duration end{-1};  // -1: still running
};

// N workers the way a controller runs them, as executor tasks: each asks the queue for an item,
// "reconciles" it for a virtual duration (postAfter), then, like controller-runtime's
// reconcileHandler, handles the result (onReconcileEnd, e.g. addRateLimited) before its deferred
// done(), and asks again. It also checks the queue's central promise: a key is never reconciled
// by two workers at once.
class TestWorkers {
 public:
  TestWorkers(SimExecutor& executor, PriorityQueue& queue, int workers,
              Duration reconcileTime = seconds(1))
      : executor_(executor), queue_(queue), start_(executor.now()), reconcileTime_(reconcileTime) {
    for (int i = 0; i < workers; ++i) ask();
  }

  void setReconcileTime(const std::string& key, Duration d) { perKeyTime_[key] = d; }

  std::function<void(const std::string& key)> onReconcileStart;
  std::function<void(const std::string& key)> onReconcileEnd;

  const std::vector<Round>& rounds() const { return rounds_; }
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    for (const auto& r : rounds_) out.push_back(r.key);
    return out;
  }
  int stopped() const { return stopped_; }
  int maxConcurrent() const { return maxConcurrent_; }

 private:
  void ask() {
    queue_.getWithPriority([this](QueueItem item) { onItem(std::move(item)); });
  }

  void onItem(QueueItem item) {
    if (item.shutdown) {
      ++stopped_;
      return;
    }
    EXPECT_FALSE(running_.contains(item.key))
        << item.key << " handed out while its previous round was running";
    running_.insert(item.key);
    maxConcurrent_ = std::max(maxConcurrent_, static_cast<int>(running_.size()));
    const std::size_t index = rounds_.size();
    rounds_.push_back(Round{item.key, item.priority, executor_.now() - start_});
    if (onReconcileStart) onReconcileStart(item.key);
    auto it = perKeyTime_.find(item.key);
    const Duration d = it == perKeyTime_.end() ? reconcileTime_ : it->second;
    executor_.postAfter(d, [this, index, key = item.key] {
      rounds_[index].end = executor_.now() - start_;
      if (onReconcileEnd) onReconcileEnd(key);
      running_.erase(key);
      queue_.done(key);
      ask();
    });
  }

  SimExecutor& executor_;
  PriorityQueue& queue_;
  const TimePoint start_;
  const Duration reconcileTime_;
  std::map<std::string, Duration> perKeyTime_;
  std::vector<Round> rounds_;
  std::set<std::string> running_;
  int stopped_ = 0;
  int maxConcurrent_ = 0;
};

// Takes n items now, in the order the queue hands them out, marking each done at once. There
// must be n ready items: a getter left waiting would outlive `keys`.
std::vector<std::string> takeNow(SimExecutor& executor, PriorityQueue& queue, int n) {
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) {
    queue.getWithPriority([&](QueueItem item) {
      if (item.shutdown) return;
      keys.push_back(item.key);
      queue.done(item.key);
    });
  }
  executor.runUntilIdle();
  return keys;
}

std::vector<Duration> starts(const std::vector<Round>& rounds) {
  std::vector<Duration> out;
  for (const auto& r : rounds) out.push_back(r.start);
  return out;
}

// --- sharing workers, serialising a key ---

TEST(PriorityQueueTest, TwoWorkersShareFourKeys) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  TestWorkers workers(executor, queue, 2);
  for (const char* key : {"default/a", "default/b", "default/c", "default/d"}) queue.add(key);
  executor.advance(seconds(5));

  const auto& r = workers.rounds();
  ASSERT_EQ(r.size(), 4u);
  EXPECT_THAT(workers.keys(), ElementsAre("default/a", "default/b", "default/c", "default/d"));
  EXPECT_THAT(starts(r), ElementsAre(seconds(0), seconds(0), seconds(1), seconds(1)));
  EXPECT_EQ(workers.maxConcurrent(), 2);
  EXPECT_EQ(queue.len(), 0u);
  EXPECT_EQ(queue.numProcessing(), 0u);
}

TEST(PriorityQueueTest, AKeysNextRoundWaitsForItsDoneWhileOtherKeysRun) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  TestWorkers workers(executor, queue, 2);
  workers.setReconcileTime("default/a", seconds(3));
  queue.add("default/a");
  queue.add("default/b");
  executor.runUntilIdle();  // a and b are running
  // A changes again while its round runs; the new item is ahead of c and d, but a is locked.
  queue.add("default/a");
  queue.add("default/c");
  queue.add("default/d");
  EXPECT_EQ(queue.len(), 3u);
  executor.advance(seconds(10));

  EXPECT_THAT(workers.keys(),
              ElementsAre("default/a", "default/b", "default/c", "default/d", "default/a"));
  // b ends at 1 s and the free worker skips the locked a for c; c ends at 2 s: d; a's first round
  // ends at 3 s and its second starts right then.
  EXPECT_THAT(starts(workers.rounds()),
              ElementsAre(seconds(0), seconds(0), seconds(1), seconds(2), seconds(3)));
}

TEST(PriorityQueueTest, ReAddsWhilePendingMergeIntoOneReconcile) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  for (int i = 0; i < 3; ++i) queue.add("default/a");
  EXPECT_EQ(queue.len(), 1u);
  EXPECT_EQ(queue.metrics().adds, 1u);

  TestWorkers workers(executor, queue, 2);
  executor.advance(seconds(5));
  EXPECT_THAT(workers.keys(), ElementsAre("default/a"));
}

TEST(PriorityQueueTest, AddsDuringAReconcileYieldExactlyOneMoreRoundAfterDone) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  TestWorkers workers(executor, queue, 2);  // the second worker must not take a meanwhile
  int started = 0;
  workers.onReconcileStart = [&](const std::string& key) {
    if (++started > 1) return;
    // Three events arrive at 0.2 s, 0.5 s and 0.7 s, during the first round.
    for (auto at : {milliseconds(200), milliseconds(500), milliseconds(700)}) {
      executor.postAfter(at, [&queue, key] { queue.add(key); });
    }
  };
  queue.add("default/a");
  executor.advance(seconds(10));

  ASSERT_EQ(workers.rounds().size(), 2u);
  EXPECT_EQ(workers.rounds()[0].end, seconds(1));
  EXPECT_EQ(workers.rounds()[1].start, seconds(1));  // right at done(), not before
  EXPECT_EQ(workers.maxConcurrent(), 1);
}

TEST(PriorityQueueTest, DoneForAKeyThatIsNotLockedDoesNothing) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  queue.done("default/never");
  queue.add("default/a");
  queue.done("default/a");  // pending, not handed out: still pending
  EXPECT_EQ(queue.len(), 1u);
  EXPECT_THAT(takeNow(executor, queue, 1), ElementsAre("default/a"));
}

// --- delays ---

TEST(PriorityQueueTest, AddAfterThenAnImmediateAddIsReadyNow) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  queue.addAfter("default/a", seconds(10));
  EXPECT_EQ(queue.len(), 0u);
  EXPECT_EQ(queue.numWaiting(), 1u);
  queue.add("default/a");
  EXPECT_EQ(queue.len(), 1u);
  EXPECT_EQ(queue.numWaiting(), 0u);

  TestWorkers workers(executor, queue, 1);
  executor.advance(seconds(30));
  ASSERT_EQ(workers.rounds().size(), 1u);  // the delayed request merged into the immediate one
  EXPECT_EQ(workers.rounds()[0].start, seconds(0));
}

TEST(PriorityQueueTest, TheEarlierReadyTimeWins) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  queue.addAfter("default/a", seconds(10));
  queue.addAfter("default/a", seconds(3));
  queue.addAfter("default/b", seconds(3));
  queue.addAfter("default/b", seconds(10));
  TestWorkers workers(executor, queue, 2);
  executor.advance(seconds(30));
  EXPECT_THAT(workers.keys(), ElementsAre("default/a", "default/b"));
  EXPECT_THAT(starts(workers.rounds()), ElementsAre(seconds(3), seconds(3)));
}

TEST(PriorityQueueTest, DelayedItemsWaitOnOneTimerForTheEarliest) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  queue.addAfter("default/a", seconds(10));
  queue.addAfter("default/b", seconds(20));
  queue.addAfter("default/c", seconds(30));
  EXPECT_EQ(executor.pending(), 1u);
  queue.addAfter("default/d", seconds(5));  // earlier: the timer moves
  EXPECT_EQ(executor.pending(), 1u);
  EXPECT_EQ(executor.nextDue(), executor.now() + seconds(5));

  TestWorkers workers(executor, queue, 4);
  executor.advance(seconds(60));
  EXPECT_THAT(workers.keys(), ElementsAre("default/d", "default/a", "default/b", "default/c"));
  EXPECT_THAT(starts(workers.rounds()),
              ElementsAre(seconds(5), seconds(10), seconds(20), seconds(30)));
}

TEST(PriorityQueueTest, DueItemsSortByWhenTheyBecameReady) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  queue.addAfter("default/a", seconds(1));  // added first...
  executor.advance(milliseconds(500));
  queue.add("default/b");  // ...but b was ready first
  executor.advance(milliseconds(500));
  EXPECT_EQ(queue.len(), 2u);
  EXPECT_THAT(takeNow(executor, queue, 2), ElementsAre("default/b", "default/a"));
}

TEST(PriorityQueueTest, ADueItemWhoseKeyIsLockedWaitsForDone) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  TestWorkers workers(executor, queue, 2);
  workers.setReconcileTime("default/a", seconds(5));
  queue.add("default/a");
  executor.runUntilIdle();
  queue.addAfter("default/a", seconds(1));  // RequeueAfter-style, due during the round
  executor.advance(seconds(20));
  EXPECT_THAT(starts(workers.rounds()), ElementsAre(seconds(0), seconds(5)));
}

// --- priority ---

TEST(PriorityQueueTest, AHigherPriorityOvertakes) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  TestWorkers workers(executor, queue, 1);
  queue.add("default/x");
  executor.runUntilIdle();  // the only worker is busy with x
  queue.add("default/b");
  queue.add("default/c");
  queue.addWithOptions("default/d", {.priority = 10});
  executor.advance(seconds(10));
  EXPECT_THAT(workers.keys(), ElementsAre("default/x", "default/d", "default/b", "default/c"));
  EXPECT_EQ(workers.rounds()[1].priority, 10);
  EXPECT_EQ(workers.rounds()[2].priority, 0);
}

TEST(PriorityQueueTest, ARaisedPriorityGoesAfterItemsAlreadyAtThatPriority) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  queue.add("default/w");
  queue.add("default/x");
  queue.addWithOptions("default/y", {.priority = 5});
  queue.addWithOptions("default/z", {.priority = 5});
  queue.addWithOptions("default/x", {.priority = 5});
  queue.addWithOptions("default/y", {.priority = 1});  // lower: y keeps 5 and its place
  EXPECT_EQ(queue.metrics().depthAt(5), 3);
  EXPECT_EQ(queue.metrics().depthAt(0), 1);
  EXPECT_THAT(takeNow(executor, queue, 4),
              ElementsAre("default/y", "default/z", "default/x", "default/w"));
}

TEST(PriorityQueueTest, ItemsDueAtOneInstantGoByPriority) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  queue.addWithOptions("default/low", {.after = seconds(1)});
  queue.addWithOptions("default/high", {.after = seconds(1), .priority = 3});
  executor.advance(seconds(1));
  EXPECT_THAT(takeNow(executor, queue, 2), ElementsAre("default/high", "default/low"));
}

// --- rate-limited retries ---

TEST(PriorityQueueTest, RateLimitedRetriesBackOffAndForgetResets) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  TestWorkers workers(executor, queue, 1, Duration::zero());
  int failuresLeft = 4;
  workers.onReconcileEnd = [&](const std::string& key) {
    if (failuresLeft-- > 0) {
      queue.addRateLimited(key);  // an error: retry later
    } else {
      queue.forget(key);  // success
    }
  };
  queue.add("default/a");
  executor.advance(seconds(1));
  // Each retry waits 5, 10, 20, 40 ms after the failed round.
  EXPECT_THAT(starts(workers.rounds()),
              ElementsAre(milliseconds(0), milliseconds(5), milliseconds(15), milliseconds(35),
                          milliseconds(75)));
  EXPECT_EQ(queue.numRequeues("default/a"), 0);
  EXPECT_EQ(queue.metrics().retries, 4u);

  // After the success the next failure starts again from 5 ms.
  failuresLeft = 1;
  queue.add("default/a");
  executor.advance(seconds(1));
  ASSERT_EQ(workers.rounds().size(), 7u);
  EXPECT_EQ(workers.rounds()[6].start - workers.rounds()[5].start, milliseconds(5));
}

TEST(PriorityQueueTest, NumRequeuesCountsRateLimitedAdds) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  queue.addRateLimited("default/a");
  queue.addRateLimited("default/a");  // merges, but the limiter counts it
  EXPECT_EQ(queue.numRequeues("default/a"), 2);
  EXPECT_EQ(queue.numWaiting(), 1u);
  queue.forget("default/a");
  EXPECT_EQ(queue.numRequeues("default/a"), 0);
}

TEST(PriorityQueueTest, TheBucketHoldsBackRetriesPastAHundred) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  for (int i = 0; i < 102; ++i) queue.addRateLimited("default/rc-" + std::to_string(i));
  EXPECT_EQ(queue.numWaiting(), 102u);
  executor.advance(milliseconds(5));
  EXPECT_EQ(queue.len(), 100u);  // the burst: each waited only its own 5 ms
  executor.advance(milliseconds(95));
  EXPECT_EQ(queue.len(), 101u);  // then 10 per second
  executor.advance(milliseconds(99));
  EXPECT_EQ(queue.len(), 101u);
  executor.advance(milliseconds(1));
  EXPECT_EQ(queue.len(), 102u);
}

TEST(PriorityQueueTest, RateLimitedWithAfterTakesTheShorterDelay) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  queue.addWithOptions("default/a", {.after = seconds(10), .rateLimited = true});      // 5 ms wins
  queue.addWithOptions("default/b", {.after = milliseconds(1), .rateLimited = true});  // 1 ms
  executor.advance(milliseconds(1));
  EXPECT_EQ(queue.len(), 1u);
  EXPECT_THAT(takeNow(executor, queue, 1), ElementsAre("default/b"));
  executor.advance(milliseconds(4));
  EXPECT_THAT(takeNow(executor, queue, 1), ElementsAre("default/a"));
}

// controller-runtime's lockedAddWithOpts: `if after == 0 || rlAfter < after { after = rlAfter }`.
// A negative `after` is neither 0 nor longer than the limiter's delay, so it stays negative and
// the item is ready at once, even though the limiter counted a failure.
TEST(PriorityQueueTest, RateLimitedWithNegativeAfterIsReadyAtOnce) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  queue.addWithOptions("default/a", {.after = -seconds(1), .rateLimited = true});
  executor.runUntilIdle();
  EXPECT_EQ(queue.len(), 1u);
  EXPECT_THAT(takeNow(executor, queue, 1), ElementsAre("default/a"));
  // The limiter still counted the failure: the next rate-limited add alone waits 10 ms (5 ms x 2).
  EXPECT_EQ(queue.numRequeues("default/a"), 1);
  queue.done("default/a");
  queue.addRateLimited("default/a");
  executor.advance(milliseconds(9));
  EXPECT_EQ(queue.len(), 0u);
  executor.advance(milliseconds(1));
  EXPECT_EQ(queue.len(), 1u);
}

TEST(PriorityQueueTest, ACustomRateLimiter) {
  SimExecutor executor;
  PriorityQueue queue(executor, {.rateLimiter = std::make_unique<ItemExponentialFailureRateLimiter>(
                                     seconds(1), seconds(60))});
  queue.addRateLimited("default/a");
  executor.advance(milliseconds(999));
  EXPECT_EQ(queue.len(), 0u);
  executor.advance(milliseconds(1));
  EXPECT_EQ(queue.len(), 1u);
}

// --- handing out ---

TEST(PriorityQueueTest, CallbacksRunInTheirOwnTasksNeverInsideTheCall) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  std::vector<std::string> got;
  queue.add("default/a");
  queue.get([&](std::string key, bool shutdown) { got.push_back(key); });
  EXPECT_TRUE(got.empty());
  executor.runUntilIdle();
  EXPECT_THAT(got, ElementsAre("default/a"));
  EXPECT_EQ(queue.numProcessing(), 1u);
}

TEST(PriorityQueueTest, WaitingWorkersAreServedInTheOrderTheyAsked) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  std::vector<std::pair<int, std::string>> got;
  for (int w = 0; w < 3; ++w) {
    queue.getWithPriority([&, w](QueueItem item) { got.emplace_back(w, item.key); });
  }
  executor.runUntilIdle();
  queue.add("default/a");
  queue.add("default/b");
  executor.runUntilIdle();
  EXPECT_THAT(got, ElementsAre(std::pair<int, std::string>{0, "default/a"},
                               std::pair<int, std::string>{1, "default/b"}));
}

// --- shutdown ---

TEST(PriorityQueueTest, ShutDownStopsHandingOut) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  TestWorkers workers(executor, queue, 1);
  queue.add("default/a");
  queue.add("default/b");
  executor.advance(milliseconds(500));  // a is running, b pending
  queue.shutDown();
  EXPECT_TRUE(queue.shuttingDown());
  queue.add("default/c");  // ignored
  EXPECT_EQ(queue.len(), 1u);
  executor.advance(seconds(5));

  EXPECT_THAT(workers.keys(), ElementsAre("default/a"));  // b was never handed out
  EXPECT_EQ(workers.stopped(), 1);       // after a's done() the worker asked again and was told
  EXPECT_EQ(queue.numProcessing(), 0u);  // done() still worked
  queue.shutDown();                      // idempotent
}

TEST(PriorityQueueTest, ShutDownReleasesIdleWorkers) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  TestWorkers workers(executor, queue, 3);
  executor.runUntilIdle();
  queue.shutDown();
  executor.runUntilIdle();
  EXPECT_EQ(workers.stopped(), 3);
  bool told = false;
  queue.getWithPriority([&](QueueItem item) { told = item.shutdown; });
  executor.runUntilIdle();
  EXPECT_TRUE(told);
}

TEST(PriorityQueueTest, ShutDownCancelsTheTimer) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  queue.addAfter("default/a", seconds(10));
  queue.shutDown();
  EXPECT_EQ(executor.pending(), 0u);
}

TEST(PriorityQueueTest, ADestroyedQueueCallsNoOne) {
  SimExecutor executor;
  bool called = false;
  {
    PriorityQueue queue(executor);
    queue.add("default/a");
    queue.addAfter("default/b", seconds(1));
    queue.getWithPriority([&](QueueItem) { called = true; });
  }
  executor.advance(seconds(5));
  EXPECT_FALSE(called);
}

// --- metrics ---

TEST(PriorityQueueMetricsTest, DepthCountsOnlyReadyItems) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  queue.addAfter("default/a", seconds(10));
  queue.add("default/b");
  auto m = queue.metrics();
  EXPECT_EQ(m.totalDepth(), 1);
  EXPECT_EQ(m.adds, 1u);
  EXPECT_EQ(m.retries, 1u);
  executor.advance(seconds(10));
  m = queue.metrics();
  EXPECT_EQ(m.totalDepth(), 2);
  EXPECT_EQ(m.adds, 2u);
  takeNow(executor, queue, 2);
  EXPECT_EQ(queue.metrics().totalDepth(), 0);
}

TEST(PriorityQueueMetricsTest, DepthFollowsARaisedPriority) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  queue.add("default/a");
  queue.addWithOptions("default/a", {.priority = 3});
  queue.addWithOptions("default/b", {.after = seconds(1)});
  queue.addWithOptions("default/b", {.after = seconds(1), .priority = 7});  // still waiting
  auto m = queue.metrics();
  EXPECT_EQ(m.depthAt(0), 0);
  EXPECT_EQ(m.depthAt(3), 1);
  EXPECT_EQ(m.depthAt(7), 0);
  EXPECT_EQ(m.adds, 1u);
  executor.advance(seconds(1));
  EXPECT_EQ(queue.metrics().depthAt(7), 1);
}

TEST(PriorityQueueMetricsTest, QueueDurationRunsFromReadyNotFromAdd) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  queue.addAfter("default/a", seconds(10));
  queue.add("default/b");
  executor.advance(seconds(10));
  takeNow(executor, queue, 2);
  const auto m = queue.metrics();
  // b waited 10 s for a worker; a was handed out the instant it became ready: 0, not 10.
  EXPECT_EQ(m.queueDuration.count, 2u);
  EXPECT_DOUBLE_EQ(m.queueDuration.sum, 10.0);
  EXPECT_EQ(m.queueDuration.counts.front(), 1u);  // a: <= 10 ns
  EXPECT_EQ(m.queueDuration.counts[9], 2u);       // both: <= 10 s
}

TEST(PriorityQueueMetricsTest, WorkDurationAndUnfinishedWork) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  TestWorkers workers(executor, queue, 2, seconds(2));
  queue.add("default/x");
  executor.advance(seconds(1));
  queue.add("default/y");
  executor.advance(milliseconds(500));
  auto m = queue.metrics();
  EXPECT_DOUBLE_EQ(m.unfinishedWorkSeconds, 1.5 + 0.5);
  EXPECT_DOUBLE_EQ(m.longestRunningProcessorSeconds, 1.5);
  EXPECT_EQ(m.workDuration.count, 0u);

  executor.advance(seconds(5));
  m = queue.metrics();
  EXPECT_EQ(m.workDuration.count, 2u);
  EXPECT_DOUBLE_EQ(m.workDuration.sum, 4.0);
  EXPECT_EQ(m.unfinishedWorkSeconds, 0);
  EXPECT_EQ(m.longestRunningProcessorSeconds, 0);
}

TEST(PriorityQueueMetricsTest, AddsDuringProcessingCountOnceMore) {
  SimExecutor executor;
  PriorityQueue queue(executor);
  TestWorkers workers(executor, queue, 1);
  queue.add("default/a");
  executor.runUntilIdle();
  queue.add("default/a");
  queue.add("default/a");
  auto m = queue.metrics();
  EXPECT_EQ(m.adds, 2u);
  EXPECT_EQ(m.totalDepth(), 1);  // ready, waiting for its key
  executor.advance(seconds(5));
  EXPECT_EQ(queue.metrics().queueDuration.count, 2u);
  EXPECT_DOUBLE_EQ(queue.metrics().queueDuration.sum, 1.0);  // from its add until a's done
}

// --- property: under any interleaving, no key runs twice at once and no add is lost ---

TEST(PriorityQueuePropertyTest, SeededInterleavingsLoseNoAddAndNeverOverlapAKey) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    SCOPED_TRACE(seed);
    SimExecutor executor({.seed = seed});
    PriorityQueue queue(executor);
    TestWorkers workers(executor, queue, 3, milliseconds(300));
    std::mt19937_64 rng(seed);
    const std::vector<std::string> keys = {"ns/a", "ns/b", "ns/c", "ns/d", "ns/e"};
    std::map<std::string, Duration> lastAdd;  // when each key was last added, from test start
    const TimePoint start = executor.now();
    for (int i = 0; i < 200; ++i) {
      const std::string key = keys[rng() % keys.size()];
      const Duration at = milliseconds(rng() % 5000);
      const Duration after = rng() % 4 == 0 ? milliseconds(rng() % 1000) : Duration::zero();
      const int priority = static_cast<int>(rng() % 3);
      executor.postAfter(at, [&, key, after, priority] {
        queue.addWithOptions(key, {.after = after, .priority = priority});
        lastAdd[key] = executor.now() - start;
      });
    }
    executor.advance(seconds(60));
    EXPECT_EQ(queue.len(), 0u);
    EXPECT_EQ(queue.numWaiting(), 0u);
    EXPECT_EQ(queue.numProcessing(), 0u);
    // The latest add of each key is followed by a round that started at or after it: a
    // reconcile saw the latest change.
    for (const auto& [key, added] : lastAdd) {
      bool covered = false;
      for (const auto& r : workers.rounds()) covered |= r.key == key && r.start >= added;
      EXPECT_TRUE(covered) << key;
    }
  }
}

}  // namespace
}  // namespace fakekube
