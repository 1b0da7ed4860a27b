#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "fakekube/metrics/metrics_registry.h"
#include "fakekube/runtime/priority_queue.h"
#include "fakekube/runtime/workqueue_metrics.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(MetricsTest, RendersACounter) {
  MetricsRegistry registry;
  Counter requests =
      registry.counter("http_requests_total", "Total HTTP requests served.").withLabels({});
  requests.inc();
  requests.inc(2);
  EXPECT_EQ(requests.value(), 3);
  EXPECT_EQ(registry.renderPrometheusText(),
            "# HELP http_requests_total Total HTTP requests served.\n"
            "# TYPE http_requests_total counter\n"
            "http_requests_total 3\n");
}

TEST(MetricsTest, AnUnlabelledMetricExistsAtZeroFromRegistration) {
  MetricsRegistry registry;
  registry.counter("started_total", "Starts.");
  registry.gauge("waiting", "Waiting workers.", {"queue"});  // no series named: not rendered
  EXPECT_EQ(registry.renderPrometheusText(),
            "# HELP started_total Starts.\n"
            "# TYPE started_total counter\n"
            "started_total 0\n");
}

TEST(MetricsTest, RendersALabelledGaugeWithLabelsAndSeriesInOrder) {
  MetricsRegistry registry;
  // Declared zone-first; written and sorted app-first, as client_golang does.
  GaugeFamily temperature = registry.gauge("temperature_celsius", "Temperature.", {"zone", "app"});
  temperature.withLabels({"b", "x"}).set(21.5);
  temperature.withLabels({"a", "y"}).set(-3);
  Gauge ax = temperature.withLabels({"a", "x"});
  ax.set(1);
  ax.add(0.5);
  ax.dec();
  ax.sub(0.25);
  EXPECT_EQ(registry.renderPrometheusText(),
            "# HELP temperature_celsius Temperature.\n"
            "# TYPE temperature_celsius gauge\n"
            "temperature_celsius{app=\"x\",zone=\"a\"} 0.25\n"
            "temperature_celsius{app=\"x\",zone=\"b\"} 21.5\n"
            "temperature_celsius{app=\"y\",zone=\"a\"} -3\n");
}

TEST(MetricsTest, RendersAHistogramWithCumulativeBucketsSumAndCount) {
  MetricsRegistry registry;
  HistogramFamily latency = registry.histogram("request_duration_seconds", "Request latency.",
                                               {0.25, 0.5, 1}, {"method"});
  Histogram get = latency.withLabels({"GET"});
  get.observe(0.125);
  get.observe(0.25);  // on a bound: counts in that bucket (le is "less or equal")
  get.observe(0.375);
  get.observe(2);  // above every bound: only +Inf
  latency.withLabels({"DELETE"}).observe(1);
  EXPECT_EQ(get.count(), 4u);
  EXPECT_EQ(get.sum(), 2.75);
  EXPECT_EQ(registry.renderPrometheusText(),
            "# HELP request_duration_seconds Request latency.\n"
            "# TYPE request_duration_seconds histogram\n"
            "request_duration_seconds_bucket{method=\"DELETE\",le=\"0.25\"} 0\n"
            "request_duration_seconds_bucket{method=\"DELETE\",le=\"0.5\"} 0\n"
            "request_duration_seconds_bucket{method=\"DELETE\",le=\"1\"} 1\n"
            "request_duration_seconds_bucket{method=\"DELETE\",le=\"+Inf\"} 1\n"
            "request_duration_seconds_sum{method=\"DELETE\"} 1\n"
            "request_duration_seconds_count{method=\"DELETE\"} 1\n"
            "request_duration_seconds_bucket{method=\"GET\",le=\"0.25\"} 2\n"
            "request_duration_seconds_bucket{method=\"GET\",le=\"0.5\"} 3\n"
            "request_duration_seconds_bucket{method=\"GET\",le=\"1\"} 3\n"
            "request_duration_seconds_bucket{method=\"GET\",le=\"+Inf\"} 4\n"
            "request_duration_seconds_sum{method=\"GET\"} 2.75\n"
            "request_duration_seconds_count{method=\"GET\"} 4\n");
}

TEST(MetricsTest, AnUnlabelledHistogramAndATrailingInfBucket) {
  MetricsRegistry registry;
  Histogram h =
      registry
          .histogram("size_bytes", "Sizes.", {100, 1000, std::numeric_limits<double>::infinity()})
          .withLabels({});
  h.observe(50);
  EXPECT_EQ(registry.renderPrometheusText(),
            "# HELP size_bytes Sizes.\n"
            "# TYPE size_bytes histogram\n"
            "size_bytes_bucket{le=\"100\"} 1\n"
            "size_bytes_bucket{le=\"1000\"} 1\n"
            "size_bytes_bucket{le=\"+Inf\"} 1\n"
            "size_bytes_sum 50\n"
            "size_bytes_count 1\n");
}

