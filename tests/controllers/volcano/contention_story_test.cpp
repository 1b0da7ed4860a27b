// The resource-contention story: two RayJobs whose Ray clusters need three members each (a head
// and two workers of 4 cpu) on machines that hold four such members (two nodes of 8 cpu; the
// second node joins after both jobs were submitted, as a machine still booting does).
//
// Without a batch scheduler the default scheduler places pods one at a time, as they come: the
// first job gets node-1's two slots; when node-2 comes up, its third member (waiting first) and
// the second job's head take node-2's two slots. The first cluster is ready and its submitter
// pod is created, but there is no room left for it; the second cluster holds one member of three.
// Each waits for what the other holds: neither Ray job is ever submitted. With KubeRay's Volcano
// plug-in each RayJob gets a PodGroup of minMember 3 whose minResources count the submitter;
// Volcano admits one group (the other's minimum exceeds what is left of allocatable x 1.2), binds
// its three pods at once, the job runs and succeeds, its RayCluster is deleted after the TTL, the
// group is emptied, and the second group is admitted and runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/ray_operator.h"
#include "controllers/ray/sim/ray_simulation.h"
#include "controllers/volcano/internal/volcano_api.h"
#include "controllers/volcano/internal/volcano_scheduler.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/nodes.h"
#include "fixtures/test_cluster.h"
#include "tests/controllers/volcano/ray_gang_documents.h"

namespace fakekube::volcano::testing {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using ::testing::ElementsAre;

constexpr const char* kFirst = "llm-finetune";
constexpr const char* kSecond = "batch-inference";

// A RayJob whose cluster is a head and two workers of 4 cpu; the job runs 30 s; the cluster is
// deleted 30 s after the job finished.
Json contendingJob(const std::string& name, bool volcano) {
  Json job = {{"apiVersion", "ray.io/v1"},
              {"kind", "RayJob"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec",
               {{"entrypoint", "sleep 30"},
                {"shutdownAfterJobFinishes", true},
                {"ttlSecondsAfterFinished", 30},
                {"rayClusterSpec", rayClusterSpec("4", "4Gi", 2, 2, 2)}}}};
  if (volcano) job["metadata"]["labels"] = {{std::string(kQueueNameLabel), "default"}};
  return job;
}

TestClusterOptions contentionCluster(std::uint64_t seed, bool volcano) {
  TestClusterOptions options{
      .seed = seed,
      .nodes = 1,
      .objects = {ray::rayClusterCustomResourceDefinition(), ray::rayJobCustomResourceDefinition()},
      .configureCluster = [](Cluster& cluster) { ray::addRayBehaviors(cluster.behaviors()); }};
  if (volcano) {
    options.operators.push_back(
        {"volcano", [](Manager& manager) { return addVolcanoScheduler(manager); }});
  }
  options.operators.push_back(
      {"kuberay", [volcano](Manager& manager, const OperatorContext& context) -> Result<void> {
         ray::OperatorOptions operatorOptions;
         operatorOptions.randomSeed = context.seed * 1000003 + context.start;
         if (volcano) operatorOptions.batchScheduler = "volcano";
         return ray::addRayOperator(manager, {"raycluster", "rayjob"}, operatorOptions,
                                    ray::inProcessDashboardClients(context.cluster->network()));
       }});
  return options;
}

// Submits the first job, then the second, then brings node-2 up.
void submitBothAndBootNode2(TestCluster& cluster, bool volcano) {
  ASSERT_TRUE(cluster.client().create(ray::kRayJobs, contendingJob(kFirst, volcano)));
  cluster.runFor(seconds(20));
  ASSERT_TRUE(cluster.client().create(ray::kRayJobs, contendingJob(kSecond, volcano)));
  cluster.runFor(seconds(10));
  ASSERT_TRUE(addNode(cluster.client(), cluster.executor().clock(), NodeConfig{.name = "node-2"}));
}

struct Members {
  int running = 0;
  int pending = 0;
};

// The Ray pods (head and workers) of the RayJob's cluster.
Members members(TestCluster& cluster, const std::string& job) {
  Members m;
  auto got = cluster.get(ray::kRayJobs, "default", job);
  const Json& name = got ? jsonAt(*got, {"status", "rayClusterName"}) : Json();
  if (!name.is_string()) return m;
  for (const Json& pod : cluster.list(
           kPods, "default", {.matchingLabels = {{"ray.io/cluster", name.get<std::string>()}}})) {
    const std::string phase = jsonAt(pod, {"status", "phase"}).get<std::string>();
    if (phase == "Running") ++m.running;
    if (phase == "Pending") ++m.pending;
  }
  return m;
}

std::string deploymentStatus(TestCluster& cluster, const std::string& job) {
  auto got = cluster.get(ray::kRayJobs, "default", job);
  const Json& status = got ? jsonAt(*got, {"status", "jobDeploymentStatus"}) : Json();
  return status.is_string() ? status.get<std::string>() : "";
}

std::string groupPhase(TestCluster& cluster, const std::string& job) {
  auto got = cluster.get(kPodGroups, "default", "ray-" + job + "-pg");
  const Json& phase = got ? jsonAt(*got, {"status", "phase"}) : Json();
  return phase.is_string() ? phase.get<std::string>() : "";
}

TEST(ContentionStory, WithoutABatchSchedulerNeitherJobEverStarts) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    TestCluster cluster(contentionCluster(seed, false));
    ASSERT_TRUE(cluster.start());
    submitBothAndBootNode2(cluster, false);
    cluster.runFor(minutes(10));
    // The first job got its three members (the pods are taken in turn: its third was waiting
    // first) and its submitter was created, but batch-inference's head took the last slot.
    const Members first = members(cluster, kFirst);
    EXPECT_EQ(first.running, 3);
    EXPECT_EQ(deploymentStatus(cluster, kFirst), "Running");
    const std::vector<Json> submitters =
        cluster.list(kPods, "default", {.matchingLabels = {{"job-name", kFirst}}});
    ASSERT_EQ(submitters.size(), 1u);
    EXPECT_EQ(jsonAt(submitters[0], {"status", "phase"}), "Pending");
    EXPECT_TRUE(podNodeName(submitters[0]).empty());
    // The second holds one member of three and waits for slots the first never frees.
    const Members second = members(cluster, kSecond);
    EXPECT_EQ(second.running, 1);
    EXPECT_EQ(second.pending, 2);
    EXPECT_EQ(deploymentStatus(cluster, kSecond), "Initializing");
    // Neither Ray job was ever submitted.
    for (const char* job : {kFirst, kSecond}) {
      auto got = cluster.get(ray::kRayJobs, "default", job);
      ASSERT_TRUE(got);
      const Json& jobStatus = jsonAt(*got, {"status", "jobStatus"});
      EXPECT_TRUE(!jobStatus.is_string() || jobStatus == "" || jobStatus == "PENDING")
          << job << " " << jobStatus;
    }
  }
}

