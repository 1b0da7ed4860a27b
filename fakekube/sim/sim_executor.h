// SimExecutor: the single-threaded, virtual-time Executor every test runs on.
//
// Nothing happens until the test says so. Posted work waits in a queue ordered by due time; the
// test drives it with runUntilIdle() ("let everything that is ready settle"), advance(30s) ("let
// 30 simulated seconds pass, firing every timer on the way") or runUntil(predicate). Time jumps
// from one timer to the next, so a 30-second timeout costs microseconds.
//
// Interleaving. Work due at the same instant is where a real multi-threaded server has freedom of
// order, and where ordering bugs hide. Without a seed that work runs in the order it was posted
// (FIFO), which is easiest to reason about. With a seed, the order among same-instant work is
// chosen by a PRNG seeded with it: the same seed replays exactly the same run, so a failure found
// by sweeping seeds can be replayed by pinning the one seed that failed. Work due at different
// instants always runs in time order.
//
// Failures. An exception escaping a task is a bug in the code under test; it propagates out of
// the runX call that ran the task, with the clock at that task's due time and the task consumed.
// Calling a runX method from inside a task is a bug in the test and throws std::logic_error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <set>
#include <unordered_map>

#include "fakekube/sim/clock.h"
#include "fakekube/sim/executor.h"

namespace fakekube {

// The virtual clock of a SimExecutor. Only the executor moves it, and only forward, as it runs
// work: a clock set by hand could jump past timers that never fired.
class SimClock final : public Clock {
 public:
  TimePoint now() const override { return now_; }

 private:
  friend class SimExecutor;
  explicit SimClock(TimePoint start) : now_(start) {}
  TimePoint now_;
};

class SimExecutor final : public Executor {
 public:
  struct Options {
    // Unset: same-instant work runs in posting order. Set: in an order drawn from this seed.
    std::optional<std::uint64_t> seed;
  };
  // Called before each task runs with the sequence number the task got when it was posted and
  // the virtual time it runs at. Recording these proves two runs did identical work.
  using TraceHook = std::function<void(std::uint64_t taskSeq, TimePoint at)>;

  SimExecutor();
  explicit SimExecutor(Options options);
  ~SimExecutor() override;
  SimExecutor(const SimExecutor&) = delete;
  SimExecutor& operator=(const SimExecutor&) = delete;

  // --- Executor ---
  Clock& clock() override { return clock_; }
  void post(Task fn) override;
  // A delay <= 0 is the same as post().
  TimerId postAfter(Duration delay, Task fn) override;
  bool cancel(TimerId id) override;

  SimClock& simClock() { return clock_; }
  std::optional<std::uint64_t> seed() const { return options_.seed; }

  // --- driving the simulation (never from inside a task) ---

  // Runs everything due now, including work that work posts for now, until nothing is due or
  // maxTasks have run (a guard against a task that re-posts itself forever). Time stays put.
  // Returns the number of tasks run.
  std::size_t runUntilIdle(std::size_t maxTasks = 10'000'000);
  // Lets d of virtual time pass: runs due work in time order, setting the clock to each task's
  // due time before running it, and ends with the clock at exactly start + d and everything due
  // by then run. Returns the number of tasks run. d < 0 throws std::invalid_argument.
  std::size_t advance(Duration d);
  // The same as advance(d).
  std::size_t runFor(Duration d) { return advance(d); }
  // Like advance(limit), but stops as soon as done() holds (checked before the first task and
  // after every task); the clock stays at the instant where it stopped (start + limit if done()
  // never held). Returns whether done() became true.
  bool runUntil(const std::function<bool()>& done, Duration limit);

  // Only from inside a task: the task running now takes `d` of virtual time, as a thread blocked
  // in a slow call does (how a test gives an in-process request latency). The clock moves
  // forward by `d` at once, so the rest of the task, and what it posts, sees the later time;
  // work that fell due meanwhile runs after the task, late, at the new time. Time never passes
  // the end of the runX call that runs the task (runUntilIdle's end is "now"): what is left of
  // `d` is owed, and the next advance() or runUntil() lets it pass first, before any task runs.
  // Called outside a task, or with d <= 0, it does nothing.
  void stall(Duration d);
  // Stall time not yet let pass (see stall()).
  Duration owedStall() const { return owedStall_; }

  // --- observing ---

  // Tasks not yet run, including timers not yet due. Cancelled timers are not counted.
  std::size_t pending() const { return tasks_.size(); }
  // The due time of the next task to run, if any.
  std::optional<TimePoint> nextDue() const;
  std::uint64_t tasksRun() const { return tasksRun_; }
  void setTraceHook(TraceHook hook) { traceHook_ = std::move(hook); }

 private:
  // Queue order: due time, then the tie-break (0 without a seed, random with one), then the
  // posting sequence, which also makes every key unique.
  struct Key {
    TimePoint due;
    std::uint64_t tieBreak;
    std::uint64_t seq;
    bool operator<(const Key& o) const;
  };
  struct Entry {
    Key key;
    Task fn;
    // Only postAfter() hands out ids, so only its tasks can be cancelled. (A post()'s sequence
    // number is visible to the trace hook, but it is not a TimerId.)
    bool cancellable;
  };

  TimerId enqueue(TimePoint due, Task fn, bool cancellable);
  // Runs the first queued task if it is due by `limit`, moving the clock to its due time.
  bool runNextDueBy(TimePoint limit);
  // The instant `d` after now, clamped to the end of representable time.
  TimePoint after(Duration d) const;
  void checkNotReentrant(const char* method) const;

  Options options_;
  SimClock clock_;
  std::mt19937_64 rng_;
  std::set<Key> queue_;
  std::unordered_map<std::uint64_t, Entry> tasks_;  // by seq; exactly the keys in queue_
  std::uint64_t nextSeq_ = 1;                       // 0 is never a valid TimerId
  std::uint64_t tasksRun_ = 0;
  bool running_ = false;
  TraceHook traceHook_;
  // The end of the runX call in progress (stall() never moves the clock past it), and the stall
  // time still to let pass.
  TimePoint runLimit_{};
  Duration owedStall_{0};
  // Lets owed stall time pass, up to `limit`.
  void payStall(TimePoint limit);
};

}  // namespace fakekube
