#include "fakekube/cluster/job_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "fakekube/api/conditions.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/internal/controller_expectations.h"
#include "fakekube/cluster/internal/controller_utils.h"
#include "fakekube/runtime/builder.h"

namespace fakekube {

namespace {

using namespace workload;  // NOLINT: the shared controller helpers

std::int64_t intAt(const Json& j, std::initializer_list<std::string_view> path,
                   std::int64_t fallback) {
  const Json& v = jsonAt(j, path);
  return v.is_number_integer() ? v.get<std::int64_t>() : fallback;
}

bool isJobRef(const meta::OwnerReferenceView& ref) {
  return ref.kind == "Job" && meta::groupOf(ref.apiVersion) == "batch";
}

bool hasTrackingFinalizer(const Json& pod) {
  return meta::hasFinalizer(pod, kJobTrackingFinalizer);
}

bool jobSuspended(const Json& job) { return jsonAt(job, {"spec", "suspend"}) == true; }

// A condition of type `type` with status True.
const Json* trueCondition(const Json& job, std::string_view type) {
  const Json* c = findCondition(job, type);
  return c && c->value("status", "") == "True" ? c : nullptr;
}

bool isJobFinished(const Json& job) {
  return trueCondition(job, "Complete") || trueCondition(job, "Failed");
}

Json newCondition(std::string_view type, std::string_view status, std::string_view reason,
                  std::string_view message, TimePoint now) {
  const std::string time = formatRfc3339(now);
  Json c = {
      {"type", type}, {"status", status}, {"lastProbeTime", time}, {"lastTransitionTime", time}};
  if (!reason.empty()) c["reason"] = reason;
  if (!message.empty()) c["message"] = message;
  return c;
}

// ensureJobConditionStatus: sets the condition in place, or appends it (unless it would be
// False). Whether anything changed.
bool ensureCondition(Json& job, std::string_view type, std::string_view status,
                     std::string_view reason, std::string_view message, TimePoint now) {
  if (Json* c = findCondition(job, type)) {
    if (c->value("status", "") != status || c->value("reason", "") != reason ||
        c->value("message", "") != message) {
      *c = newCondition(type, status, reason, message, now);
      return true;
    }
    return false;
  }
  if (status == "False") return false;
  Json& conditions = job["status"]["conditions"];
  if (!conditions.is_array()) conditions = Json::array();
  conditions.push_back(newCondition(type, status, reason, message, now));
  return true;
}

// The pod failed, or (podReplacementPolicy TerminatingOrFailed) is being deleted before it
// succeeded: an orphan or an evicted pod never reaches Failed.
bool isPodFailed(const Json& pod, const Json& job) {
  const std::string phase = podPhase(pod);
  if (phase == "Failed") return true;
  if (jsonAt(job, {"spec", "podReplacementPolicy"}) == "Failed" ||
      !jsonAt(job, {"spec", "podFailurePolicy"}).is_null()) {
    return false;
  }
  return meta::isDeleting(pod) && phase != "Succeeded";
}

// getFinishedTime: the last container termination, else when Ready went False, else the
// deletion deadline, else the creation time.
TimePoint finishedTime(const Json& pod) {
  std::optional<TimePoint> latest;
  for (const char* list : {"containerStatuses", "initContainerStatuses"}) {
    const Json& statuses = jsonAt(pod, {"status", list});
    if (!statuses.is_array()) continue;
    for (const auto& s : statuses) {
      auto t = parseTime(jsonAt(s, {"state", "terminated", "finishedAt"}));
      if (t && (!latest || *t > *latest)) latest = t;
    }
  }
  if (latest) return *latest;
  if (const Json* ready = findCondition(pod, "Ready");
      ready && ready->value("status", "") == "False") {
    if (auto t = parseTime(jsonAt(*ready, {"lastTransitionTime"}))) return *t;
  }
  if (auto t = parseTime(jsonAt(pod, {"metadata", "deletionTimestamp"}))) {
    return *t - std::chrono::seconds(meta::deletionGracePeriodSeconds(pod).value_or(0));
  }
  return parseTime(jsonAt(pod, {"metadata", "creationTimestamp"})).value_or(TimePoint{});
}

void sortByFinishedTime(std::vector<ObjectPtr>& pods) {
  std::stable_sort(pods.begin(), pods.end(), [](const ObjectPtr& a, const ObjectPtr& b) {
    return finishedTime(*a) < finishedTime(*b);
  });
}

std::set<std::string> uidSet(const Json& list) {
  std::set<std::string> out;
  if (!list.is_array()) return out;
  for (const auto& uid : list) {
    if (uid.is_string()) out.insert(uid.get<std::string>());
  }
  return out;
}

// The backoff before new pods after failures (backoffRecord of pkg/controller/job).
struct BackoffRecord {
  int failuresAfterLastSuccess = 0;
  std::optional<TimePoint> lastFailureTime;
};

// One sync of one Job.
struct JobSync {
  Json job;
  std::string key;
  std::vector<ObjectPtr> pods;
  std::vector<ObjectPtr> activePods;
  std::set<std::string> expectedRemovals;
  std::int64_t succeeded = 0;
  std::int64_t terminating = 0;
  std::int64_t ready = 0;
  std::optional<Json> finished;  // the condition the Job is to get
  BackoffRecord backoff;
  std::optional<Duration> requeueAfter;
  // What this sync did: the active pods after it, the first error of creating or deleting pods,
  // whether the Suspended condition changed.
  std::int64_t active = 0;
  std::optional<Status> manageError;
  bool suspendChanged = false;
  void requeue(Duration after) {
    if (!requeueAfter || after < *requeueAfter) requeueAfter = after;
  }
};

bool isSuccessCriteriaMet(const std::optional<Json>& condition) {
  return condition && condition->value("type", "") == "SuccessCriteriaMet";
}

class JobController : public std::enable_shared_from_this<JobController> {
 public:
  JobController(Manager& manager, JobControllerOptions options)
      : manager_(manager),
        options_(options),
        expectations_(manager.executor().clock(), options.expectationsTimeout) {}

