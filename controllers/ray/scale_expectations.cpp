#include "controllers/ray/internal/scale_expectations.h"

#include <set>
#include <vector>

#include "fakekube/api/resources.h"

namespace fakekube::ray {

ScaleExpectations::ScaleExpectations(Reader& reader, Clock& clock, Duration timeout)
    : reader_(reader), clock_(clock), timeout_(timeout) {}

void ScaleExpectations::expectScalePod(std::string_view ns, std::string_view rayClusterName,
                                       std::string_view group, std::string_view podName,
                                       ScaleAction action) {
  RayPod pod{std::string(podName), std::string(ns), std::string(rayClusterName),
             std::string(group),   action,          clock_.now()};
  std::string key = pod.ns + "/" + pod.name;
  std::lock_guard lock(mu_);
  if (auto it = items_.find(key); it != items_.end()) eraseLocked(it);
  groups_[groupKey(ns, rayClusterName, group)].insert(key);
  items_.emplace(std::move(key), std::move(pod));
}

std::string ScaleExpectations::groupKey(std::string_view ns, std::string_view rayClusterName,
                                        std::string_view group) {
  std::string key;
  key.reserve(ns.size() + rayClusterName.size() + group.size() + 2);
  key.append(ns).append(1, '\x1f').append(rayClusterName).append(1, '\x1f').append(group);
  return key;
}

void ScaleExpectations::eraseLocked(std::map<std::string, RayPod>::iterator it) {
  const RayPod& pod = it->second;
  if (auto group = groups_.find(groupKey(pod.ns, pod.rayCluster, pod.group));
      group != groups_.end()) {
    group->second.erase(it->first);
    if (group->second.empty()) groups_.erase(group);
  }
  items_.erase(it);
}

bool ScaleExpectations::isPodScaled(const RayPod& pod) {
  // Only whether it exists: the shared document, not a copy of the pod.
  auto got = reader_.getShared(kPods, pod.ns, pod.name);
  switch (pod.action) {
    case ScaleAction::Create:
      if (got) return true;
      // Tolerate the pod being deleted before the cache ever saw it: after the timeout, the
      // expectation is considered met.
      return pod.recordTimestamp + timeout_ < clock_.now();
    case ScaleAction::Delete:
      return !got && isNotFound(got.error());
  }
  return false;
}

bool ScaleExpectations::isSatisfied(std::string_view ns, std::string_view rayClusterName,
                                    std::string_view group) {
  // The group's records, copied so the Get runs without the lock.
  std::vector<RayPod> pods;
  {
    std::lock_guard lock(mu_);
    if (auto records = groups_.find(groupKey(ns, rayClusterName, group));
        records != groups_.end()) {
      for (const auto& key : records->second) pods.push_back(items_.at(key));
    }
  }
  for (const RayPod& pod : pods) {
    if (!isPodScaled(pod)) return false;
    std::lock_guard lock(mu_);
    auto it = items_.find(pod.ns + "/" + pod.name);
    // Only the record that was checked: a newer record of the same pod stays.
    if (it != items_.end() && it->second.action == pod.action &&
        it->second.recordTimestamp == pod.recordTimestamp) {
      eraseLocked(it);
    }
  }
  return true;
}

void ScaleExpectations::deleteCluster(std::string_view rayClusterName, std::string_view ns) {
  std::lock_guard lock(mu_);
  // The cluster's groups are the group keys that start with "ns\x1fcluster\x1f".
  std::string prefix = groupKey(ns, rayClusterName, "");
  for (auto group = groups_.lower_bound(prefix);
       group != groups_.end() && group->first.starts_with(prefix);) {
    for (const auto& key : group->second) items_.erase(key);
    group = groups_.erase(group);
  }
}

std::size_t ScaleExpectations::size() const {
  std::lock_guard lock(mu_);
  return items_.size();
}

}  // namespace fakekube::ray
