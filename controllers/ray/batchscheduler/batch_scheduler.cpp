#include "controllers/ray/batchscheduler/internal/batch_scheduler.h"

#include <fmt/format.h>

#include "controllers/ray/batchscheduler/internal/scheduler_plugins_batch_scheduler.h"
#include "controllers/ray/batchscheduler/internal/volcano_batch_scheduler.h"

namespace fakekube::ray::batchscheduler {

Result<void> validateBatchSchedulerConfig(std::string_view batchScheduler,
                                          bool enableBatchScheduler) {
  if (enableBatchScheduler && !batchScheduler.empty()) {
    return tl::unexpected(
        Status::badRequest("both feature flags enable-batch-scheduler (deprecated) and "
                           "batch-scheduler are set. Please use batch-scheduler only"));
  }
  if (!batchScheduler.empty() && batchScheduler != kVolcanoPluginName &&
      batchScheduler != kSchedulerPluginsPluginName) {
    return tl::unexpected(
        Status::badRequest(fmt::format("scheduler is not supported, name={}", batchScheduler)));
  }
  return {};
}

Result<std::shared_ptr<BatchScheduler>> newBatchScheduler(std::string_view batchScheduler,
                                                          bool enableBatchScheduler) {
  std::shared_ptr<BatchScheduler> scheduler;
  if (batchScheduler == kVolcanoPluginName) {
    scheduler = std::make_shared<VolcanoBatchScheduler>();
  } else if (batchScheduler == kSchedulerPluginsPluginName) {
    scheduler = std::make_shared<SchedulerPluginsBatchScheduler>();
  } else if (!batchScheduler.empty()) {
    return tl::unexpected(
        Status::badRequest(fmt::format("the scheduler is not supported, name={}", batchScheduler)));
  }
  // The legacy option, kept for backward compatibility: it means volcano.
  if (enableBatchScheduler) scheduler = std::make_shared<VolcanoBatchScheduler>();
  return scheduler;
}

}  // namespace fakekube::ray::batchscheduler
