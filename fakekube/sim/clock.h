// Clock: the one source of time for every fakekube component.
//
// Time is wall-clock shaped (a sys_time in nanoseconds) because the API server writes it into
// objects as RFC 3339 timestamps. The simulated clock starts at a fixed instant so that the
// timestamps of a simulated run are the same on every machine.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace fakekube {

using Duration = std::chrono::nanoseconds;
using TimePoint = std::chrono::sys_time<std::chrono::nanoseconds>;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
};

// The real wall clock. Only this class reads std::chrono::system_clock.
//
// With a time scale above 1 the clock runs that many times faster than the wall clock, for test
// suites and demos that drive `fakekube serve` over real sockets but should not wait out real
// backoffs and TTLs: now() = anchor + (wall - anchor) * scale, where the anchor is the start of
// the UTC day on which the clock was made. Every process started the same day with the same scale
// (say `fakekube serve` and `fakekube operator`, both `--time-scale 10`) reads the same time, so
// timestamps one writes and the other compares stay meaningful. Such timestamps run ahead of the
// wall clock (kubectl prints their ages as "<invalid>").
class RealClock final : public Clock {
 public:
  // `timeScale` below 1 is taken as 1.
  explicit RealClock(double timeScale = 1.0);
  TimePoint now() const override;
  double timeScale() const { return timeScale_; }

 private:
  double timeScale_;
  TimePoint anchor_;
};

// "2024-01-01T00:00:00Z": RFC 3339 at whole seconds, as metav1.Time serialises.
std::string formatRfc3339(TimePoint t);
// "2024-01-01T00:00:00.000000Z": metav1.MicroTime (Events, Leases).
std::string formatRfc3339Micro(TimePoint t);
// Parses both of the above (and any fractional precision, "Z" or a numeric offset).
bool parseRfc3339(const std::string& text, TimePoint* out);

// The first instant of every simulated run.
inline constexpr TimePoint kSimulatedEpoch =
    TimePoint(std::chrono::seconds(1704067200));  // 2024-01-01T00:00:00Z

}  // namespace fakekube
