// KubeRay's Volcano plug-in (batchscheduler/volcano/volcano_scheduler.go).
//
// PodGroup `ray-<name>-pg` (scheduling.volcano.sh/v1beta1, in the object's namespace, controlled
// by it; a RayJob's RayCluster, labelled ray.io/originated-from-crd=RayJob, uses its RayJob's
// group and creates none):
//   minMember     desired workers (numOfHosts included, suspended groups skipped) + 1 head; with
//                 in-tree autoscaling, minReplicas instead of desired
//   minResources  the same pods' resources (requests, limits where no request); a RayJob adds its
//                 submitter's (K8sJobMode: the submitter pod template's; SidecarMode: the
//                 submitter container's), which minMember leaves out so the gang does not wait
//                 for a pod that waits for the cluster
//   queue         the label volcano.sh/queue-name; priorityClassName the label
//                 ray.io/priority-class-name; networkTopology from volcano.sh/network-topology-mode
//                 and volcano.sh/network-topology-highest-tier-allowed (not an integer: an error)
//   annotations   the owner's, copied; status.phase Pending
// An existing group whose minMember or minResources differ is updated; AlreadyExists on create
// is not an error. A RayJob with clusterSelector is refused ("gang scheduling does not support
// RayJob <ns>/<name> referencing an existing RayCluster").
//
// Children: the labels volcano.sh/queue-name and ray.io/priority-class-name copied from the
// parent, the annotations scheduling.k8s.io/group-name (the group) and volcano.sh/task-spec (the
// pod's group name: headgroup, a worker group, submittergroup), schedulerName "volcano".
//
// CleanupOnCompletion (RayJob only): the group is sized again from the live RayCluster (its
// suspended worker groups skipped, no submitter), or to nothing when the cluster is gone or being
// deleted, so a finished job stops holding the queue.
#pragma once

#include <string>
#include <string_view>

#include "controllers/ray/batchscheduler/internal/batch_scheduler.h"
#include "controllers/ray/batchscheduler/internal/pod_group_sizing.h"

namespace fakekube::ray::batchscheduler {

inline const GroupVersionResource kVolcanoPodGroups{"scheduling.volcano.sh", "v1beta1",
                                                    "podgroups"};
inline constexpr std::string_view kVolcanoPluginName = "volcano";
inline constexpr std::string_view kVolcanoQueueNameLabel = "volcano.sh/queue-name";
inline constexpr std::string_view kNetworkTopologyModeLabel = "volcano.sh/network-topology-mode";
inline constexpr std::string_view kNetworkTopologyHighestTierAllowedLabel =
    "volcano.sh/network-topology-highest-tier-allowed";
inline constexpr std::string_view kVolcanoGroupNameAnnotation = "scheduling.k8s.io/group-name";
inline constexpr std::string_view kVolcanoTaskSpecAnnotation = "volcano.sh/task-spec";

// getAppPodGroupName: ray-<name>-pg, the RayJob's name for a cluster it created.
std::string volcanoPodGroupName(const Json& object);
// createPodGroup: the PodGroup document for `owner` (a RayCluster or RayJob).
Result<Json> volcanoPodGroup(const Json& owner, std::int32_t minMember,
                             const ResourceSums& minResources);
// calculatePodGroupParams of a RayCluster spec: (minMember, minResources).
std::pair<std::int32_t, ResourceSums> volcanoPodGroupParams(const Json& rayClusterSpec);

class VolcanoBatchScheduler : public BatchScheduler {
 public:
  std::string name() const override { return std::string(kVolcanoPluginName); }
  Result<void> doBatchSchedulingOnSubmission(Client& client, const Json& object) override;
  void addMetadataToChildResource(const Json& parent, Json& child, ChildKind kind,
                                  std::string_view groupName) const override;
  Result<bool> cleanupOnCompletion(Client& client, const Json& object) override;
  std::optional<GroupVersionResource> ownedResource() const override { return kVolcanoPodGroups; }

  // syncPodGroup: true when it created or updated the group.
  static Result<bool> syncPodGroup(Client& client, const Json& owner, std::int32_t minMember,
                                   const ResourceSums& minResources);
};

}  // namespace fakekube::ray::batchscheduler
