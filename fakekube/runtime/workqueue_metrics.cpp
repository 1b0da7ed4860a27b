#include "fakekube/runtime/workqueue_metrics.h"

#include <vector>

namespace fakekube {

void exportWorkQueueMetrics(MetricsRegistry& registry, const std::string& queueName,
                            const WorkQueueMetrics& snapshot) {
  // Names and help texts as client-go's and controller-runtime's workqueue metrics provider
  // registers them.
  const std::vector<double> buckets = DurationHistogram::defaultBounds();
  auto depth =
      registry.gauge("workqueue_depth", "Current depth of workqueue", {"name", "priority"});
  auto adds = registry.counter("workqueue_adds_total", "Total number of adds handled by workqueue",
                               {"name"});
  auto retries = registry.counter("workqueue_retries_total",
                                  "Total number of retries handled by workqueue", {"name"});
  auto queueDuration = registry.histogram(
      "workqueue_queue_duration_seconds",
      "How long in seconds an item stays in workqueue before being requested", buckets, {"name"});
  auto workDuration = registry.histogram(
      "workqueue_work_duration_seconds",
      "How long in seconds processing an item from workqueue takes.", buckets, {"name"});
  auto unfinished = registry.gauge(
      "workqueue_unfinished_work_seconds",
      "How many seconds of work has been done that is in progress and hasn't been observed by "
      "work_duration. Large values indicate stuck threads. One can deduce the number of stuck "
      "threads by observing the rate at which this increases.",
      {"name"});
  auto longest = registry.gauge(
      "workqueue_longest_running_processor_seconds",
      "How many seconds has the longest running processor for workqueue been running.", {"name"});

  // Priority 0 always, so an idle queue shows a depth of 0 rather than nothing.
  depth.withLabels({queueName, "0"}).set(static_cast<double>(snapshot.depthAt(0)));
  for (const auto& [priority, n] : snapshot.depth) {
    depth.withLabels({queueName, std::to_string(priority)}).set(static_cast<double>(n));
  }
  adds.withLabels({queueName}).setTotal(static_cast<double>(snapshot.adds));
  retries.withLabels({queueName}).setTotal(static_cast<double>(snapshot.retries));
  queueDuration.withLabels({queueName}).load(snapshot.queueDuration);
  workDuration.withLabels({queueName}).load(snapshot.workDuration);
  unfinished.withLabels({queueName}).set(snapshot.unfinishedWorkSeconds);
  longest.withLabels({queueName}).set(snapshot.longestRunningProcessorSeconds);
}

}  // namespace fakekube
