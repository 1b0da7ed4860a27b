#include "fakekube/runtime/rate_limiter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace fakekube {

ItemExponentialFailureRateLimiter::ItemExponentialFailureRateLimiter(Duration baseDelay,
                                                                     Duration maxDelay)
    : baseDelay_(baseDelay), maxDelay_(maxDelay) {}

Duration ItemExponentialFailureRateLimiter::when(std::string_view item) {
  int exp;
  {
    std::lock_guard lock(mu_);
    auto it = failures_.find(item);
    if (it == failures_.end()) it = failures_.emplace(std::string(item), 0).first;
    exp = it->second++;
  }
  // In floating point, as client-go does, so that a long run of failures saturates at maxDelay
  // instead of overflowing.
  const double backoff = static_cast<double>(baseDelay_.count()) * std::pow(2.0, exp);
  if (backoff >= static_cast<double>(std::numeric_limits<Duration::rep>::max())) return maxDelay_;
  const Duration calculated(static_cast<Duration::rep>(backoff));
  return std::min(calculated, maxDelay_);
}

void ItemExponentialFailureRateLimiter::forget(std::string_view item) {
  std::lock_guard lock(mu_);
  if (auto it = failures_.find(item); it != failures_.end()) failures_.erase(it);
}

int ItemExponentialFailureRateLimiter::numRequeues(std::string_view item) {
  std::lock_guard lock(mu_);
  auto it = failures_.find(item);
  return it == failures_.end() ? 0 : it->second;
}

BucketRateLimiter::BucketRateLimiter(const Clock& clock, double qps, int burst)
    : clock_(clock), qps_(qps), burst_(burst), tokens_(burst), last_(clock.now()) {
  if (!(qps > 0)) throw std::invalid_argument("BucketRateLimiter: qps must be > 0");
  if (burst < 1) throw std::invalid_argument("BucketRateLimiter: burst must be >= 1");
}

double BucketRateLimiter::tokensAt(TimePoint now) const {
  // A clock that reads earlier than the last reservation adds nothing (x/time/rate clamps too).
  const Duration elapsed = std::max(Duration::zero(), now - last_);
  const double refilled = std::chrono::duration<double>(elapsed).count() * qps_;
  return std::min(burst_, tokens_ + refilled);
}

Duration BucketRateLimiter::when(std::string_view) {
  std::lock_guard lock(mu_);
  const TimePoint now = clock_.now();
  tokens_ = tokensAt(now) - 1;
  last_ = std::max(last_, now);
  if (tokens_ >= 0) return Duration::zero();
  // The debt in seconds, truncated to nanoseconds as Go's time.Duration conversion does.
  const double waitNs = -tokens_ / qps_ * 1e9;
  if (waitNs >= static_cast<double>(std::numeric_limits<Duration::rep>::max())) {
    return Duration::max();
  }
  return Duration(static_cast<Duration::rep>(waitNs));
}

double BucketRateLimiter::tokens() {
  std::lock_guard lock(mu_);
  return tokensAt(clock_.now());
}

MaxOfRateLimiter::MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters)
    : limiters_(std::move(limiters)) {}

Duration MaxOfRateLimiter::when(std::string_view item) {
  Duration longest = Duration::zero();
  for (auto& limiter : limiters_) longest = std::max(longest, limiter->when(item));
  return longest;
}

void MaxOfRateLimiter::forget(std::string_view item) {
  for (auto& limiter : limiters_) limiter->forget(item);
}

int MaxOfRateLimiter::numRequeues(std::string_view item) {
  int most = 0;
  for (auto& limiter : limiters_) most = std::max(most, limiter->numRequeues(item));
  return most;
}

std::unique_ptr<RateLimiter> defaultControllerRateLimiter(const Clock& clock) {
  std::vector<std::unique_ptr<RateLimiter>> limiters;
  limiters.push_back(std::make_unique<ItemExponentialFailureRateLimiter>(
      std::chrono::milliseconds(5), std::chrono::seconds(1000)));
  limiters.push_back(std::make_unique<BucketRateLimiter>(clock, 10.0, 100));
  return std::make_unique<MaxOfRateLimiter>(std::move(limiters));
}

}  // namespace fakekube
