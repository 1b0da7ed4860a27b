#include "fakekube/cluster/internal/cron_schedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <vector>

namespace fakekube {

namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    std::size_t at = text.find(separator, start);
    out.push_back(text.substr(start, at == std::string_view::npos ? text.npos : at - start));
    if (at == std::string_view::npos) break;
    start = at + 1;
  }
  return out;
}

std::vector<std::string_view> fields(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

struct Bounds {
  int min;
  int max;
  const char* name;
  const std::vector<std::string>* names;  // names[i] is min + i
};

const std::vector<std::string> kMonthNames = {"jan", "feb", "mar", "apr", "may", "jun",
                                              "jul", "aug", "sep", "oct", "nov", "dec"};
const std::vector<std::string> kDayNames = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

Result<int> value(std::string_view text, const Bounds& bounds) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (bounds.names) {
    for (std::size_t i = 0; i < bounds.names->size(); ++i) {
      if ((*bounds.names)[i] == lower) return bounds.min + static_cast<int>(i);
    }
  }
  if (lower.empty() || lower.size() > 4 ||
      !std::all_of(lower.begin(), lower.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return tl::unexpected(Status::badRequest(
        fmt::format("failed to parse int from {}: invalid syntax", std::string(text))));
  }
  return std::stoi(lower);
}

// One field into `bits` (bit i = value i).
template <std::size_t N>
Result<bool> parseField(std::string_view text, const Bounds& bounds, std::bitset<N>& bits) {
  bool star = !text.empty() && (text[0] == '*' || text[0] == '?');
  for (std::string_view part : split(text, ',')) {
    auto slash = split(part, '/');
    if (slash.size() > 2) {
      return tl::unexpected(Status::badRequest(fmt::format("too many slashes: {}", part)));
    }
    std::string_view range = slash[0];
    int low, high, step = 1;
    if (range == "*" || range == "?") {
      low = bounds.min;
      high = bounds.max;
    } else {
      auto dash = split(range, '-');
      if (dash.size() > 2) {
        return tl::unexpected(Status::badRequest(fmt::format("too many hyphens: {}", part)));
      }
      auto a = value(dash[0], bounds);
      if (!a) return tl::unexpected(a.error());
      low = *a;
      high = *a;
      if (dash.size() == 2) {
        auto b = value(dash[1], bounds);
        if (!b) return tl::unexpected(b.error());
        high = *b;
      } else if (slash.size() == 2) {
        high = bounds.max;  // "5/10": from 5 to the end
      }
    }
    if (slash.size() == 2) {
      auto s = value(slash[1], {1, 9999, bounds.name, nullptr});
      if (!s) return tl::unexpected(s.error());
      step = *s;
      if (step <= 0) {
        return tl::unexpected(
            Status::badRequest(fmt::format("step of range should be a positive "
                                           "number: {}",
                                           part)));
      }
    }
    if (low < bounds.min) {
      return tl::unexpected(Status::badRequest(
          fmt::format("beginning of range ({}) below minimum ({}): {}", low, bounds.min, part)));
    }
    if (high > bounds.max) {
      return tl::unexpected(Status::badRequest(
          fmt::format("end of range ({}) above maximum ({}): {}", high, bounds.max, part)));
    }
    if (low > high) {
      return tl::unexpected(Status::badRequest(
          fmt::format("beginning of range ({}) beyond end of range ({}): {}", low, high, part)));
    }
    for (int v = low; v <= high; v += step) bits.set(static_cast<std::size_t>(v % N));
  }
  return star;
}

// Howard Hinnant's civil-from-days and back, for UTC calendar arithmetic.
std::int64_t daysFromCivil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

struct Civil {
  std::int64_t year;
  unsigned month, day;
};
Civil civilFromDays(std::int64_t z) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp + (mp < 10 ? 3 : -9);
  return {y + (m <= 2), m, d};
}

}  // namespace

