// RateLimiter: how long a failed item waits before its next attempt (client-go's
// workqueue.TypedRateLimiter), the policy behind PriorityQueue::addRateLimited.
//
// A controller retries a reconcile that returned an error. Retrying at once would hammer the API
// server with a request that just failed, so the queue asks a rate limiter "how long should this
// key wait?" each time. The answers reproduce client-go exactly, because how fast a controller
// retries is behaviour that code written against fakekube observes:
//
//   ItemExponentialFailureRateLimiter  per key: base·2^failures, capped (5 ms, 10 ms, 20 ms, …)
//   BucketRateLimiter                  for all keys together: a token bucket (10 qps, burst 100)
//   MaxOfRateLimiter                   the longest of several answers
//   defaultControllerRateLimiter()     max(exponential 5 ms..1000 s, bucket 10 qps / 100), the
//                                      limiter every controller-runtime controller uses
//
// when() is not a question without side effects: it records a failure (exponential) or spends a
// token (bucket). forget() is what a successful reconcile calls so the key's next failure starts
// again from the base delay.
//
// Time. The bucket reads the Clock it is given (an executor's), so on a SimExecutor it refills
// in virtual time. The exponential limiter needs no clock: its answer depends only on the count.
//
// Thread-safety: every limiter here may be called from any thread (a queue on a
// ThreadPoolExecutor calls it from whichever thread adds).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fakekube/sim/clock.h"

namespace fakekube {

class RateLimiter {
 public:
  virtual ~RateLimiter() = default;

  // How long `item` should wait before its next attempt. Counts as one more attempt.
  virtual Duration when(std::string_view item) = 0;
  // Stops tracking `item`: its failures are forgotten (it does not give a bucket token back).
  virtual void forget(std::string_view item) = 0;
  // How many times when() was asked about `item` since it was last forgotten.
  virtual int numRequeues(std::string_view item) = 0;
};

namespace runtime_detail {
// Hash and equality that let a std::string-keyed unordered container be searched with a
// string_view, so looking up a key that is already there does not build a std::string.
struct KeyHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
struct KeyEqual {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return a == b; }
};
}  // namespace runtime_detail

// Per-item exponential backoff: the n-th consecutive failure of a key (counting from 0) waits
// base·2^n, never more than maxDelay. client-go's ItemExponentialFailureRateLimiter.
class ItemExponentialFailureRateLimiter final : public RateLimiter {
 public:
  explicit ItemExponentialFailureRateLimiter(Duration baseDelay = std::chrono::milliseconds(5),
                                             Duration maxDelay = std::chrono::seconds(1000));

  Duration when(std::string_view item) override;
  void forget(std::string_view item) override;
  int numRequeues(std::string_view item) override;

 private:
  const Duration baseDelay_;
  const Duration maxDelay_;
  std::mutex mu_;
  std::unordered_map<std::string, int, runtime_detail::KeyHash, runtime_detail::KeyEqual> failures_;
};

// One token bucket shared by every item: `burst` attempts pass at once, after that `qps` per
// second. client-go's BucketRateLimiter over golang.org/x/time/rate, with its reservation model:
// when() always takes a token, going into debt if the bucket is empty, and answers how long
// until that debt is paid off. So 100 failures at one instant wait 0; the 101st waits 100 ms,
// the 102nd 200 ms; the bucket refills at `qps` tokens per second, up to `burst`.
//
// It tracks no items: forget() does nothing and numRequeues() is always 0.
class BucketRateLimiter final : public RateLimiter {
 public:
  // `clock` must outlive the limiter. qps > 0 and burst >= 1, else std::invalid_argument.
  BucketRateLimiter(const Clock& clock, double qps = 10, int burst = 100);

  Duration when(std::string_view item) override;
  void forget(std::string_view item) override {}
  int numRequeues(std::string_view item) override { return 0; }

  // Tokens available now (negative while reservations are outstanding). For tests.
  double tokens();

 private:
  // The bucket refilled up to `now` (x/time/rate's advance()).
  double tokensAt(TimePoint now) const;

  const Clock& clock_;
  const double qps_;
  const double burst_;
  std::mutex mu_;
  double tokens_;
  TimePoint last_;
};

// The longest wait any of its limiters asks for; every limiter sees every call, so each keeps
// counting. numRequeues is the largest of theirs. client-go's MaxOfRateLimiter.
class MaxOfRateLimiter final : public RateLimiter {
 public:
  explicit MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters);

  Duration when(std::string_view item) override;
  void forget(std::string_view item) override;
  int numRequeues(std::string_view item) override;

 private:
  std::vector<std::unique_ptr<RateLimiter>> limiters_;
};

// controller-runtime's default for every controller (client-go's
// DefaultTypedControllerRateLimiter): max(per-item exponential 5 ms..1000 s, bucket 10 qps with
// burst 100). The bucket only matters when many keys fail at once: it caps the retry storm of a
// controller whose every reconcile fails (say, the API server is down) at 10 per second.
std::unique_ptr<RateLimiter> defaultControllerRateLimiter(const Clock& clock);

}  // namespace fakekube
