#include "fakekube/sim/thread_pool_executor.h"

#include <cstdio>
#include <exception>

namespace fakekube {

namespace {

// The pool whose task the current thread is running, so shutdown() can tell that it was called
// from one of its own workers (which must not join itself).
thread_local const ThreadPoolExecutor* tCurrentPool = nullptr;

// The timer thread re-checks at least this often even when the next timer is far away, so a
// wait never has to represent an extreme deadline (e.g. postAfter(Duration::max())).
constexpr std::chrono::hours kMaxTimerWait{1};

}  // namespace

ThreadPoolExecutor::ThreadPoolExecutor(std::size_t workers, double timeScale) : clock_(timeScale) {
  if (workers == 0) workers = 1;
  threads_.reserve(workers + 1);
  try {
    for (std::size_t i = 0; i < workers; ++i) threads_.emplace_back([this] { workerLoop(); });
    threads_.emplace_back([this] { timerLoop(); });
  } catch (...) {
    // Out of threads: join the ones that started, or their std::thread destructors terminate.
    shutdown();
    throw;
  }
}

ThreadPoolExecutor::~ThreadPoolExecutor() { shutdown(); }

void ThreadPoolExecutor::makeReadyLocked(std::uint64_t id) {
  ready_.push_back(id);
  workCv_.notify_one();
}

void ThreadPoolExecutor::post(Task fn) {
  std::unique_lock lock(mu_);
  if (stopping_) return;  // fn is destroyed after the lock is released
  const std::uint64_t id = nextId_++;
  tasks_.emplace(id, Pending{.fn = std::move(fn)});
  makeReadyLocked(id);
}

TimerId ThreadPoolExecutor::postAfter(Duration delay, Task fn) {
  // Read the clock before locking: the delay counts from the call, not from getting the lock.
  const SteadyTime now = std::chrono::steady_clock::now();
  std::unique_lock lock(mu_);
  const std::uint64_t id = nextId_++;
  if (stopping_) return id;
  if (delay <= Duration::zero()) {
    tasks_.emplace(id, Pending{.fn = std::move(fn), .cancellable = true});
    makeReadyLocked(id);
    return id;
  }
  if (clock_.timeScale() != 1.0) {
    const double scaled = static_cast<double>(delay.count()) / clock_.timeScale();
    delay = Duration(static_cast<Duration::rep>(scaled) + 1);  // +1 ns: never early
  }
  const auto steadyDelay = std::chrono::ceil<SteadyTime::duration>(delay);
  const SteadyTime due =
      steadyDelay > SteadyTime::max() - now ? SteadyTime::max() : now + steadyDelay;
  tasks_.emplace(id,
                 Pending{.fn = std::move(fn), .cancellable = true, .inTimers = true, .due = due});
  const bool earliest = timers_.empty() || due < timers_.begin()->first;
  timers_.emplace(due, id);
  if (earliest) timerCv_.notify_one();
  return id;
}

bool ThreadPoolExecutor::cancel(TimerId id) {
  Task dropped;  // destroyed after the lock: what it captured may post or cancel
  std::unique_lock lock(mu_);
  auto it = tasks_.find(id);
  if (it == tasks_.end() || !it->second.cancellable) return false;
  // A task already in ready_ stays there; the worker that pops its id finds no task and skips it.
  if (it->second.inTimers) timers_.erase({it->second.due, id});
  dropped = std::move(it->second.fn);
  tasks_.erase(it);
  lock.unlock();
  return true;
}

void ThreadPoolExecutor::shutdown() {
  std::unordered_map<std::uint64_t, Pending> dropped;
  {
    std::unique_lock lock(mu_);
    stopping_ = true;
    dropped = std::move(tasks_);
    tasks_.clear();
    ready_.clear();
    timers_.clear();
  }
  workCv_.notify_all();
  timerCv_.notify_all();
  dropped.clear();  // outside the lock: destructors of captured state may call post()

  if (tCurrentPool == this) return;
  std::lock_guard joinLock(joinMu_);
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void ThreadPoolExecutor::runGuarded(Task& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    uncaughtExceptions_.fetch_add(1);
    std::fprintf(stderr, "fakekube: ThreadPoolExecutor: task threw an exception: %s\n", e.what());
  } catch (...) {
    uncaughtExceptions_.fetch_add(1);
    std::fprintf(stderr, "fakekube: ThreadPoolExecutor: task threw a non-std exception\n");
  }
}

void ThreadPoolExecutor::workerLoop() {
  tCurrentPool = this;
  std::unique_lock lock(mu_);
  while (true) {
    workCv_.wait(lock, [this] { return stopping_ || !ready_.empty(); });
    if (stopping_) return;
    const std::uint64_t id = ready_.front();
    ready_.pop_front();
    auto it = tasks_.find(id);
    if (it == tasks_.end()) continue;  // cancelled after it became due
    Task fn = std::move(it->second.fn);
    tasks_.erase(it);
    lock.unlock();
    runGuarded(fn);
    // Destroy the task (and what it captured) before taking the lock again: those destructors
    // may post.
    fn = nullptr;
    lock.lock();
  }
}

void ThreadPoolExecutor::timerLoop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    if (timers_.empty()) {
      timerCv_.wait(lock);
      continue;
    }
    const SteadyTime now = std::chrono::steady_clock::now();
    while (!timers_.empty() && timers_.begin()->first <= now) {
      const std::uint64_t id = timers_.begin()->second;
      timers_.erase(timers_.begin());
      tasks_.at(id).inTimers = false;
      makeReadyLocked(id);
    }
    if (timers_.empty()) continue;
    const SteadyTime next = timers_.begin()->first;
    // Woken early by a new earliest timer, shutdown or a spurious wake-up: the loop re-checks.
    timerCv_.wait_until(lock, next - now > kMaxTimerWait ? now + kMaxTimerWait : next);
  }
}

}  // namespace fakekube
