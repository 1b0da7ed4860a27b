#include "fakekube/sim/sim_executor.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

namespace fakekube {

namespace {

// Marks the executor as running for the lifetime of one runX call, exceptions included, so a
// task that throws does not leave the executor looking re-entered forever.
class RunningScope {
 public:
  explicit RunningScope(bool* flag) : flag_(flag) { *flag_ = true; }
  ~RunningScope() { *flag_ = false; }
  RunningScope(const RunningScope&) = delete;
  RunningScope& operator=(const RunningScope&) = delete;

 private:
  bool* flag_;
};

}  // namespace

bool SimExecutor::Key::operator<(const Key& o) const {
  return std::tie(due, tieBreak, seq) < std::tie(o.due, o.tieBreak, o.seq);
}

SimExecutor::SimExecutor() : SimExecutor(Options{}) {}

SimExecutor::SimExecutor(Options options)
    : options_(options), clock_(kSimulatedEpoch), rng_(options.seed.value_or(0)) {}

SimExecutor::~SimExecutor() {
  // Destroying a task destroys what it captured, and a destructor there may post or cancel:
  // empty the members first so such calls see a consistent executor, and repeat until the
  // destructors stop posting.
  while (!tasks_.empty()) {
    auto tasks = std::move(tasks_);
    tasks_.clear();
    queue_.clear();
    tasks.clear();
  }
}

void SimExecutor::post(Task fn) { enqueue(clock_.now_, std::move(fn), false); }

TimerId SimExecutor::postAfter(Duration delay, Task fn) {
  return enqueue(delay <= Duration::zero() ? clock_.now_ : after(delay), std::move(fn), true);
}

bool SimExecutor::cancel(TimerId id) {
  auto it = tasks_.find(id);
  if (it == tasks_.end() || !it->second.cancellable) return false;
  queue_.erase(it->second.key);
  tasks_.erase(it);
  return true;
}

TimerId SimExecutor::enqueue(TimePoint due, Task fn, bool cancellable) {
  const std::uint64_t seq = nextSeq_++;
  // The tie-break is drawn at post time, from the raw engine output: std::mt19937_64's sequence is
  // fixed by the standard, whereas the distributions are not, so a seed replays on any toolchain.
  const Key key{due, options_.seed ? rng_() : 0, seq};
  queue_.insert(key);
  tasks_.emplace(seq, Entry{key, std::move(fn), cancellable});
  return seq;
}

TimePoint SimExecutor::after(Duration d) const {
  const TimePoint now = clock_.now_;
  if (d > TimePoint::max() - now) return TimePoint::max();
  return now + d;
}

bool SimExecutor::runNextDueBy(TimePoint limit) {
  if (queue_.empty() || queue_.begin()->due > limit) return false;
  const Key key = *queue_.begin();
  queue_.erase(queue_.begin());
  auto node = tasks_.extract(key.seq);
  Task fn = std::move(node.mapped().fn);
  // A stall (stall()) can leave the clock past a task's due time: that task runs late, at now.
  if (key.due > clock_.now_) clock_.now_ = key.due;
  ++tasksRun_;
  if (traceHook_) traceHook_(key.seq, clock_.now_);
  fn();
  return true;
}

void SimExecutor::stall(Duration d) {
  if (!running_ || d <= Duration::zero()) return;
  const TimePoint target = after(d);
  if (target > runLimit_) {
    owedStall_ += target - std::max(runLimit_, clock_.now_);
    if (runLimit_ > clock_.now_) clock_.now_ = runLimit_;
    return;
  }
  clock_.now_ = target;
}

void SimExecutor::payStall(TimePoint limit) {
  if (owedStall_ <= Duration::zero() || limit <= clock_.now_) return;
  const Duration room = limit - clock_.now_;
  const Duration paid = std::min(room, owedStall_);
  clock_.now_ += paid;
  owedStall_ -= paid;
}

void SimExecutor::checkNotReentrant(const char* method) const {
  if (running_) {
    throw std::logic_error(std::string("SimExecutor::") + method +
                           " called from inside a task; only the test drives the simulation");
  }
}

std::size_t SimExecutor::runUntilIdle(std::size_t maxTasks) {
  checkNotReentrant("runUntilIdle");
  RunningScope scope(&running_);
  runLimit_ = clock_.now_;
  std::size_t n = 0;
  while (n < maxTasks && runNextDueBy(clock_.now_)) ++n;
  return n;
}

std::size_t SimExecutor::advance(Duration d) {
  checkNotReentrant("advance");
  if (d < Duration::zero()) {
    throw std::invalid_argument("SimExecutor::advance: virtual time cannot move backwards");
  }
  RunningScope scope(&running_);
  const TimePoint end = after(d);
  runLimit_ = end;
  payStall(end);
  std::size_t n = 0;
  while (runNextDueBy(end)) ++n;
  clock_.now_ = end;
  return n;
}

bool SimExecutor::runUntil(const std::function<bool()>& done, Duration limit) {
  checkNotReentrant("runUntil");
  if (limit < Duration::zero()) {
    throw std::invalid_argument("SimExecutor::runUntil: virtual time cannot move backwards");
  }
  RunningScope scope(&running_);
  if (done()) return true;
  const TimePoint end = after(limit);
  runLimit_ = end;
  payStall(end);
  while (runNextDueBy(end)) {
    if (done()) return true;
  }
  clock_.now_ = end;
  // The predicate may be about time itself ("now() >= deadline"): ask once more at the end.
  return done();
}

std::optional<TimePoint> SimExecutor::nextDue() const {
  if (queue_.empty()) return std::nullopt;
  return queue_.begin()->due;
}

}  // namespace fakekube
