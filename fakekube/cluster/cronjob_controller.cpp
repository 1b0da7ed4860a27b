#include "fakekube/cluster/cronjob_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "fakekube/api/conditions.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/internal/controller_utils.h"
#include "fakekube/cluster/internal/cron_schedule.h"
#include "fakekube/runtime/builder.h"

namespace fakekube {

namespace {

using namespace workload;  // NOLINT: the shared controller helpers

constexpr const char* kScheduledTimestampAnnotation =
    "batch.kubernetes.io/cronjob-scheduled-timestamp";
constexpr int kTooManyMissed = 100;

// "Complete" or "Failed" when the Job has finished, "" otherwise.
std::string finishedAs(const Json& job) {
  for (const char* type : {"Complete", "Failed"}) {
    const Json* c = findCondition(job, type);
    if (c && c->value("status", "") == "True") return type;
  }
  return "";
}

// A reference to a Job in status.active.
Json activeReference(const Json& job) {
  return {{"apiVersion", "batch/v1"}, {"kind", "Job"},
          {"name", meta::name(job)},  {"namespace", meta::namespace_(job)},
          {"uid", meta::uid(job)},    {"resourceVersion", meta::resourceVersion(job)}};
}

// The Job a CronJob starts for the scheduled time `due` (getJobFromTemplate2): named
// <cronjob>-<minutes since the epoch>, so a second sync for the same time finds it made.
Json jobFromTemplate(const Json& cronJob, TimePoint due) {
  const auto minutes =
      std::chrono::duration_cast<std::chrono::minutes>(due.time_since_epoch()).count();
  const Json& jobTemplate = jsonObjectAt(jsonObjectAt(cronJob, "spec"), "jobTemplate");
  Json job = {{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata",
               {{"name", fmt::format("{}-{}", meta::name(cronJob), minutes)},
                {"namespace", meta::namespace_(cronJob)},
                {"ownerReferences", Json::array({meta::toJson(meta::controllerRefTo(cronJob))})}}},
              {"spec", jsonObjectAt(jobTemplate, "spec")}};
  const Json& templateMeta = jsonObjectAt(jobTemplate, "metadata");
  if (templateMeta.contains("labels")) job["metadata"]["labels"] = templateMeta["labels"];
  Json annotations = templateMeta.value("annotations", Json::object());
  annotations[kScheduledTimestampAnnotation] = formatRfc3339(due);
  job["metadata"]["annotations"] = annotations;
  return job;
}

// One round of a CronJob: what it read and what it has decided so far.
struct CronJobSync {
  const Json& cronJob;
  const Json& spec;
  Json status;
  TimePoint now;
  // Its Jobs by state, oldest first; `active` is the status.active being built.
  std::vector<ObjectPtr> succeeded, failed, running;
  Json active = Json::array();
  std::optional<TimePoint> lastSuccess;
  std::optional<Duration> requeue;  // until the next scheduled time
  std::optional<Status> firstError;
};

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

  // The Jobs the CronJob controls, oldest first (getJobsToBeReconciled).
  std::vector<ObjectPtr> jobsToBeReconciled(const Json& cronJob);
  // Sorts them into running (status.active), succeeded and failed; a finished Job that was
  // active gets its SawCompletedJob event; lastSuccessfulTime follows the newest completion.
  void syncJobs(CronJobSync& s, const std::vector<ObjectPtr>& jobs);
  // Deletes the finished Jobs beyond the history limits, oldest first (cleanupFinishedJobs).
  void cleanupFinishedJobs(CronJobSync& s);
  // Starts the Job of the most recent scheduled time not started yet, if the schedule, the
  // deadline and the concurrency policy let it (the scheduling half of syncCronJob).
  Result<void> scheduleJob(CronJobSync& s);
  // The most recent scheduled time in (last schedule or creation, now], if any; sets the
  // requeue to the next one. Warns when too many were missed.
  std::optional<TimePoint> mostRecentScheduleTime(CronJobSync& s, const CronSchedule& schedule,
                                                  std::optional<std::int64_t> deadline);
  Result<void> createJob(CronJobSync& s, TimePoint due);

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
  if (!read) return ignoreNotFound(read.error());
  const Json& cronJob = **read;
  const Json& oldStatus = jsonObjectAt(cronJob, "status");
  CronJobSync s{.cronJob = cronJob,
                .spec = jsonObjectAt(cronJob, "spec"),
                .status = oldStatus,
                .now = manager_.executor().clock().now()};
  syncJobs(s, jobsToBeReconciled(cronJob));
  if (!meta::isDeleting(cronJob)) cleanupFinishedJobs(s);
  auto scheduled = scheduleJob(s);
  if (!scheduled && !s.firstError) s.firstError = scheduled.error();

