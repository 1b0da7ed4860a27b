// DurationHistogram: a histogram of durations in seconds, shaped as Prometheus keeps one, that a
// component fills on its own (a work queue's queue and work times) and a MetricsRegistry loads
// (metrics_registry.h: Histogram::load).
#pragma once

#include <cstdint>
#include <vector>

namespace fakekube {

// A histogram in seconds, Prometheus-shaped: `counts[i]` is the number of observations
// <= `bounds[i]` (cumulative), `count` and `sum` cover all of them.
struct DurationHistogram {
  // client-go's workqueue buckets: 10 ns, 100 ns, ..., 1000 s (ExponentialBuckets(1e-8, 10, 12)).
  static std::vector<double> defaultBounds();

  std::vector<double> bounds = defaultBounds();
  std::vector<std::uint64_t> counts = std::vector<std::uint64_t>(bounds.size(), 0);
  std::uint64_t count = 0;
  double sum = 0;

  void observe(double seconds);
};

}  // namespace fakekube
