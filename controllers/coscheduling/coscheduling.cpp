#include "controllers/coscheduling/internal/coscheduling.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "controllers/coscheduling/internal/coscheduling_api.h"
#include "controllers/coscheduling/internal/pod_group_controller.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/scheduler.h"
#include "fakekube/runtime/manager.h"

namespace fakekube::coscheduling {
namespace {

using scheduling::PluginStatus;

std::int64_t minMemberOf(const Json& group) {
  const Json& minMember = jsonAt(group, {"spec", "minMember"});
  return minMember.is_number_integer() ? minMember.get<std::int64_t>() : 0;
}

// util.GetWaitTimeDuration: the group's scheduleTimeoutSeconds, else the plugin's default.
Duration waitTimeOf(const Json& group, Duration permitWaitingTime) {
  const Json& timeout = jsonAt(group, {"spec", "scheduleTimeoutSeconds"});
  if (timeout.is_number_integer()) return std::chrono::seconds(timeout.get<std::int64_t>());
  if (permitWaitingTime != Duration::zero()) return permitWaitingTime;
  return std::chrono::seconds(60);  // util.DefaultWaitTime
}

}  // namespace

Coscheduling::Coscheduling(Manager& manager, CoschedulingOptions options)
    : options_(options),
      podGroupManager_(std::make_shared<PodGroupManager>(manager, options.permitWaitingTime)) {}

std::string Coscheduling::name() const { return std::string(kPluginName); }

std::vector<scheduling::ClusterEvent> Coscheduling::eventsToRegister() const {
  return {{kPods, true, false}, {kPodGroups, true, true}};
}

void Coscheduling::setHandle(scheduling::FrameworkHandle* handle) {
  handle_ = handle;
  podGroupManager_->start();
}

PluginStatus Coscheduling::preFilter(const Json& pod) {
  // UnschedulableAndUnresolvable: preemption cannot make a group whole.
  if (auto rejected = podGroupManager_->preFilter(pod, *handle_)) {
    return PluginStatus::unresolvable(std::move(*rejected));
  }
  return {};
}

PluginStatus Coscheduling::postFilter(const Json& pod) {
  auto [fullName, group] = podGroupManager_->podGroup(pod);
  if (!group) return PluginStatus::unschedulable("can not find pod group");
  const std::int64_t minMember = minMemberOf(*group);
  // Enough pods of the group are assigned already: rejecting them all gains nothing.
  const int assigned = podGroupManager_->assignedPodCount(fullName);
  if (assigned >= minMember) return PluginStatus::unschedulable();
  // A small gap: later pods may still complete the quorum.
  const double notAssigned =
      static_cast<double>(minMember - assigned) / static_cast<double>(minMember);
  if (notAssigned <= options_.podGroupRejectPercentage / 100.0) {
    return PluginStatus::unschedulable();
  }
  // If the nth pod fails, its siblings would very likely fail too.
  rejectWaitingPods(meta::namespace_(pod), podGroupLabel(pod),
                    "optimistic rejection in PostFilter");
  if (options_.podGroupBackoff != Duration::zero() &&
      static_cast<std::int64_t>(podGroupManager_->podsOfGroup(pod).size()) >= minMember) {
    podGroupManager_->backoffPodGroup(fullName, options_.podGroupBackoff);
  }
  podGroupManager_->deletePermittedPodGroup(fullName);
  return PluginStatus::unschedulable(
      fmt::format("PodGroup {} gets rejected due to Pod {} is unschedulable even after PostFilter",
                  fullName, meta::name(pod)));
}

PluginStatus Coscheduling::permit(const Json& pod, const std::string& node) {
  bool activateSiblings = false;
  switch (podGroupManager_->permit(pod, activateSiblings)) {
    case PodGroupManager::PermitStatus::PodGroupNotSpecified:
      return {};
    case PodGroupManager::PermitStatus::PodGroupNotFound:
      return PluginStatus::unschedulable("PodGroup not found");
    case PodGroupManager::PermitStatus::Wait: {
      auto [fullName, group] = podGroupManager_->podGroup(pod);
      const Duration wait =
          group ? waitTimeOf(*group, options_.permitWaitingTime) : options_.permitWaitingTime;
      if (activateSiblings) handle_->activate(podGroupManager_->siblingKeys(pod));
      return PluginStatus::wait(wait);
    }
    case PodGroupManager::PermitStatus::Success:
      break;
  }
  const std::string fullName = podGroupFullName(pod);
  handle_->iterateOverWaitingPods([&](scheduling::WaitingPod& waiting) {
    if (podGroupFullName(waiting.pod()) == fullName) waiting.allow(kPluginName);
  });
  return {};
}

void Coscheduling::unreserve(const Json& pod, const std::string& node) {
  auto [fullName, group] = podGroupManager_->podGroup(pod);
  if (!group) return;
  podGroupManager_->unreserve(pod);
  rejectWaitingPods(meta::namespace_(pod), podGroupLabel(pod), "rejection in Unreserve");
  podGroupManager_->deletePermittedPodGroup(fullName);
}

void Coscheduling::rejectWaitingPods(const std::string& ns, const std::string& groupName,
                                     const std::string& message) {
  handle_->iterateOverWaitingPods([&](scheduling::WaitingPod& waiting) {
    if (meta::namespace_(waiting.pod()) == ns && podGroupLabel(waiting.pod()) == groupName) {
      waiting.reject(kPluginName, message);
    }
  });
}

Result<void> addCoschedulingScheduler(Manager& manager, CoschedulingSchedulerOptions options) {
  if (auto installed = installCoschedulingApi(manager.client().underlyingClient()); !installed)
    return installed;
  SchedulerOptions scheduler;
  scheduler.schedulerName = std::string(kSchedulerName);
  scheduler.controllerName = "scheduler-plugins-scheduler";
  scheduler.plugin = std::make_shared<Coscheduling>(manager, options.coscheduling);
  if (auto added = addScheduler(manager, std::move(scheduler)); !added) {
    return tl::unexpected(added.error());
  }
  if (options.podGroupController) return addPodGroupController(manager);
  return {};
}

}  // namespace fakekube::coscheduling
