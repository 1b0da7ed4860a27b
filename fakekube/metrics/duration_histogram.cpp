#include "fakekube/metrics/duration_histogram.h"

#include <algorithm>

namespace fakekube {

std::vector<double> DurationHistogram::defaultBounds() {
  std::vector<double> bounds;
  double bound = 1e-8;
  for (int i = 0; i < 12; ++i, bound *= 10) bounds.push_back(bound);
  return bounds;
}

void DurationHistogram::observe(double value) {
  ++count;
  sum += value;
  // Cumulative: the observation counts in every bucket whose bound it does not exceed.
  auto first = std::lower_bound(bounds.begin(), bounds.end(), value);
  for (auto i = static_cast<std::size_t>(first - bounds.begin()); i < counts.size(); ++i) {
    ++counts[i];
  }
}

}  // namespace fakekube
