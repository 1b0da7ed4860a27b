#include "fakekube/sim/clock.h"

#include <gtest/gtest.h>

#include <string>

namespace fakekube {
namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;

TimePoint parsed(const std::string& text) {
  TimePoint t{};
  EXPECT_TRUE(parseRfc3339(text, &t)) << text;
  return t;
}

TEST(ClockTest, SimulatedEpochIsStartOf2024) {
  EXPECT_EQ(formatRfc3339(kSimulatedEpoch), "2024-01-01T00:00:00Z");
}

TEST(ClockTest, FormatRfc3339PrintsWholeSecondsInUtc) {
  EXPECT_EQ(formatRfc3339(kSimulatedEpoch + hours(24 * 59) + hours(13) + minutes(4) + seconds(5)),
            "2024-02-29T13:04:05Z");
  EXPECT_EQ(formatRfc3339(TimePoint{}), "1970-01-01T00:00:00Z");
}

TEST(ClockTest, FormatRfc3339TruncatesFractionalSeconds) {
  EXPECT_EQ(formatRfc3339(kSimulatedEpoch + milliseconds(999)), "2024-01-01T00:00:00Z");
  EXPECT_EQ(formatRfc3339(kSimulatedEpoch + seconds(59) + nanoseconds(999'999'999)),
            "2024-01-01T00:00:59Z");
}

TEST(ClockTest, FormatRfc3339FloorsInstantsBefore1970) {
  EXPECT_EQ(formatRfc3339(TimePoint{} - milliseconds(1)), "1969-12-31T23:59:59Z");
}

TEST(ClockTest, FormatRfc3339MicroPrintsSixFractionDigitsTruncating) {
  EXPECT_EQ(formatRfc3339Micro(kSimulatedEpoch), "2024-01-01T00:00:00.000000Z");
  EXPECT_EQ(formatRfc3339Micro(kSimulatedEpoch + microseconds(1'234'567) + nanoseconds(999)),
            "2024-01-01T00:00:01.234567Z");
  EXPECT_EQ(formatRfc3339Micro(TimePoint{} - microseconds(1)), "1969-12-31T23:59:59.999999Z");
}

TEST(ClockTest, ParseRfc3339ReadsWholeSeconds) {
  EXPECT_EQ(parsed("2024-01-01T00:00:00Z"), kSimulatedEpoch);
  EXPECT_EQ(parsed("2024-01-01T01:02:03Z"), kSimulatedEpoch + hours(1) + minutes(2) + seconds(3));
}

TEST(ClockTest, ParseRfc3339ReadsFractionsOfAnyPrecision) {
  EXPECT_EQ(parsed("2024-01-01T00:00:00.5Z"), kSimulatedEpoch + milliseconds(500));
  EXPECT_EQ(parsed("2024-01-01T00:00:00.123456Z"), kSimulatedEpoch + microseconds(123456));
  EXPECT_EQ(parsed("2024-01-01T00:00:00.123456789Z"), kSimulatedEpoch + nanoseconds(123456789));
  // Beyond nanoseconds the digits are truncated.
  EXPECT_EQ(parsed("2024-01-01T00:00:00.1234567899999Z"), kSimulatedEpoch + nanoseconds(123456789));
}

TEST(ClockTest, ParseRfc3339AppliesNumericOffsets) {
  EXPECT_EQ(parsed("2024-01-01T02:00:00+02:00"), kSimulatedEpoch);
  EXPECT_EQ(parsed("2023-12-31T19:30:00-04:30"), kSimulatedEpoch);
  EXPECT_EQ(parsed("2024-01-01T00:00:00+00:00"), kSimulatedEpoch);
  EXPECT_EQ(parsed("2024-01-01T05:45:00.25+05:45"), kSimulatedEpoch + milliseconds(250));
}

TEST(ClockTest, ParseRfc3339AcceptsLowercaseSeparators) {
  EXPECT_EQ(parsed("2024-01-01t00:00:00z"), kSimulatedEpoch);
}

TEST(ClockTest, FormatThenParseRoundTrips) {
  const TimePoint whole = kSimulatedEpoch + hours(24 * 400) + seconds(12345);
  EXPECT_EQ(parsed(formatRfc3339(whole)), whole);
  const TimePoint micro = whole + microseconds(654321);
  EXPECT_EQ(parsed(formatRfc3339Micro(micro)), micro);
  // Whole-second formatting loses the fraction, and only the fraction.
  EXPECT_EQ(parsed(formatRfc3339(micro)), whole);
}

TEST(ClockTest, ParseThenFormatRoundTrips) {
  for (const std::string text : {"2024-01-01T00:00:00Z", "1999-12-31T23:59:59Z",
                                 "2000-02-29T12:00:00Z", "2262-04-11T23:47:16Z"}) {
    EXPECT_EQ(formatRfc3339(parsed(text)), text);
  }
  EXPECT_EQ(formatRfc3339Micro(parsed("2024-06-30T08:09:10.000001Z")),
            "2024-06-30T08:09:10.000001Z");
}

TEST(ClockTest, ParseRfc3339RejectsMalformedText) {
  for (const std::string text : {
           "",
           "garbage",
           "2024-01-01",                 // no time
           "2024-01-01T00:00:00",        // no zone
           "2024-01-01 00:00:00Z",       // space instead of T
           "2024-1-01T00:00:00Z",        // short month
           "24-01-01T00:00:00Z",         // short year
           "2024-01-01T00:00Z",          // no seconds
           "2024-01-01T00:00:00.Z",      // empty fraction
           "2024-01-01T00:00:00ZZ",      // trailing text
           "2024-01-01T00:00:00Z ",      // trailing space
           " 2024-01-01T00:00:00Z",      // leading space
           "2024-01-01T00:00:00+0200",   // offset without colon
           "2024-01-01T00:00:00+02",     // offset without minutes
           "2024-01-01T00:00:00+24:00",  // offset hour out of range
           "2024-01-01T00:00:00+02:60",  // offset minute out of range
           "2024-13-01T00:00:00Z",       // month 13
           "2024-00-01T00:00:00Z",       // month 0
           "2023-02-29T00:00:00Z",       // not a leap year
           "2024-04-31T00:00:00Z",       // April has 30 days
           "2024-01-00T00:00:00Z",       // day 0
           "2024-01-01T24:00:00Z",       // hour 24
           "2024-01-01T00:60:00Z",       // minute 60
           "2024-01-01T00:00:60Z",       // leap second
           "2024-01-01T0a:00:00Z",       // letter in a number
           "+024-01-01T00:00:00Z",       // sign in a number
           "9999-12-31T23:59:59Z",       // outside what a nanosecond TimePoint holds
           "1600-01-01T00:00:00Z",       // likewise
       }) {
    TimePoint t = kSimulatedEpoch;
    EXPECT_FALSE(parseRfc3339(text, &t)) << '"' << text << '"';
    EXPECT_EQ(t, kSimulatedEpoch) << "output written on failure for \"" << text << '"';
  }
}

TEST(ClockTest, ParseRfc3339RejectsEmbeddedNul) {
  TimePoint t;
  EXPECT_FALSE(parseRfc3339(std::string("2024-01-01T00:00:00Z\0", 21), &t));
}

TEST(ClockTest, RealClockIsPastTheSimulatedEpoch) {
  // The only wall-clock assertion here: any machine running this test lives after 2024.
  RealClock clock;
  EXPECT_GT(clock.now(), kSimulatedEpoch);
}

// Two processes started the same day with the same scale (`fakekube serve` and `fakekube
// operator`, both --time-scale 10) must read the same time: the scaled clock is a function of the
// wall clock alone.
TEST(RealClockTest, ClocksOfTheSameScaleReadTheSameTime) {
  RealClock first(10);
  RealClock second(10);
  const TimePoint a = first.now();
  const TimePoint b = second.now();
  const TimePoint c = first.now();
  EXPECT_LE(a, b);
  EXPECT_LE(b, c);
}

TEST(RealClockTest, AScaledClockRunsAheadOfTheWallClockByItsScale) {
  RealClock wall;
  RealClock scaled(10);
  EXPECT_EQ(wall.timeScale(), 1);
  const TimePoint before = wall.now();
  const TimePoint read = scaled.now();
  const TimePoint after = wall.now();
  const TimePoint day = std::chrono::floor<std::chrono::days>(before);
  if (std::chrono::floor<std::chrono::days>(after) != day) GTEST_SKIP() << "read across midnight";
  EXPECT_GE(read, day + (before - day) * 10);
  EXPECT_LE(read, day + (after - day) * 10 + nanoseconds(10));
}

TEST(RealClockTest, AScaleBelowOneIsRealTime) { EXPECT_EQ(RealClock(0.5).timeScale(), 1); }

}  // namespace
}  // namespace fakekube