  EventHandler podHandler();
  ReconcileOutcome reconcile(const ReconcileRequest& request);

 private:
  TimePoint now() { return manager_.executor().clock().now(); }
  void event(const Json& job, std::string_view type, std::string_view reason,
             const std::string& message) {
    if (!options_.recordEvents) return;
    (void)manager_.eventRecorder("job-controller").event(job, type, reason, message);
  }

  // The Job named by the pod's controller reference, and whether it is the one in the cache.
  std::optional<ReconcileRequest> owningJob(const Json& pod, bool* current);
  std::vector<ReconcileRequest> jobsSelecting(const Json& pod);
  std::vector<ReconcileRequest> onPodAdd(const ObjectPtr& pod);
  std::vector<ReconcileRequest> onPodUpdate(const ObjectPtr& oldPod, const ObjectPtr& newPod);
  std::vector<ReconcileRequest> onPodDelete(const ObjectPtr& pod) { return deletePod(pod, true); }
  // A pod deleted (`final`: the informer's delete) or being deleted (deletePod).
  std::vector<ReconcileRequest> deletePod(const ObjectPtr& pod, bool final);

  // Finalizer expectations: pods whose tracking finalizer removal was sent but not yet seen.
  void expectFinalizerRemovals(const std::string& key, const std::vector<ObjectPtr>& pods);
  void finalizerRemovalObserved(const std::string& key, const std::string& uid);
  std::set<std::string> pendingFinalizerRemovals(const std::string& key);

  Result<void> syncJob(JobSync& s);
  // The Job's pods: claimed by selector, terminating and finished ones included (getPodsForJob).
  Result<void> getPodsForJob(JobSync& s);
  // The finished pods not counted yet (getNewFinishedPods) and the counts they add to; answers
  // the failed count.
  std::int64_t countFinishedPods(JobSync& s, std::vector<ObjectPtr>& newSucceeded,
                                 std::vector<ObjectPtr>& newFailed);
  // The Job's finish from its conditions, its backoff limit or its deadline (the failure half
  // of syncJob); a deadline still ahead requeues.
  void checkFinished(JobSync& s, std::int64_t failed);
  // Finishing: the active pods go. Otherwise manageJob, then completion and suspension.
  void syncActivePods(JobSync& s, bool satisfied);
  // manageJob: creates or deletes pods; answers the active count after it.
  Result<std::int64_t> manageJob(JobSync& s);
  // Deletes pods; {ready ones deleted, deleted}.
  std::pair<std::int64_t, std::int64_t> deletePods(JobSync& s, const std::vector<ObjectPtr>& pods,
                                                   bool expect, std::optional<Status>* error);
  Result<void> trackStatusAndRemoveFinalizers(JobSync& s, bool needsFlush);
  // The finished pods whose finalizer may go, recorded in uncountedTerminatedPods; true when the
  // record reached maxUncountedPods (the rest wait for the next sync).
  bool recordUncountedPods(JobSync& s, std::vector<ObjectPtr>& toRemove, bool& needsFlush);
  // FailureTarget becomes Failed, SuccessCriteriaMet becomes Complete (both recorded first).
  void recordFinishedCondition(JobSync& s, bool& needsFlush);
  Result<void> flushUncountedAndRemoveFinalizers(JobSync& s, const std::vector<ObjectPtr>& toRemove,
                                                 std::set<std::string>& withFinalizer,
                                                 bool needsFlush, bool reachedMaxUncounted);
  // Removes the finalizer of each pod; which removals succeeded.
  std::vector<bool> removeFinalizers(const std::string& key, const std::vector<ObjectPtr>& pods,
                                     std::optional<Status>* error);
  bool enactJobFinished(JobSync& s);
  Result<void> writeStatus(JobSync& s);
  BackoffRecord newBackoffRecord(const std::string& key, std::vector<ObjectPtr> succeeded,
                                 std::vector<ObjectPtr> failed);
  Duration remainingBackoff(const BackoffRecord& record);
  // Pods of a Job that no longer exists keep no tracking finalizer.
  Result<void> releaseOrphans(const ReconcileRequest& request, const std::string& liveUid);

