// CronSchedule: the schedule syntax of CronJob.spec.schedule (what robfig/cron's standard parser,
// which kube-controller-manager uses, accepts) and the times it names, in UTC.
//
//   five fields   minute (0-59), hour (0-23), day of month (1-31), month (1-12 or JAN-DEC), day of
//                 week (0-6 or SUN-SAT; 7 is Sunday too); each a comma-separated list of "*"
//                 (or "?"), a value, a range "a-b", each with an optional step "/n" ("*/15",
//                 "1-30/5", "5/10" meaning 5-max/10).
//   descriptors   @yearly (@annually), @monthly, @weekly, @daily (@midnight), @hourly.
//   day matching  when both day of month and day of week are restricted (neither starts with
//                 "*"), a day matches if either does, as in cron; otherwise both must.
//
// A "TZ=" or "CRON_TZ=" prefix is accepted only for UTC (fakekube keeps no time zone database).
// Errors are 400 Status values naming the bad field.
#pragma once

#include <bitset>
#include <optional>
#include <string_view>

#include "fakekube/api/status.h"
#include "fakekube/sim/clock.h"

namespace fakekube {

class CronSchedule {
 public:
  static Result<CronSchedule> parse(std::string_view text);

  // The first scheduled time strictly after `t` (whole minutes), or nullopt when there is none
  // within five years (a schedule like "0 0 30 2 *").
  std::optional<TimePoint> next(TimePoint t) const;

 private:
  bool matchesDay(int dayOfMonth, int month, int dayOfWeek) const;

  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> daysOfMonth_;  // 1..31
  std::bitset<13> months_;       // 1..12
  std::bitset<7> daysOfWeek_;    // 0..6, Sunday 0
  bool dayOfMonthStar_ = false;
  bool dayOfWeekStar_ = false;
};

}  // namespace fakekube
