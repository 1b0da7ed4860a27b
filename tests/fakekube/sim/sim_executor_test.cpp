#include "fakekube/sim/sim_executor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace fakekube {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::ElementsAre;

struct TraceEntry {
  std::uint64_t seq;
  TimePoint at;
  bool operator==(const TraceEntry&) const = default;
};

// A workload with lots of same-instant work at several instants, some of it posted by work: the
// shape of a controller manager's startup. Returns the executor's trace.
std::vector<TraceEntry> runWorkload(SimExecutor::Options options) {
  SimExecutor exec(options);
  std::vector<TraceEntry> trace;
  exec.setTraceHook([&](std::uint64_t seq, TimePoint at) { trace.push_back({seq, at}); });
  for (int i = 0; i < 150; ++i) {
    exec.post([&exec, i] {
      if (i % 3 == 0) exec.post([] {});
    });
    exec.postAfter(seconds(1 + i % 4), [&exec, i] {
      if (i % 5 == 0) exec.postAfter(seconds(1), [] {});
    });
  }
  exec.advance(seconds(10));
  EXPECT_EQ(exec.pending(), 0u);
  return trace;
}

std::vector<std::uint64_t> seqs(const std::vector<TraceEntry>& trace) {
  std::vector<std::uint64_t> out;
  for (const TraceEntry& e : trace) out.push_back(e.seq);
  return out;
}

TEST(SimExecutorTest, ClockStartsAtSimulatedEpoch) {
  SimExecutor exec;
  EXPECT_EQ(exec.now(), kSimulatedEpoch);
  EXPECT_EQ(exec.clock().now(), kSimulatedEpoch);
  EXPECT_EQ(&exec.simClock(), &exec.clock());
}

TEST(SimExecutorTest, NothingRunsUntilDriven) {
  SimExecutor exec;
  bool ran = false;
  exec.post([&] { ran = true; });
  EXPECT_FALSE(ran);
  EXPECT_EQ(exec.pending(), 1u);
  EXPECT_EQ(exec.runUntilIdle(), 1u);
  EXPECT_TRUE(ran);
  EXPECT_EQ(exec.pending(), 0u);
}

TEST(SimExecutorTest, WithoutSeedSameInstantWorkRunsInPostingOrder) {
  SimExecutor exec;
  std::vector<int> order;
  for (int i = 0; i < 50; ++i) exec.post([&order, i] { order.push_back(i); });
  EXPECT_EQ(exec.runUntilIdle(), 50u);
  std::vector<int> expected;
  for (int i = 0; i < 50; ++i) expected.push_back(i);
  EXPECT_EQ(order, expected);
}

