#include "controllers/coscheduling/internal/pod_group_controller.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "controllers/coscheduling/internal/coscheduling_api.h"
#include "controllers/coscheduling/internal/pod_group_manager.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/internal/controller_utils.h"
#include "fakekube/runtime/builder.h"
#include "fakekube/runtime/manager.h"

namespace fakekube::coscheduling {
namespace {

struct PodStats {
  std::int64_t running = 0;
  std::int64_t succeeded = 0;
  std::int64_t failed = 0;
};

PodStats currentPodStats(const std::vector<Json>& pods) {
  PodStats stats;
  for (const Json& pod : pods) {
    const Json& phase = jsonAt(pod, {"status", "phase"});
    if (phase == "Running") ++stats.running;
    if (phase == "Succeeded") ++stats.succeeded;
    if (phase == "Failed") ++stats.failed;
  }
  return stats;
}

// fillOccupiedObj: the first pod's owners.
void fillOccupiedBy(Json& status, const Json& pod) {
  std::vector<std::string> owners;
  for (const auto& owner : meta::ownerReferences(pod)) {
    owners.push_back(meta::namespace_(pod) + "/" + owner.name);
  }
  if (owners.empty()) return;
  std::sort(owners.begin(), owners.end());
  std::string joined;
  for (const auto& owner : owners) joined += (joined.empty() ? "" : ",") + owner;
  status["occupiedBy"] = joined;
}

// The count fields are int32 with omitempty: 0 is left out.
void setCount(Json& status, const char* field, std::int64_t count) {
  if (count == 0) {
    status.erase(field);
  } else {
    status[field] = count;
  }
}

class PodGroupReconciler {
 public:
  explicit PodGroupReconciler(Manager& manager) : manager_(manager) {}

  ReconcileOutcome reconcile(const ReconcileRequest& request) {
    auto group = manager_.cache().getShared(kPodGroups, request.namespace_, request.name);
    if (!group) {
      if (isNotFound(group.error())) return ReconcileResult{};
      return reconcileError(group.error());
    }
    std::vector<Json> pods;
    for (const auto& pod : manager_.cache().informerFor(kPods).byIndex(
             kPodGroupIndex, request.namespace_ + "/" + request.name)) {
      pods.push_back(*pod);
    }
    if (scheduleTimedOut(**group)) {
      (void)manager_.eventRecorder("PodGroupController")
          .event(**group, "Warning", "Timeout", "schedule time longer than 48 hours");
      return ReconcileResult{};
    }
    Json status = nextPodGroupStatus(**group, pods);
    if (status == jsonAt(**group, {"status"})) return ReconcileResult{};
    Json updated = **group;
    updated["status"] = std::move(status);
    auto written = manager_.client().updateStatusShared(kPodGroups, std::move(updated));
    if (!written && !isNotFound(written.error())) return reconcileError(written.error());
    return ReconcileResult{};
  }

 private:
  Manager& manager_;
};

}  // namespace

bool scheduleTimedOut(const Json& podGroup) {
  const Json& status = jsonAt(podGroup, {"status"});
  const Json& phase = jsonAt(status, {"phase"});
  if (phase != kPhasePending && phase != kPhaseScheduling) return false;
  const Json& running = jsonAt(status, {"running"});
  if (running.is_number_integer() && running.get<std::int64_t>() != 0) return false;
  auto started = workload::parseTime(jsonAt(status, {"scheduleStartTime"}));
  auto created = workload::parseTime(jsonAt(podGroup, {"metadata", "creationTimestamp"}));
  return started && created && *started - *created > std::chrono::hours(48);
}

Json nextPodGroupStatus(const Json& podGroup, const std::vector<Json>& pods) {
  const Json& current = jsonAt(podGroup, {"status"});
  Json status = current.is_object() ? current : Json::object();
  const std::string phase = status.value("phase", "");
  if (phase == kPhaseFinished || phase == kPhaseFailed || scheduleTimedOut(podGroup)) {
    return status;
  }
  const Json& minMemberValue = jsonAt(podGroup, {"spec", "minMember"});
  const std::int64_t minMember =
      minMemberValue.is_number_integer() ? minMemberValue.get<std::int64_t>() : 0;
  const auto podCount = static_cast<std::int64_t>(pods.size());
  if (phase.empty()) {
    status["phase"] = kPhasePending;
    return status;
  }
  if (phase == kPhasePending) {
    if (podCount >= minMember) {
      status["phase"] = kPhaseScheduling;
      if (!pods.empty()) fillOccupiedBy(status, pods.front());
    }
    return status;
  }
  const PodStats stats = currentPodStats(pods);
  setCount(status, "running", stats.running);
  setCount(status, "succeeded", stats.succeeded);
  setCount(status, "failed", stats.failed);
  if (podCount < minMember) {
    status["phase"] = kPhasePending;
    return status;
  }
  if (stats.succeeded + stats.running < minMember) status["phase"] = kPhaseScheduling;
  if (stats.succeeded + stats.running >= minMember) status["phase"] = kPhaseRunning;
  if (stats.failed != 0 && stats.failed + stats.running + stats.succeeded >= minMember) {
    status["phase"] = kPhaseFailed;
  }
  if (stats.succeeded >= minMember) status["phase"] = kPhaseFinished;
  return status;
}

Result<void> addPodGroupController(Manager& manager) {
  auto reconciler = std::make_shared<PodGroupReconciler>(manager);
  // The pods' index by group (the scheduler's plugin adds the same one when it runs here).
  addPodGroupIndex(manager.cache().informerFor(kPods));
  auto podToPodGroup = enqueueRequestsFromMapFunc([](const Json& pod) {
    const std::string group = podGroupLabel(pod);
    if (group.empty()) return std::vector<ReconcileRequest>{};
    return std::vector<ReconcileRequest>{{meta::namespace_(pod), group}};
  });
  auto controller = ControllerBuilder(manager)
                        .named("podgroup")
                        .forResource(kPodGroups)
                        .watches(kPods, std::move(podToPodGroup))
                        .complete([reconciler](const ReconcileRequest& request) {
                          return reconciler->reconcile(request);
                        });
  if (!controller) return tl::unexpected(controller.error());
  return {};
}

}  // namespace fakekube::coscheduling
