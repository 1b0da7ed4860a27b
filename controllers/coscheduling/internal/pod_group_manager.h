// PodGroupManager: the coscheduling plugin's bookkeeping of PodGroups (scheduler-plugins'
// pkg/coscheduling/core): which PodGroup a pod belongs to, whether the group has its quorum of
// pods (PreFilter), how many of its pods are assumed or bound (Permit), the groups that passed
// the minResources check recently (permittedPG) and those backed off after a failure.
//
// It reads the manager's cache: PodGroups, and pods through an index by "namespace/group" over
// the pod informer (the podLister, without the finished pods kube-scheduler's informer leaves
// out). The assigned pods of a group are the pods that passed Permit, plus the pods the informer
// reports added already bound; a bound pod deleted, or a pod unreserved, leaves the set.
//
// Time (the caches' expiry) is the executor's clock. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/api/object.h"
#include "fakekube/cluster/scheduler_framework.h"
#include "fakekube/sim/clock.h"

namespace fakekube {
class Informer;
class Manager;
}  // namespace fakekube

namespace fakekube::coscheduling {

// Owned through a shared_ptr (its informer handlers hold it weakly).
class PodGroupManager : public std::enable_shared_from_this<PodGroupManager> {
 public:
  // core.Status: what Permit found.
  enum class PermitStatus { PodGroupNotSpecified, PodGroupNotFound, Success, Wait };

  // `scheduleTimeout` is the plugin's PermitWaitingTimeSeconds: how long a group stays in
  // permittedPG.
  PodGroupManager(Manager& manager, Duration scheduleTimeout);

  // The pod informer's index and handlers (AddPodFactory and the delete handler).
  void start();

  // GetPodGroup: "namespace/group" (empty when the pod names none) and the PodGroup from the
  // cache (nullptr when it does not exist).
  std::pair<std::string, ObjectPtr> podGroup(const Json& pod) const;
  // The non-finished pods of the group of `pod` in its namespace (the podLister's answer).
  std::vector<ObjectPtr> podsOfGroup(const Json& pod) const;

  // PreFilter: nullopt, or why the pod cannot be scheduled now.
  std::optional<std::string> preFilter(const Json& pod, scheduling::FrameworkHandle& handle);
  // Permit: records the pod as assigned. `activateSiblings` is set for the group's first
  // assigned pod (PermitState.Activate).
  PermitStatus permit(const Json& pod, bool& activateSiblings);
  // Unreserve: the pod is no longer assigned.
  void unreserve(const Json& pod);

  int assignedPodCount(const std::string& groupFullName) const;
  void deletePermittedPodGroup(const std::string& groupFullName);
  void backoffPodGroup(const std::string& groupFullName, Duration backoff);
  // The keys ("namespace/name") of the group's other pods (ActivateSiblings).
  std::vector<std::string> siblingKeys(const Json& pod) const;

 private:
  void observeAdded(const Json& pod);
  TimePoint now() const;
  // Whether `cache` holds `key` unexpired at `now` (go-cache's Get); drops an expired entry.
  static bool holds(std::map<std::string, TimePoint>& cache, const std::string& key, TimePoint now);

  Manager& manager_;
  const Duration scheduleTimeout_;
  mutable std::mutex mu_;
  std::map<std::string, TimePoint> permitted_;             // permittedPG: group -> expiry
  std::map<std::string, TimePoint> backedOff_;             // backedOffPG: group -> expiry
  std::map<std::string, std::set<std::string>> assigned_;  // assignedPodsByPG: pod names
};

// The pod informer's index of the coscheduling pods by "namespace/group" (the label's group in
// the pod's namespace), and how to add it.
inline constexpr const char* kPodGroupIndex = "coscheduling-pod-group";
void addPodGroupIndex(Informer& pods);

}  // namespace fakekube::coscheduling
