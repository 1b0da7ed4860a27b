#include "controllers/ray/batchscheduler/internal/scheduler_plugins_batch_scheduler.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "controllers/ray/batchscheduler/internal/pod_group_sizing.h"
#include "controllers/ray/constants.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/client/client.h"

namespace fakekube::ray::batchscheduler {
namespace {

bool gangSchedulingEnabled(const Json& object) {
  return meta::labelIfPresent(object, kGangSchedulingEnabledLabel).has_value();
}

}  // namespace

Json coschedulingPodGroup(const Json& rayCluster) {
  const Json& spec = jsonAt(rayCluster, {"spec"});
  return {{"apiVersion", "scheduling.x-k8s.io/v1alpha1"},
          {"kind", "PodGroup"},
          {"metadata",
           {{"name", meta::name(rayCluster)},
            {"namespace", meta::namespace_(rayCluster)},
            {"ownerReferences", Json::array({{{"apiVersion", meta::apiVersion(rayCluster)},
                                              {"kind", meta::kind(rayCluster)},
                                              {"name", meta::name(rayCluster)},
                                              {"uid", meta::uid(rayCluster)}}})}}},
          {"spec",
           {{"minMember", calculateDesiredReplicas(spec) + 1},
            {"minResources", resourceListJson(calculateDesiredResources(spec))}}}};
}

Result<void> SchedulerPluginsBatchScheduler::doBatchSchedulingOnSubmission(Client& client,
                                                                           const Json& object) {
  if (meta::kind(object) != kRayClusterKind) {
    return tl::unexpected(Status::badRequest(
        fmt::format("currently only RayCluster is supported, got *v1.{}", meta::kind(object))));
  }
  if (!gangSchedulingEnabled(object)) return {};
  auto existing = client.get(kCoschedulingPodGroups, meta::namespace_(object), meta::name(object));
  if (existing) return {};
  if (!isNotFound(existing.error())) return tl::unexpected(existing.error());
  auto created = client.create(kCoschedulingPodGroups, coschedulingPodGroup(object));
  if (!created && !isAlreadyExists(created.error())) {
    return tl::unexpected(
        Status::internal(fmt::format("failed to create PodGroup: {}", created.error().message)));
  }
  return {};
}

void SchedulerPluginsBatchScheduler::addMetadataToChildResource(const Json& parent, Json& child,
                                                                ChildKind kind,
                                                                std::string_view) const {
  if (gangSchedulingEnabled(parent)) {
    meta::setLabel(child, kCoschedulingPodGroupLabel, meta::name(parent));
  }
  if (kind != ChildKind::Other) child["spec"]["schedulerName"] = name();
}

}  // namespace fakekube::ray::batchscheduler
