// CronSchedule: the five-field syntax (lists, ranges, steps, names, descriptors) and the times
// it names.
#include "fakekube/cluster/internal/cron_schedule.h"

#include <gtest/gtest.h>

namespace fakekube {
namespace {

TimePoint at(const std::string& rfc3339) {
  TimePoint t;
  EXPECT_TRUE(parseRfc3339(rfc3339, &t)) << rfc3339;
  return t;
}

std::string nextAfter(const std::string& schedule, const std::string& from) {
  auto parsed = CronSchedule::parse(schedule);
  EXPECT_TRUE(parsed.has_value()) << schedule << ": " << parsed.error().message;
  if (!parsed) return "";
  auto next = parsed->next(at(from));
  return next ? formatRfc3339(*next) : "none";
}

TEST(CronScheduleTest, NextTimes) {
  EXPECT_EQ(nextAfter("* * * * *", "2026-01-01T10:00:00Z"), "2026-01-01T10:01:00Z");
  EXPECT_EQ(nextAfter("* * * * *", "2026-01-01T10:00:30Z"), "2026-01-01T10:01:00Z");
  EXPECT_EQ(nextAfter("*/15 * * * *", "2026-01-01T10:01:00Z"), "2026-01-01T10:15:00Z");
  EXPECT_EQ(nextAfter("5,35 9-17 * * *", "2026-01-01T17:36:00Z"), "2026-01-02T09:05:00Z");
  EXPECT_EQ(nextAfter("0 0 * * MON", "2026-01-01T00:00:00Z"), "2026-01-05T00:00:00Z");
  EXPECT_EQ(nextAfter("0 0 * * 7", "2026-01-01T00:00:00Z"), "2026-01-04T00:00:00Z");
  EXPECT_EQ(nextAfter("0 12 1 feb-mar *", "2026-02-01T12:00:00Z"), "2026-03-01T12:00:00Z");
  EXPECT_EQ(nextAfter("0 0 29 2 *", "2026-01-01T00:00:00Z"), "2028-02-29T00:00:00Z");
  EXPECT_EQ(nextAfter("10/20 * * * *", "2026-01-01T10:31:00Z"), "2026-01-01T10:50:00Z");
  EXPECT_EQ(nextAfter("1-30/10 * * * *", "2026-01-01T10:21:00Z"), "2026-01-01T11:01:00Z");
  // Day of month and day of week both restricted: either matches.
  EXPECT_EQ(nextAfter("0 0 13 * FRI", "2026-01-01T00:00:00Z"), "2026-01-02T00:00:00Z");
  EXPECT_EQ(nextAfter("@hourly", "2026-01-01T10:00:00Z"), "2026-01-01T11:00:00Z");
  EXPECT_EQ(nextAfter("@daily", "2026-01-01T10:00:00Z"), "2026-01-02T00:00:00Z");
  EXPECT_EQ(nextAfter("@weekly", "2026-01-01T10:00:00Z"), "2026-01-04T00:00:00Z");
  EXPECT_EQ(nextAfter("@monthly", "2026-01-01T10:00:00Z"), "2026-02-01T00:00:00Z");
  EXPECT_EQ(nextAfter("@yearly", "2026-01-01T10:00:00Z"), "2027-01-01T00:00:00Z");
  EXPECT_EQ(nextAfter("TZ=UTC 30 * * * *", "2026-01-01T10:00:00Z"), "2026-01-01T10:30:00Z");
  EXPECT_EQ(nextAfter("0 0 30 2 *", "2026-01-01T00:00:00Z"), "none");
}

TEST(CronScheduleTest, BadSchedulesAreErrors) {
  for (const char* bad :
       {"", "* * * *", "* * * * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * * 13 *",
        "5-1 * * * *", "*/0 * * * *", "a * * * *", "@often", "TZ=Europe/Berlin * * * * *"}) {
    auto parsed = CronSchedule::parse(bad);
    EXPECT_FALSE(parsed.has_value()) << bad;
    if (!parsed) EXPECT_EQ(parsed.error().code, 400) << bad;
  }
}

}  // namespace
}  // namespace fakekube
