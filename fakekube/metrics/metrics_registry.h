// MetricsRegistry: counters, gauges and histograms with labels, rendered in the Prometheus text
// exposition format (what controller-runtime's manager serves on /metrics through
// client_golang's registry).
//
// A metric is a family: a name, a help text, a type and the names of its labels. Each distinct
// set of label values is one series, created the first time withLabels() names it:
//
//   MetricsRegistry registry;
//   auto reconciles = registry.counter("controller_runtime_reconcile_total",
//                                      "Total number of reconciliations per controller",
//                                      {"controller", "result"});
//   reconciles.withLabels({"widget", "success"}).inc();
//
// A family without labels has exactly one series, withLabels({}), present (at 0) from the moment
// it is registered, as client_golang's plain Counter is. A labelled family shows only the series
// that were named.
//
// Rendering follows client_golang's text encoder so that the output can be compared line for
// line: families sorted by name, each with "# HELP" and "# TYPE"; series sorted by their label
// values (taken in label-name order); labels written in name order; values written as Go's
// strconv.FormatFloat(v, 'g', -1, 64) writes them ("1", "0.25", "1e-08", "1.5e+06", "+Inf",
// "NaN"). Histograms write cumulative _bucket series with an "le" label, the +Inf bucket, _sum and
// _count. Help text escapes backslash and newline; label values escape backslash, double quote
// and newline.
//
// Handles (Counter, Gauge, Histogram and the *Family types) are small values pointing into the
// registry; the registry must outlive them. Every operation may be called from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/metrics/duration_histogram.h"

namespace fakekube {

namespace metrics_detail {
struct Family;
struct Series;
}  // namespace metrics_detail

class Counter {
 public:
  // Adds `delta` (>= 0; a counter never goes down: std::invalid_argument otherwise).
  void inc(double delta = 1);
  // For a source that keeps its own running total (a work queue's WorkQueueMetrics): the
  // counter takes that value. A lower value reads to Prometheus as a counter reset, which is
  // what it is (the source was recreated).
  void setTotal(double total);
  double value() const;

 private:
  friend class MetricsRegistry;
  template <class>
  friend class MetricFamily;
  Counter(metrics_detail::Family* f, metrics_detail::Series* s) : family_(f), series_(s) {}
  metrics_detail::Family* family_;
  metrics_detail::Series* series_;
};

class Gauge {
 public:
  void set(double value);
  void add(double delta);
  void sub(double delta) { add(-delta); }
  void inc() { add(1); }
  void dec() { add(-1); }
  double value() const;

 private:
  template <class>
  friend class MetricFamily;
  Gauge(metrics_detail::Family* f, metrics_detail::Series* s) : family_(f), series_(s) {}
  metrics_detail::Family* family_;
  metrics_detail::Series* series_;
};

class Histogram {
 public:
  // Counts `value` in the first bucket whose upper bound is >= value (and so, cumulatively, in
  // every bucket after it), adds it to the sum.
  void observe(double value);
  // Replaces the series' state with a snapshot kept elsewhere (a work queue's histograms). The
  // snapshot's bounds must be the family's buckets (std::invalid_argument otherwise).
  void load(const DurationHistogram& snapshot);
  std::uint64_t count() const;
  double sum() const;

 private:
  template <class>
  friend class MetricFamily;
  Histogram(metrics_detail::Family* f, metrics_detail::Series* s) : family_(f), series_(s) {}
  metrics_detail::Family* family_;
  metrics_detail::Series* series_;
};

// A registered metric: hands out the series for a set of label values.
template <class Handle>
class MetricFamily {
 public:
  // The series for these label values, given in the order of the family's label names; created
  // (at zero) when first named. Throws std::invalid_argument when the number of values differs
  // from the number of label names.
  Handle withLabels(const std::vector<std::string>& values) const;
  const std::string& name() const;

 private:
  friend class MetricsRegistry;
  explicit MetricFamily(metrics_detail::Family* f) : family_(f) {}
  metrics_detail::Family* family_;
};

using CounterFamily = MetricFamily<Counter>;
using GaugeFamily = MetricFamily<Gauge>;
using HistogramFamily = MetricFamily<Histogram>;

class MetricsRegistry {
 public:
  MetricsRegistry();
  ~MetricsRegistry();
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // Registers a family, or answers the one already registered under `name` when it was
  // registered the same way (type, help, labels, buckets), so that every component can
  // register what it uses. Throws std::invalid_argument for an invalid metric or label name
  // ([a-zA-Z_:][a-zA-Z0-9_:]*, labels [a-zA-Z_][a-zA-Z0-9_]* and not starting with "__"), a
  // repeated label name, or a name already registered differently.
  CounterFamily counter(const std::string& name, const std::string& help,
                        const std::vector<std::string>& labelNames = {});
  GaugeFamily gauge(const std::string& name, const std::string& help,
                    const std::vector<std::string>& labelNames = {});
  // `buckets`: the upper bounds, strictly increasing; the +Inf bucket is always added (a
  // trailing +Inf given here is the same one). A histogram cannot have a label named "le".
  HistogramFamily histogram(const std::string& name, const std::string& help,
                            const std::vector<double>& buckets,
                            const std::vector<std::string>& labelNames = {});

  // Every family with at least one series, in the text exposition format (version 0.0.4).
  std::string renderPrometheusText() const;

 private:
  metrics_detail::Family* add(const std::string& name, const std::string& help, int type,
                              const std::vector<std::string>& labelNames,
                              const std::vector<double>& buckets);

  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<metrics_detail::Family>> families_;
};

// --- helpers ---

// A number as Go's strconv.FormatFloat(v, 'g', -1, 64) writes it, which is how Prometheus text
// carries values and bucket bounds.
std::string formatPrometheusFloat(double value);

}  // namespace fakekube
