#include "fakekube/runtime/rate_limiter.h"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "fakekube/sim/sim_executor.h"

namespace fakekube {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(ItemExponentialFailureRateLimiterTest, DoublesFromFiveMillisecondsPerFailure) {
  ItemExponentialFailureRateLimiter limiter;
  EXPECT_EQ(limiter.when("default/a"), milliseconds(5));
  EXPECT_EQ(limiter.when("default/a"), milliseconds(10));
  EXPECT_EQ(limiter.when("default/a"), milliseconds(20));
  EXPECT_EQ(limiter.when("default/a"), milliseconds(40));
  EXPECT_EQ(limiter.numRequeues("default/a"), 4);
}

TEST(ItemExponentialFailureRateLimiterTest, CountsEachItemSeparately) {
  ItemExponentialFailureRateLimiter limiter;
  limiter.when("default/a");
  limiter.when("default/a");
  EXPECT_EQ(limiter.when("default/b"), milliseconds(5));
  EXPECT_EQ(limiter.numRequeues("default/a"), 2);
  EXPECT_EQ(limiter.numRequeues("default/b"), 1);
  EXPECT_EQ(limiter.numRequeues("default/never"), 0);
}

TEST(ItemExponentialFailureRateLimiterTest, ForgetStartsAgainFromTheBase) {
  ItemExponentialFailureRateLimiter limiter;
  for (int i = 0; i < 5; ++i) limiter.when("default/a");
  limiter.forget("default/a");
  EXPECT_EQ(limiter.numRequeues("default/a"), 0);
  EXPECT_EQ(limiter.when("default/a"), milliseconds(5));
  limiter.forget("default/never-seen");  // harmless
}

TEST(ItemExponentialFailureRateLimiterTest, CapsAtTheMaximumAndNeverOverflows) {
  ItemExponentialFailureRateLimiter limiter;
  // 5 ms * 2^17 = 655 s; 2^18 would be 1310 s.
  for (int i = 0; i < 17; ++i) limiter.when("default/a");
  EXPECT_EQ(limiter.when("default/a"), milliseconds(655360));
  EXPECT_EQ(limiter.when("default/a"), seconds(1000));
  // 2^2000 does not fit in any integer; the answer stays at the cap.
  for (int i = 0; i < 2000; ++i) limiter.when("default/a");
  EXPECT_EQ(limiter.when("default/a"), seconds(1000));
}

TEST(ItemExponentialFailureRateLimiterTest, CustomBaseAndMaximum) {
  ItemExponentialFailureRateLimiter limiter(seconds(1), seconds(3));
  EXPECT_EQ(limiter.when("x"), seconds(1));
  EXPECT_EQ(limiter.when("x"), seconds(2));
  EXPECT_EQ(limiter.when("x"), seconds(3));
  EXPECT_EQ(limiter.when("x"), seconds(3));
}

TEST(BucketRateLimiterTest, BurstPassesThenTenPerSecond) {
  SimExecutor executor;
  BucketRateLimiter limiter(executor.clock(), 10, 100);
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(limiter.when("k" + std::to_string(i)), Duration::zero()) << i;
  }
  // Each further reservation at the same instant goes one token deeper into debt.
  EXPECT_EQ(limiter.when("k100"), milliseconds(100));
  EXPECT_EQ(limiter.when("k101"), milliseconds(200));
  EXPECT_EQ(limiter.when("k102"), milliseconds(300));
  EXPECT_DOUBLE_EQ(limiter.tokens(), -3);
}

TEST(BucketRateLimiterTest, RefillsOnTheExecutorsClock) {
  SimExecutor executor;
  BucketRateLimiter limiter(executor.clock(), 10, 100);
  for (int i = 0; i < 102; ++i) limiter.when("k");  // 2 tokens in debt
  executor.advance(seconds(1));                     // +10 tokens
  EXPECT_DOUBLE_EQ(limiter.tokens(), 8);
  for (int i = 0; i < 8; ++i) ASSERT_EQ(limiter.when("k"), Duration::zero()) << i;
  EXPECT_EQ(limiter.when("k"), milliseconds(100));
  executor.advance(milliseconds(50));  // half a token: the debt of 1 is half paid
  EXPECT_EQ(limiter.when("k"), milliseconds(150));
}

