// A RayCluster labelled ray.io/gang-scheduling-enabled under KubeRay's scheduler-plugins
// batch-scheduler option: the operator creates the PodGroup named as the cluster and hands its
// pods to scheduler-plugins-scheduler, which binds the head and the workers together when they
// fit and none of them when they do not.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/ray_operator.h"
#include "controllers/ray/sim/ray_simulation.h"
#include "tests/controllers/coscheduling/coscheduling_fixture.h"
#include "tests/controllers/ray/ray_fixture.h"

namespace fakekube::coscheduling::testing {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;

// KubeRay's sample RayCluster with a head and `workers` workers of `cpu` each, gang-scheduled.
Json gangRayCluster(int workers, const std::string& cpu) {
  Json cluster = ray::testing::sampleRayCluster("gang", workers, 0, 5);
  cluster["metadata"]["labels"] = {{"ray.io/gang-scheduling-enabled", "true"}};
  for (Json* group : {&cluster["spec"]["headGroupSpec"], &cluster["spec"]["workerGroupSpecs"][0]}) {
    Json& resources = (*group)["template"]["spec"]["containers"][0]["resources"];
    resources["limits"]["cpu"] = cpu;
    resources["requests"]["cpu"] = cpu;
  }
  return cluster;
}

TestClusterOptions kubeRayWithSchedulerPlugins(int nodes) {
  return {.seed = 4,
          .nodes = nodes,
          .objects = {ray::rayClusterCustomResourceDefinition()},
          .operators = {{"scheduler-plugins",
                         [](Manager& manager) { return addCoschedulingScheduler(manager); }},
                        {"kuberay",
                         [](Manager& manager) -> Result<void> {
                           ray::OperatorOptions options;
                           options.randomSeed = 4;
                           options.batchScheduler = "scheduler-plugins";
                           return ray::addRayOperator(manager, {"raycluster"}, options);
                         }}},
          .configureCluster = [](Cluster& c) { ray::addRayBehaviors(c.behaviors()); }};
}

TEST(RayClusterCoscheduling, AGangScheduledRayClusterRunsWhenItFits) {
  TestCluster cluster(kubeRayWithSchedulerPlugins(2));
  ASSERT_TRUE(cluster.start());
  ASSERT_TRUE(cluster.client().create(ray::kRayClusters, gangRayCluster(2, "1")));
  auto state = [&] {
    auto got = cluster.get(ray::kRayClusters, "default", "gang");
    return got ? jsonAt(*got, {"status", "state"}) : Json();
  };
  ASSERT_TRUE(cluster.eventually([&] { return state() == "ready"; }, seconds(60)));
  ASSERT_TRUE(
      cluster.eventually([&] { return phaseOf(cluster, "gang") == "Running"; }, seconds(30)));

  auto group = cluster.get(kPodGroups, "default", "gang");
  ASSERT_TRUE(group);
  EXPECT_EQ(jsonAt(*group, {"spec", "minMember"}), 3);
  EXPECT_EQ(jsonAt(*group, {"status", "running"}), 3);
  int pods = 0;
  for (const Json& pod : cluster.list(kPods, "default")) {
    ++pods;
    EXPECT_EQ(jsonAt(pod, {"spec", "schedulerName"}), "scheduler-plugins-scheduler");
    EXPECT_EQ(meta::label(pod, kPodGroupLabel), "gang") << meta::name(pod);
    EXPECT_FALSE(podNodeName(pod).empty()) << meta::name(pod);
  }
  EXPECT_EQ(pods, 3);
}

TEST(RayClusterCoscheduling, AGangScheduledRayClusterLargerThanTheClusterGetsNoPodBound) {
  // A head and three workers of 3 cpu: 12 cpu, one node of 8.
  TestCluster cluster(kubeRayWithSchedulerPlugins(1));
  ASSERT_TRUE(cluster.start());
  ASSERT_TRUE(cluster.client().create(ray::kRayClusters, gangRayCluster(3, "3")));
  ASSERT_TRUE(
      cluster.eventually([&] { return cluster.list(kPods, "default").size() == 4; }, seconds(30)));
  for (int second = 0; second < 120; ++second) {
    cluster.runFor(seconds(1));
    ASSERT_EQ(boundMembers(cluster, "gang"), 0) << "at " << second << "s";
  }
  for (const Json& pod : cluster.list(kPods, "default")) {
    const Json* condition = findCondition(pod, "PodScheduled");
    ASSERT_NE(condition, nullptr) << meta::name(pod);
    EXPECT_THAT(condition->value("message", ""), HasSubstr("resource gap: map[cpu:"))
        << meta::name(pod);
  }
}

}  // namespace
}  // namespace fakekube::coscheduling::testing
