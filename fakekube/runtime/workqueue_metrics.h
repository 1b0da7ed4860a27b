// The workqueue_* metrics client-go and controller-runtime export, from a PriorityQueue's snapshot
// into a MetricsRegistry.
#pragma once

#include <string>

#include "fakekube/metrics/metrics_registry.h"
#include "fakekube/runtime/priority_queue.h"

namespace fakekube {

// Registers the workqueue_* families client-go and controller-runtime export (idempotent) and
// sets the series of the queue `queueName` from a PriorityQueue::metrics() snapshot:
//
//   workqueue_depth{name,priority}                 gauge, one series per priority
//   workqueue_adds_total{name}                     counter
//   workqueue_retries_total{name}                  counter
//   workqueue_queue_duration_seconds{name}         histogram (client-go's buckets, 1e-8..1e3 s)
//   workqueue_work_duration_seconds{name}          histogram
//   workqueue_unfinished_work_seconds{name}        gauge
//   workqueue_longest_running_processor_seconds{name}  gauge
//
// The depth carries controller-runtime's priority-queue "priority" label. Call it whenever the
// figures should be refreshed (before rendering, typically).
void exportWorkQueueMetrics(MetricsRegistry& registry, const std::string& queueName,
                            const WorkQueueMetrics& snapshot);

}  // namespace fakekube