TEST(ContentionStory, WithVolcanoOneJobRunsAndFinishesThenTheOther) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    TestCluster cluster(contentionCluster(seed, true));
    ASSERT_TRUE(cluster.start());
    submitBothAndBootNode2(cluster, true);
    // Each milestone once, in the order first seen.
    std::vector<std::string> order;
    std::map<std::string, bool> seen;
    bool bothClustersRunning = false;
    TimePoint lastLook{};
    auto observe = [&] {
      // Looked at once per virtual instant (after its first task): the milestones are seconds
      // apart.
      if (cluster.executor().now() == lastLook) return false;
      lastLook = cluster.executor().now();
      auto note = [&](const std::string& what, bool holds) {
        if (holds && !seen[what]) {
          seen[what] = true;
          order.push_back(what);
        }
      };
      for (const char* job : {kFirst, kSecond}) {
        const std::string phase = groupPhase(cluster, job);
        note(std::string(job) + " group Running", phase == "Running");
        note(std::string(job) + " Complete", deploymentStatus(cluster, job) == "Complete");
      }
      bothClustersRunning |=
          members(cluster, kFirst).running > 0 && members(cluster, kSecond).running > 0;
      return seen[std::string(kSecond) + " Complete"];
    };
    ASSERT_TRUE(cluster.runUntil(observe, minutes(10)));
    EXPECT_THAT(order, ElementsAre("llm-finetune group Running", "llm-finetune Complete",
                                   "batch-inference group Running", "batch-inference Complete"));
    EXPECT_FALSE(bothClustersRunning);  // never a member of each at once
    EXPECT_EQ(groupPhase(cluster, kFirst), "Completed");
  }
}

}  // namespace
}  // namespace fakekube::volcano::testing