TEST(BucketRateLimiterTest, NeverHoldsMoreThanTheBurst) {
  SimExecutor executor;
  BucketRateLimiter limiter(executor.clock(), 10, 100);
  executor.advance(std::chrono::hours(1));
  EXPECT_DOUBLE_EQ(limiter.tokens(), 100);
  for (int i = 0; i < 100; ++i) limiter.when("k");
  EXPECT_EQ(limiter.when("k"), milliseconds(100));
}

TEST(BucketRateLimiterTest, TracksNoItems) {
  SimExecutor executor;
  BucketRateLimiter limiter(executor.clock(), 10, 1);
  limiter.when("a");
  EXPECT_EQ(limiter.numRequeues("a"), 0);
  limiter.forget("a");  // does not give the token back
  EXPECT_EQ(limiter.when("a"), milliseconds(100));
}

TEST(BucketRateLimiterTest, RejectsANonPositiveRateOrBurst) {
  SimExecutor executor;
  EXPECT_THROW(BucketRateLimiter(executor.clock(), 0, 10), std::invalid_argument);
  EXPECT_THROW(BucketRateLimiter(executor.clock(), 10, 0), std::invalid_argument);
}

TEST(MaxOfRateLimiterTest, AnswersTheLongestAndForwardsEverything) {
  std::vector<std::unique_ptr<RateLimiter>> limiters;
  limiters.push_back(
      std::make_unique<ItemExponentialFailureRateLimiter>(milliseconds(1), seconds(1)));
  limiters.push_back(
      std::make_unique<ItemExponentialFailureRateLimiter>(milliseconds(10), milliseconds(15)));
  MaxOfRateLimiter limiter(std::move(limiters));
  EXPECT_EQ(limiter.when("a"), milliseconds(10));  // max(1, 10)
  EXPECT_EQ(limiter.when("a"), milliseconds(15));  // max(2, 15 capped)
  EXPECT_EQ(limiter.when("a"), milliseconds(15));  // max(4, 15)
  EXPECT_EQ(limiter.when("a"), milliseconds(15));  // max(8, 15)
  EXPECT_EQ(limiter.when("a"), milliseconds(16));  // max(16, 15)
  EXPECT_EQ(limiter.numRequeues("a"), 5);
  limiter.forget("a");
  EXPECT_EQ(limiter.numRequeues("a"), 0);
  EXPECT_EQ(limiter.when("a"), milliseconds(10));
}

TEST(DefaultControllerRateLimiterTest, PerItemBackoffUntilTheBucketRunsDry) {
  SimExecutor executor;
  auto limiter = defaultControllerRateLimiter(executor.clock());
  // 100 different keys fail at once: each waits its own first backoff, 5 ms.
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(limiter->when("default/rc-" + std::to_string(i)), milliseconds(5)) << i;
  }
  // The 101st is held back by the bucket: 10 per second overall.
  EXPECT_EQ(limiter->when("default/rc-100"), milliseconds(100));
  EXPECT_EQ(limiter->when("default/rc-101"), milliseconds(200));
  EXPECT_EQ(limiter->numRequeues("default/rc-0"), 1);
  limiter->forget("default/rc-0");
  EXPECT_EQ(limiter->numRequeues("default/rc-0"), 0);
}

TEST(DefaultControllerRateLimiterTest, OneFailingKeyBacksOffExponentially) {
  SimExecutor executor;
  auto limiter = defaultControllerRateLimiter(executor.clock());
  std::vector<Duration> delays;
  for (int i = 0; i < 6; ++i) delays.push_back(limiter->when("default/a"));
  EXPECT_EQ(delays, (std::vector<Duration>{milliseconds(5), milliseconds(10), milliseconds(20),
                                           milliseconds(40), milliseconds(80), milliseconds(160)}));
}

}  // namespace
}  // namespace fakekube