Result<CronSchedule> CronSchedule::parse(std::string_view text) {
  std::string spec(text);
  auto trimmed = fields(spec);
  if (!trimmed.empty() &&
      (trimmed[0].substr(0, 3) == "TZ=" || trimmed[0].substr(0, 8) == "CRON_TZ=")) {
    std::string_view zone = trimmed[0].substr(trimmed[0].find('=') + 1);
    if (zone != "UTC" && zone != "Etc/UTC") {
      return tl::unexpected(Status::badRequest(
          fmt::format("unknown time zone {} (only UTC is supported)", std::string(zone))));
    }
    std::size_t at = spec.find(trimmed[0]) + trimmed[0].size();
    spec = spec.substr(at);
  }
  auto parts = fields(spec);
  if (parts.size() == 1 && !parts[0].empty() && parts[0][0] == '@') {
    static const std::array<std::pair<const char*, const char*>, 7> kDescriptors = {{
        {"@yearly", "0 0 1 1 *"},
        {"@annually", "0 0 1 1 *"},
        {"@monthly", "0 0 1 * *"},
        {"@weekly", "0 0 * * 0"},
        {"@daily", "0 0 * * *"},
        {"@midnight", "0 0 * * *"},
        {"@hourly", "0 * * * *"},
    }};
    for (const auto& [name, expansion] : kDescriptors) {
      if (parts[0] == name) return parse(expansion);
    }
    return tl::unexpected(
        Status::badRequest(fmt::format("unrecognized descriptor: {}", std::string(parts[0]))));
  }
  if (parts.size() != 5) {
    return tl::unexpected(Status::badRequest(
        fmt::format("expected exactly 5 fields, found {}: {}", parts.size(), std::string(text))));
  }
  CronSchedule s;
  if (auto r = parseField(parts[0], {0, 59, "minute", nullptr}, s.minutes_); !r) {
    return tl::unexpected(r.error());
  }
  if (auto r = parseField(parts[1], {0, 23, "hour", nullptr}, s.hours_); !r) {
    return tl::unexpected(r.error());
  }
  auto dom = parseField(parts[2], {1, 31, "day of month", nullptr}, s.daysOfMonth_);
  if (!dom) return tl::unexpected(dom.error());
  s.dayOfMonthStar_ = *dom;
  if (auto r = parseField(parts[3], {1, 12, "month", &kMonthNames}, s.months_); !r) {
    return tl::unexpected(r.error());
  }
  auto dow = parseField(parts[4], {0, 7, "day of week", &kDayNames}, s.daysOfWeek_);
  if (!dow) return tl::unexpected(dow.error());
  s.dayOfWeekStar_ = *dow;
  return s;
}

bool CronSchedule::matchesDay(int dayOfMonth, int month, int dayOfWeek) const {
  (void)month;
  const bool domMatch = daysOfMonth_.test(static_cast<std::size_t>(dayOfMonth));
  const bool dowMatch = daysOfWeek_.test(static_cast<std::size_t>(dayOfWeek));
  if (dayOfMonthStar_ || dayOfWeekStar_) return domMatch && dowMatch;
  return domMatch || dowMatch;
}

std::optional<TimePoint> CronSchedule::next(TimePoint t) const {
  using namespace std::chrono;
  // The next whole minute after t.
  auto minutesSinceEpoch = duration_cast<minutes>(t.time_since_epoch()).count() +
                           (t.time_since_epoch() % minutes(1) < Duration::zero() ? 0 : 1);
  std::int64_t m = minutesSinceEpoch;
  const std::int64_t limit = m + 5LL * 366 * 24 * 60;
  while (m <= limit) {
    std::int64_t days = m >= 0 ? m / 1440 : -((-m + 1439) / 1440);
    int minuteOfDay = static_cast<int>(m - days * 1440);
    Civil c = civilFromDays(days);
    int dayOfWeek = static_cast<int>(((days % 7) + 11) % 7);  // 1970-01-01 was a Thursday (4)
    if (!months_.test(c.month)) {
      // The first day of the next month.
      unsigned month = c.month == 12 ? 1 : c.month + 1;
      std::int64_t year = c.month == 12 ? c.year + 1 : c.year;
      m = daysFromCivil(year, month, 1) * 1440;
      continue;
    }
    if (!matchesDay(static_cast<int>(c.day), static_cast<int>(c.month), dayOfWeek)) {
      m = (days + 1) * 1440;
      continue;
    }
    int hour = minuteOfDay / 60, minute = minuteOfDay % 60;
    if (!hours_.test(static_cast<std::size_t>(hour))) {
      m = days * 1440 + (hour + 1) * 60;
      continue;
    }
    if (!minutes_.test(static_cast<std::size_t>(minute))) {
      ++m;
      continue;
    }
    return TimePoint(duration_cast<Duration>(minutes(m)));
  }
  return std::nullopt;
}

}  // namespace fakekube
