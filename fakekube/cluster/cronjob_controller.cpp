#include "fakekube/cluster/cronjob_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "fakekube/api/conditions.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/controller_utils.h"
#include "fakekube/cluster/cron_schedule.h"
#include "fakekube/runtime/builder.h"

namespace fakekube {

namespace {

using namespace workload;  // NOLINT: the shared controller helpers

constexpr const char* kScheduledTimestampAnnotation =
    "batch.kubernetes.io/cronjob-scheduled-timestamp";
constexpr int kTooManyMissed = 100;

const Json& field(const Json& object, const char* key) {
  static const Json kEmpty = Json::object();
  auto it = object.find(key);
  return it != object.end() && it->is_object() ? *it : kEmpty;
}

// "Complete" or "Failed" when the Job has finished, "" otherwise.
std::string finishedAs(const Json& job) {
  for (const char* type : {"Complete", "Failed"}) {
    const Json* c = findCondition(job, type);
    if (c && c->value("status", "") == "True") return type;
  }
  return "";
}

class CronJobController {
 public:
  CronJobController(Manager& manager, CronJobControllerOptions options)
      : manager_(manager), options_(options) {}
  ReconcileOutcome reconcile(const ReconcileRequest& request);

 private:
  void event(const Json& cronJob, std::string_view type, std::string_view reason,
             const std::string& message) {
    if (options_.recordEvents) {
      (void)manager_.eventRecorder("cronjob-controller").event(cronJob, type, reason, message);
    }
  }
  Result<void> deleteJob(const Json& cronJob, const Json& job);

