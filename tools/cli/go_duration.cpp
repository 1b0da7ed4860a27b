#include "tools/cli/go_duration.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <utility>

namespace fakekube::cli {

namespace {

// Nanoseconds per unit, the longest unit names first so that "ms" is not read as "m".
constexpr std::pair<std::string_view, long double> kUnits[] = {
    {"ns", 1.0L}, {"us", 1e3L}, {"\xC2\xB5s", 1e3L}, {"\xCE\xBCs", 1e3L},
    {"ms", 1e6L}, {"s", 1e9L},  {"m", 60e9L},        {"h", 3600e9L},
};

}  // namespace

Result<Duration> parseGoDuration(std::string_view text) {
  auto invalid = [&](std::string_view why) {
    return tl::unexpected(Status::badRequest(fmt::format("time: {} duration \"{}\"", why, text)));
  };
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return Duration{0};
  if (s.empty()) return invalid("invalid");
  long double total = 0;
  while (!s.empty()) {
    // The number: digits, optionally a fraction; at least one digit in all.
    std::size_t i = 0;
    long double value = 0;
    bool digits = false;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      value = value * 10 + (s[i] - '0');
      digits = true;
      ++i;
    }
    if (i < s.size() && s[i] == '.') {
      ++i;
      long double scale = 0.1L;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        value += (s[i] - '0') * scale;
        scale /= 10;
        digits = true;
        ++i;
      }
    }
    if (!digits) return invalid("invalid");
    s.remove_prefix(i);
    std::size_t unitLength = 0;
    while (unitLength < s.size() && s[unitLength] != '.' &&
           (s[unitLength] < '0' || s[unitLength] > '9')) {
      ++unitLength;
    }
    if (unitLength == 0) return invalid("missing unit in");
    const std::string_view unit = s.substr(0, unitLength);
    long double perUnit = 0;
    for (const auto& [name, ns] : kUnits) {
      if (unit == name) perUnit = ns;
    }
    if (perUnit == 0) {
      return tl::unexpected(Status::badRequest(
          fmt::format("time: unknown unit \"{}\" in duration \"{}\"", unit, text)));
    }
    total += value * perUnit;
    if (total > static_cast<long double>(std::numeric_limits<std::int64_t>::max())) {
      return invalid("invalid");
    }
    s.remove_prefix(unitLength);
  }
  const auto ns = static_cast<std::int64_t>(std::llround(total));
  return Duration{negative ? -ns : ns};
}

}  // namespace fakekube::cli