TEST(MetricsTest, EscapesLabelValuesAndHelp) {
  MetricsRegistry registry;
  registry.counter("escapes_total", "Help with \\ backslash\nand newline; \"quotes\" stay.", {"v"})
      .withLabels({"a\\b\"c\nd"})
      .inc();
  EXPECT_EQ(registry.renderPrometheusText(),
            "# HELP escapes_total Help with \\\\ backslash\\nand newline; \"quotes\" stay.\n"
            "# TYPE escapes_total counter\n"
            "escapes_total{v=\"a\\\\b\\\"c\\nd\"} 1\n");
}

TEST(MetricsTest, FamiliesAreSortedByName) {
  MetricsRegistry registry;
  registry.gauge("b_metric", "B.").withLabels({}).set(2);
  registry.counter("a_metric", "A.").withLabels({}).inc();
  EXPECT_EQ(registry.renderPrometheusText(),
            "# HELP a_metric A.\n"
            "# TYPE a_metric counter\n"
            "a_metric 1\n"
            "# HELP b_metric B.\n"
            "# TYPE b_metric gauge\n"
            "b_metric 2\n");
}

TEST(MetricsTest, FormatsNumbersAsGoDoes) {
  EXPECT_EQ(formatPrometheusFloat(0), "0");
  EXPECT_EQ(formatPrometheusFloat(1), "1");
  EXPECT_EQ(formatPrometheusFloat(-1), "-1");
  EXPECT_EQ(formatPrometheusFloat(10), "10");
  EXPECT_EQ(formatPrometheusFloat(2.5), "2.5");
  EXPECT_EQ(formatPrometheusFloat(-0.5), "-0.5");
  EXPECT_EQ(formatPrometheusFloat(0.1), "0.1");
  EXPECT_EQ(formatPrometheusFloat(0.0001), "0.0001");
  EXPECT_EQ(formatPrometheusFloat(0.00001), "1e-05");
  EXPECT_EQ(formatPrometheusFloat(1e-8), "1e-08");
  EXPECT_EQ(formatPrometheusFloat(100000), "100000");
  EXPECT_EQ(formatPrometheusFloat(123456.7), "123456.7");
  EXPECT_EQ(formatPrometheusFloat(1234567), "1.234567e+06");
  EXPECT_EQ(formatPrometheusFloat(1e6), "1e+06");
  EXPECT_EQ(formatPrometheusFloat(1e21), "1e+21");
  EXPECT_EQ(formatPrometheusFloat(1.5e300), "1.5e+300");
  EXPECT_EQ(formatPrometheusFloat(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(formatPrometheusFloat(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(formatPrometheusFloat(std::nan("")), "NaN");
}

TEST(MetricsTest, RegisteringTheSameFamilyAgainAnswersIt) {
  MetricsRegistry registry;
  registry.counter("reconcile_total", "Reconciles.", {"controller"}).withLabels({"widget"}).inc();
  Counter again =
      registry.counter("reconcile_total", "Reconciles.", {"controller"}).withLabels({"widget"});
  EXPECT_EQ(again.value(), 1);
}

TEST(MetricsTest, RejectsWhatPrometheusRejects) {
  MetricsRegistry registry;
  EXPECT_THROW(registry.counter("1bad", "x"), std::invalid_argument);
  EXPECT_THROW(registry.counter("bad-name", "x"), std::invalid_argument);
  EXPECT_THROW(registry.counter("ok", "x", {"__reserved"}), std::invalid_argument);
  EXPECT_THROW(registry.counter("ok", "x", {"a", "a"}), std::invalid_argument);
  EXPECT_THROW(registry.histogram("h", "x", {1, 2}, {"le"}), std::invalid_argument);
  EXPECT_THROW(registry.histogram("h", "x", {2, 1}), std::invalid_argument);

  CounterFamily c = registry.counter("c_total", "x", {"a"});
  EXPECT_THROW(registry.gauge("c_total", "x", {"a"}), std::invalid_argument);
  EXPECT_THROW(registry.counter("c_total", "other help", {"a"}), std::invalid_argument);
  EXPECT_THROW(c.withLabels({}), std::invalid_argument);
  EXPECT_THROW(c.withLabels({"1", "2"}), std::invalid_argument);
  EXPECT_THROW(c.withLabels({"1"}).inc(-1), std::invalid_argument);
}

TEST(MetricsTest, ExportsAWorkQueueSnapshot) {
  WorkQueueMetrics m;
  m.depth = {{0, 2}, {10, 1}};
  m.adds = 7;
  m.retries = 2;
  m.queueDuration.observe(0.5);
  m.queueDuration.observe(0.002);
  m.workDuration.observe(3);
  m.unfinishedWorkSeconds = 1.5;
  m.longestRunningProcessorSeconds = 0.75;

  MetricsRegistry registry;
  exportWorkQueueMetrics(registry, "widgets", m);
  const std::string text = registry.renderPrometheusText();
  EXPECT_THAT(text, HasSubstr("# HELP workqueue_adds_total Total number of adds handled by "
                              "workqueue\n# TYPE workqueue_adds_total counter\n"
                              "workqueue_adds_total{name=\"widgets\"} 7\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE workqueue_depth gauge\n"
                              "workqueue_depth{name=\"widgets\",priority=\"0\"} 2\n"
                              "workqueue_depth{name=\"widgets\",priority=\"10\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("workqueue_retries_total{name=\"widgets\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("workqueue_unfinished_work_seconds{name=\"widgets\"} 1.5\n"));
  EXPECT_THAT(text,
              HasSubstr("workqueue_longest_running_processor_seconds{name=\"widgets\"} 0.75\n"));
  // client-go's buckets: 1e-08 .. 1000 s, cumulative.
  EXPECT_THAT(
      text,
      HasSubstr("# TYPE workqueue_queue_duration_seconds histogram\n"
                "workqueue_queue_duration_seconds_bucket{name=\"widgets\",le=\"1e-08\"} 0\n"));
  EXPECT_THAT(text,
              HasSubstr("workqueue_queue_duration_seconds_bucket{name=\"widgets\",le=\"0.01\"} 1\n"
                        "workqueue_queue_duration_seconds_bucket{name=\"widgets\",le=\"0.1\"} 1\n"
                        "workqueue_queue_duration_seconds_bucket{name=\"widgets\",le=\"1\"} 2\n"));
  EXPECT_THAT(text,
              HasSubstr("workqueue_queue_duration_seconds_bucket{name=\"widgets\",le=\"1000\"} 2\n"
                        "workqueue_queue_duration_seconds_bucket{name=\"widgets\",le=\"+Inf\"} 2\n"
                        "workqueue_queue_duration_seconds_sum{name=\"widgets\"} 0.502\n"
                        "workqueue_queue_duration_seconds_count{name=\"widgets\"} 2\n"));
  EXPECT_THAT(text,
              HasSubstr("workqueue_work_duration_seconds_bucket{name=\"widgets\",le=\"1\"} 0\n"
                        "workqueue_work_duration_seconds_bucket{name=\"widgets\",le=\"10\"} 1\n"));

  // A later snapshot replaces the figures of that queue; another queue gets its own series.
  m.adds = 9;
  m.depth[0] = 0;
  exportWorkQueueMetrics(registry, "widgets", m);
  exportWorkQueueMetrics(registry, "gadgets", WorkQueueMetrics{});
  const std::string later = registry.renderPrometheusText();
  EXPECT_THAT(later, HasSubstr("workqueue_adds_total{name=\"gadgets\"} 0\n"
                               "workqueue_adds_total{name=\"widgets\"} 9\n"));
  EXPECT_THAT(later, HasSubstr("workqueue_depth{name=\"gadgets\",priority=\"0\"} 0\n"
                               "workqueue_depth{name=\"widgets\",priority=\"0\"} 0\n"));
  EXPECT_THAT(later, Not(HasSubstr("workqueue_adds_total{name=\"widgets\"} 7\n")));
}

TEST(MetricsTest, ExportsALivePriorityQueue) {
  SimExecutor ex;
  PriorityQueue queue(ex, {.name = "widgets"});
  queue.add("default/a");
  queue.add("default/b");
  queue.addAfter("default/c", std::chrono::seconds(5));
  std::string got;
  queue.get([&](std::string key, bool) { got = key; });
  ex.advance(std::chrono::seconds(1));
  ASSERT_EQ(got, "default/a");
  queue.done(got);

  MetricsRegistry registry;
  exportWorkQueueMetrics(registry, "widgets", queue.metrics());
  const std::string text = registry.renderPrometheusText();
  EXPECT_THAT(text, HasSubstr("workqueue_depth{name=\"widgets\",priority=\"0\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("workqueue_adds_total{name=\"widgets\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("workqueue_retries_total{name=\"widgets\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("workqueue_work_duration_seconds_count{name=\"widgets\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("workqueue_work_duration_seconds_sum{name=\"widgets\"} 1\n"));
}

}  // namespace
}  // namespace fakekube
