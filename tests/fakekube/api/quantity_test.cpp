// Resource quantities: the canonical integers the scheduler sums, and the errors bad input gets.
#include "fakekube/api/quantity.h"

#include <gtest/gtest.h>

#include <string>

namespace fakekube {
namespace {

std::int64_t units(std::string_view text) {
  auto parsed = parseQuantity(text);
  EXPECT_TRUE(parsed.has_value()) << text << ": " << parsed.error().str();
  return parsed.value_or(-12345);
}
std::int64_t milli(std::string_view text) {
  auto parsed = parseMilliQuantity(text);
  EXPECT_TRUE(parsed.has_value()) << text << ": " << parsed.error().str();
  return parsed.value_or(-12345);
}

TEST(QuantityTest, CpuIsCountedInMilliUnits) {
  EXPECT_EQ(milli("500m"), 500);
  EXPECT_EQ(milli("2"), 2000);
  EXPECT_EQ(milli("1.5"), 1500);
  EXPECT_EQ(milli("0.1"), 100);
  EXPECT_EQ(milli("1e3"), 1'000'000);
  EXPECT_EQ(milli("1.5m"), 2);  // rounded up, as MilliValue() does
  EXPECT_EQ(*parseResourceQuantity("cpu", "250m"), 250);
}

TEST(QuantityTest, MemoryAndCountsAreCountedInUnits) {
  EXPECT_EQ(units("1Gi"), 1073741824);
  EXPECT_EQ(units("512Mi"), 536870912);
  EXPECT_EQ(units("1.5Gi"), 1610612736);
  EXPECT_EQ(units("1G"), 1'000'000'000);
  EXPECT_EQ(units("100k"), 100'000);
  EXPECT_EQ(units("1e3"), 1000);
  EXPECT_EQ(units("2E2"), 200);
  EXPECT_EQ(units("4"), 4);
  EXPECT_EQ(units("+7"), 7);
  EXPECT_EQ(units("-3"), -3);
  EXPECT_EQ(units("100m"), 1);  // rounded up, as Value() does
  EXPECT_EQ(units("1Ki"), 1024);
  EXPECT_EQ(units("7Ei"), 7 * (1LL << 60));
  EXPECT_EQ(*parseResourceQuantity("memory", "1Mi"), 1048576);
  EXPECT_EQ(*parseResourceQuantity("nvidia.com/gpu", "2"), 2);
}

TEST(QuantityTest, BadInputIsAnErrorValue) {
  const std::string formatMessage =
      "quantities must match the regular expression "
      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': ";
  for (std::string text : {"", "abc", "1.2.3", "5Gb", "Mi", ".", "1 Gi", "--1"}) {
    auto parsed = parseQuantity(text);
    ASSERT_FALSE(parsed.has_value()) << text;
    EXPECT_EQ(parsed.error().code, 400) << text;
    EXPECT_EQ(parsed.error().message, formatMessage + "\"" + text + "\"") << text;
  }
  for (std::string text : {"5iK", "1e", "3Kii", "1mm"}) {
    auto parsed = parseQuantity(text);
    ASSERT_FALSE(parsed.has_value()) << text;
    EXPECT_EQ(parsed.error().message, "unable to parse quantity's suffix: \"" + text + "\"");
  }
  for (std::string text : {"99999999999999999999", "10Ei", "1e30"}) {
    auto parsed = parseQuantity(text);
    ASSERT_FALSE(parsed.has_value()) << text;
    EXPECT_EQ(parsed.error().message, "quantity is too large to represent: \"" + text + "\"");
  }
  EXPECT_FALSE(parseMilliQuantity("9999999999999999").has_value());  // 1e16 cores in milli
}

}  // namespace
}  // namespace fakekube
