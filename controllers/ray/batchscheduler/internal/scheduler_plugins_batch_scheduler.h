// KubeRay's scheduler-plugins plug-in (batchscheduler/scheduler-plugins/scheduler_plugins.go),
// for kube-scheduler's coscheduling plugin.
//
// Only a RayCluster labelled ray.io/gang-scheduling-enabled gets a group: a
// scheduling.x-k8s.io/v1alpha1 PodGroup named as the cluster, owned by it (not as controller),
// minMember desired workers + 1, minResources their resources; an existing group is left as it
// is. A RayJob is refused: "currently only RayCluster is supported, got *v1.RayJob". Children
// get the label scheduling.x-k8s.io/pod-group=<cluster> (when the parent is gang-scheduled) and
// spec.schedulerName "scheduler-plugins-scheduler". Nothing to clean up.
#pragma once

#include <string_view>

#include "controllers/ray/batchscheduler/internal/batch_scheduler.h"

namespace fakekube::ray::batchscheduler {

inline const GroupVersionResource kCoschedulingPodGroups{"scheduling.x-k8s.io", "v1alpha1",
                                                         "podgroups"};
inline constexpr std::string_view kSchedulerPluginsPluginName = "scheduler-plugins";
inline constexpr std::string_view kSchedulerPluginsSchedulerName = "scheduler-plugins-scheduler";
inline constexpr std::string_view kCoschedulingPodGroupLabel = "scheduling.x-k8s.io/pod-group";
inline constexpr std::string_view kGangSchedulingEnabledLabel = "ray.io/gang-scheduling-enabled";

// createPodGroup of the plug-in.
Json coschedulingPodGroup(const Json& rayCluster);

class SchedulerPluginsBatchScheduler : public BatchScheduler {
 public:
  std::string name() const override { return std::string(kSchedulerPluginsSchedulerName); }
  Result<void> doBatchSchedulingOnSubmission(Client& client, const Json& object) override;
  void addMetadataToChildResource(const Json& parent, Json& child, ChildKind kind,
                                  std::string_view groupName) const override;
  Result<bool> cleanupOnCompletion(Client& client, const Json& object) override { return false; }
  std::optional<GroupVersionResource> ownedResource() const override { return std::nullopt; }
};

}  // namespace fakekube::ray::batchscheduler