  if (s.active.empty()) {
    s.status.erase("active");
  } else {
    s.status["active"] = s.active;
  }
  if (s.lastSuccess) s.status["lastSuccessfulTime"] = formatRfc3339(*s.lastSuccess);
  if (s.status != oldStatus) {
    Json write = cronJob;
    write["status"] = s.status;
    auto written = manager_.client().updateStatus(kCronJobs, std::move(write));
    if (!written) return reconcileError(written.error());
  }
  if (s.firstError) return reconcileError(*s.firstError);
  if (s.requeue) return ReconcileResult{*s.requeue};
  return ReconcileResult{};
}

std::vector<ObjectPtr> CronJobController::jobsToBeReconciled(const Json& cronJob) {
  std::vector<ObjectPtr> jobs;
  for (const auto& job : listInNamespace(manager_.cache(), kJobs, meta::namespace_(cronJob))) {
    if (isControlledBy(*job, meta::uid(cronJob))) jobs.push_back(job);
  }
  std::sort(jobs.begin(), jobs.end(), [](const ObjectPtr& a, const ObjectPtr& b) {
    return std::make_pair(meta::creationTimestamp(*a), meta::name(*a)) <
           std::make_pair(meta::creationTimestamp(*b), meta::name(*b));
  });
  return jobs;
}

void CronJobController::syncJobs(CronJobSync& s, const std::vector<ObjectPtr>& jobs) {
  // status.active: the unfinished ones (a Job gone from the cache leaves the list).
  s.lastSuccess = parseTime(s.status.value("lastSuccessfulTime", Json()));
  const Json oldActive = s.status.value("active", Json::array());
  for (const auto& job : jobs) {
    std::string finished = finishedAs(*job);
    if (finished.empty()) {
      if (meta::isDeleting(*job)) continue;
      s.running.push_back(job);
      s.active.push_back(activeReference(*job));
      continue;
    }
    const bool wasActive = std::any_of(oldActive.begin(), oldActive.end(), [&](const Json& ref) {
      return ref.value("uid", "") == meta::uid(*job);
    });
    if (wasActive) {
      event(s.cronJob, "Normal", "SawCompletedJob",
            fmt::format("Saw completed job: {}, condition: {}", meta::name(*job), finished));
    }
    if (finished == "Complete") {
      s.succeeded.push_back(job);
      auto completed = parseTime(jsonObjectAt(*job, "status").value("completionTime", Json()));
      if (completed && (!s.lastSuccess || *completed > *s.lastSuccess)) s.lastSuccess = completed;
    } else {
      s.failed.push_back(job);
    }
  }
}

void CronJobController::cleanupFinishedJobs(CronJobSync& s) {
  // History limits, oldest first.
  auto removeOldestJobs = [&](const std::vector<ObjectPtr>& finished, const char* key,
                              int fallback) {
    int limit = s.spec.value(key, fallback);
    if (limit < 0) return;
    for (std::size_t i = 0; i + static_cast<std::size_t>(limit) < finished.size(); ++i) {
      if (meta::isDeleting(*finished[i])) continue;
      if (auto r = deleteJob(s.cronJob, *finished[i]); !r && !s.firstError) {
        s.firstError = r.error();
      }
    }
  };
  removeOldestJobs(s.succeeded, "successfulJobsHistoryLimit", 3);
  removeOldestJobs(s.failed, "failedJobsHistoryLimit", 1);
}

Result<void> CronJobController::scheduleJob(CronJobSync& s) {
  const Json& cronJob = s.cronJob;
  const Json& spec = s.spec;
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
  std::optional<std::int64_t> deadline;
  if (spec.contains("startingDeadlineSeconds") &&
      spec["startingDeadlineSeconds"].is_number_integer()) {
    deadline = spec["startingDeadlineSeconds"].get<std::int64_t>();
  }
  auto due = mostRecentScheduleTime(s, *parsed, deadline);
  if (!due) return {};
  if (deadline && *due + std::chrono::seconds(*deadline) < s.now) {
    event(cronJob, "Warning", "MissSchedule",
          fmt::format("Missed scheduled time to start a job: {}", formatRfc3339(*due)));
    return {};
  }
  const std::string policy = spec.value("concurrencyPolicy", "Allow");
  if (policy == "Forbid" && !s.running.empty()) {
    event(cronJob, "Normal", "JobAlreadyActive",
          "Not starting job because prior execution is running and concurrency policy is "
          "Forbid");
    return {};
  }
  if (policy == "Replace") {
    for (const auto& job : s.running) {
      if (auto r = deleteJob(cronJob, *job); !r) return r;
    }
    s.running.clear();
    s.active = Json::array();
  }
  return createJob(s, *due);
}

std::optional<TimePoint> CronJobController::mostRecentScheduleTime(
    CronJobSync& s, const CronSchedule& schedule, std::optional<std::int64_t> deadline) {
  auto created = parseTime(jsonObjectAt(s.cronJob, "metadata").value("creationTimestamp", Json()));
  TimePoint earliest = created.value_or(s.now);
  if (auto last = parseTime(s.status.value("lastScheduleTime", Json()))) earliest = *last;
  if (deadline) earliest = std::max(earliest, s.now - std::chrono::seconds(*deadline));
  // The most recent scheduled time in (earliest, now].
  std::optional<TimePoint> due;
  int missed = 0;
  for (auto t = schedule.next(earliest); t && *t <= s.now; t = schedule.next(*t)) {
    due = t;
    ++missed;
  }
  if (auto next = schedule.next(s.now)) s.requeue = *next - s.now;
  if (due && missed > kTooManyMissed) {
    event(s.cronJob, "Warning", "TooManyMissedTimes",
          "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check "
          "clock skew");
  }
  return due;
}

Result<void> CronJobController::createJob(CronJobSync& s, TimePoint due) {
  Json job = jobFromTemplate(s.cronJob, due);
  const std::string name = meta::name(job);
  auto made = manager_.client().create(kJobs, std::move(job));
  if (!made) {
    if (!isAlreadyExists(made.error())) {
      event(s.cronJob, "Warning", "FailedCreate",
            fmt::format("Error creating job: {}", made.error().message));
      return tl::unexpected(made.error());
    }
    // Made already (an earlier sync whose status write was lost): not run twice.
  } else {
    event(s.cronJob, "Normal", "SuccessfulCreate", fmt::format("Created job {}", name));
    s.active.push_back(activeReference(*made));
  }
  s.status["lastScheduleTime"] = formatRfc3339(due);
  return {};
}

}  // namespace

Result<Controller*> addCronJobController(Manager& manager, CronJobControllerOptions options) {
  auto controller = std::make_shared<CronJobController>(manager, options);
  return ControllerBuilder(manager)
      .named("cronjob")
      .forResource(kCronJobs)
      .watches(kJobs, enqueueRequestForOwner("batch", "CronJob"))
      .withOptions({.maxConcurrentReconciles = options.workers})
      .complete(workload::reconcileWith(controller));
}

}  // namespace fakekube
