// These tests never sleep and never time anything: they wait for completion on futures and
// latches, so they pass the same on a loaded 2-core machine and under ThreadSanitizer.
#include "fakekube/sim/thread_pool_executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <latch>
#include <memory>
#include <stdexcept>
#include <string>

namespace fakekube {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;

TEST(ThreadPoolExecutorTest, RunsEveryPostedTask) {
  ThreadPoolExecutor exec(4);
  constexpr int kTasks = 1000;
  std::latch done(kTasks);
  std::atomic<int> ran{0};
  for (int i = 0; i < kTasks; ++i) {
    exec.post([&] {
      ran.fetch_add(1);
      done.count_down();
    });
  }
  done.wait();
  EXPECT_EQ(ran.load(), kTasks);
}

TEST(ThreadPoolExecutorTest, TasksPostedFromTasksRun) {
  ThreadPoolExecutor exec(3);
  constexpr int kParents = 50;
  constexpr int kChildren = 10;
  std::latch done(kParents * kChildren);
  for (int i = 0; i < kParents; ++i) {
    exec.post([&] {
      for (int j = 0; j < kChildren; ++j) exec.post([&] { done.count_down(); });
    });
  }
  done.wait();
}

TEST(ThreadPoolExecutorTest, PostAfterRunsTheTask) {
  ThreadPoolExecutor exec;
  std::promise<void> ran;
  const auto before = std::chrono::steady_clock::now();
  exec.postAfter(milliseconds(1), [&] { ran.set_value(); });
  ran.get_future().wait();
  // A lower bound only: the timer never fires early, however slow or fast the machine is.
  EXPECT_GE(std::chrono::steady_clock::now() - before, milliseconds(1));
}

TEST(ThreadPoolExecutorTest, PostAfterWithNonPositiveDelayRuns) {
  ThreadPoolExecutor exec;
  std::latch done(2);
  exec.postAfter(milliseconds(0), [&] { done.count_down(); });
  exec.postAfter(milliseconds(-5), [&] { done.count_down(); });
  done.wait();
}

TEST(ThreadPoolExecutorTest, ManyTimersAllFire) {
  ThreadPoolExecutor exec(2);
  constexpr int kTimers = 200;
  std::latch done(kTimers);
  for (int i = 0; i < kTimers; ++i) {
    exec.postAfter(milliseconds(1 + i % 5), [&] { done.count_down(); });
  }
  done.wait();
}

TEST(ThreadPoolExecutorTest, TimersPostedFromTasksFire) {
  ThreadPoolExecutor exec;
  std::promise<void> ran;
  exec.post([&] { exec.postAfter(milliseconds(1), [&] { ran.set_value(); }); });
  ran.get_future().wait();
}

TEST(ThreadPoolExecutorTest, CancelledTimerNeverRunsAndIsDestroyed) {
  auto token = std::make_shared<int>(0);
  bool ran = false;  // would be a data race if the task ran; TSan would report it
  {
    ThreadPoolExecutor exec;
    const TimerId id = exec.postAfter(hours(1), [&ran, token] { ran = true; });
    EXPECT_TRUE(exec.cancel(id));
    EXPECT_FALSE(exec.cancel(id));
    EXPECT_EQ(token.use_count(), 1);
  }
  EXPECT_FALSE(ran);
}

TEST(ThreadPoolExecutorTest, CancelSucceedsForADueTimerThatHasNotStarted) {
  ThreadPoolExecutor exec(1);
  std::promise<void> started;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  // The only worker is busy, so the due timer waits in the queue until released.
  exec.post([&] {
    started.set_value();
    released.wait();
  });
  started.get_future().wait();
  bool ran = false;  // would be a data race if the task ran; TSan would report it
  const TimerId id = exec.postAfter(milliseconds(0), [&] { ran = true; });
  EXPECT_TRUE(exec.cancel(id));
  release.set_value();
  exec.shutdown();
  EXPECT_FALSE(ran);
}

TEST(ThreadPoolExecutorTest, CancelReturnsFalseOnceTheTimerRan) {
  ThreadPoolExecutor exec;
  std::promise<void> ran;
  const TimerId id = exec.postAfter(milliseconds(1), [&] { ran.set_value(); });
  ran.get_future().wait();
  EXPECT_FALSE(exec.cancel(id));
}

TEST(ThreadPoolExecutorTest, CancelReturnsFalseForUnknownIds) {
  ThreadPoolExecutor exec;
  EXPECT_FALSE(exec.cancel(987654321));
}

TEST(ThreadPoolExecutorTest, ShutdownDoesNotWaitForFutureTimers) {
  // Finishing at all is the assertion: a wait for the timer would take an hour.
  auto token = std::make_shared<int>(0);
  ThreadPoolExecutor exec;
  exec.postAfter(hours(1), [token] {});
  exec.shutdown();
  EXPECT_EQ(token.use_count(), 1) << "the dropped timer still holds what it captured";
}

TEST(ThreadPoolExecutorTest, ShutdownIsIdempotent) {
  ThreadPoolExecutor exec;
  exec.shutdown();
  exec.shutdown();
}  // and the destructor shuts down a third time

TEST(ThreadPoolExecutorTest, WorkAfterShutdownIsDropped) {
  ThreadPoolExecutor exec;
  exec.shutdown();
  auto token = std::make_shared<int>(0);
  exec.post([token] {});
  const TimerId id = exec.postAfter(milliseconds(1), [token] {});
  EXPECT_EQ(token.use_count(), 1);
  EXPECT_FALSE(exec.cancel(id));
}

TEST(ThreadPoolExecutorTest, ShutdownWaitsForTheRunningTask) {
  ThreadPoolExecutor exec(1);
  std::promise<void> started;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  bool finished = false;  // read after shutdown() joined the worker
  exec.post([&] {
    started.set_value();
    released.wait();
    finished = true;
  });
  started.get_future().wait();
  release.set_value();
  exec.shutdown();
  EXPECT_TRUE(finished);
}

TEST(ThreadPoolExecutorTest, ShutdownFromATaskDropsQueuedWork) {
  ThreadPoolExecutor exec(1);
  std::promise<void> stopped;
  bool secondRan = false;
  // One worker runs work in posting order, so the second task is still queued when the first
  // shuts the executor down.
  exec.post([&] {
    exec.shutdown();  // must not try to join its own thread
    stopped.set_value();
  });
  exec.post([&] { secondRan = true; });
  stopped.get_future().wait();
  exec.shutdown();  // joins
  EXPECT_FALSE(secondRan);
}

TEST(ThreadPoolExecutorTest, ExceptionsAreCountedAndTheWorkerSurvives) {
  ThreadPoolExecutor exec(1);
  ::testing::internal::CaptureStderr();
  exec.post([] { throw std::runtime_error("handler bug"); });
  exec.post([] { throw 42; });
  // One worker runs tasks in order, so this one runs after both exceptions were handled.
  std::promise<std::uint64_t> counted;
  exec.post([&] { counted.set_value(exec.uncaughtExceptions()); });
  EXPECT_EQ(counted.get_future().get(), 2u);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("handler bug"), std::string::npos) << err;
  EXPECT_EQ(exec.uncaughtExceptions(), 2u);
}

