// Coscheduling: scheduler-plugins' coscheduling plugin (pkg/coscheduling), run by a second
// instance of the default Scheduler that serves spec.schedulerName "scheduler-plugins-scheduler"
// (scheduler_framework.h says where the plugin's hooks sit in a scheduling cycle). A pod belongs
// to the PodGroup its label scheduling.x-k8s.io/pod-group names, in its namespace; a pod
// without the label is scheduled as the default scheduler would.
//
//   PreFilter   the group exists in the cache and is not backed off ("podGroup ns/pg failed
//               recently"); it has at least minMember pods ("pre-filter pod p cannot find enough
//               sibling pods, current pods number: 1, minMember of group: 3"), not counting gated
//               ones; its minResources (and minMember pods) fit in what the nodes have free
//               without the group's own pods ("resource gap: map[...]", cluster_resource.h).
//               A rejection is UnschedulableAndUnresolvable.
//   PostFilter  a pod fits on no node: unless the group already has minMember pods assigned, or
//               the missing share is within podGroupRejectPercentage, every waiting pod of the
//               group is rejected ("optimistic rejection in PostFilter"), the group may be
//               backed off, and the pod is told "PodGroup ns/pg gets rejected due to Pod p is
//               unschedulable even after PostFilter".
//   Permit      the pod is assigned; with minMember pods assigned it is allowed, and so is every
//               waiting pod of the group: they are bound together. Otherwise it waits, holding
//               its node, for spec.scheduleTimeoutSeconds or permitWaitingTime; the group's
//               first assigned pod brings its siblings back to the queue. A pod whose group does
//               not exist is rejected: "PodGroup not found".
//   Unreserve   a pod's wait failed (timeout, rejection, deletion, a failed binding): it is no
//               longer assigned and every waiting pod of its group is rejected ("rejection in
//               Unreserve"), so a group never holds nodes for a part of itself.
//
// Unschedulable pods are tried again when a pod is added and when a PodGroup is added or
// updated (EventsToRegister), besides the default scheduler's own triggers.
//
//   Manager manager(executor, server);
//   coscheduling::addCoschedulingScheduler(manager);   // the CRD, the scheduler, the controller
//   manager.start();
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "controllers/coscheduling/internal/pod_group_manager.h"
#include "fakekube/api/status.h"
#include "fakekube/cluster/scheduler_framework.h"
#include "fakekube/sim/clock.h"

namespace fakekube {
class Manager;
}

namespace fakekube::coscheduling {

// CoschedulingArgs, with scheduler-plugins' defaults.
struct CoschedulingOptions {
  // PermitWaitingTimeSeconds: how long a pod waits at Permit when its group has no
  // scheduleTimeoutSeconds.
  Duration permitWaitingTime = std::chrono::seconds(60);
  // PodGroupBackoffSeconds: a group rejected in PostFilter (with all its pods present) is refused
  // at PreFilter this long; 0: never.
  Duration podGroupBackoff = Duration::zero();
  // PodGroupRejectPercentage: PostFilter leaves the waiting pods alone while the share of
  // minMember not yet assigned is at most this.
  int podGroupRejectPercentage = 10;
};

class Coscheduling : public scheduling::FrameworkPlugin {
 public:
  Coscheduling(Manager& manager, CoschedulingOptions options);

  std::string name() const override;
  std::vector<scheduling::ClusterEvent> eventsToRegister() const override;
  void setHandle(scheduling::FrameworkHandle* handle) override;

  scheduling::PluginStatus preFilter(const Json& pod) override;
  scheduling::PluginStatus postFilter(const Json& pod) override;
  scheduling::PluginStatus permit(const Json& pod, const std::string& node) override;
  void unreserve(const Json& pod, const std::string& node) override;

 private:
  // Rejects every waiting pod of the group `groupName` in namespace `ns`.
  void rejectWaitingPods(const std::string& ns, const std::string& groupName,
                         const std::string& message);

  CoschedulingOptions options_;
  std::shared_ptr<PodGroupManager> podGroupManager_;
  scheduling::FrameworkHandle* handle_ = nullptr;
};

struct CoschedulingSchedulerOptions {
  CoschedulingOptions coscheduling;
  // Run the PodGroup controller (status phase and counts) beside the scheduler, as
  // scheduler-plugins' controller manager does.
  bool podGroupController = true;
};

// Installs the PodGroup definition (installCoschedulingApi) and adds to `manager` a Scheduler for
// "scheduler-plugins-scheduler" with the Coscheduling plugin, and the PodGroup controller.
Result<void> addCoschedulingScheduler(Manager& manager, CoschedulingSchedulerOptions options = {});

}  // namespace fakekube::coscheduling