  Manager& manager_;
  const JobControllerOptions options_;
  ControllerExpectations expectations_;
  std::mutex mu_;
  std::map<std::string, std::set<std::string>> finalizerRemovals_;
  std::map<std::string, BackoffRecord> backoffs_;
};

// --- event handlers ---

std::optional<ReconcileRequest> JobController::owningJob(const Json& pod, bool* current) {
  auto ref = meta::controllerRefOf(pod);
  if (!ref || !isJobRef(*ref)) return std::nullopt;
  auto job = manager_.cache().getShared(kJobs, meta::namespace_(pod), ref->name);
  *current = job && meta::uid(**job) == ref->uid;
  return ReconcileRequest{meta::namespace_(pod), std::string(ref->name)};
}

std::vector<ReconcileRequest> JobController::jobsSelecting(const Json& pod) {
  return ownersSelecting(manager_.cache(), kJobs, pod);
}

std::vector<ReconcileRequest> JobController::onPodAdd(const ObjectPtr& pod) {
  if (meta::isDeleting(*pod)) return deletePod(pod, false);
  bool current = false;
  if (auto owner = owningJob(*pod, &current)) {
    if (current) expectations_.creationObserved(owner->key());
    return {*owner};
  }
  if (meta::controllerRefOf(*pod)) return {};
  return jobsSelecting(*pod);
}

std::vector<ReconcileRequest> JobController::onPodUpdate(const ObjectPtr& oldPod,
                                                         const ObjectPtr& newPod) {
  if (meta::resourceVersion(*oldPod) == meta::resourceVersion(*newPod)) return {};
  std::vector<ReconcileRequest> out;
  auto add = [&out](const ReconcileRequest& r) {
    if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  };
  if (meta::isDeleting(*newPod)) {
    for (const auto& r : deletePod(newPod, false)) add(r);
    return out;
  }
  bool current = false;
  auto oldOwner = owningJob(*oldPod, &current);
  auto newOwner = owningJob(*newPod, &current);
  if (oldOwner && oldOwner != newOwner) add(*oldOwner);
  if (newOwner) {
    if (current && !hasTrackingFinalizer(*newPod)) {
      finalizerRemovalObserved(newOwner->key(), meta::uid(*newPod));
    }
    add(*newOwner);
    return out;
  }
  if (!meta::controllerRefOf(*newPod) &&
      (meta::labels(*oldPod) != meta::labels(*newPod) || oldOwner)) {
    for (const auto& r : jobsSelecting(*newPod)) add(r);
  }
  return out;
}

std::vector<ReconcileRequest> JobController::deletePod(const ObjectPtr& pod, bool final) {
  bool current = false;
  auto owner = owningJob(*pod, &current);
  if (!owner) return {};
  if (current) {
    expectations_.deletionObserved(owner->key(), meta::namespacedName(*pod));
    if (final || !hasTrackingFinalizer(*pod)) {
      finalizerRemovalObserved(owner->key(), meta::uid(*pod));
    }
  }
  return {*owner};
}

EventHandler JobController::podHandler() {
  return workload::controllerEventHandler(weak_from_this(), &JobController::onPodAdd,
                                          &JobController::onPodUpdate, &JobController::onPodDelete);
}

void JobController::expectFinalizerRemovals(const std::string& key,
                                            const std::vector<ObjectPtr>& pods) {
  std::lock_guard lock(mu_);
  auto& pending = finalizerRemovals_[key];
  for (const auto& pod : pods) pending.insert(meta::uid(*pod));
}

void JobController::finalizerRemovalObserved(const std::string& key, const std::string& uid) {
  std::lock_guard lock(mu_);
  auto it = finalizerRemovals_.find(key);
  if (it == finalizerRemovals_.end()) return;
  it->second.erase(uid);
  if (it->second.empty()) finalizerRemovals_.erase(it);
}

std::set<std::string> JobController::pendingFinalizerRemovals(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = finalizerRemovals_.find(key);
  return it == finalizerRemovals_.end() ? std::set<std::string>{} : it->second;
}

// --- backoff ---

BackoffRecord JobController::newBackoffRecord(const std::string& key,
                                              std::vector<ObjectPtr> succeeded,
                                              std::vector<ObjectPtr> failed) {
  BackoffRecord record;
  {
    std::lock_guard lock(mu_);
    if (auto it = backoffs_.find(key); it != backoffs_.end()) record = it->second;
  }
  sortByFinishedTime(succeeded);
  sortByFinishedTime(failed);
  if (succeeded.empty()) {
    if (failed.empty()) return record;
    record.failuresAfterLastSuccess += static_cast<int>(failed.size());
    record.lastFailureTime = finishedTime(*failed.back());
    return record;
  }
  record.failuresAfterLastSuccess = 0;
  record.lastFailureTime.reset();
  const TimePoint lastSuccess = finishedTime(*succeeded.back());
  for (auto it = failed.rbegin(); it != failed.rend(); ++it) {
    TimePoint failedAt = finishedTime(**it);
    if (failedAt <= lastSuccess) break;
    if (!record.lastFailureTime) record.lastFailureTime = failedAt;
    ++record.failuresAfterLastSuccess;
  }
  return record;
}

Duration JobController::remainingBackoff(const BackoffRecord& record) {
  if (record.failuresAfterLastSuccess == 0 || !record.lastFailureTime) return Duration{0};
  Duration backoff = options_.podFailureBackoff;
  for (int i = 1; i < record.failuresAfterLastSuccess; ++i) {
    backoff *= 2;
    if (backoff >= options_.maxPodFailureBackoff) {
      backoff = options_.maxPodFailureBackoff;
      break;
    }
  }
  Duration elapsed = now() - *record.lastFailureTime;
  if (backoff < elapsed) return Duration{0};
  return backoff - elapsed;
}

// --- reconcile ---

ReconcileOutcome JobController::reconcile(const ReconcileRequest& request) {
  const std::string key = request.key();
  auto read = manager_.cache().get(kJobs, request.namespace_, request.name);
  if (!read) {
    if (!isNotFound(read.error())) return reconcileError(read.error());
    expectations_.deleteExpectations(key);
    {
      std::lock_guard lock(mu_);
      finalizerRemovals_.erase(key);
      backoffs_.erase(key);
    }
    if (auto released = releaseOrphans(request, ""); !released) {
      return reconcileError(released.error());
    }
    return ReconcileResult{};
  }
  if (auto released = releaseOrphans(request, meta::uid(*read)); !released) {
    return reconcileError(released.error());
  }
  if (isJobFinished(*read)) return ReconcileResult{};
  JobSync s;
  s.job = std::move(*read);
  s.key = key;
  auto synced = syncJob(s);
  if (!synced) return reconcileError(synced.error());
  if (s.requeueAfter) return ReconcileResult{std::max(*s.requeueAfter, Duration{1})};
  return ReconcileResult{};
}

Result<void> JobController::releaseOrphans(const ReconcileRequest& request,
                                           const std::string& liveUid) {
  std::vector<ObjectPtr> orphans;
  for (const auto& pod : listInNamespace(manager_.cache(), kPods, request.namespace_)) {
    auto ref = meta::controllerRefOf(*pod);
    if (!ref || !isJobRef(*ref) || ref->name != request.name || ref->uid == liveUid) continue;
    if (hasTrackingFinalizer(*pod)) orphans.push_back(pod);
  }
  if (orphans.empty()) return {};
  std::optional<Status> error;
  removeFinalizers("", orphans, &error);
  if (error) return tl::unexpected(*error);
  return {};
}

Result<void> JobController::syncJob(JobSync& s) {
  Json& status = s.job["status"];
  if (!status.is_object()) status = Json::object();
  if (!status.contains("uncountedTerminatedPods"))
    status["uncountedTerminatedPods"] = Json::object();
  const bool satisfied = expectations_.satisfied(s.key);
  if (!specSelector(s.job)) return {};
  if (auto got = getPodsForJob(s); !got) return got;
  std::vector<ObjectPtr> newSucceeded, newFailed;
  const std::int64_t failed = countFinishedPods(s, newSucceeded, newFailed);
  if (!status.contains("startTime") && !jobSuspended(s.job)) {
    status["startTime"] = formatRfc3339(now());
  }
  s.backoff = newBackoffRecord(s.key, newSucceeded, newFailed);
  checkFinished(s, failed);
  syncActivePods(s, satisfied);

  Json& st = s.job["status"];
  bool needsUpdate = s.suspendChanged || intAt(st, {"active"}, 0) != s.active ||
                     st.value("ready", Json()) != Json(s.ready) ||
                     st.value("terminating", Json()) != Json(s.terminating);
  if (s.active == 0) {
    st.erase("active");
  } else {
    st["active"] = s.active;
  }
  st["ready"] = s.ready;
  st["terminating"] = s.terminating;
  if (auto tracked = trackStatusAndRemoveFinalizers(s, needsUpdate); !tracked) return tracked;
  if (s.manageError) return tl::unexpected(*s.manageError);
  return {};
}

Result<void> JobController::getPodsForJob(JobSync& s) {
  auto selector = specSelector(s.job);
  auto claimed = claimFromCache(manager_, kJobs, s.job, *selector, kPods, kJobTrackingFinalizer);
  if (!claimed) return tl::unexpected(claimed.error());
  s.pods = std::move(*claimed);
  for (const auto& pod : s.pods) {
    if (isPodActive(*pod)) s.activePods.push_back(pod);
  }
  s.active = static_cast<std::int64_t>(s.activePods.size());
  s.expectedRemovals = pendingFinalizerRemovals(s.key);
  return {};
}

std::int64_t JobController::countFinishedPods(JobSync& s, std::vector<ObjectPtr>& newSucceeded,
                                              std::vector<ObjectPtr>& newFailed) {
  Json& status = s.job["status"];
  // getNewFinishedPods: finished pods that still carry the finalizer and are not recorded yet.
  const auto uncountedSucceeded =
      uidSet(status["uncountedTerminatedPods"].value("succeeded", Json()));
  const auto uncountedFailed = uidSet(status["uncountedTerminatedPods"].value("failed", Json()));
  for (const auto& pod : s.pods) {
    const std::string uid = meta::uid(*pod);
    if (!hasTrackingFinalizer(*pod) || s.expectedRemovals.count(uid)) continue;
    if (podPhase(*pod) == "Succeeded" && !uncountedSucceeded.count(uid))
      newSucceeded.push_back(pod);
    if (isPodFailed(*pod, s.job) && !uncountedFailed.count(uid)) newFailed.push_back(pod);
  }
  s.succeeded = intAt(status, {"succeeded"}, 0) + static_cast<std::int64_t>(newSucceeded.size()) +
                static_cast<std::int64_t>(uncountedSucceeded.size());
  for (const auto& pod : s.activePods) {
    if (isPodReady(*pod)) ++s.ready;
  }
  for (const auto& pod : s.pods) {
    if (isPodTerminating(*pod)) ++s.terminating;
  }
  return intAt(status, {"failed"}, 0) + static_cast<std::int64_t>(newFailed.size()) +
         static_cast<std::int64_t>(uncountedFailed.size());
}

void JobController::checkFinished(JobSync& s, std::int64_t failed) {
  const std::int64_t backoffLimit = intAt(s.job, {"spec", "backoffLimit"}, 6);
  if (const Json* met = trueCondition(s.job, "SuccessCriteriaMet")) s.finished = *met;
  if (!s.finished) {
    if (const Json* target = trueCondition(s.job, "FailureTarget")) {
      s.finished = newCondition("Failed", "True", target->value("reason", ""),
                                target->value("message", ""), now());
    }
  }
  if (s.finished) return;
  bool pastBackoffLimitOnFailure = false;
  if (jsonAt(s.job, {"spec", "template", "spec", "restartPolicy"}) == "OnFailure") {
    std::int64_t restarts = 0;
    for (const auto& pod : s.pods) {
      std::string phase = podPhase(*pod);
      if (phase == "Running" || phase == "Pending") restarts += totalContainerRestarts(*pod);
    }
    pastBackoffLimitOnFailure = backoffLimit == 0 ? restarts > 0 : restarts >= backoffLimit;
  }
  const Json& deadline = jsonAt(s.job, {"spec", "activeDeadlineSeconds"});
  auto start = parseTime(s.job["status"].value("startTime", Json()));
  if (failed > backoffLimit || pastBackoffLimitOnFailure) {
    s.finished = newCondition("FailureTarget", "True", "BackoffLimitExceeded",
                              "Job has reached the specified backoff limit", now());
  } else if (deadline.is_number_integer() && start && !jobSuspended(s.job)) {
    Duration allowed = std::chrono::seconds(deadline.get<std::int64_t>());
    Duration elapsed = now() - *start;
    if (elapsed >= allowed) {
      s.finished = newCondition("FailureTarget", "True", "DeadlineExceeded",
                                "Job was active longer than specified deadline", now());
    } else {
      s.requeue(allowed - elapsed);
    }
  }
}

void JobController::syncActivePods(JobSync& s, bool satisfied) {
  if (s.finished) {
    // Remove the active pods; the Job is finished only once all of them are being deleted.
    auto [deletedReady, deleted] = deletePods(s, s.activePods, false, &s.manageError);
    if (deleted != s.active || !satisfied) s.finished.reset();
    s.active -= deleted;
    s.ready -= deletedReady;
    return;
  }
  bool manageCalled = false;
  if (satisfied && !meta::isDeleting(s.job)) {
    auto managed = manageJob(s);
    if (managed) {
      s.active = *managed;
    } else {
      s.manageError = managed.error();
    }
    manageCalled = true;
  }
  const Json& completions = jsonAt(s.job, {"spec", "completions"});
  bool complete = completions.is_number_integer()
                      ? s.succeeded >= completions.get<std::int64_t>() && s.active == 0
                      : s.succeeded > 0 && s.active == 0;
  if (complete) {
    s.finished = newCondition("SuccessCriteriaMet", "True", "CompletionsReached",
                              "Reached expected number of succeeded pods", now());
  } else if (manageCalled) {
    if (jobSuspended(s.job)) {
      if (ensureCondition(s.job, "Suspended", "True", "JobSuspended", "Job suspended", now())) {
        s.suspendChanged = true;
        event(s.job, "Normal", "Suspended", "Job suspended");
      }
    } else if (ensureCondition(s.job, "Suspended", "False", "JobResumed", "Job resumed", now())) {
      s.suspendChanged = true;
      event(s.job, "Normal", "Resumed", "Job resumed");
      s.job["status"]["startTime"] = formatRfc3339(now());
    }
  }
}

Result<std::int64_t> JobController::manageJob(JobSync& s) {
  std::int64_t active = static_cast<std::int64_t>(s.activePods.size());
  const std::int64_t parallelism = intAt(s.job, {"spec", "parallelism"}, 1);
  std::optional<Status> error;
  if (jobSuspended(s.job)) {
    auto [removedReady, removed] = deletePods(s, s.activePods, true, &error);
    s.ready -= removedReady;
    if (error) return tl::unexpected(*error);
    return active - removed;
  }
  std::int64_t wantActive;
  const Json& completions = jsonAt(s.job, {"spec", "completions"});
  if (!completions.is_number_integer()) {
    wantActive = s.succeeded > 0 ? active : parallelism;
  } else {
    wantActive = std::clamp<std::int64_t>(completions.get<std::int64_t>() - s.succeeded, 0,
                                          std::max<std::int64_t>(parallelism, 0));
  }
  const std::int64_t removeAtLeast = std::max<std::int64_t>(0, active - wantActive);
  if (removeAtLeast > 0) {
    // activePodsForRemoval: the worst pods first, as a ReplicaSet scales down.
    auto victims = podsToDeleteFirst(s.activePods, {},
                                     static_cast<std::size_t>(std::min<std::int64_t>(
                                         removeAtLeast, options_.maxPodCreateDeletePerSync)));
    auto [removedReady, removed] = deletePods(s, victims, true, &error);
    s.ready -= removedReady;
    if (error) return tl::unexpected(*error);
    return active - removed;
  }
  std::int64_t terminating = 0;
  if (jsonAt(s.job, {"spec", "podReplacementPolicy"}) == "Failed") terminating = s.terminating;
  std::int64_t diff = wantActive - terminating - active;
  if (diff <= 0) return active;
  if (Duration remaining = remainingBackoff(s.backoff); remaining > Duration{0}) {
    s.requeue(remaining);
    return active;
  }
  // The cache can show the Job behind the controller's own status writes: once its last pod
  // was counted (status.succeeded written, then the pod's tracking finalizer removed), a stale
  // Job next to the fresh pod looks as if nothing had succeeded. A fresh read before creating
  // keeps us from starting a pod for a Job that is done; the Job's own update event brings the
  // next round.
  auto live = manager_.apiReader().get(kJobs, meta::namespace_(s.job), meta::name(s.job));
  if (!live)
    return isNotFound(live.error()) ? Result<std::int64_t>(active) : tl::unexpected(live.error());
  if (meta::uid(*live) != meta::uid(s.job) || meta::isDeleting(*live)) return active;
  if (meta::resourceVersion(*live) != meta::resourceVersion(s.job)) {
    s.requeue(std::chrono::seconds(1));
    return active;
  }
  diff = std::min<std::int64_t>(diff, options_.maxPodCreateDeletePerSync);
  expectations_.expectCreations(s.key, static_cast<int>(diff));
  const Json podTemplate = jsonAt(s.job, {"spec", "template"});
  Client& client = manager_.client();
  auto result =
      slowStartBatch(static_cast<int>(diff), kSlowStartInitialBatchSize, [&]() -> Result<void> {
        auto created =
            client.create(kPods, podFromTemplate(s.job, podTemplate, kJobTrackingFinalizer));
        if (!created) {
          event(s.job, "Warning", "FailedCreate", "Error creating: " + created.error().message);
          return tl::unexpected(created.error());
        }
        event(s.job, "Normal", "SuccessfulCreate", "Created pod: " + meta::name(*created));
        return {};
      });
  if (int missing = static_cast<int>(diff) - result.successes; missing > 0) {
    expectations_.lowerExpectations(s.key, missing, 0);
  }
  active += result.successes;
  if (result.error) return tl::unexpected(*result.error);
  return active;
}

std::pair<std::int64_t, std::int64_t> JobController::deletePods(JobSync& s,
                                                                const std::vector<ObjectPtr>& pods,
                                                                bool expect,
                                                                std::optional<Status>* error) {
  if (expect && !pods.empty()) {
    std::vector<std::string> keys;
    for (const auto& pod : pods) keys.push_back(meta::namespacedName(*pod));
    expectations_.expectDeletions(s.key, keys);
  }
  std::int64_t deletedReady = 0, deleted = 0;
  for (const auto& pod : pods) {
    auto result = manager_.client().deleteObject(kPods, meta::namespace_(*pod), meta::name(*pod));
    if (!result) {
      if (expect) expectations_.deletionObserved(s.key, meta::namespacedName(*pod));
      if (!isNotFound(result.error())) {
        if (!*error) *error = result.error();
        continue;
      }
    } else {
      event(s.job, "Normal", "SuccessfulDelete", "Deleted pod: " + meta::name(*pod));
    }
    if (isPodReady(*pod)) ++deletedReady;
    ++deleted;
  }
  return {deletedReady, deleted};
}

std::vector<bool> JobController::removeFinalizers(const std::string& key,
                                                  const std::vector<ObjectPtr>& pods,
                                                  std::optional<Status>* error) {
  if (!key.empty()) expectFinalizerRemovals(key, pods);
  std::vector<bool> removed;
  for (const auto& pod : pods) {
    auto finalizers = meta::finalizers(*pod);
    auto it = std::find(finalizers.begin(), finalizers.end(), kJobTrackingFinalizer);
    if (it == finalizers.end()) {
      removed.push_back(true);
      continue;
    }
    const std::string path = fmt::format("/metadata/finalizers/{}", it - finalizers.begin());
    Json patch = Json::array({{{"op", "test"}, {"path", path}, {"value", kJobTrackingFinalizer}},
                              {{"op", "remove"}, {"path", path}}});
    auto patched = manager_.client().patch(kPods, meta::namespace_(*pod), meta::name(*pod),
                                           PatchType::Json, patch.dump());
    if (patched || isNotFound(patched.error())) {
      removed.push_back(true);
      continue;
    }
    if (!key.empty()) finalizerRemovalObserved(key, meta::uid(*pod));
    if (!*error) *error = patched.error();
    removed.push_back(false);
  }
  return removed;
}

namespace {
// cleanUncountedPodsWithoutFinalizers: recorded pods whose finalizer is gone are counted.
bool countPodsWithoutFinalizers(Json& status, const std::set<std::string>& withFinalizer) {
  bool updated = false;
  for (const char* kind : {"succeeded", "failed"}) {
    // Looked up each time: adding status[kind] below moves status's members.
    Json& uncounted = status["uncountedTerminatedPods"];
    if (!uncounted.contains(kind)) continue;
    Json kept = Json::array();
    for (const auto& uid : uncounted[kind]) {
      if (withFinalizer.count(uid.get<std::string>())) kept.push_back(uid);
    }
    const auto counted = static_cast<std::int64_t>(uncounted[kind].size() - kept.size());
    if (counted == 0) continue;
    updated = true;
    if (kept.empty()) {
      uncounted.erase(kind);
    } else {
      uncounted[kind] = std::move(kept);
    }
    status[kind] = status.value(kind, std::int64_t{0}) + counted;
  }
  return updated;
}

void appendUid(Json& status, const char* kind, const std::string& uid) {
  Json& list = status["uncountedTerminatedPods"][kind];
  if (!list.is_array()) list = Json::array();
  list.push_back(uid);
}
}  // namespace

Result<void> JobController::trackStatusAndRemoveFinalizers(JobSync& s, bool needsFlush) {
  std::set<std::string> withFinalizer;
  for (const auto& pod : s.pods) {
    if (hasTrackingFinalizer(*pod) && !s.expectedRemovals.count(meta::uid(*pod))) {
      withFinalizer.insert(meta::uid(*pod));
    }
  }
  if (countPodsWithoutFinalizers(s.job["status"], withFinalizer)) needsFlush = true;
  std::vector<ObjectPtr> toRemove;
  const bool reachedMaxUncounted = recordUncountedPods(s, toRemove, needsFlush);
  recordFinishedCondition(s, needsFlush);
  return flushUncountedAndRemoveFinalizers(s, toRemove, withFinalizer, needsFlush,
                                           reachedMaxUncounted);
}

bool JobController::recordUncountedPods(JobSync& s, std::vector<ObjectPtr>& toRemove,
                                        bool& needsFlush) {
  Json& status = s.job["status"];
  for (const auto& pod : s.pods) {
    const std::string uid = meta::uid(*pod);
    if (!hasTrackingFinalizer(*pod) || s.expectedRemovals.count(uid)) continue;
    const bool failed = isPodFailed(*pod, s.job);
    const bool phaseSucceeded = podPhase(*pod) == "Succeeded";
    if (!(failed || phaseSucceeded || s.finished)) continue;  // canRemoveFinalizer
    toRemove.push_back(pod);
    Json& uncounted = status["uncountedTerminatedPods"];
    auto succeededSet = uidSet(uncounted.value("succeeded", Json()));
    auto failedSet = uidSet(uncounted.value("failed", Json()));
    if (phaseSucceeded && !failedSet.count(uid)) {
      if (!succeededSet.count(uid)) {
        needsFlush = true;
        appendUid(status, "succeeded", uid);
      }
    } else if (failed || (s.finished && !isSuccessCriteriaMet(s.finished))) {
      if (!failedSet.count(uid)) {
        needsFlush = true;
        appendUid(status, "failed", uid);
      }
    }
    const Json& u = status["uncountedTerminatedPods"];
    std::size_t recorded =
        u.value("succeeded", Json::array()).size() + u.value("failed", Json::array()).size();
    if (recorded >= static_cast<std::size_t>(options_.maxUncountedPods)) return true;
  }
  return false;
}

void JobController::recordFinishedCondition(JobSync& s, bool& needsFlush) {
  Json& status = s.job["status"];
  const TimePoint current = now();
  if (s.finished && s.finished->value("type", "") == "FailureTarget") {
    status["conditions"].push_back(*s.finished);
    needsFlush = true;
    s.finished = newCondition("Failed", "True", s.finished->value("reason", ""),
                              s.finished->value("message", ""), current);
  }
  if (isSuccessCriteriaMet(s.finished)) {
    if (!trueCondition(s.job, "SuccessCriteriaMet")) {
      status["conditions"].push_back(*s.finished);
      needsFlush = true;
    }
    s.finished = newCondition("Complete", "True", s.finished->value("reason", ""),
                              s.finished->value("message", ""), current);
  }
}

Result<void> JobController::flushUncountedAndRemoveFinalizers(
    JobSync& s, const std::vector<ObjectPtr>& toRemove, std::set<std::string>& withFinalizer,
    bool needsFlush, bool reachedMaxUncounted) {
  // Record first, then remove finalizers, then count.
  if (needsFlush) {
    if (auto written = writeStatus(s); !written) return written;
    {
      std::lock_guard lock(mu_);
      backoffs_[s.key] = s.backoff;
    }
    needsFlush = false;
  }
  std::optional<Status> removeError;
  auto removed = removeFinalizers(s.key, toRemove, &removeError);
  for (std::size_t i = 0; i < toRemove.size(); ++i) {
    if (removed[i]) withFinalizer.erase(meta::uid(*toRemove[i]));
  }
  if (countPodsWithoutFinalizers(s.job["status"], withFinalizer)) needsFlush = true;
  if (removeError) {
    if (needsFlush) (void)writeStatus(s);
    return tl::unexpected(*removeError);
  }
  const bool finishedNow = !reachedMaxUncounted && enactJobFinished(s);
  if (finishedNow) needsFlush = true;
  if (needsFlush) {
    if (auto written = writeStatus(s); !written) return written;
    if (finishedNow) {
      if (s.finished->value("type", "") == "Complete") {
        event(s.job, "Normal", "Completed", "Job completed");
      } else {
        event(s.job, "Warning", s.finished->value("reason", ""), s.finished->value("message", ""));
      }
    }
  }
  return {};
}

bool JobController::enactJobFinished(JobSync& s) {
  if (!s.finished) return false;
  const Json& uncounted = s.job["status"]["uncountedTerminatedPods"];
  if (!uncounted.value("succeeded", Json::array()).empty() ||
      !uncounted.value("failed", Json::array()).empty()) {
    return false;
  }
  if (s.terminating > 0) return false;
  const std::string type = s.finished->value("type", "");
  ensureCondition(s.job, type, "True", s.finished->value("reason", ""),
                  s.finished->value("message", ""), now());
  if (type == "Complete") {
    s.job["status"]["completionTime"] = findCondition(s.job, type)->value("lastTransitionTime", "");
  }
  return true;
}

Result<void> JobController::writeStatus(JobSync& s) {
  auto written = manager_.client().updateStatus(kJobs, s.job);
  if (!written) return tl::unexpected(written.error());
  // Keep the status being built; take the new resourceVersion.
  meta::setResourceVersion(s.job, meta::resourceVersion(*written));
  return {};
}

}  // namespace

Result<Controller*> addJobController(Manager& manager, JobControllerOptions options) {
  auto controller = std::make_shared<JobController>(manager, options);
  return ControllerBuilder(manager)
      .named("job")
      .forResource(kJobs)
      .watches(kPods, controller->podHandler())
      .withOptions({.maxConcurrentReconciles = options.workers})
      .complete(workload::reconcileWith(controller));
}

}  // namespace fakekube