TEST(ThreadPoolExecutorTest, ClockIsTheRealClock) {
  ThreadPoolExecutor exec;
  EXPECT_NE(dynamic_cast<RealClock*>(&exec.clock()), nullptr);
  EXPECT_GT(exec.now(), kSimulatedEpoch);
}

TEST(ThreadPoolExecutorTest, ConcurrentPostAndCancelFromTasks) {
  // Workers race to post timers and cancel them; every timer is either cancelled or runs, never
  // both, and never neither.
  ThreadPoolExecutor exec(4);
  constexpr int kTimers = 400;
  std::atomic<int> ran{0};
  std::atomic<int> cancelled{0};
  std::latch settled(kTimers);
  for (int i = 0; i < kTimers; ++i) {
    exec.post([&, i] {
      const TimerId id = exec.postAfter(milliseconds(i % 2 == 0 ? 0 : 1), [&] {
        ran.fetch_add(1);
        settled.count_down();
      });
      if (exec.cancel(id)) {
        cancelled.fetch_add(1);
        settled.count_down();
      }
    });
  }
  settled.wait();
  EXPECT_EQ(ran.load() + cancelled.load(), kTimers);
}

// `fakekube serve --time-scale N`: timers run N times sooner in real time, and never early on the
// executor's own (scaled) clock. Ten virtual minutes at 1000x is 0.6 s of real time; unscaled the
// timer could not fire within the wait.
TEST(ThreadPoolExecutorTest, ATimeScaleRunsTimersThatManyTimesFaster) {
  ThreadPoolExecutor executor(1, 1000);
  EXPECT_EQ(executor.timeScale(), 1000);
  std::promise<TimePoint> fired;
  const TimePoint posted = executor.clock().now();
  executor.postAfter(std::chrono::minutes(10), [&] { fired.set_value(executor.clock().now()); });
  auto firedAt = fired.get_future();
  ASSERT_EQ(firedAt.wait_for(std::chrono::minutes(2)), std::future_status::ready);
  EXPECT_GE(firedAt.get() - posted, std::chrono::minutes(10));
}

}  // namespace
}  // namespace fakekube
