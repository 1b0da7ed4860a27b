#include "controllers/ray/batchscheduler/internal/volcano_batch_scheduler.h"

#include <fmt/format.h>

#include <charconv>
#include <nlohmann/json.hpp>

#include "controllers/ray/constants.h"
#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/internal/rayjob_submitter.h"
#include "controllers/ray/raycluster_types.h"
#include "controllers/ray/rayjob_types.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/client/client.h"

namespace fakekube::ray::batchscheduler {
namespace {

bool isRayJob(const Json& object) { return meta::kind(object) == kRayJobKind; }

bool createdByRayJob(const Json& object) {
  return meta::label(object, kRayOriginatedFromCRDLabelKey) == kRayJobKind;
}

// getSubmitterResource: what the submitter adds to a RayJob's minResources.
ResourceSums submitterResource(const Json& rayJob) {
  const Json& clusterSpec = jsonAt(rayJob, {"spec", "rayClusterSpec"});
  const std::string mode = submissionMode(rayJob);
  if (mode == kK8sJobMode) {
    auto pod = submitterTemplate(rayJob, clusterSpec);
    return pod ? podResource(jsonAt(*pod, {"spec"})) : ResourceSums{};
  }
  if (mode == kSidecarMode) {
    auto container = sidecarSubmitterContainer(rayJob, clusterSpec);
    if (!container) return {};
    return podResource(Json{{"containers", Json::array({*container})}});
  }
  return {};
}

void copyLabel(const Json& parent, Json& child, std::string_view key) {
  const std::string& value = meta::label(parent, key);
  Json& labels = meta::metadata(child)["labels"];
  if (!labels.is_object()) labels = Json::object();
  if (!value.empty()) labels[std::string(key)] = value;
}

}  // namespace

std::string volcanoPodGroupName(const Json& object) {
  std::string name = meta::name(object);
  if (createdByRayJob(object)) {
    const std::string& rayJob = meta::label(object, kRayOriginatedFromCRNameLabelKey);
    if (!rayJob.empty()) name = rayJob;
  }
  return fmt::format("ray-{}-pg", name);
}

std::pair<std::int32_t, ResourceSums> volcanoPodGroupParams(const Json& rayClusterSpec) {
  if (!isAutoscalingEnabled(Json{{"spec", rayClusterSpec}})) {
    return {calculateDesiredReplicas(rayClusterSpec) + 1,
            calculateDesiredResources(rayClusterSpec)};
  }
  return {calculateMinReplicas(rayClusterSpec) + 1, calculateMinResources(rayClusterSpec)};
}

Result<Json> volcanoPodGroup(const Json& owner, std::int32_t minMember,
                             const ResourceSums& minResources) {
  const std::string name = volcanoPodGroupName(owner);
  Json group = {
      {"apiVersion", "scheduling.volcano.sh/v1beta1"},
      {"kind", "PodGroup"},
      {"metadata", {{"name", name}, {"namespace", meta::namespace_(owner)}}},
      {"spec", {{"minMember", minMember}, {"minResources", resourceListJson(minResources)}}},
      {"status", {{"phase", "Pending"}}}};
  meta::addOwnerReference(group, meta::controllerRefTo(owner));
  const Json& annotations = meta::annotations(owner);
  if (annotations.is_object() && !annotations.empty()) {
    group["metadata"]["annotations"] = annotations;
  }
  if (auto mode = meta::labelIfPresent(owner, kNetworkTopologyModeLabel)) {
    group["spec"]["networkTopology"] = {{"mode", *mode}};
    if (auto tier = meta::labelIfPresent(owner, kNetworkTopologyHighestTierAllowedLabel)) {
      int value = 0;
      auto [end, error] = std::from_chars(tier->data(), tier->data() + tier->size(), value);
      if (error != std::errc() || end != tier->data() + tier->size()) {
        return tl::unexpected(Status::badRequest(fmt::format(
            "failed to convert {} label to int: strconv.Atoi: parsing \"{}\": invalid syntax for "
            "podgroup {} in namespace {}",
            kNetworkTopologyHighestTierAllowedLabel, *tier, name, meta::namespace_(owner))));
      }
      group["spec"]["networkTopology"]["highestTierAllowed"] = value;
    }
  }
  if (auto queue = meta::labelIfPresent(owner, kVolcanoQueueNameLabel)) {
    group["spec"]["queue"] = *queue;
  }
  if (auto priority = meta::labelIfPresent(owner, kRayPriorityClassName)) {
    group["spec"]["priorityClassName"] = *priority;
  }
  return group;
}

Result<bool> VolcanoBatchScheduler::syncPodGroup(Client& client, const Json& owner,
                                                 std::int32_t minMember,
                                                 const ResourceSums& minResources) {
  const std::string ns = meta::namespace_(owner);
  auto existing = client.get(kVolcanoPodGroups, ns, volcanoPodGroupName(owner));
  if (!existing) {
    if (!isNotFound(existing.error())) return tl::unexpected(existing.error());
    auto group = volcanoPodGroup(owner, minMember, minResources);
    if (!group) return tl::unexpected(group.error());
    auto created = client.create(kVolcanoPodGroups, std::move(*group));
    if (!created) {
      if (isAlreadyExists(created.error())) return false;
      return tl::unexpected(created.error());
    }
    return true;
  }
  Json group = std::move(*existing);
  const Json& current = jsonAt(group, {"spec", "minResources"});
  if (jsonAt(group, {"spec", "minMember"}) == minMember && current.is_object() &&
      sameResources(parseResourceList(current), minResources)) {
    return false;
  }
  group["spec"]["minMember"] = minMember;
  group["spec"]["minResources"] = resourceListJson(minResources);
  auto updated = client.update(kVolcanoPodGroups, std::move(group));
  if (!updated) return tl::unexpected(updated.error());
  return true;
}

Result<void> VolcanoBatchScheduler::doBatchSchedulingOnSubmission(Client& client,
                                                                  const Json& object) {
  if (!isRayJob(object)) {
    // handleRayCluster: a RayJob's cluster is in its RayJob's group.
    if (createdByRayJob(object)) return {};
    auto [minMember, resources] = volcanoPodGroupParams(jsonAt(object, {"spec"}));
    if (auto synced = syncPodGroup(client, object, minMember, resources); !synced) {
      return tl::unexpected(synced.error());
    }
    return {};
  }
  const Json& clusterSpec = jsonAt(object, {"spec", "rayClusterSpec"});
  if (!clusterSpec.is_object()) {
    return tl::unexpected(Status::badRequest(fmt::format(
        "gang scheduling does not support RayJob {}/{} referencing an existing RayCluster",
        meta::namespace_(object), meta::name(object))));
  }
  auto [minMember, resources] = volcanoPodGroupParams(clusterSpec);
  addResources(resources, submitterResource(object));
  if (auto synced = syncPodGroup(client, object, minMember, resources); !synced) {
    return tl::unexpected(synced.error());
  }
  return {};
}

void VolcanoBatchScheduler::addMetadataToChildResource(const Json& parent, Json& child,
                                                       ChildKind kind,
                                                       std::string_view groupName) const {
  copyLabel(parent, child, kVolcanoQueueNameLabel);
  copyLabel(parent, child, kRayPriorityClassName);
  meta::setAnnotation(child, kVolcanoGroupNameAnnotation, volcanoPodGroupName(parent));
  meta::setAnnotation(child, kVolcanoTaskSpecAnnotation, groupName);
  if (kind != ChildKind::Other) child["spec"]["schedulerName"] = name();
}

Result<bool> VolcanoBatchScheduler::cleanupOnCompletion(Client& client, const Json& object) {
  if (!isRayJob(object) || hasClusterSelector(object)) return false;
  const std::string clusterName = statusString(object, "rayClusterName");
  if (clusterName.empty()) return false;  // no group to update
  std::int32_t minMember = 0;
  ResourceSums resources;
  auto cluster = client.get(kRayClusters, meta::namespace_(object), clusterName);
  if (!cluster) {
    if (!isNotFound(cluster.error())) return tl::unexpected(cluster.error());
  } else if (!meta::isDeleting(*cluster)) {
    std::tie(minMember, resources) = volcanoPodGroupParams(jsonAt(*cluster, {"spec"}));
  }
  return syncPodGroup(client, object, minMember, resources);
}

}  // namespace fakekube::ray::batchscheduler
