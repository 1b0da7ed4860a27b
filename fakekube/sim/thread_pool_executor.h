// ThreadPoolExecutor: the real-threads, real-clock Executor behind `fakekube serve`.
//
// The same component code that tests drive on SimExecutor runs here on N worker threads, with
// timers fired by one timer thread. This file is the only place in fakekube that creates a
// std::thread or waits on the real clock; everything else posts work here.
//
// Timers wait on std::chrono::steady_clock, so a wall-clock step (NTP, a suspended laptop) neither
// fires them early nor holds them back; clock() is a RealClock and is only for timestamps.
//
// With a time scale N > 1 (a test or demo setting) clock() runs N times faster than the wall
// clock and every postAfter() delay is divided by N, so the components see time pass N times
// faster, in step with the timestamps they write.
//
// Work posted with post() may run concurrently with other work and in any order; postAfter()
// work runs no earlier than its delay. An exception escaping a task is reported on stderr and
// counted, and the worker carries on: a server must not die because one handler had a bug.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fakekube/sim/clock.h"
#include "fakekube/sim/executor.h"

namespace fakekube {

class ThreadPoolExecutor final : public Executor {
 public:
  // `workers` threads run tasks (0 is taken as 1); one more thread fires timers.
  // `timeScale` (1 = real time; below 1 is taken as 1): see the header comment.
  explicit ThreadPoolExecutor(std::size_t workers = 2, double timeScale = 1.0);
  // Calls shutdown().
  ~ThreadPoolExecutor() override;
  ThreadPoolExecutor(const ThreadPoolExecutor&) = delete;
  ThreadPoolExecutor& operator=(const ThreadPoolExecutor&) = delete;

  // --- Executor (all thread-safe) ---
  Clock& clock() override { return clock_; }
  // After shutdown() work is dropped without running.
  void post(Task fn) override;
  // A delay <= 0 is the same as post(). After shutdown() the returned id names nothing.
  TimerId postAfter(Duration delay, Task fn) override;
  // Succeeds for a timer that has not started running, even if it is already due and queued.
  bool cancel(TimerId id) override;

  // Stops accepting work, drops every task that has not started (queued work and timers alike,
  // however far in the future), and joins the threads once the running tasks return. Idempotent.
  // Called from inside a task it only stops the executor and returns: a thread cannot join
  // itself, so the destructor (or a later shutdown() from outside) joins.
  void shutdown();

  // Exceptions that escaped tasks (each was also reported to stderr).
  std::uint64_t uncaughtExceptions() const { return uncaughtExceptions_.load(); }

  double timeScale() const { return clock_.timeScale(); }

 private:
  using SteadyTime = std::chrono::steady_clock::time_point;

  struct Pending {
    Task fn;
    // Only postAfter() hands out ids, so only its tasks can be cancelled (even when delay <= 0,
    // as on SimExecutor); a guessed id of a post() task must not cancel it.
    bool cancellable = false;
    bool inTimers = false;  // waiting in timers_ under `due` (else queued in ready_)
    SteadyTime due{};
  };

  void workerLoop();
  void timerLoop();
  void runGuarded(Task& fn);
  // Queues id for the workers. Caller holds mu_.
  void makeReadyLocked(std::uint64_t id);

  RealClock clock_;

  std::mutex mu_;
  std::condition_variable workCv_;   // ready_ gained work, or stopping_
  std::condition_variable timerCv_;  // a timer became the earliest, or stopping_
  bool stopping_ = false;
  std::uint64_t nextId_ = 1;  // 0 is never a valid TimerId
  // Every task that has not started, by id. ready_ and timers_ refer into it; an id missing here
  // was cancelled (ready_ may still hold it; workers skip it).
  std::unordered_map<std::uint64_t, Pending> tasks_;
  std::deque<std::uint64_t> ready_;
  std::set<std::pair<SteadyTime, std::uint64_t>> timers_;

  std::atomic<std::uint64_t> uncaughtExceptions_{0};

  std::mutex joinMu_;  // serialises joining, so concurrent shutdown() calls all wait for it
  std::vector<std::thread> threads_;
};

}  // namespace fakekube