TEST(SimExecutorTest, WithoutSeedSameInstantTimersRunInPostingOrder) {
  SimExecutor exec;
  std::vector<int> order;
  for (int i = 0; i < 20; ++i) exec.postAfter(seconds(5), [&order, i] { order.push_back(i); });
  exec.advance(seconds(5));
  ASSERT_EQ(order.size(), 20u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(order[i], i);
}

TEST(SimExecutorTest, TimersRunInDueOrderRegardlessOfPostingOrder) {
  SimExecutor exec({.seed = 7});
  std::vector<std::string> order;
  exec.postAfter(seconds(3), [&] { order.push_back("3s"); });
  exec.postAfter(seconds(1), [&] { order.push_back("1s"); });
  exec.postAfter(seconds(2), [&] { order.push_back("2s"); });
  exec.post([&] { order.push_back("now"); });
  exec.advance(seconds(3));
  EXPECT_THAT(order, ElementsAre("now", "1s", "2s", "3s"));
}

TEST(SimExecutorTest, SameSeedReplaysIdenticalOrder) {
  const auto first = runWorkload({.seed = 42});
  const auto second = runWorkload({.seed = 42});
  ASSERT_GT(first.size(), 300u);
  EXPECT_EQ(first, second);
}

TEST(SimExecutorTest, SeededOrderDiffersFromPostingOrder) {
  const auto fifo = runWorkload({});
  const auto seeded = runWorkload({.seed = 42});
  // Same work, same instants, different interleaving.
  ASSERT_EQ(fifo.size(), seeded.size());
  EXPECT_NE(seqs(fifo), seqs(seeded));
  for (size_t i = 0; i < fifo.size(); ++i) ASSERT_EQ(fifo[i].at, seeded[i].at) << i;
}

TEST(SimExecutorTest, DifferentSeedsGiveDifferentOrders) {
  const auto base = seqs(runWorkload({.seed = 1}));
  for (std::uint64_t seed : {2u, 3u, 4u}) {
    EXPECT_NE(seqs(runWorkload({.seed = seed})), base) << "seed " << seed;
  }
}

TEST(SimExecutorTest, SeedIsReported) {
  EXPECT_EQ(SimExecutor().seed(), std::nullopt);
  EXPECT_EQ(SimExecutor({.seed = 9}).seed(), 9u);
}

TEST(SimExecutorTest, WithoutSeedRunIsAlsoReproducible) {
  EXPECT_EQ(runWorkload({}), runWorkload({}));
}

TEST(SimExecutorTest, AdvanceFiresTimersDueByTheEndAndNoLater) {
  SimExecutor exec;
  bool fired30 = false;
  bool fired31 = false;
  exec.postAfter(seconds(30), [&] { fired30 = true; });
  exec.postAfter(seconds(31), [&] { fired31 = true; });
  EXPECT_EQ(exec.advance(seconds(30)), 1u);
  EXPECT_TRUE(fired30);
  EXPECT_FALSE(fired31);
  EXPECT_EQ(exec.now(), kSimulatedEpoch + seconds(30));
  EXPECT_EQ(exec.pending(), 1u);
  EXPECT_EQ(exec.nextDue(), kSimulatedEpoch + seconds(31));
  exec.advance(seconds(1));
  EXPECT_TRUE(fired31);
}

TEST(SimExecutorTest, AdvanceWithNoWorkStillMovesTheClock) {
  SimExecutor exec;
  EXPECT_EQ(exec.advance(hours(2)), 0u);
  EXPECT_EQ(exec.now(), kSimulatedEpoch + hours(2));
}

TEST(SimExecutorTest, RunForIsAdvance) {
  SimExecutor exec;
  int fired = 0;
  exec.postAfter(seconds(1), [&] { ++fired; });
  exec.postAfter(seconds(2), [&] { ++fired; });
  EXPECT_EQ(exec.runFor(seconds(1)), 1u);
  EXPECT_EQ(fired, 1);
  EXPECT_EQ(exec.now(), kSimulatedEpoch + seconds(1));
}

TEST(SimExecutorTest, AdvanceBackwardsIsRejected) {
  SimExecutor exec;
  EXPECT_THROW(exec.advance(seconds(-1)), std::invalid_argument);
  EXPECT_EQ(exec.now(), kSimulatedEpoch);
}

TEST(SimExecutorTest, TimersSeeTheClockAtTheirDueTime) {
  SimExecutor exec;
  std::vector<TimePoint> seen;
  for (int s : {5, 1, 3}) exec.postAfter(seconds(s), [&] { seen.push_back(exec.now()); });
  exec.advance(seconds(10));
  EXPECT_THAT(seen, ElementsAre(kSimulatedEpoch + seconds(1), kSimulatedEpoch + seconds(3),
                                kSimulatedEpoch + seconds(5)));
}

TEST(SimExecutorTest, TimerPostedByATimerCountsFromItsDueTime) {
  SimExecutor exec;
  TimePoint seen{};
  exec.postAfter(seconds(10), [&] { exec.postAfter(seconds(5), [&] { seen = exec.now(); }); });
  exec.advance(seconds(20));
  EXPECT_EQ(seen, kSimulatedEpoch + seconds(15));
}

TEST(SimExecutorTest, TraceHookSeesSequenceAndTime) {
  SimExecutor exec;
  std::vector<TraceEntry> trace;
  exec.setTraceHook([&](std::uint64_t seq, TimePoint at) { trace.push_back({seq, at}); });
  const TimerId later = exec.postAfter(seconds(2), [] {});
  exec.post([] {});
  exec.advance(seconds(2));
  // The post came second, so its sequence number is the timer's plus one.
  EXPECT_THAT(trace, ElementsAre(TraceEntry{later + 1, kSimulatedEpoch},
                                 TraceEntry{later, kSimulatedEpoch + seconds(2)}));
  EXPECT_EQ(exec.tasksRun(), 2u);
}

TEST(SimExecutorTest, RunUntilIdleRunsWorkPostedByWorkButDoesNotMoveTime) {
  SimExecutor exec;
  std::vector<std::string> order;
  bool timerFired = false;
  exec.post([&] {
    order.push_back("outer");
    exec.post([&] {
      order.push_back("inner");
      exec.post([&] { order.push_back("innermost"); });
    });
    exec.postAfter(milliseconds(1), [&] { timerFired = true; });
    // Work posted from a task never runs inside it.
    order.push_back("outer done");
  });
  EXPECT_EQ(exec.runUntilIdle(), 3u);
  EXPECT_THAT(order, ElementsAre("outer", "outer done", "inner", "innermost"));
  EXPECT_FALSE(timerFired);
  EXPECT_EQ(exec.now(), kSimulatedEpoch);
  EXPECT_EQ(exec.pending(), 1u);
}

TEST(SimExecutorTest, RunUntilIdleStopsAtMaxTasks) {
  SimExecutor exec;
  std::function<void()> forever = [&] { exec.post(forever); };
  exec.post(forever);
  EXPECT_EQ(exec.runUntilIdle(100), 100u);
  EXPECT_EQ(exec.pending(), 1u);
}

TEST(SimExecutorTest, PostAfterWithNonPositiveDelayIsPost) {
  SimExecutor exec;
  std::vector<int> order;
  exec.postAfter(seconds(0), [&] { order.push_back(0); });
  exec.postAfter(seconds(-5), [&] { order.push_back(1); });
  exec.post([&] { order.push_back(2); });
  EXPECT_EQ(exec.runUntilIdle(), 3u);
  EXPECT_THAT(order, ElementsAre(0, 1, 2));
  EXPECT_EQ(exec.now(), kSimulatedEpoch);
}

TEST(SimExecutorTest, RunUntilStopsAsSoonAsDone) {
  SimExecutor exec;
  int count = 0;
  for (int s = 1; s <= 10; ++s) exec.postAfter(seconds(s), [&] { ++count; });
  EXPECT_TRUE(exec.runUntil([&] { return count == 3; }, seconds(60)));
  EXPECT_EQ(count, 3);
  EXPECT_EQ(exec.now(), kSimulatedEpoch + seconds(3));
  EXPECT_EQ(exec.pending(), 7u);
}

TEST(SimExecutorTest, RunUntilChecksBeforeRunningAnything) {
  SimExecutor exec;
  bool ran = false;
  exec.post([&] { ran = true; });
  EXPECT_TRUE(exec.runUntil([] { return true; }, seconds(60)));
  EXPECT_FALSE(ran);
  EXPECT_EQ(exec.now(), kSimulatedEpoch);
}

TEST(SimExecutorTest, RunUntilGivesUpAtTheLimit) {
  SimExecutor exec;
  bool fired = false;
  exec.postAfter(seconds(61), [&] { fired = true; });
  EXPECT_FALSE(exec.runUntil([&] { return fired; }, seconds(60)));
  EXPECT_FALSE(fired);
  EXPECT_EQ(exec.now(), kSimulatedEpoch + seconds(60));
}

TEST(SimExecutorTest, RunUntilAcceptsAConditionOnTimeAlone) {
  SimExecutor exec;
  const TimePoint deadline = kSimulatedEpoch + seconds(60);
  EXPECT_TRUE(exec.runUntil([&] { return exec.now() >= deadline; }, seconds(60)));
}

TEST(SimExecutorTest, CancelledTimerNeverRuns) {
  SimExecutor exec;
  bool fired = false;
  const TimerId id = exec.postAfter(seconds(5), [&] { fired = true; });
  EXPECT_EQ(exec.pending(), 1u);
  EXPECT_TRUE(exec.cancel(id));
  EXPECT_EQ(exec.pending(), 0u);
  EXPECT_EQ(exec.nextDue(), std::nullopt);
  exec.advance(seconds(10));
  EXPECT_FALSE(fired);
}

TEST(SimExecutorTest, CancelReturnsFalseForUnknownCancelledOrRunTimers) {
  SimExecutor exec;
  EXPECT_FALSE(exec.cancel(12345));
  const TimerId cancelled = exec.postAfter(seconds(1), [] {});
  EXPECT_TRUE(exec.cancel(cancelled));
  EXPECT_FALSE(exec.cancel(cancelled));
  const TimerId ran = exec.postAfter(seconds(1), [] {});
  exec.advance(seconds(1));
  EXPECT_FALSE(exec.cancel(ran));
}

TEST(SimExecutorTest, TimerWithNonPositiveDelayCanStillBeCancelled) {
  SimExecutor exec;
  bool fired = false;
  const TimerId id = exec.postAfter(seconds(0), [&] { fired = true; });
  EXPECT_TRUE(exec.cancel(id));
  exec.runUntilIdle();
  EXPECT_FALSE(fired);
}

TEST(SimExecutorTest, PostedWorkCannotBeCancelledByItsSequenceNumber) {
  SimExecutor exec;
  std::uint64_t seq = 0;
  exec.setTraceHook([&](std::uint64_t s, TimePoint) { seq = s; });
  exec.post([] {});
  exec.runUntilIdle();
  bool ran = false;
  exec.post([&] { ran = true; });
  // Sequence numbers are consecutive, so seq + 1 names the post() just made; it is no TimerId.
  EXPECT_FALSE(exec.cancel(seq + 1));
  exec.runUntilIdle();
  EXPECT_TRUE(ran);
}

TEST(SimExecutorTest, TaskCanCancelALaterTimer) {
  SimExecutor exec;
  bool fired = false;
  const TimerId id = exec.postAfter(seconds(2), [&] { fired = true; });
  exec.postAfter(seconds(1), [&] { EXPECT_TRUE(exec.cancel(id)); });
  exec.advance(seconds(5));
  EXPECT_FALSE(fired);
}

TEST(SimExecutorTest, CancelledTaskIsDestroyed) {
  SimExecutor exec;
  auto token = std::make_shared<int>(0);
  const TimerId id = exec.postAfter(seconds(1), [token] {});
  EXPECT_EQ(token.use_count(), 2);
  exec.cancel(id);
  EXPECT_EQ(token.use_count(), 1);
}

TEST(SimExecutorTest, ExceptionFromTaskPropagatesAndLeavesTheRestQueued) {
  SimExecutor exec;
  bool after = false;
  exec.postAfter(seconds(1), [] { throw std::runtime_error("bug in the subject"); });
  exec.postAfter(seconds(2), [&] { after = true; });
  EXPECT_THROW(exec.advance(seconds(5)), std::runtime_error);
  EXPECT_EQ(exec.now(), kSimulatedEpoch + seconds(1));
  EXPECT_FALSE(after);
  EXPECT_EQ(exec.pending(), 1u);
  // The executor is still usable.
  exec.advance(seconds(4));
  EXPECT_TRUE(after);
}

TEST(SimExecutorTest, RunningFromInsideATaskIsRejected) {
  SimExecutor exec;
  exec.post([&] { exec.runUntilIdle(); });
  EXPECT_THROW(exec.runUntilIdle(), std::logic_error);
  exec.post([&] { exec.advance(seconds(1)); });
  EXPECT_THROW(exec.runUntilIdle(), std::logic_error);
  exec.post([&] { exec.runUntil([] { return true; }, seconds(1)); });
  EXPECT_THROW(exec.runUntilIdle(), std::logic_error);
  // After a rejected re-entry the executor runs normally again.
  bool ran = false;
  exec.post([&] { ran = true; });
  EXPECT_EQ(exec.runUntilIdle(), 1u);
  EXPECT_TRUE(ran);
}

TEST(SimExecutorTest, PendingAndNextDueDescribeTheQueue) {
  SimExecutor exec;
  EXPECT_EQ(exec.pending(), 0u);
  EXPECT_EQ(exec.nextDue(), std::nullopt);
  exec.postAfter(seconds(9), [] {});
  exec.postAfter(seconds(4), [] {});
  EXPECT_EQ(exec.pending(), 2u);
  EXPECT_EQ(exec.nextDue(), kSimulatedEpoch + seconds(4));
  exec.post([] {});
  EXPECT_EQ(exec.nextDue(), kSimulatedEpoch);
}

TEST(SimExecutorTest, HugeDelaysSaturateInsteadOfOverflowing) {
  SimExecutor exec;
  bool fired = false;
  exec.postAfter(Duration::max(), [&] { fired = true; });
  exec.advance(hours(24 * 365));
  EXPECT_FALSE(fired);
  EXPECT_EQ(exec.nextDue(), TimePoint::max());
}

TEST(SimExecutorTest, DestroyingTheExecutorDestroysPendingTasks) {
  auto token = std::make_shared<int>(0);
  {
    SimExecutor exec;
    exec.post([token] {});
    exec.postAfter(hours(1), [token] {});
    EXPECT_EQ(token.use_count(), 3);
  }
  EXPECT_EQ(token.use_count(), 1);
}

TEST(SimExecutorTest, AStallingTaskTakesVirtualTimeAndLateWorkRunsAfterIt) {
  SimExecutor exec;
  std::vector<std::pair<std::string, TimePoint>> ran;
  exec.postAfter(seconds(1), [&] { ran.emplace_back("timer", exec.now()); });
  exec.post([&] {
    exec.stall(seconds(3));  // a slow call
    ran.emplace_back("slow", exec.now());
    exec.postAfter(seconds(1), [&] { ran.emplace_back("after slow", exec.now()); });
  });
  exec.advance(seconds(10));
  ASSERT_EQ(ran.size(), 3u);
  EXPECT_EQ(ran[0], std::pair(std::string("slow"), kSimulatedEpoch + seconds(3)));
  // Due at 1 s, it could only run once the slow task returned.
  EXPECT_EQ(ran[1], std::pair(std::string("timer"), kSimulatedEpoch + seconds(3)));
  EXPECT_EQ(ran[2], std::pair(std::string("after slow"), kSimulatedEpoch + seconds(4)));
  EXPECT_EQ(exec.now(), kSimulatedEpoch + seconds(10));
}

TEST(SimExecutorTest, AStallNeverPassesTheEndOfTheRunAndTheRestIsOwed) {
  SimExecutor exec;
  exec.post([&] { exec.stall(seconds(5)); });
  exec.runUntilIdle();
  EXPECT_EQ(exec.now(), kSimulatedEpoch);  // runUntilIdle keeps time still
  EXPECT_EQ(exec.owedStall(), seconds(5));
  bool fired = false;
  exec.postAfter(seconds(1), [&] { fired = true; });
  exec.advance(milliseconds(500));  // all of it goes to the stall
  EXPECT_FALSE(fired);
  EXPECT_EQ(exec.owedStall(), milliseconds(4500));
  exec.advance(seconds(5));  // 4.5 s of stall, then the timer (due long ago) runs
  EXPECT_TRUE(fired);
  EXPECT_EQ(exec.owedStall(), Duration::zero());
  EXPECT_EQ(exec.now(), kSimulatedEpoch + milliseconds(5500));
  exec.stall(seconds(1));  // outside a task: nothing
  EXPECT_EQ(exec.owedStall(), Duration::zero());
}

}  // namespace
}  // namespace fakekube
