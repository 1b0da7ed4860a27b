#include "controllers/coscheduling/internal/pod_group_manager.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "controllers/coscheduling/internal/cluster_resource.h"
#include "controllers/coscheduling/internal/coscheduling_api.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/runtime/manager.h"

namespace fakekube::coscheduling {

void addPodGroupIndex(Informer& pods) {
  pods.addIndexer(kPodGroupIndex,
                  [](const Json& pod) {
                    std::string group = podGroupFullName(pod);
                    return group.empty() ? std::vector<std::string>{}
                                         : std::vector<std::string>{group};
                  },
                  {"metadata", "labels"});
}

PodGroupManager::PodGroupManager(Manager& manager, Duration scheduleTimeout)
    : manager_(manager), scheduleTimeout_(scheduleTimeout) {}

void PodGroupManager::start() {
  manager_.cache().informerFor(kPodGroups);
  Informer& pods = manager_.cache().informerFor(kPods);
  addPodGroupIndex(pods);
  // The informer may outlive the plugin (a manager torn down): its handlers hold it weakly.
  std::weak_ptr<PodGroupManager> weak = weak_from_this();
  ResourceEventHandler handler;
  handler.onAdd = [weak](const ObjectPtr& pod) {
    if (auto self = weak.lock()) self->observeAdded(*pod);
  };
  handler.onDelete = [weak](const ObjectPtr& pod) {
    auto self = weak.lock();
    if (self && !podNodeName(*pod).empty()) self->unreserve(*pod);
  };
  pods.addEventHandler(std::move(handler));
}

// AddPodFactory: a pod the informer reports added already bound counts as assigned.
void PodGroupManager::observeAdded(const Json& pod) {
  if (podNodeName(pod).empty()) return;
  const std::string group = podGroupFullName(pod);
  if (group.empty()) return;
  std::lock_guard lock(mu_);
  assigned_[group].insert(meta::name(pod));
}

std::pair<std::string, ObjectPtr> PodGroupManager::podGroup(const Json& pod) const {
  const std::string group = podGroupLabel(pod);
  if (group.empty()) return {};
  const std::string ns = meta::namespace_(pod);
  auto got = manager_.cache().getShared(kPodGroups, ns, group);
  return {ns + "/" + group, got ? *got : nullptr};
}

std::vector<ObjectPtr> PodGroupManager::podsOfGroup(const Json& pod) const {
  std::vector<ObjectPtr> pods =
      manager_.cache().informerFor(kPods).byIndex(kPodGroupIndex, podGroupFullName(pod));
  std::erase_if(pods, [](const ObjectPtr& p) { return isPodTerminal(*p); });
  return pods;
}

std::optional<std::string> PodGroupManager::preFilter(const Json& pod,
                                                      scheduling::FrameworkHandle& handle) {
  auto [fullName, group] = podGroup(pod);
  if (!group) return std::nullopt;
  {
    std::lock_guard lock(mu_);
    if (holds(backedOff_, fullName, now())) {
      return fmt::format("podGroup {} failed recently", fullName);
    }
  }
  const std::vector<ObjectPtr> pods = podsOfGroup(pod);
  const Json& minMemberValue = jsonAt(*group, {"spec", "minMember"});
  const std::int64_t minMember =
      minMemberValue.is_number_integer() ? minMemberValue.get<std::int64_t>() : 0;
  std::int64_t quorumGap = minMember - static_cast<std::int64_t>(pods.size());
  if (quorumGap > 0) {
    return fmt::format(
        "pre-filter pod {} cannot find enough sibling pods, current pods number: {}, minMember "
        "of group: {}",
        meta::name(pod), pods.size(), minMember);
  }
  // How many gated pods the quorum tolerates: minMember may be below the group's pods.
  for (const auto& sibling : pods) {
    if (!jsonArrayAt(jsonAt(*sibling, {"spec"}), "schedulingGates").empty()) ++quorumGap;
    if (quorumGap > 0) {
      return fmt::format("pre-filter pod {} cannot proceed due to gated pods in the same PodGroup",
                         meta::name(pod));
    }
  }
  if (!jsonAt(*group, {"spec", "minResources"}).is_object()) return std::nullopt;
  {
    // The minResources check may pass while Filter still fails (affinity, taints): it only
    // catches a group that cannot fit early.
    std::lock_guard lock(mu_);
    if (holds(permitted_, fullName, now())) return std::nullopt;
  }
  auto request = minResourcesRequest(*group);
  if (!request) return std::nullopt;
  if (auto gap = checkClusterResource(handle.nodeInfos(), std::move(*request), fullName)) {
    return gap;
  }
  std::lock_guard lock(mu_);
  permitted_[fullName] = now() + scheduleTimeout_;
  return std::nullopt;
}

PodGroupManager::PermitStatus PodGroupManager::permit(const Json& pod, bool& activateSiblings) {
  auto [fullName, group] = podGroup(pod);
  if (fullName.empty()) return PermitStatus::PodGroupNotSpecified;
  if (!group) return PermitStatus::PodGroupNotFound;
  const Json& minMember = jsonAt(*group, {"spec", "minMember"});
  std::lock_guard lock(mu_);
  std::set<std::string>& assigned = assigned_[fullName];
  assigned.insert(meta::name(pod));
  // The pods assigned before this one come from earlier cycles; this one is added here.
  if (static_cast<std::int64_t>(assigned.size()) >=
      (minMember.is_number_integer() ? minMember.get<std::int64_t>() : 0)) {
    return PermitStatus::Success;
  }
  // The first assigned pod of the group (its quorum and minResources just passed PreFilter,
  // or a pod was added) brings its siblings back to the queue, and only it.
  activateSiblings = assigned.size() == 1;
  return PermitStatus::Wait;
}

void PodGroupManager::unreserve(const Json& pod) {
  const std::string fullName = podGroupFullName(pod);
  if (fullName.empty()) return;
  std::lock_guard lock(mu_);
  auto it = assigned_.find(fullName);
  if (it == assigned_.end()) return;
  it->second.erase(meta::name(pod));
  if (it->second.empty()) assigned_.erase(it);
}

int PodGroupManager::assignedPodCount(const std::string& groupFullName) const {
  std::lock_guard lock(mu_);
  auto it = assigned_.find(groupFullName);
  return it == assigned_.end() ? 0 : static_cast<int>(it->second.size());
}

void PodGroupManager::deletePermittedPodGroup(const std::string& groupFullName) {
  std::lock_guard lock(mu_);
  permitted_.erase(groupFullName);
}

void PodGroupManager::backoffPodGroup(const std::string& groupFullName, Duration backoff) {
  if (backoff == Duration::zero()) return;
  std::lock_guard lock(mu_);
  // go-cache's Add keeps an entry that has not expired.
  if (!holds(backedOff_, groupFullName, now())) backedOff_[groupFullName] = now() + backoff;
}

std::vector<std::string> PodGroupManager::siblingKeys(const Json& pod) const {
  std::vector<std::string> keys;
  for (const auto& sibling : podsOfGroup(pod)) {
    if (meta::uid(*sibling) == meta::uid(pod)) continue;
    keys.push_back(meta::namespace_(*sibling) + "/" + meta::name(*sibling));
  }
  return keys;
}

TimePoint PodGroupManager::now() const { return manager_.executor().now(); }

bool PodGroupManager::holds(std::map<std::string, TimePoint>& cache, const std::string& key,
                            TimePoint now) {
  auto it = cache.find(key);
  if (it == cache.end()) return false;
  if (now < it->second) return true;
  cache.erase(it);
  return false;
}

}  // namespace fakekube::coscheduling
