// Crash points over the gang path: a RayJob handed to Volcano (KubeRay's Volcano plug-in and the
// simulated Volcano scheduler), with every write of the KubeRay operator, then every write of
// the Volcano scheduler, crashed before commit, crashed after commit and answered with a lost
// response (CrashPointRunner). Whatever the fault: the job completes, the RayJob controls one
// PodGroup, and every pod of the job is Volcano's and names the RayJob's group.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/ray_operator.h"
#include "controllers/ray/sim/ray_simulation.h"
#include "controllers/volcano/internal/volcano_api.h"
#include "controllers/volcano/internal/volcano_scheduler.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fixtures/crash_point_runner.h"
#include "fixtures/invariant.h"
#include "fixtures/test_cluster.h"
#include "tests/controllers/volcano/ray_gang_documents.h"

namespace fakekube::volcano::testing {
namespace {

using std::chrono::seconds;

Json gangJob() {
  return {{"apiVersion", "ray.io/v1"},
          {"kind", "RayJob"},
          {"metadata",
           {{"name", "gang-job"},
            {"namespace", "default"},
            {"labels", {{"volcano.sh/queue-name", "default"}}}}},
          {"spec",
           {{"entrypoint", "sleep 5"}, {"rayClusterSpec", rayClusterSpec("1", "1Gi", 2, 2, 2)}}}};
}

// Every pod of the job (its cluster's and its submitter's) is Volcano's, in the RayJob's group.
Invariant everyPodInItsGroup() {
  return {"every pod in its group", [](TestCluster& cluster) -> std::optional<std::string> {
            for (const Json& pod : cluster.list(kPods, "default")) {
              const std::string group(meta::annotation(pod, kGroupNameAnnotation));
              const Json& scheduler = jsonAt(pod, {"spec", "schedulerName"});
              if (group != "ray-gang-job-pg" || scheduler != "volcano") {
                return "pod " + meta::name(pod) + " has group \"" + group + "\" and scheduler " +
                       scheduler.dump();
              }
            }
            return std::nullopt;
          }};
}

CrashScenario gangScenario(const std::string& operatorName) {
  CrashScenario scenario;
  scenario.name = "gang-job/" + operatorName;
  scenario.cluster = {
      .seed = 3,
      .nodes = 2,
      .objects = {ray::rayClusterCustomResourceDefinition(), ray::rayJobCustomResourceDefinition(),
                  gangJob()},
      .operators = {{"volcano", [](Manager& manager) { return addVolcanoScheduler(manager); }},
                    {"kuberay",
                     [](Manager& manager, const OperatorContext& context) -> Result<void> {
                       ray::OperatorOptions options;
                       options.randomSeed = context.seed * 1000003 + context.start;
                       options.batchScheduler = "volcano";
                       return ray::addRayOperator(
                           manager, {"raycluster", "rayjob"}, options,
                           ray::inProcessDashboardClients(context.cluster->network()));
                     }}},
      .configureCluster = [](Cluster& cluster) { ray::addRayBehaviors(cluster.behaviors()); }};
  scenario.operatorName = operatorName;
  scenario.goal = Expectation::field(ray::kRayJobs, "default", "gang-job",
                                     "status.jobDeploymentStatus", ::testing::Eq(Json("Complete")));
  scenario.timeout = seconds(120);
  scenario.invariants = {noDuplicateControlled(kPodGroups, "RayJob"), everyPodInItsGroup()};
  return scenario;
}

TEST(GangCrashPoints, EveryKubeRayWriteCrashedConverges) {
  CrashPointRunner runner(gangScenario("kuberay"));
  auto report = runner.run();
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(report->ok()) << report->str();
  EXPECT_GT(report->rows.size(), 0u);
}

TEST(GangCrashPoints, EveryVolcanoSchedulerWriteCrashedConverges) {
  CrashPointRunner runner(gangScenario("volcano"));
  auto report = runner.run();
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_TRUE(report->ok()) << report->str();
  EXPECT_GT(report->rows.size(), 0u);
}

}  // namespace
}  // namespace fakekube::volcano::testing
