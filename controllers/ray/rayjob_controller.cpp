#include "controllers/ray/internal/rayjob_controller.h"

#include <fmt/format.h>

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>

#include "controllers/ray/batchscheduler/internal/batch_scheduler.h"
#include "controllers/ray/constants.h"
#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/internal/event_action.h"
#include "controllers/ray/internal/json_members.h"
#include "controllers/ray/internal/naming.h"
#include "controllers/ray/internal/ray_clients.h"
#include "controllers/ray/internal/raycluster_status.h"
#include "controllers/ray/internal/rayjob_submitter.h"
#include "controllers/ray/internal/rayjob_validation.h"
#include "controllers/ray/internal/service_builder.h"
#include "controllers/ray/raycluster_types.h"
#include "controllers/ray/rayjob_types.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/runtime/builder.h"

namespace fakekube::ray {

namespace {

const ReconcileResult kRequeue{.requeueAfter = kRayJobDefaultRequeueDuration};

// The RayJob Failed, with KubeRay's reason and message.
void setRayJobFailed(Json& rayJob, std::string_view reason, std::string message) {
  Json& status = rayJob["status"];
  status["jobDeploymentStatus"] = std::string(kJobDeploymentStatusFailed);
  status["reason"] = std::string(reason);
  status["message"] = std::move(message);
}

// The submitter failed (checkSubmitterAndUpdateStatusIfNeeded): the RayJob fails with AppFailed
// when Ray already reported the job failed (the message kept), else with SubmissionFailed and
// `message`.
void setSubmitterFailed(Json& rayJob, bool rayJobFailed, std::string message) {
  Json& status = rayJob["status"];
  status["jobDeploymentStatus"] = std::string(kJobDeploymentStatusFailed);
  if (rayJobFailed) {
    status["reason"] = std::string(kAppFailed);
    return;
  }
  status["reason"] = std::string(kSubmissionFailed);
  status["message"] = std::move(message);
}

// How Go's %v prints a time.Time (and a *metav1.Time): "2024-01-01 00:00:00 +0000 UTC".
std::string goTimeString(TimePoint t) {
  std::string s = formatRfc3339(t);  // 2024-01-01T00:00:00Z
  if (s.size() >= 19) s = s.substr(0, 10) + " " + s.substr(11, 8);
  return s + " +0000 UTC";
}
// time.DateTime: "2024-01-01 00:00:00".
std::string goDateTime(TimePoint t) {
  std::string s = formatRfc3339(t);
  return s.size() >= 19 ? s.substr(0, 10) + " " + s.substr(11, 8) : s;
}

std::optional<TimePoint> statusTime(const Json& rayJob, const char* field) {
  const std::string text = statusString(rayJob, field);
  TimePoint t;
  if (text.empty() || !parseRfc3339(text, &t)) return std::nullopt;
  return t;
}

TimePoint fromEpochMillis(std::uint64_t ms) {
  return TimePoint(std::chrono::milliseconds(static_cast<std::int64_t>(ms)));
}

// The condition of `job` of `type` with status True.
const Json* trueJobCondition(const Json& job, std::initializer_list<std::string_view> types) {
  const Json& conditions = jsonAt(job, {"status", "conditions"});
  if (!conditions.is_array()) return nullptr;
  for (const Json& c : conditions) {
    const std::string type = stringAt(c, {"type"});
    if (stringAt(c, {"status"}) != "True") continue;
    for (std::string_view t : types) {
      if (type == t) return &c;
    }
  }
  return nullptr;
}

// checkBackoffLimitAndUpdateStatusIfNeeded: count the attempt that just ended, and retry a
// failed one while spec.backoffLimit allows (not after a deadline or a status-check timeout).
void checkBackoffLimitAndUpdateStatusIfNeeded(Json& rayJob) {
  Json& status = rayJob["status"];
  std::int64_t failed = statusCounter(rayJob, "failed");
  std::int64_t succeeded = statusCounter(rayJob, "succeeded");
  const std::string deployment = statusString(rayJob, "jobDeploymentStatus");
  if (deployment == kJobDeploymentStatusFailed) ++failed;
  if (statusString(rayJob, "jobStatus") == kJobStatusSucceeded &&
      deployment == kJobDeploymentStatusComplete) {
    ++succeeded;
  }
  status["failed"] = failed;
  status["succeeded"] = succeeded;
  const auto backoffLimit = optionalIntegerSpec(rayJob, "backoffLimit");
  if (deployment != kJobDeploymentStatusFailed || !backoffLimit || failed >= *backoffLimit + 1) {
    return;
  }
  const std::string reason = statusString(rayJob, "reason");
  if (reason == kDeadlineExceeded || reason == kJobStatusCheckTimeoutExceeded) return;
  status["jobDeploymentStatus"] = std::string(kJobDeploymentStatusRetrying);
}

class RayJobReconciler {
 public:
  RayJobReconciler(Manager& manager, OperatorOptions options, DashboardClientFactory dashboards)
      : manager_(manager),
        options_(std::move(options)),
        dashboards_(std::move(dashboards)),
        recorder_(manager.eventsV1Recorder("rayjob-controller")),
        random_(options_.randomSeed ? *options_.randomSeed : std::random_device{}()) {}

  ReconcileOutcome reconcile(const ReconcileRequest& request);

 private:
  Client& client() { return manager_.client(); }
  TimePoint now() { return manager_.executor().clock().now(); }
  void event(const Json& rayJob, std::string_view type, std::string_view reason,
             const std::string& message) {
    (void)recorder_.event(rayJob, type, reason, eventActionOf(reason), message);
  }
  // GenerateRayJobId / GenerateRayClusterName: <name>-<rand5>.
  std::string generateName(const std::string& prefix) {
    std::lock_guard lock(randomMutex_);
    return prefix + "-" + randomString(random_, 5);
  }

  // The state machine's steps: nullopt goes on to the backoff check and the status write (Go's
  // `break`), an outcome ends the round with it (Go's `return`).
  using Step = std::optional<ReconcileOutcome>;
  Step reconcileNew(Json& rayJob);
  Step reconcileInitializing(Json& rayJob);
  Step reconcileWaiting(Json& rayJob);
  Step reconcileRunning(Json& rayJob);
  // GetJobInfo answered 400: the Ray job does not exist (yet). HTTP mode submits it
  // (reconcileHTTPModeJobNotFound); a finished submitter without a job fails the RayJob.
  Step reconcileJobNotFound(Json& rayJob, RayDashboardClientInterface& dashboard,
                            std::optional<TimePoint> finishedAt);
  Step reconcileHTTPModeJobNotFound(Json& rayJob, RayDashboardClientInterface& dashboard);
  // The RayJob's status from the Ray job's info and the RayCluster's status.
  void updateStatusFromJobInfo(Json& rayJob, const Json& cluster, const RayJobInfo& info,
                               std::optional<TimePoint> finishedAt);
  Step reconcileSuspendingOrRetrying(Json& rayJob);
  Step reconcileSuspended(Json& rayJob);
  ReconcileOutcome reconcileFinished(const Json& rayJob);
  ReconcileOutcome reconcileFinishedResources(const Json& rayJob);

