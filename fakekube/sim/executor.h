// Executor: where every component runs its work and timers.
//
// No component creates threads, sleeps or reads the clock directly: it posts work here. Tests use
// SimExecutor (one thread, virtual time, seeded order); `fakekube serve` uses ThreadPoolExecutor
// (real threads, real clock). The same component code runs on both.
#pragma once

#include <cstdint>
#include <functional>

#include "fakekube/sim/clock.h"

namespace fakekube {

using Task = std::function<void()>;
using TimerId = std::uint64_t;

class Executor {
 public:
  virtual ~Executor() = default;

  virtual Clock& clock() = 0;
  TimePoint now() { return clock().now(); }

  // Runs fn as soon as possible. Work posted from a task never runs inside that task.
  virtual void post(Task fn) = 0;
  // Runs fn once `delay` has passed on clock(). Returns an id for cancel().
  virtual TimerId postAfter(Duration delay, Task fn) = 0;
  // Cancels a timer that has not started; returns false if it already ran or was cancelled.
  virtual bool cancel(TimerId id) = 0;
};

}  // namespace fakekube
