#include "fakekube/sim/clock.h"

#include <fmt/format.h>

#include <string_view>

namespace fakekube {

namespace {

constexpr std::int64_t kNanosPerSecond = 1'000'000'000;

// Splits t into whole seconds (floored, so instants before 1970 still print the calendar second
// they fall in) and the nanoseconds past that second. Done on the raw count so that no step can
// overflow, even at TimePoint::min().
void split(TimePoint t, std::chrono::sys_seconds* secs, std::int64_t* subNanos) {
  std::int64_t ns = t.time_since_epoch().count();
  std::int64_t s = ns / kNanosPerSecond;
  std::int64_t rem = ns % kNanosPerSecond;
  if (rem < 0) {
    rem += kNanosPerSecond;
    --s;
  }
  *secs = std::chrono::sys_seconds(std::chrono::seconds(s));
  *subNanos = rem;
}

// Every write stamps a timestamp, so this is on the API server's hot path: digits are written by
// hand rather than through a formatting library.
std::string formatSeconds(std::chrono::sys_seconds secs) {
  const auto day = std::chrono::floor<std::chrono::days>(secs);
  const std::chrono::year_month_day ymd(day);
  const std::chrono::hh_mm_ss hms(secs - day);
  const int year = static_cast<int>(ymd.year());
  if (year < 0 || year > 9999) {
    return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}", year,
                       static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                       hms.hours().count(), hms.minutes().count(), hms.seconds().count());
  }
  char text[] = "0000-00-00T00:00:00";
  auto two = [&](int at, long long value) {
    text[at] = static_cast<char>('0' + value / 10);
    text[at + 1] = static_cast<char>('0' + value % 10);
  };
  two(0, year / 100);
  two(2, year % 100);
  two(5, static_cast<unsigned>(ymd.month()));
  two(8, static_cast<unsigned>(ymd.day()));
  two(11, hms.hours().count());
  two(14, hms.minutes().count());
  two(17, hms.seconds().count());
  return std::string(text, sizeof text - 1);
}

// A cursor over the text being parsed. Every read checks bounds and returns false instead of
// throwing: parseRfc3339 is fed untrusted strings from request bodies.
class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}

  bool done() const { return pos_ == s_.size(); }
  bool peek(char c) const { return pos_ < s_.size() && s_[pos_] == c; }

  bool literal(char c) {
    if (!peek(c)) return false;
    ++pos_;
    return true;
  }
  // Either spelling, since RFC 3339 allows "t"/"z" as well as "T"/"Z".
  bool literalAnyCase(char upper) {
    return literal(upper) || literal(static_cast<char>(upper - 'A' + 'a'));
  }

  // Exactly n decimal digits. isdigit() is avoided because it depends on the locale.
  bool digits(int n, int* out) {
    if (s_.size() - pos_ < static_cast<size_t>(n)) return false;
    int v = 0;
    for (int i = 0; i < n; ++i) {
      const char c = s_[pos_ + i];
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    pos_ += n;
    *out = v;
    return true;
  }

  // One or more digits of a fraction of a second; digits past nanoseconds are dropped
  // (truncation, like Go's time.Parse).
  bool fraction(std::int64_t* nanos) {
    std::int64_t v = 0;
    int count = 0;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      if (count < 9) v = v * 10 + (s_[pos_] - '0');
      ++count;
      ++pos_;
    }
    if (count == 0) return false;
    for (int i = count; i < 9; ++i) v *= 10;
    *nanos = v;
    return true;
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

RealClock::RealClock(double timeScale) : timeScale_(timeScale > 1.0 ? timeScale : 1.0) {
  anchor_ = std::chrono::time_point_cast<Duration>(
      std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now()));
}

TimePoint RealClock::now() const {
  const TimePoint wall = std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now());
  if (timeScale_ == 1.0) return wall;
  const auto sinceAnchor = static_cast<double>((wall - anchor_).count());
  return anchor_ + Duration(static_cast<Duration::rep>(sinceAnchor * timeScale_));
}

std::string formatRfc3339(TimePoint t) {
  std::chrono::sys_seconds secs;
  std::int64_t subNanos;
  split(t, &secs, &subNanos);
  return formatSeconds(secs) + "Z";
}

std::string formatRfc3339Micro(TimePoint t) {
  std::chrono::sys_seconds secs;
  std::int64_t subNanos;
  split(t, &secs, &subNanos);
  return fmt::format("{}.{:06d}Z", formatSeconds(secs), subNanos / 1000);
}

bool parseRfc3339(const std::string& text, TimePoint* out) {
  Scanner in(text);
  int year, month, day, hour, minute, second;
  if (!in.digits(4, &year) || !in.literal('-') || !in.digits(2, &month) || !in.literal('-') ||
      !in.digits(2, &day) || !in.literalAnyCase('T') || !in.digits(2, &hour) || !in.literal(':') ||
      !in.digits(2, &minute) || !in.literal(':') || !in.digits(2, &second)) {
    return false;
  }
  std::int64_t fracNanos = 0;
  if (in.literal('.') && !in.fraction(&fracNanos)) return false;

  // The offset is local time minus UTC, so UTC = local - offset.
  std::int64_t offsetSeconds = 0;
  if (!in.literalAnyCase('Z')) {
    int sign;
    if (in.literal('+')) {
      sign = 1;
    } else if (in.literal('-')) {
      sign = -1;
    } else {
      return false;
    }
    int offHour, offMinute;
    if (!in.digits(2, &offHour) || !in.literal(':') || !in.digits(2, &offMinute)) return false;
    if (offHour > 23 || offMinute > 59) return false;
    offsetSeconds = sign * (offHour * 3600 + offMinute * 60);
  }
  if (!in.done()) return false;

  // Leap seconds (":60") are rejected, as Go rejects them: a TimePoint cannot represent them.
  const std::chrono::year_month_day ymd{std::chrono::year(year),
                                        std::chrono::month(static_cast<unsigned>(month)),
                                        std::chrono::day(static_cast<unsigned>(day))};
  if (!ymd.ok() || hour > 23 || minute > 59 || second > 59) return false;

  const std::int64_t seconds =
      static_cast<std::int64_t>(std::chrono::sys_days(ymd).time_since_epoch().count()) * 86400 +
      hour * 3600 + minute * 60 + second - offsetSeconds;
  // A nanosecond TimePoint spans only 1677..2262; anything outside is not a time we can hold.
  std::int64_t nanos;
  if (__builtin_mul_overflow(seconds, kNanosPerSecond, &nanos) ||
      __builtin_add_overflow(nanos, fracNanos, &nanos)) {
    return false;
  }
  *out = TimePoint(Duration(nanos));
  return true;
}

}  // namespace fakekube