  ReconcileOutcome handleDeletion(Json rayJob);
  void initRayJobStatusIfNeed(Json& rayJob);
  bool updateStatusToSuspendingIfNeeded(Json& rayJob);
  bool checkActiveDeadlineAndUpdateStatusIfNeeded(Json& rayJob);
  bool checkPreRunningDeadlineAndUpdateStatusIfNeeded(Json& rayJob);
  // The RayJob Failed with `reason` once spec.`field` seconds passed since status.startTime.
  bool failIfDeadlinePassed(Json& rayJob, const char* field, const char* goField,
                            std::string_view reason);
  bool checkTransitionGracePeriodAndUpdateStatusIfNeeded(Json& rayJob);
  bool checkJobStatusCheckTimeoutAndUpdateStatusIfNeeded(Json& rayJob);
  bool checkSubmitterFinishedTimeoutAndUpdateStatusIfNeeded(Json& rayJob,
                                                            std::optional<TimePoint> finishedAt);
  bool recordJobStatusCheckFailure(Json& rayJob);
  Result<Json> getOrCreateRayClusterInstance(const Json& rayJob);
  Result<Json> constructRayClusterForRayJob(const Json& rayJob, const std::string& name);
  Result<std::string> fetchHeadServiceUrl(const Json& rayCluster);
  Result<void> createK8sJobIfNeed(const Json& rayJob, const Json& rayCluster);
  Result<void> reconcileServices(const Json& rayJob, const Json& rayCluster);
  // shouldUpdate and the submitter's finish time, or an error.
  Result<std::pair<bool, std::optional<TimePoint>>> checkSubmitterAndUpdateStatusIfNeeded(
      Json& rayJob);
  Result<bool> deleteClusterResources(const Json& rayJob);
  Result<bool> deleteSubmitterJob(const Json& rayJob);
  Result<void> suspendWorkerGroups(const Json& rayJob);
  ReconcileOutcome handleShutdownAfterJobFinishes(const Json& rayJob);
  ReconcileOutcome handleDeletionRules(const Json& rayJob);
  ReconcileOutcome handleLegacyDeletionPolicy(const Json& rayJob);
  ReconcileOutcome executeDeletionPolicy(const Json& rayJob, const std::string& policy);
  Result<bool> isDeletionActionCompleted(const Json& rayJob, const std::string& policy);
  Result<void> updateRayJobStatus(const Json& original, Json& rayJob);
  Duration requeueDelayFor(TimePoint t) { return (t - now()) + std::chrono::seconds(2); }

  // cleanupBatchSchedulerResources: the batch scheduler's group stops holding resources; false
  // (with a Warning event) when it failed.
  bool cleanupBatchSchedulerResources(const Json& rayJob);

