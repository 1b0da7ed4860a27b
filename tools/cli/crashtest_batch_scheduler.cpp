#include "tools/cli/crashtest_batch_scheduler.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "controllers/coscheduling/internal/coscheduling_api.h"
#include "controllers/ray/batchscheduler/internal/scheduler_plugins_batch_scheduler.h"
#include "controllers/ray/batchscheduler/internal/volcano_batch_scheduler.h"
#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/volcano/internal/volcano_api.h"
#include "controllers/volcano/internal/volcano_scheduler.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/scheduler.h"

namespace fakekube::cli {
namespace {

namespace batch = ray::batchscheduler;

// The object whose group a pod belongs to: its RayCluster, or the RayJob controlling its Job.
struct GangOwner {
  Json object;
  bool found = false;
};

GangOwner gangOwnerOf(const Json& pod, const std::map<std::string, Json>& rayClusters,
                      const std::map<std::string, Json>& jobs,
                      const std::map<std::string, Json>& rayJobs) {
  auto ref = meta::controllerOf(pod);
  if (!ref) return {};
  if (ref->kind == "RayCluster") {
    auto rc = rayClusters.find(ref->uid);
    return rc == rayClusters.end() ? GangOwner{} : GangOwner{rc->second, true};
  }
  if (ref->kind != "Job") return {};
  auto job = jobs.find(ref->uid);
  if (job == jobs.end()) return {};
  auto jobRef = meta::controllerOf(job->second);
  if (!jobRef || jobRef->kind != "RayJob") return {};
  auto rayJob = rayJobs.find(jobRef->uid);
  return rayJob == rayJobs.end() ? GangOwner{} : GangOwner{rayJob->second, true};
}

std::map<std::string, Json> indexByUid(std::vector<Json> objects) {
  std::map<std::string, Json> out;
  for (auto& o : objects) out.emplace(meta::uid(o), std::move(o));
  return out;
}

// What is wrong with a pod of `owner` under the plug-in, "" when nothing.
std::string gangFault(TestCluster& cluster, const std::string& batchScheduler, const Json& pod,
                      const Json& owner) {
  const Json& schedulerName = jsonAt(pod, {"spec", "schedulerName"});
  std::string group;
  std::string expected;
  GroupVersionResource groups = batch::kVolcanoPodGroups;
  std::string wantScheduler;
  if (batchScheduler == "volcano") {
    group = meta::annotation(pod, batch::kVolcanoGroupNameAnnotation);
    expected = batch::volcanoPodGroupName(owner);
    wantScheduler = std::string(batch::kVolcanoPluginName);
  } else {
    group = meta::labelIfPresent(pod, batch::kCoschedulingPodGroupLabel).value_or("");
    if (meta::labelIfPresent(owner, batch::kGangSchedulingEnabledLabel))
      expected = meta::name(owner);
    groups = batch::kCoschedulingPodGroups;
    wantScheduler = std::string(batch::kSchedulerPluginsSchedulerName);
  }
  if (schedulerName != wantScheduler || group != expected) {
    return fmt::format(
        "pod {} of {} {} has scheduler {} and group \"{}\", expected \"{}\" and "
        "group \"{}\"",
        meta::name(pod), meta::kind(owner), meta::name(owner), schedulerName.dump(), group,
        wantScheduler, expected);
  }
  if (!expected.empty() && !cluster.get(groups, meta::namespace_(pod), expected)) {
    return fmt::format("pod {} names group {}, which does not exist", meta::name(pod), expected);
  }
  return "";
}

}  // namespace

Invariant podsInTheirGangs(std::string batchScheduler) {
  return {"pods in their gangs",
          [batchScheduler](TestCluster& cluster) -> std::optional<std::string> {
            const auto rayClusters = indexByUid(cluster.list(ray::kRayClusters));
            const auto jobs = indexByUid(cluster.list(kJobs));
            const auto rayJobs = indexByUid(cluster.list(ray::kRayJobs));
            std::vector<std::string> found;
            for (const Json& pod : cluster.list(kPods)) {
              if (meta::isDeleting(pod)) continue;
              GangOwner owner = gangOwnerOf(pod, rayClusters, jobs, rayJobs);
              if (!owner.found) continue;
              std::string fault = gangFault(cluster, batchScheduler, pod, owner.object);
              if (!fault.empty()) found.push_back(std::move(fault));
            }
            if (found.empty()) return std::nullopt;
            return fmt::format("{}", fmt::join(found, "; "));
          }};
}

Result<void> validateCrashtestBatchScheduler(std::string_view name) {
  if (name.empty() || name == batch::kVolcanoPluginName ||
      name == batch::kSchedulerPluginsPluginName)
    return {};
  return tl::unexpected(Status::badRequest(
      fmt::format("--batch-scheduler \"{}\": expected volcano or scheduler-plugins", name)));
}

void addCrashtestBatchScheduler(std::string_view name, CrashScenario& scenario) {
  if (name.empty()) return;
  TestClusterOptions& cluster = scenario.cluster;
  // The KubeRay operator stays the one whose writes are crashed; the scheduler is another
  // process, started first, so that the group definitions are served before the operator's
  // informers start.
  const std::string kuberay = cluster.operators.empty() ? "" : cluster.operators.front().name;
  scenario.operatorName = kuberay;
  const GroupVersionResource groups =
      name == batch::kVolcanoPluginName ? batch::kVolcanoPodGroups : batch::kCoschedulingPodGroups;
  if (name == batch::kVolcanoPluginName) {
    cluster.objects.insert(cluster.objects.begin(), {volcano::podGroupCustomResourceDefinition(),
                                                     volcano::queueCustomResourceDefinition()});
    cluster.operators.insert(
        cluster.operators.begin(),
        {"volcano", [](Manager& manager) { return volcano::addVolcanoScheduler(manager); }});
    // A RayJob and a RayCluster of its own each control one group.
    scenario.invariants.push_back(noDuplicateControlled(groups, "RayJob"));
    scenario.invariants.push_back(noDuplicateControlled(groups, "RayCluster"));
  } else {
    cluster.objects.insert(cluster.objects.begin(),
                           coscheduling::podGroupCustomResourceDefinition());
    cluster.operators.insert(cluster.operators.begin(),
                             {"scheduler-plugins", [](Manager& manager) -> Result<void> {
                                SchedulerOptions options;
                                options.schedulerName =
                                    std::string(batch::kSchedulerPluginsSchedulerName);
                                auto added = addScheduler(manager, options);
                                if (!added) return tl::unexpected(added.error());
                                return {};
                              }});
  }
  scenario.invariants.push_back(podsInTheirGangs(std::string(name)));
  // Volcano's groups are controlled by their RayJob or RayCluster, and collected with it
  // (scheduler-plugins' groups name their RayCluster as a plain owner: nothing to check).
  if (scenario.teardown && name == batch::kVolcanoPluginName) {
    scenario.afterTeardown.push_back(noOrphans(groups, ray::kRayJobs));
    scenario.afterTeardown.push_back(noOrphans(groups, ray::kRayClusters));
  }
}

}  // namespace fakekube::cli