  Manager& manager_;
  const CronJobControllerOptions options_;
};

Result<void> CronJobController::deleteJob(const Json& cronJob, const Json& job) {
  DeleteOptions options;
  options.propagationPolicy = "Background";
  auto deleted =
      manager_.client().deleteObject(kJobs, meta::namespace_(job), meta::name(job), options);
  if (!deleted && !isNotFound(deleted.error())) {
    event(cronJob, "Warning", "FailedDelete",
          fmt::format("Deleted job: {}", deleted.error().message));
    return tl::unexpected(deleted.error());
  }
  event(cronJob, "Normal", "SuccessfulDelete", fmt::format("Deleted job {}", meta::name(job)));
  return {};
}

ReconcileOutcome CronJobController::reconcile(const ReconcileRequest& request) {
  auto read = manager_.cache().getShared(kCronJobs, request.namespace_, request.name);
  if (!read)
    return isNotFound(read.error()) ? ReconcileOutcome(ReconcileResult{})
                                    : reconcileError(read.error());
  const Json& cronJob = **read;
  const Json& spec = field(cronJob, "spec");
  const Json& oldStatus = field(cronJob, "status");
  Json status = oldStatus;
  const TimePoint now = manager_.executor().clock().now();

  // The Jobs it owns.
  std::vector<ObjectPtr> jobs;
  for (const auto& job : listInNamespace(manager_.cache(), kJobs, request.namespace_)) {
    if (isControlledBy(*job, meta::uid(cronJob))) jobs.push_back(job);
  }
  std::sort(jobs.begin(), jobs.end(), [](const ObjectPtr& a, const ObjectPtr& b) {
    return std::make_pair(meta::creationTimestamp(*a), meta::name(*a)) <
           std::make_pair(meta::creationTimestamp(*b), meta::name(*b));
  });

  // status.active: the unfinished ones (a Job gone from the cache leaves the list).
  Json active = Json::array();
  std::vector<ObjectPtr> succeeded, failed, running;
  std::optional<TimePoint> lastSuccess = parseTime(status.value("lastSuccessfulTime", Json()));
  const Json oldActive = status.value("active", Json::array());
  for (const auto& job : jobs) {
    std::string finished = finishedAs(*job);
    if (finished.empty()) {
      if (meta::isDeleting(*job)) continue;
      running.push_back(job);
      active.push_back({{"apiVersion", "batch/v1"},
                        {"kind", "Job"},
                        {"name", meta::name(*job)},
                        {"namespace", meta::namespace_(*job)},
                        {"uid", meta::uid(*job)},
                        {"resourceVersion", meta::resourceVersion(*job)}});
      continue;
    }
    const bool wasActive = std::any_of(oldActive.begin(), oldActive.end(), [&](const Json& ref) {
      return ref.value("uid", "") == meta::uid(*job);
    });
    if (wasActive) {
      event(cronJob, "Normal", "SawCompletedJob",
            fmt::format("Saw completed job: {}, condition: {}", meta::name(*job), finished));
    }
    if (finished == "Complete") {
      succeeded.push_back(job);
      auto completed = parseTime(field(*job, "status").value("completionTime", Json()));
      if (completed && (!lastSuccess || *completed > *lastSuccess)) lastSuccess = completed;
    } else {
      failed.push_back(job);
    }
  }

  std::optional<Status> firstError;
  // History limits, oldest first.
  auto prune = [&](const std::vector<ObjectPtr>& finished, const char* key, int fallback) {
    int limit = spec.value(key, fallback);
    if (limit < 0) return;
    for (std::size_t i = 0; i + static_cast<std::size_t>(limit) < finished.size(); ++i) {
      if (meta::isDeleting(*finished[i])) continue;
      if (auto r = deleteJob(cronJob, *finished[i]); !r && !firstError) firstError = r.error();
    }
  };
  if (!meta::isDeleting(cronJob)) {
    prune(succeeded, "successfulJobsHistoryLimit", 3);
    prune(failed, "failedJobsHistoryLimit", 1);
  }

  std::optional<Duration> requeue;
  auto schedule = [&]() -> Result<void> {
    if (meta::isDeleting(cronJob) || spec.value("suspend", false)) return {};
    const std::string timeZone = spec.value("timeZone", "");
    if (!timeZone.empty() && timeZone != "UTC" && timeZone != "Etc/UTC") {
      event(cronJob, "Warning", "UnknownTimeZone",
            fmt::format("invalid timeZone: \"{}\": only UTC is supported", timeZone));
      return {};
    }
    auto parsed = CronSchedule::parse(spec.value("schedule", ""));
    if (!parsed) {
      event(cronJob, "Warning", "InvalidSchedule",
            fmt::format("invalid schedule: {} : {}", spec.value("schedule", ""),
                        parsed.error().message));
      return {};
    }
    auto created = parseTime(field(cronJob, "metadata").value("creationTimestamp", Json()));
    TimePoint earliest = created.value_or(now);
    if (auto last = parseTime(status.value("lastScheduleTime", Json()))) earliest = *last;
    std::optional<std::int64_t> deadline;
    if (spec.contains("startingDeadlineSeconds") &&
        spec["startingDeadlineSeconds"].is_number_integer()) {
      deadline = spec["startingDeadlineSeconds"].get<std::int64_t>();
      earliest = std::max(earliest, now - std::chrono::seconds(*deadline));
    }
    // The most recent scheduled time in (earliest, now].
    std::optional<TimePoint> due;
    int missed = 0;
    for (auto t = parsed->next(earliest); t && *t <= now; t = parsed->next(*t)) {
      due = t;
      ++missed;
    }
    if (auto next = parsed->next(now)) requeue = *next - now;
    if (!due) return {};
    if (missed > kTooManyMissed) {
      event(cronJob, "Warning", "TooManyMissedTimes",
            "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check "
            "clock skew");
    }
    if (deadline && *due + std::chrono::seconds(*deadline) < now) {
      event(cronJob, "Warning", "MissSchedule",
            fmt::format("Missed scheduled time to start a job: {}", formatRfc3339(*due)));
      return {};
    }
    const std::string policy = spec.value("concurrencyPolicy", "Allow");
    if (policy == "Forbid" && !running.empty()) {
      event(cronJob, "Normal", "JobAlreadyActive",
            "Not starting job because prior execution is running and concurrency policy is "
            "Forbid");
      return {};
    }
    if (policy == "Replace") {
      for (const auto& job : running) {
        if (auto r = deleteJob(cronJob, *job); !r) return r;
      }
      running.clear();
      active = Json::array();
    }
    const auto minutes =
        std::chrono::duration_cast<std::chrono::minutes>(due->time_since_epoch()).count();
    const std::string name = fmt::format("{}-{}", meta::name(cronJob), minutes);
    const Json& jobTemplate = field(spec, "jobTemplate");
    Json job = {
        {"apiVersion", "batch/v1"},
        {"kind", "Job"},
        {"metadata",
         {{"name", name},
          {"namespace", request.namespace_},
          {"ownerReferences", Json::array({meta::toJson(meta::controllerRefTo(cronJob))})}}},
        {"spec", field(jobTemplate, "spec")}};
    const Json& templateMeta = field(jobTemplate, "metadata");
    if (templateMeta.contains("labels")) job["metadata"]["labels"] = templateMeta["labels"];
    Json annotations = templateMeta.value("annotations", Json::object());
    annotations[kScheduledTimestampAnnotation] = formatRfc3339(*due);
    job["metadata"]["annotations"] = annotations;
    auto made = manager_.client().create(kJobs, std::move(job));
    if (!made) {
      if (!isAlreadyExists(made.error())) {
        event(cronJob, "Warning", "FailedCreate",
              fmt::format("Error creating job: {}", made.error().message));
        return tl::unexpected(made.error());
      }
      // Made already (an earlier sync whose status write was lost): not run twice.
    } else {
      event(cronJob, "Normal", "SuccessfulCreate", fmt::format("Created job {}", name));
      active.push_back({{"apiVersion", "batch/v1"},
                        {"kind", "Job"},
                        {"name", meta::name(*made)},
                        {"namespace", meta::namespace_(*made)},
                        {"uid", meta::uid(*made)},
                        {"resourceVersion", meta::resourceVersion(*made)}});
    }
    status["lastScheduleTime"] = formatRfc3339(*due);
    return {};
  };
  auto scheduled = schedule();
  if (!scheduled && !firstError) firstError = scheduled.error();

  if (active.empty()) {
    status.erase("active");
  } else {
    status["active"] = active;
  }
  if (lastSuccess) status["lastSuccessfulTime"] = formatRfc3339(*lastSuccess);
  if (status != oldStatus) {
    Json write = cronJob;
    write["status"] = status;
    auto written = manager_.client().updateStatus(kCronJobs, std::move(write));
    if (!written) return reconcileError(written.error());
  }
  if (firstError) return reconcileError(*firstError);
  if (requeue) return ReconcileResult{*requeue};
  return ReconcileResult{};
}

}  // namespace

Result<Controller*> addCronJobController(Manager& manager, CronJobControllerOptions options) {
  auto controller = std::make_shared<CronJobController>(manager, options);
  ControllerOptions controllerOptions;
  controllerOptions.maxConcurrentReconciles = options.workers;
  return ControllerBuilder(manager)
      .named("cronjob")
      .forResource(kCronJobs)
      .watches(kJobs, enqueueRequestForOwner("batch", "CronJob"))
      .withOptions(std::move(controllerOptions))
      .complete(
          [controller](const ReconcileRequest& request) { return controller->reconcile(request); });
}

}  // namespace fakekube
