#include "controllers/ray/scale_expectations.h"

#include <vector>

#include "fakekube/api/resources.h"

namespace fakekube::ray {

namespace {}

ScaleExpectations::ScaleExpectations(Reader& reader, Clock& clock, Duration timeout)
    : reader_(reader), clock_(clock), timeout_(timeout) {}

void ScaleExpectations::expectScalePod(std::string_view ns, std::string_view rayClusterName,
                                       std::string_view group, std::string_view podName,
                                       ScaleAction action) {
  RayPod pod{std::string(podName), std::string(ns), std::string(rayClusterName),
             std::string(group),   action,          clock_.now()};
  std::string key = pod.ns + "/" + pod.name;
  std::lock_guard lock(mu_);
  items_.insert_or_assign(std::move(key), std::move(pod));
}

bool ScaleExpectations::isPodScaled(const RayPod& pod) {
  auto got = reader_.get(kPods, pod.ns, pod.name);
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
    for (const auto& [key, pod] : items_) {
      if (pod.ns == ns && pod.rayCluster == rayClusterName && pod.group == group) {
        pods.push_back(pod);
      }
    }
  }
  for (const RayPod& pod : pods) {
    if (!isPodScaled(pod)) return false;
    std::lock_guard lock(mu_);
    auto it = items_.find(pod.ns + "/" + pod.name);
    // Only the record that was checked: a newer record of the same pod stays.
    if (it != items_.end() && it->second.action == pod.action &&
        it->second.recordTimestamp == pod.recordTimestamp) {
      items_.erase(it);
    }
  }
  return true;
}

void ScaleExpectations::deleteCluster(std::string_view rayClusterName, std::string_view ns) {
  std::lock_guard lock(mu_);
  for (auto it = items_.begin(); it != items_.end();) {
    if (it->second.ns == ns && it->second.rayCluster == rayClusterName) {
      it = items_.erase(it);
    } else {
      ++it;
    }
  }
}

std::size_t ScaleExpectations::size() const {
  std::lock_guard lock(mu_);
  return items_.size();
}

}  // namespace fakekube::ray