  Manager& manager_;
  const OperatorOptions options_;
  // The batch scheduler's plug-in (options_.batchScheduler), or nullptr.
  const std::shared_ptr<batchscheduler::BatchScheduler> batchScheduler_ =
      batchscheduler::newBatchScheduler(options_.batchScheduler, options_.enableBatchScheduler)
          .value_or(nullptr);
  DashboardClientFactory dashboards_;
  EventRecorder& recorder_;
  std::mutex randomMutex_;
  std::mt19937_64 random_;
};

ReconcileOutcome RayJobReconciler::reconcile(const ReconcileRequest& request) {
  auto got = client().get(kRayJobs, request.namespace_, request.name);
  if (!got) {
    if (isNotFound(got.error())) return ReconcileResult{};
    return reconcileError(got.error(), kRequeue);
  }
  Json rayJob = std::move(*got);
  // ManagedByExternalController: anything but KubeRay's own name.
  if (const std::string managedBy = stringAt(rayJob, {"spec", "managedBy"});
      !managedBy.empty() && managedBy != "ray.io/kuberay-operator") {
    return ReconcileResult{};
  }
  if (meta::isDeleting(rayJob)) return handleDeletion(std::move(rayJob));

  // Please do not modify `original`: updateRayJobStatus compares against it.
  const Json original = rayJob;
  if (!rayJob["status"].is_object()) rayJob["status"] = Json::object();

  // validateRayJob.
  std::optional<std::string> invalid;
  std::string errType;
  if ((invalid = validateRayJobMetadata(rayJob))) {
    errType = "InvalidRayJobMetadata";
  } else if ((invalid = validateRayJobSpec(rayJob))) {
    errType = "InvalidRayJobSpec";
  } else if ((invalid = validateRayJobStatus(rayJob))) {
    errType = "InvalidRayJobStatus";
  }
  if (invalid) {
    event(rayJob, "Warning", errType,
          fmt::format("{}/{}: {}", meta::namespace_(rayJob), meta::name(rayJob), *invalid));
    rayJob["status"]["jobDeploymentStatus"] = std::string(kJobDeploymentStatusValidationFailed);
    rayJob["status"]["reason"] = std::string(kValidationFailed);
    rayJob["status"]["message"] = *invalid;
    if (auto written = updateRayJobStatus(original, rayJob); !written) {
      return reconcileError(written.error(), kRequeue);
    }
    return ReconcileResult{};
  }

  const std::string deploymentStatus = statusString(rayJob, "jobDeploymentStatus");
  Step step;
  if (deploymentStatus == kJobDeploymentStatusNew) {
    step = reconcileNew(rayJob);
  } else if (deploymentStatus == kJobDeploymentStatusInitializing) {
    step = reconcileInitializing(rayJob);
  } else if (deploymentStatus == kJobDeploymentStatusWaiting) {
    step = reconcileWaiting(rayJob);
  } else if (deploymentStatus == kJobDeploymentStatusRunning) {
    step = reconcileRunning(rayJob);
  } else if (deploymentStatus == kJobDeploymentStatusSuspending ||
             deploymentStatus == kJobDeploymentStatusRetrying) {
    step = reconcileSuspendingOrRetrying(rayJob);
  } else if (deploymentStatus == kJobDeploymentStatusSuspended) {
    step = reconcileSuspended(rayJob);
  } else if (isJobDeploymentTerminal(deploymentStatus)) {
    return reconcileFinished(rayJob);
  } else {
    // Unknown, and ValidationFailed once its spec is valid again.
    return kRequeue;
  }
  if (step) return std::move(*step);

  checkBackoffLimitAndUpdateStatusIfNeeded(rayJob);
  // Nothing between the backoff check and the status write.
  if (auto written = updateRayJobStatus(original, rayJob); !written) {
    return reconcileError(written.error(), kRequeue);
  }
  return kRequeue;
}

ReconcileOutcome RayJobReconciler::handleDeletion(Json rayJob) {
  if (!isJobTerminal(statusString(rayJob, "jobStatus"))) {
    const std::string clusterName = statusString(rayJob, "rayClusterName");
    Json rayCluster = Json::object();
    if (!clusterName.empty()) {
      if (auto got = client().get(kRayClusters, meta::namespace_(rayJob), clusterName)) {
        rayCluster = std::move(*got);
      }
    }
    auto dashboard = dashboards_(rayCluster, statusString(rayJob, "dashboardURL"));
    if (!dashboard) return reconcileError(dashboard.error(), kRequeue);
    // Errors are only logged: the finalizer goes whether StopJob succeeds or not.
    (void)(*dashboard)->stopJob(statusString(rayJob, "jobId"));
  }
  meta::removeFinalizer(rayJob, kRayJobStopJobFinalizer);
  if (auto updated = client().update(kRayJobs, std::move(rayJob)); !updated) {
    return reconcileError(updated.error(), kRequeue);
  }
  return kRequeue;
}

RayJobReconciler::Step RayJobReconciler::reconcileNew(Json& rayJob) {
  if (!meta::hasFinalizer(rayJob, kRayJobStopJobFinalizer)) {
    meta::addFinalizer(rayJob, kRayJobStopJobFinalizer);
    auto updated = client().update(kRayJobs, rayJob);
    if (!updated) return reconcileError(updated.error(), kRequeue);
    // As Go's Update decodes the answer into the object: the new resourceVersion, same status.
    Json status = std::move(rayJob["status"]);
    rayJob = std::move(*updated);
    rayJob["status"] = std::move(status);
  }
  // Names and the Initializing status before anything is created, so that a later round (or a
  // restarted operator) submits and creates under the same names.
  initRayJobStatusIfNeed(rayJob);
  return std::nullopt;
}

void RayJobReconciler::initRayJobStatusIfNeed(Json& rayJob) {
  Json& status = rayJob["status"];
  const bool shouldUpdate = statusString(rayJob, "jobId").empty() ||
                            statusString(rayJob, "rayClusterName").empty() ||
                            statusString(rayJob, "jobStatus").empty();
  if (!shouldUpdate) return;
  if (submissionMode(rayJob) != kInteractiveMode && statusString(rayJob, "jobId").empty()) {
    const std::string specJobId = stringAt(rayJob, {"spec", "jobId"});
    status["jobId"] = !specJobId.empty() ? specJobId : generateName(meta::name(rayJob));
  }
  if (statusString(rayJob, "rayClusterName").empty()) {
    const std::string selected = clusterSelectorName(rayJob);
    status["rayClusterName"] = !selected.empty() ? selected : generateName(meta::name(rayJob));
  }
  if (statusString(rayJob, "jobStatus").empty()) status["jobStatus"] = std::string(kJobStatusNew);
  status["jobDeploymentStatus"] = std::string(kJobDeploymentStatusInitializing);
  status["startTime"] = formatRfc3339(now());
}

RayJobReconciler::Step RayJobReconciler::reconcileInitializing(Json& rayJob) {
  Json& status = rayJob["status"];
  if (updateStatusToSuspendingIfNeeded(rayJob)) return std::nullopt;
  if (checkActiveDeadlineAndUpdateStatusIfNeeded(rayJob)) return std::nullopt;
  if (checkPreRunningDeadlineAndUpdateStatusIfNeeded(rayJob)) return std::nullopt;
  if (batchScheduler_) {
    if (auto submitted = batchScheduler_->doBatchSchedulingOnSubmission(client(), rayJob);
        !submitted) {
      return reconcileError(submitted.error(), kRequeue);
    }
  }

  auto cluster = getOrCreateRayClusterInstance(rayJob);
  if (!cluster) return reconcileError(cluster.error(), kRequeue);

  if (statusString(rayJob, "dashboardURL").empty()) {
    if (stringAt(*cluster, {"status", "state"}) != kStateReady) {
      // The cluster's not-ready status shows in the RayJob's; the status write requeues.
      const Json& clusterStatus = jsonAt(*cluster, {"status"});
      status["rayClusterStatus"] = clusterStatus.is_object() ? clusterStatus : Json::object();
      return std::nullopt;
    }
    auto url = fetchHeadServiceUrl(*cluster);
    if (!url) return reconcileError(url.error(), kRequeue);
    status["dashboardURL"] = *url;
  }

  const std::string mode = submissionMode(rayJob);
  if (mode == kInteractiveMode) {
    status["jobDeploymentStatus"] = std::string(kJobDeploymentStatusWaiting);
    return std::nullopt;
  }
  if (mode == kK8sJobMode) {
    if (auto created = createK8sJobIfNeed(rayJob, *cluster); !created) {
      return reconcileError(created.error(), kRequeue);
    }
  }
  status["jobDeploymentStatus"] = std::string(kJobDeploymentStatusRunning);
  return std::nullopt;
}

RayJobReconciler::Step RayJobReconciler::reconcileWaiting(Json& rayJob) {
  if (checkPreRunningDeadlineAndUpdateStatusIfNeeded(rayJob)) return std::nullopt;
  const std::string specJobId = stringAt(rayJob, {"spec", "jobId"});
  if (specJobId.empty()) return ReconcileOutcome(kRequeue);
  rayJob["status"]["jobId"] = specJobId;
  rayJob["status"]["jobDeploymentStatus"] = std::string(kJobDeploymentStatusRunning);
  return std::nullopt;
}

RayJobReconciler::Step RayJobReconciler::reconcileRunning(Json& rayJob) {
  if (updateStatusToSuspendingIfNeeded(rayJob)) return std::nullopt;
  if (checkActiveDeadlineAndUpdateStatusIfNeeded(rayJob)) return std::nullopt;
  if (checkTransitionGracePeriodAndUpdateStatusIfNeeded(rayJob)) return std::nullopt;
  if (checkJobStatusCheckTimeoutAndUpdateStatusIfNeeded(rayJob)) return std::nullopt;

  auto cluster = getOrCreateRayClusterInstance(rayJob);
  if (!cluster) return reconcileError(cluster.error(), kRequeue);
  if (auto services = reconcileServices(rayJob, *cluster); !services) {
    return reconcileError(services.error(), kRequeue);
  }

  std::optional<TimePoint> finishedAt;
  if (hasSubmitter(rayJob)) {
    auto checked = checkSubmitterAndUpdateStatusIfNeeded(rayJob);
    if (!checked) return reconcileError(checked.error(), kRequeue);
    finishedAt = checked->second;
    if (checkSubmitterFinishedTimeoutAndUpdateStatusIfNeeded(rayJob, finishedAt)) {
      return std::nullopt;
    }
    if (checked->first) return std::nullopt;
  }

  auto dashboard = dashboards_(*cluster, statusString(rayJob, "dashboardURL"));
  if (!dashboard) return reconcileError(dashboard.error(), kRequeue);
  auto info = (*dashboard)->getJobInfo(statusString(rayJob, "jobId"));
  if (!info) {
    if (info.error().code == 400) return reconcileJobNotFound(rayJob, **dashboard, finishedAt);
    if (recordJobStatusCheckFailure(rayJob)) return std::nullopt;
    return ReconcileOutcome(kRequeue);
  }
  updateStatusFromJobInfo(rayJob, *cluster, *info, finishedAt);
  return std::nullopt;
}

RayJobReconciler::Step RayJobReconciler::reconcileJobNotFound(
    Json& rayJob, RayDashboardClientInterface& dashboard, std::optional<TimePoint> finishedAt) {
  if (submissionMode(rayJob) == kHttpMode) return reconcileHTTPModeJobNotFound(rayJob, dashboard);
  if (finishedAt) {
    setRayJobFailed(rayJob, kAppFailed, "Submitter completed but Ray job not found in RayCluster.");
    return std::nullopt;
  }
  return ReconcileOutcome(kRequeue);
}

RayJobReconciler::Step RayJobReconciler::reconcileHTTPModeJobNotFound(
    Json& rayJob, RayDashboardClientInterface& dashboard) {
  // Submit; a failure starts the failure timer, a success clears it.
  if (auto submitted = dashboard.submitJob(rayJob); !submitted) {
    if (recordJobStatusCheckFailure(rayJob)) return std::nullopt;
    return ReconcileOutcome(kRequeue);
  }
  if (!jsonAt(rayJob, {"status", "jobStatusCheckFailureStartTime"}).is_null()) {
    rayJob["status"].erase("jobStatusCheckFailureStartTime");
    return std::nullopt;
  }
  return ReconcileOutcome(kRequeue);
}

void RayJobReconciler::updateStatusFromJobInfo(Json& rayJob, const Json& cluster,
                                               const RayJobInfo& info,
                                               std::optional<TimePoint> finishedAt) {
  Json& status = rayJob["status"];
  // The check succeeded: the failure timer stops.
  status.erase("jobStatusCheckFailureStartTime");
  std::string jobDeploymentStatus(kJobDeploymentStatusRunning);
  std::string reason;
  bool terminal = isJobTerminal(info.jobStatus);
  // With a submitter, only once it finished too (its logs are complete then).
  if (hasSubmitter(rayJob)) terminal = terminal && finishedAt.has_value();
  if (terminal) {
    jobDeploymentStatus = kJobDeploymentStatusComplete;
    if (info.jobStatus == kJobStatusFailed) {
      jobDeploymentStatus = kJobDeploymentStatusFailed;
      reason = kAppFailed;
    }
  }
  const Json& clusterStatus = jsonAt(cluster, {"status"});
  status["rayClusterStatus"] = clusterStatus.is_object() ? clusterStatus : Json::object();
  status["jobStatus"] = info.jobStatus;
  status["jobDeploymentStatus"] = jobDeploymentStatus;
  if (reason.empty()) {
    status.erase("reason");
  } else {
    status["reason"] = reason;
  }
  if (info.message.empty()) {
    status.erase("message");
  } else {
    status["message"] = info.message;
  }
  if (!status["rayJobInfo"].is_object()) status["rayJobInfo"] = Json::object();
  if (info.startTime != 0) {
    status["rayJobInfo"]["startTime"] = formatRfc3339(fromEpochMillis(info.startTime));
  }
  if (info.endTime != 0) {
    status["rayJobInfo"]["endTime"] = formatRfc3339(fromEpochMillis(info.endTime));
  }
}

RayJobReconciler::Step RayJobReconciler::reconcileSuspendingOrRetrying(Json& rayJob) {
  // Atomic: once Suspending, every resource goes, whatever spec.suspend says meanwhile.
  auto clusterDeleted = deleteClusterResources(rayJob);
  if (!clusterDeleted) return reconcileError(clusterDeleted.error(), kRequeue);
  auto jobDeleted = deleteSubmitterJob(rayJob);
  if (!jobDeleted) return reconcileError(jobDeleted.error(), kRequeue);
  if (!*clusterDeleted || !*jobDeleted) return ReconcileOutcome(kRequeue);
  if (!cleanupBatchSchedulerResources(rayJob)) return ReconcileOutcome(kRequeue);

  Json& status = rayJob["status"];
  status["rayClusterStatus"] = Json::object();
  for (const char* field : {"rayClusterName", "dashboardURL", "jobId", "message", "reason",
                            "jobStatusCheckFailureStartTime"}) {
    status.erase(field);
  }
  status["rayJobInfo"] = Json::object();
  status["jobStatus"] = std::string(kJobStatusNew);
  if (statusString(rayJob, "jobDeploymentStatus") == kJobDeploymentStatusSuspending) {
    status["jobDeploymentStatus"] = std::string(kJobDeploymentStatusSuspended);
  } else {
    status["jobDeploymentStatus"] = std::string(kJobDeploymentStatusNew);
  }
  return std::nullopt;
}

RayJobReconciler::Step RayJobReconciler::reconcileSuspended(Json& rayJob) {
  if (!isRayJobSuspendRequested(rayJob)) {
    rayJob["status"]["jobStatus"] = std::string(kJobStatusNew);
    rayJob["status"]["jobDeploymentStatus"] = std::string(kJobDeploymentStatusNew);
    return std::nullopt;
  }
  return ReconcileOutcome(ReconcileResult{});  // suspended: nothing to do until it changes
}

ReconcileOutcome RayJobReconciler::reconcileFinished(const Json& rayJob) {
  // Go's deferred cleanup: after whatever the terminal state's handling did this round.
  ReconcileOutcome outcome = reconcileFinishedResources(rayJob);
  // Upstream only logs a failed cleanup here. A failure is most often a 409 (the scheduler wrote
  // the group's status since the cache saw it), and nothing may reconcile the finished RayJob
  // again: the group would keep its size and hold its queue. So a round that would end without a
  // requeue tries again after the default requeue.
  if (!cleanupBatchSchedulerResources(rayJob) && outcome && outcome->isZero()) return kRequeue;
  return outcome;
}

bool RayJobReconciler::cleanupBatchSchedulerResources(const Json& rayJob) {
  if (!batchScheduler_) return true;
  auto cleaned = batchScheduler_->cleanupOnCompletion(client(), rayJob);
  if (!cleaned) {
    event(rayJob, "Warning", "FailedToCleanupBatchScheduler",
          fmt::format("Failed to cleanup batch scheduler resources for RayJob {}/{}: {}",
                      meta::namespace_(rayJob), meta::name(rayJob), cleaned.error().message));
    return false;
  }
  if (*cleaned) {
    event(rayJob, "Normal", "BatchSchedulerCleanedUp",
          fmt::format("Cleaned up batch scheduler resources for RayJob {}/{}",
                      meta::namespace_(rayJob), meta::name(rayJob)));
  }
  return true;
}

ReconcileOutcome RayJobReconciler::reconcileFinishedResources(const Json& rayJob) {
  // A cluster the RayJob did not create is never deleted.
  if (hasClusterSelector(rayJob)) return ReconcileResult{};
  if (jsonAt(rayJob, {"spec", "deletionStrategy"}).is_object()) {
    const Json& rules = jsonAt(rayJob, {"spec", "deletionStrategy", "deletionRules"});
    if (rules.is_array()) return handleDeletionRules(rayJob);
    return handleLegacyDeletionPolicy(rayJob);
  }
  if (shutdownAfterJobFinishes(rayJob)) return handleShutdownAfterJobFinishes(rayJob);
  return ReconcileResult{};
}

bool RayJobReconciler::updateStatusToSuspendingIfNeeded(Json& rayJob) {
  if (!isRayJobSuspendRequested(rayJob)) return false;
  const std::string current = statusString(rayJob, "jobDeploymentStatus");
  if (current != kJobDeploymentStatusRunning && current != kJobDeploymentStatusInitializing) {
    return false;
  }
  rayJob["status"]["jobDeploymentStatus"] = std::string(kJobDeploymentStatusSuspending);
  return true;
}

bool RayJobReconciler::checkActiveDeadlineAndUpdateStatusIfNeeded(Json& rayJob) {
  return failIfDeadlinePassed(rayJob, "activeDeadlineSeconds", "ActiveDeadlineSeconds",
                              kDeadlineExceeded);
}

bool RayJobReconciler::checkPreRunningDeadlineAndUpdateStatusIfNeeded(Json& rayJob) {
  return failIfDeadlinePassed(rayJob, "preRunningDeadlineSeconds", "PreRunningDeadlineSeconds",
                              kPreRunningDeadlineExceeded);
}

bool RayJobReconciler::failIfDeadlinePassed(Json& rayJob, const char* field, const char* goField,
                                            std::string_view reason) {
  auto deadline = optionalIntegerSpec(rayJob, field);
  auto startTime = statusTime(rayJob, "startTime");
  if (!deadline || !startTime) return false;
  if (now() < *startTime + std::chrono::seconds(*deadline)) return false;
  setRayJobFailed(rayJob, reason,
                  fmt::format("The RayJob has passed the {}. StartTime: {}. {}: {}", field,
                              goTimeString(*startTime), goField, *deadline));
  return true;
}

bool RayJobReconciler::checkTransitionGracePeriodAndUpdateStatusIfNeeded(Json& rayJob) {
  const std::string jobStatus = statusString(rayJob, "jobStatus");
  if (!isJobTerminal(jobStatus) ||
      statusString(rayJob, "jobDeploymentStatus") != kJobDeploymentStatusRunning) {
    return false;
  }
  const std::string endText = stringAt(rayJob, {"status", "rayJobInfo", "endTime"});
  TimePoint endTime;
  if (endText.empty() || !parseRfc3339(endText, &endTime)) return false;
  if (now() < endTime + options_.rayJobDeploymentStatusTransitionGracePeriod) return false;
  Json& status = rayJob["status"];
  status["jobDeploymentStatus"] = std::string(
      jobStatus == kJobStatusFailed ? kJobDeploymentStatusFailed : kJobDeploymentStatusComplete);
  status["reason"] = std::string(kJobDeploymentStatusTransitionGracePeriodExceeded);
  status["message"] =
      "JobDeploymentStatus does not transition to Complete or Failed within the grace period "
      "after JobStatus reaches a terminal state.";
  return true;
}

bool RayJobReconciler::checkJobStatusCheckTimeoutAndUpdateStatusIfNeeded(Json& rayJob) {
  auto since = statusTime(rayJob, "jobStatusCheckFailureStartTime");
  if (!since) return false;
  const auto timeout = options_.rayJobStatusCheckTimeout;
  if (now() < *since + timeout) return false;
  setRayJobFailed(
      rayJob, kJobStatusCheckTimeoutExceeded,
      fmt::format("Job status checks have been failing since {}; exceeded timeout of {}s",
                  goDateTime(*since), timeout.count()));
  return true;
}

bool RayJobReconciler::recordJobStatusCheckFailure(Json& rayJob) {
  if (!jsonAt(rayJob, {"status", "jobStatusCheckFailureStartTime"}).is_null()) return false;
  rayJob["status"]["jobStatusCheckFailureStartTime"] = formatRfc3339(now());
  return true;
}

bool RayJobReconciler::checkSubmitterFinishedTimeoutAndUpdateStatusIfNeeded(
    Json& rayJob, std::optional<TimePoint> finishedAt) {
  if (!finishedAt) return false;
  if (now() < *finishedAt + kDefaultSubmitterFinishedTimeout) return false;
  Json& status = rayJob["status"];
  status["jobStatus"] = std::string(kJobStatusFailed);
  setRayJobFailed(rayJob, kJobDeploymentStatusTransitionGracePeriodExceeded,
                  fmt::format("The RayJob submitter finished at {} but the ray job did not reach "
                              "terminal state within {}s",
                              goDateTime(*finishedAt), kDefaultSubmitterFinishedTimeout.count()));
  return true;
}

Result<std::pair<bool, std::optional<TimePoint>>>
RayJobReconciler::checkSubmitterAndUpdateStatusIfNeeded(Json& rayJob) {
  const bool rayJobFailed = statusString(rayJob, "jobStatus") == kJobStatusFailed;
  if (submissionMode(rayJob) == kSidecarMode) {
    auto cluster = getOrCreateRayClusterInstance(rayJob);
    if (!cluster) return tl::unexpected(cluster.error());
    std::vector<ObjectPtr> heads = manager_.cache().informerFor(kPods).byIndex(
        kLabelIndex, std::string(kRayClusterLabelKey) + "=" + meta::name(*cluster));
    std::erase_if(heads, [&](const ObjectPtr& p) {
      return meta::namespace_(*p) != meta::namespace_(rayJob) ||
             meta::label(*p, kRayNodeTypeLabelKey) != kHeadNode;
    });
    if (heads.empty()) {
      setRayJobFailed(rayJob, kAppFailed, "Ray head pod not found.");
      return std::pair{true, std::optional<TimePoint>()};
    }
    // checkSidecarContainerStatus and getSubmitterContainerFinishedTime.
    bool shouldUpdate = false;
    std::optional<TimePoint> finishedAt;
    const Json& statuses = jsonAt(*heads.front(), {"status", "containerStatuses"});
    if (statuses.is_array()) {
      for (const Json& s : statuses) {
        if (stringAt(s, {"name"}) != kSubmitterContainerName) continue;
        const Json& terminated = jsonAt(s, {"state", "terminated"});
        if (terminated.is_object()) {
          const Json& exitCode = jsonAt(terminated, {"exitCode"});
          const std::int64_t code = exitCode.is_number_integer() ? exitCode.get<std::int64_t>() : 0;
          if (code != 0) {
            shouldUpdate = true;
            setSubmitterFailed(
                rayJob, rayJobFailed,
                fmt::format("Ray head pod container {} terminated with exit code {}: {}",
                            kSubmitterContainerName, code, stringAt(terminated, {"reason"})));
          }
          TimePoint t;
          if (parseRfc3339(stringAt(terminated, {"finishedAt"}), &t)) finishedAt = t;
        }
        break;
      }
    }
    return std::pair{shouldUpdate, finishedAt};
  }

  // K8sJobMode.
  auto job = client().get(kJobs, meta::namespace_(rayJob), meta::name(rayJob));
  if (!job) return tl::unexpected(job.error());
  bool shouldUpdate = false;
  if (const Json* failed = trueJobCondition(*job, {"Failed"})) {
    shouldUpdate = true;
    setSubmitterFailed(rayJob, rayJobFailed,
                       fmt::format("Job submission has failed. Reason: {}. Message: {}",
                                   stringAt(*failed, {"reason"}), stringAt(*failed, {"message"})));
  }
  std::optional<TimePoint> finishedAt;
  if (const Json* finished = trueJobCondition(*job, {"Complete", "Failed"})) {
    TimePoint t;
    if (parseRfc3339(stringAt(*finished, {"lastTransitionTime"}), &t)) finishedAt = t;
  }
  return std::pair{shouldUpdate, finishedAt};
}

Result<Json> RayJobReconciler::getOrCreateRayClusterInstance(const Json& rayJob) {
  const std::string ns = meta::namespace_(rayJob);
  const std::string name = statusString(rayJob, "rayClusterName");
  auto got = client().get(kRayClusters, ns, name);
  if (got) return got;  // later changes of spec.rayClusterSpec are disregarded
  if (!isNotFound(got.error())) return got;
  if (hasClusterSelector(rayJob)) {
    event(rayJob, "Warning", "RayClusterNotFound",
          fmt::format("RayCluster {}/{} set in the clusterSelector is not found. It must be "
                      "created manually",
                      ns, name));
    Status error = got.error();
    error.message =
        fmt::format("clusterSelector mode is enabled, but RayCluster {}/{} is not found: {}", ns,
                    name, error.message);
    return tl::unexpected(std::move(error));
  }
  auto constructed = constructRayClusterForRayJob(rayJob, name);
  if (!constructed) return constructed;
  auto created = client().create(kRayClusters, std::move(*constructed));
  if (!created) {
    event(rayJob, "Warning", "FailedToCreateRayCluster",
          fmt::format("Failed to create RayCluster {}/{}: {}", ns, name, created.error().message));
    return created;
  }
  event(rayJob, "Normal", "CreatedRayCluster", fmt::format("Created RayCluster {}/{}", ns, name));
  return created;
}

Result<Json> RayJobReconciler::constructRayClusterForRayJob(const Json& rayJob,
                                                            const std::string& name) {
  Json labels = meta::labels(rayJob).is_object() ? meta::labels(rayJob) : Json::object();
  labels[std::string(kRayOriginatedFromCRNameLabelKey)] = meta::name(rayJob);
  labels[std::string(kRayOriginatedFromCRDLabelKey)] = std::string(kRayJobKind);
  labels[std::string(kRayJobSubmissionModeLabelKey)] = submissionMode(rayJob);
  Json annotations =
      meta::annotations(rayJob).is_object() ? meta::annotations(rayJob) : Json::object();
  Json spec = jsonAt(rayJob, {"spec", "rayClusterSpec"});
  if (submissionMode(rayJob) == kSidecarMode) {
    annotations[std::string(kDisableProvisionedHeadRestartAnnotationKey)] = "true";
    auto sidecar = sidecarSubmitterContainer(rayJob, spec);
    if (!sidecar) return tl::unexpected(sidecar.error());
    Json& podSpec = spec["headGroupSpec"]["template"]["spec"];
    podSpec["containers"].push_back(std::move(*sidecar));
    podSpec["restartPolicy"] = "Never";
  }
  Json rayCluster = {
      {"apiVersion", std::string(kApiVersion)},
      {"kind", std::string(kRayClusterKind)},
      {"metadata",
       {{"name", name}, {"namespace", meta::namespace_(rayJob)}, {"labels", std::move(labels)}}},
      {"spec", std::move(spec)}};
  if (!annotations.empty()) rayCluster["metadata"]["annotations"] = std::move(annotations);
  meta::addOwnerReference(rayCluster, meta::controllerRefTo(rayJob));
  // The cluster shares its RayJob's group (its pods name the RayJob's PodGroup).
  if (batchScheduler_ && submissionMode(rayJob) == kK8sJobMode) {
    batchScheduler_->addMetadataToChildResource(rayJob, rayCluster,
                                                batchscheduler::ChildKind::Other, "");
  }
  return rayCluster;
}

Result<std::string> RayJobReconciler::fetchHeadServiceUrl(const Json& rayCluster) {
  const std::string ns = meta::namespace_(rayCluster);
  const std::string serviceName =
      headServiceName(CrdType::RayCluster, rayCluster, meta::name(rayCluster));
  auto service = client().get(kServices, ns, serviceName);
  if (!service) return tl::unexpected(service.error());
  const Json& ports = jsonAt(*service, {"spec", "ports"});
  if (ports.is_array()) {
    for (const Json& port : ports) {
      if (stringAt(port, {"name"}) != kDashboardPortName) continue;
      return fmt::format("{}.{}.svc.{}:{}", serviceName, ns, options_.clusterDomain,
                         port.value("port", 0));
    }
  }
  return tl::unexpected(Status::internal(fmt::format("{} port is not found", kDashboardPortName)));
}

Result<void> RayJobReconciler::createK8sJobIfNeed(const Json& rayJob, const Json& rayCluster) {
  const std::string ns = meta::namespace_(rayJob);
  auto existing = client().get(kJobs, ns, meta::name(rayJob));
  if (existing) return {};  // found by name: a restarted operator reuses it
  if (!isNotFound(existing.error())) return tl::unexpected(existing.error());
  auto job = submitterJob(rayJob, jsonAt(rayCluster, {"spec"}));
  if (!job) {
    // Upstream would index a template without containers and panic; here it is the same
    // Warning as a refused create.
    event(rayJob, "Warning", "FailedToCreateRayJobSubmitter",
          fmt::format("Failed to create new Kubernetes Job {}/{}: {}", ns, meta::name(rayJob),
                      job.error().message));
    return tl::unexpected(job.error());
  }
  if (batchScheduler_) {
    batchScheduler_->addMetadataToChildResource(rayJob, (*job)["spec"]["template"],
                                                batchscheduler::ChildKind::PodTemplate,
                                                kSubmitterGroupName);
  }
  meta::addOwnerReference(*job, meta::controllerRefTo(rayJob));
  auto created = client().create(kJobs, std::move(*job));
  if (!created) {
    event(rayJob, "Warning", "FailedToCreateRayJobSubmitter",
          fmt::format("Failed to create new Kubernetes Job {}/{}: {}", ns, meta::name(rayJob),
                      created.error().message));
    return tl::unexpected(created.error());
  }
  event(rayJob, "Normal", "CreatedRayJobSubmitter",
        fmt::format("Created Kubernetes Job {}/{}", ns, meta::name(rayJob)));
  return {};
}

Result<void> RayJobReconciler::reconcileServices(const Json& rayJob, const Json& rayCluster) {
  if (hasClusterSelector(rayJob)) return {};
  // BuildHeadServiceForRayJob: the cluster's head Service, renamed <rayjob>-head-svc.
  auto built = buildHeadService(rayCluster, options_);
  if (!built) return tl::unexpected(built.error());
  Json service = std::move(*built);
  const std::string ns = meta::namespace_(rayJob);
  const std::string name = fmt::format("{}-{}", meta::name(rayJob), kHeadServiceSuffix);
  service["metadata"] = {{"name", name},
                         {"namespace", ns},
                         {"labels",
                          {{std::string(kRayOriginatedFromCRNameLabelKey), meta::name(rayJob)},
                           {std::string(kRayOriginatedFromCRDLabelKey), std::string(kRayJobKind)},
                           {std::string(kRayNodeTypeLabelKey), std::string(kHeadNode)},
                           {std::string(kRayIdLabelKey),
                            checkLabel(generateIdentifier(meta::name(rayJob), kHeadNode))}}}};
  auto existing = client().get(kServices, ns, name);
  if (existing) {
    // Only when the RayJob switched clusters.
    const std::string selected = stringAt(service, {"spec", "selector", kRayClusterLabelKey});
    if (selected == stringAt(*existing, {"spec", "selector", kRayClusterLabelKey})) return {};
    Json updated = std::move(*existing);
    const Json clusterIp = jsonAt(updated, {"spec", "clusterIP"});
    updated["spec"] = service["spec"];
    if (!clusterIp.is_null()) updated["spec"]["clusterIP"] = clusterIp;
    if (auto written = client().update(kServices, std::move(updated)); !written) {
      event(
          rayJob, "Warning", "FailedToUpdateService",
          fmt::format("Failed to update the service {}/{}, {}", ns, name, written.error().message));
      return tl::unexpected(written.error());
    }
    event(rayJob, "Normal", "UpdatedService", fmt::format("Updated the service {}/{}", ns, name));
    return {};
  }
  if (!isNotFound(existing.error())) return tl::unexpected(existing.error());
  meta::addOwnerReference(service, meta::controllerRefTo(rayJob));
  if (auto created = client().create(kServices, std::move(service)); !created) {
    event(rayJob, "Warning", "FailedToCreateService",
          fmt::format("Failed to create the service {}/{}, {}", ns, name, created.error().message));
    return tl::unexpected(created.error());
  }
  event(rayJob, "Normal", "CreatedService", fmt::format("Created the service {}/{}", ns, name));
  return {};
}

Result<bool> RayJobReconciler::deleteClusterResources(const Json& rayJob) {
  if (hasClusterSelector(rayJob)) return true;
  const std::string ns = meta::namespace_(rayJob);
  const std::string name = statusString(rayJob, "rayClusterName");
  auto cluster = client().get(kRayClusters, ns, name);
  if (!cluster) {
    if (isNotFound(cluster.error())) return true;  // idempotent
    return tl::unexpected(cluster.error());
  }
  if (meta::isDeleting(*cluster)) return false;  // deletion ongoing
  if (auto deleted = client().deleteObject(kRayClusters, ns, name); !deleted) {
    event(rayJob, "Warning", "FailedToDeleteRayCluster",
          fmt::format("Failed to delete cluster {}/{}: {}", ns, name, deleted.error().message));
    return tl::unexpected(deleted.error());
  }
  event(rayJob, "Normal", "DeletedRayCluster", fmt::format("Deleted cluster {}/{}", ns, name));
  return false;
}

Result<bool> RayJobReconciler::deleteSubmitterJob(const Json& rayJob) {
  const std::string mode = submissionMode(rayJob);
  if (mode == kHttpMode || mode == kSidecarMode) return true;
  const std::string ns = meta::namespace_(rayJob);
  const std::string name = meta::name(rayJob);
  auto job = client().get(kJobs, ns, name);
  if (!job) {
    if (isNotFound(job.error())) return true;
    return tl::unexpected(job.error());
  }
  if (meta::isDeleting(*job)) return false;
  DeleteOptions options;
  options.propagationPolicy = "Background";
  if (auto deleted = client().deleteObject(kJobs, ns, name, options); !deleted) {
    event(rayJob, "Warning", "FailedToDeleteRayJobSubmitter",
          fmt::format("Failed to delete submitter K8s Job {}/{}: {}", ns, name,
                      deleted.error().message));
    return tl::unexpected(deleted.error());
  }
  event(rayJob, "Normal", "DeletedRayJobSubmitter",
        fmt::format("Deleted submitter K8s Job {}/{}", ns, name));
  return false;
}

Result<void> RayJobReconciler::suspendWorkerGroups(const Json& rayJob) {
  const std::string ns = meta::namespace_(rayJob);
  const std::string name = statusString(rayJob, "rayClusterName");
  auto cluster = client().get(kRayClusters, ns, name);
  if (!cluster) return tl::unexpected(cluster.error());
  Json& groups = (*cluster)["spec"]["workerGroupSpecs"];
  if (groups.is_array()) {
    for (Json& group : groups) group["suspend"] = true;
  }
  if (auto updated = client().update(kRayClusters, std::move(*cluster)); !updated) {
    event(rayJob, "Warning", "FailedToUpdateRayCluster",
          fmt::format("Failed to suspend worker groups in cluster {}/{}: {}", ns, name,
                      updated.error().message));
    return tl::unexpected(updated.error());
  }
  event(rayJob, "Normal", "UpdatedRayCluster",
        fmt::format("Set the `suspend` field to true for all worker groups in cluster {}/{}", ns,
                    name));
  return {};
}

ReconcileOutcome RayJobReconciler::handleShutdownAfterJobFinishes(const Json& rayJob) {
  auto endTime = statusTime(rayJob, "endTime");
  const TimePoint shutdownTime =
      endTime.value_or(now()) + std::chrono::seconds(ttlSecondsAfterFinished(rayJob));
  if (shutdownTime > now()) return ReconcileResult{.requeueAfter = requeueDelayFor(shutdownTime)};
  if (options_.deleteRayJobAfterJobFinishes) {
    if (auto deleted =
            client().deleteObject(kRayJobs, meta::namespace_(rayJob), meta::name(rayJob));
        !deleted) {
      return reconcileError(deleted.error(), kRequeue);
    }
    return ReconcileResult{};
  }
  // Only the RayCluster: the submitter Job keeps the driver's logs and uses no resources.
  if (auto deleted = deleteClusterResources(rayJob); !deleted) {
    return reconcileError(deleted.error(), kRequeue);
  }
  return ReconcileResult{};
}

ReconcileOutcome RayJobReconciler::handleLegacyDeletionPolicy(const Json& rayJob) {
  const std::string jobStatus = statusString(rayJob, "jobStatus");
  std::string policy;
  if (jobStatus == kJobStatusSucceeded) {
    policy = stringAt(rayJob, {"spec", "deletionStrategy", "onSuccess", "policy"});
  } else if (jobStatus == kJobStatusFailed) {
    policy = stringAt(rayJob, {"spec", "deletionStrategy", "onFailure", "policy"});
  } else {
    return ReconcileResult{};
  }
  if (policy == kDeleteNone) return ReconcileResult{};
  auto endTime = statusTime(rayJob, "endTime");
  const TimePoint shutdownTime =
      endTime.value_or(now()) + std::chrono::seconds(ttlSecondsAfterFinished(rayJob));
  if (shutdownTime > now()) return ReconcileResult{.requeueAfter = requeueDelayFor(shutdownTime)};
  return executeDeletionPolicy(rayJob, policy);
}

ReconcileOutcome RayJobReconciler::handleDeletionRules(const Json& rayJob) {
  const TimePoint nowTime = now();
  const TimePoint endTime = statusTime(rayJob, "endTime").value_or(nowTime);
  const Json& rules = jsonAt(rayJob, {"spec", "deletionStrategy", "deletionRules"});
  std::vector<std::string> overdue;
  std::optional<TimePoint> nextRequeue;
  for (const Json& rule : rules) {
    const Json& condition = jsonAt(rule, {"condition"});
    // isDeletionRuleMatched.
    const bool matched =
        jsonAt(condition, {"jobStatus"}).is_string()
            ? stringAt(condition, {"jobStatus"}) == statusString(rayJob, "jobStatus")
            : stringAt(condition, {"jobDeploymentStatus"}) ==
                  statusString(rayJob, "jobDeploymentStatus");
    if (!matched) continue;
    const Json& ttl = jsonAt(condition, {"ttlSeconds"});
    const TimePoint deletionTime =
        endTime + std::chrono::seconds(ttl.is_number_integer() ? ttl.get<std::int64_t>() : 0);
    if (nowTime < deletionTime) {
      if (!nextRequeue || deletionTime < *nextRequeue) nextRequeue = deletionTime;
      continue;
    }
    const std::string policy = stringAt(rule, {"policy"});
    auto completed = isDeletionActionCompleted(rayJob, policy);
    if (!completed) return reconcileError(completed.error(), kRequeue);
    if (*completed) continue;
    overdue.push_back(policy);
  }
  if (!overdue.empty()) {
    // selectMostImpactfulRule.
    auto rank = [](const std::string& p) {
      return p == kDeleteSelf ? 4 : p == kDeleteCluster ? 3 : p == kDeleteWorkers ? 2 : 1;
    };
    std::string chosen = overdue.front();
    for (const auto& p : overdue) {
      if (rank(p) > rank(chosen)) chosen = p;
    }
    if (auto executed = executeDeletionPolicy(rayJob, chosen); !executed) return executed;
  }
  if (nextRequeue) return ReconcileResult{.requeueAfter = requeueDelayFor(*nextRequeue)};
  return ReconcileResult{};
}

Result<bool> RayJobReconciler::isDeletionActionCompleted(const Json& rayJob,
                                                         const std::string& policy) {
  if (policy == kDeleteSelf) return false;
  if (policy == kDeleteNone) return true;
  if (policy != kDeleteWorkers && policy != kDeleteCluster) {
    return tl::unexpected(Status::badRequest(
        fmt::format("unknown deletion policy for completion check: {}", policy)));
  }
  auto cluster =
      client().get(kRayClusters, meta::namespace_(rayJob), statusString(rayJob, "rayClusterName"));
  if (!cluster) {
    if (isNotFound(cluster.error())) return true;
    return tl::unexpected(cluster.error());
  }
  if (meta::isDeleting(*cluster)) return true;
  if (policy == kDeleteCluster) return false;
  for (const WorkerGroupSpec& group : workerGroupSpecs(*cluster)) {
    if (!group.suspend) return false;
  }
  return true;
}

ReconcileOutcome RayJobReconciler::executeDeletionPolicy(const Json& rayJob,
                                                         const std::string& policy) {
  Result<void> done;
  if (policy == kDeleteCluster) {
    if (auto deleted = deleteClusterResources(rayJob); !deleted) {
      done = tl::unexpected(deleted.error());
    }
  } else if (policy == kDeleteWorkers) {
    done = suspendWorkerGroups(rayJob);
  } else if (policy == kDeleteSelf) {
    if (auto deleted =
            client().deleteObject(kRayJobs, meta::namespace_(rayJob), meta::name(rayJob));
        !deleted) {
      done = tl::unexpected(deleted.error());
    }
  }
  if (!done) return reconcileError(done.error(), kRequeue);
  return ReconcileResult{};
}

Result<void> RayJobReconciler::updateRayJobStatus(const Json& original, Json& rayJob) {
  const Json& oldStatus = jsonAt(original, {"status"});
  Json& newStatus = rayJob["status"];
  auto field = [](const Json& status, const char* key) -> Json {
    const Json& v = jsonAt(status, {key});
    return v.is_null() ? Json("") : v;
  };
  const Json& oldCluster = jsonAt(oldStatus, {"rayClusterStatus"});
  const Json& newCluster = jsonAt(newStatus, {"rayClusterStatus"});
  const bool clusterChanged =
      inconsistentRayClusterStatus(oldCluster.is_object() ? oldCluster : Json::object(),
                                   newCluster.is_object() ? newCluster : Json::object());
  if (field(oldStatus, "jobStatus") == field(newStatus, "jobStatus") &&
      field(oldStatus, "jobDeploymentStatus") == field(newStatus, "jobDeploymentStatus") &&
      !clusterChanged &&
      field(oldStatus, "jobStatusCheckFailureStartTime") ==
          field(newStatus, "jobStatusCheckFailureStartTime")) {
    return {};
  }
  if (isJobDeploymentTerminal(statusString(rayJob, "jobDeploymentStatus"))) {
    newStatus["endTime"] = formatRfc3339(now());
  }
  auto written = client().updateStatus(kRayJobs, rayJob);
  if (!written) return tl::unexpected(written.error());
  return {};
}

}  // namespace

Result<Controller*> addRayJobController(Manager& manager, const OperatorOptions& options) {
  auto reconciler =
      std::make_shared<RayJobReconciler>(manager, options, dashboardClientsFor(manager, options));
  ControllerOptions controllerOptions;
  controllerOptions.maxConcurrentReconciles = std::max(1, options.reconcileConcurrency);
  return ControllerBuilder(manager)
      .named("rayjob")
      .forResource(kRayJobs)
      .forKind(std::string(kRayJobKind))
      .owns(kRayClusters)
      .owns(kServices)
      .owns(kJobs)
      .withOptions(std::move(controllerOptions))
      .complete(
          [reconciler](const ReconcileRequest& request) { return reconciler->reconcile(request); });
}

}  // namespace fakekube::ray
