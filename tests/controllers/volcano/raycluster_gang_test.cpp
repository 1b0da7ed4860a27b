// A RayCluster handed to Volcano by KubeRay's RayCluster controller (batchScheduler volcano): the
// group is created before the pods, every pod names it with its task, Volcano binds the three
// together, and the cluster becomes ready; a resize of the cluster resizes the group.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/ray_operator.h"
#include "controllers/ray/sim/ray_simulation.h"
#include "controllers/volcano/internal/volcano_api.h"
#include "controllers/volcano/internal/volcano_scheduler.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fixtures/test_cluster.h"
#include "tests/controllers/volcano/ray_gang_documents.h"

namespace fakekube::volcano::testing {
namespace {

using std::chrono::seconds;

Json gangCluster() {
  return {{"apiVersion", "ray.io/v1"},
          {"kind", "RayCluster"},
          {"metadata",
           {{"name", "gang"},
            {"namespace", "default"},
            {"labels", {{"volcano.sh/queue-name", "default"}}}}},
          {"spec", rayClusterSpec("1", "1Gi", 2, 0, 5)}};
}

TEST(RayClusterGangScheduling, TheRayClusterControllerHandsItsPodsToVolcanoAsOneGroup) {
  TestCluster cluster(
      {.seed = 4,
       .nodes = 2,
       .objects = {ray::rayClusterCustomResourceDefinition()},
       .operators = {{"volcano", [](Manager& manager) { return addVolcanoScheduler(manager); }},
                     {"kuberay",
                      [](Manager& manager) -> Result<void> {
                        ray::OperatorOptions options;
                        options.randomSeed = 4;
                        options.batchScheduler = "volcano";
                        return ray::addRayOperator(manager, {"raycluster"}, options);
                      }}},
       .configureCluster = [](Cluster& c) { ray::addRayBehaviors(c.behaviors()); }});
  ASSERT_TRUE(cluster.start());
  ASSERT_TRUE(cluster.client().create(ray::kRayClusters, gangCluster()));
  auto state = [&] {
    auto got = cluster.get(ray::kRayClusters, "default", "gang");
    return got ? jsonAt(*got, {"status", "state"}) : Json();
  };
  ASSERT_TRUE(cluster.eventually([&] { return state() == "ready"; }, seconds(60)));

  auto group = cluster.get(kPodGroups, "default", "ray-gang-pg");
  ASSERT_TRUE(group);
  EXPECT_EQ(jsonAt(*group, {"spec", "minMember"}), 3);
  EXPECT_EQ(jsonAt(*group, {"spec", "minResources", "cpu"}), "3");
  EXPECT_EQ(jsonAt(*group, {"spec", "queue"}), "default");
  EXPECT_EQ(jsonAt(*group, {"status", "phase"}), "Running");
  ASSERT_TRUE(meta::controllerOf(*group));
  EXPECT_EQ(meta::controllerOf(*group)->kind, "RayCluster");

  std::multiset<std::string> tasks;
  for (const Json& pod : cluster.list(kPods, "default")) {
    EXPECT_EQ(jsonAt(pod, {"spec", "schedulerName"}), "volcano") << meta::name(pod);
    EXPECT_EQ(meta::annotation(pod, kGroupNameAnnotation), "ray-gang-pg") << meta::name(pod);
    EXPECT_EQ(meta::label(pod, kQueueNameLabel), "default") << meta::name(pod);
    tasks.insert(meta::annotation(pod, kTaskSpecAnnotation));
  }
  EXPECT_EQ(tasks, (std::multiset<std::string>{"headgroup", "workers", "workers"}));

  // Two more workers: the group grows to 5 before they are created, and Volcano binds them.
  auto rayCluster = cluster.get(ray::kRayClusters, "default", "gang");
  ASSERT_TRUE(rayCluster);
  (*rayCluster)["spec"]["workerGroupSpecs"][0]["replicas"] = 4;
  ASSERT_TRUE(cluster.client().update(ray::kRayClusters, *rayCluster));
  ASSERT_TRUE(cluster.eventually(
      [&] {
        auto got = cluster.get(kPodGroups, "default", "ray-gang-pg");
        return got && jsonAt(*got, {"spec", "minMember"}) == 5 &&
               jsonAt(*got, {"status", "running"}) == 5;
      },
      seconds(60)));
}

}  // namespace
}  // namespace fakekube::volcano::testing
