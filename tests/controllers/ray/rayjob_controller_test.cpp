// The RayJob controller against a real cluster on virtual time. Each test names the case of
// KubeRay's suites it mirrors (ray-operator/controllers/ray/rayjob_controller_test.go and
// rayjob_controller_unit_test.go, suite "RayJob controller").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/ray/constants.h"
#include "controllers/ray/rayjob_types.h"
#include "rayjob_fixture.h"

namespace fakekube::ray::jobtest {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// rayjob_controller_test.go "Successful RayJob in K8sJobMode": New -> Initializing with names
// and startTime; the RayCluster with the RayJob's annotations and originated-from labels; while
// the cluster is not ready its status shows in the RayJob; ready -> Running, dashboardURL,
// submitter Job; the Ray job SUCCEEDED and the Job complete -> Complete; RayCluster deleted, Job
// kept.
TEST_F(RayJobTest, SuccessfulRayJobInK8sJobMode) {
  entrypoints->onCommand("sleep 999", {.duration = seconds(20)});
  startOperator();
  Json job = rayJobTemplate("rayjob-test");
  job["metadata"]["annotations"] = {{"key", "value"}};
  job["metadata"]["labels"] = {{"team", "ml"}};
  create(kRayJobs, job);

  ASSERT_TRUE(runUntil([&] { return !statusOf("rayjob-test", "rayClusterName").empty(); }));
  EXPECT_EQ(deploymentStatus("rayjob-test"), kJobDeploymentStatusInitializing);
  const std::string clusterName = statusOf("rayjob-test", "rayClusterName");
  const std::string jobId = statusOf("rayjob-test", "jobId");
  EXPECT_THAT(clusterName, StartsWith("rayjob-test-"));
  EXPECT_EQ(clusterName.size(), std::string("rayjob-test-").size() + 5);
  EXPECT_THAT(jobId, StartsWith("rayjob-test-"));
  EXPECT_NE(clusterName, jobId);
  EXPECT_FALSE(statusOf("rayjob-test", "startTime").empty());
  EXPECT_TRUE(meta::hasFinalizer(rayJob("rayjob-test"), kRayJobStopJobFinalizer));

  ASSERT_TRUE(runUntil([&] { return exists(kRayClusters, clusterName); }));
  Json rayCluster = get(kRayClusters, clusterName);
  EXPECT_EQ(meta::annotation(rayCluster, "key"), "value");
  EXPECT_EQ(meta::label(rayCluster, "team"), "ml");
  EXPECT_EQ(meta::label(rayCluster, kRayOriginatedFromCRNameLabelKey), "rayjob-test");
  EXPECT_EQ(meta::label(rayCluster, kRayOriginatedFromCRDLabelKey), "RayJob");
  EXPECT_EQ(meta::label(rayCluster, kRayJobSubmissionModeLabelKey), "K8sJobMode");
  ASSERT_TRUE(meta::controllerOf(rayCluster).has_value());
  EXPECT_EQ(meta::controllerOf(rayCluster)->name, "rayjob-test");

  // Not ready yet: the cluster's status (its conditions) is mirrored, no submitter Job.
  ASSERT_TRUE(runUntil([&] {
    const Json job = rayJob("rayjob-test");
    const Json& c = jsonAt(job, {"status", "rayClusterStatus", "conditions"});
    return c.is_array() && !c.empty();
  }));
  EXPECT_EQ(deploymentStatus("rayjob-test"), kJobDeploymentStatusInitializing);
  EXPECT_FALSE(exists(kJobs, "rayjob-test"));

  ASSERT_TRUE(runUntilDeploymentStatus("rayjob-test", kJobDeploymentStatusRunning));
  EXPECT_EQ(statusOf("rayjob-test", "dashboardURL"),
            clusterName + "-head-svc.default.svc.cluster.local:8265");
  ASSERT_TRUE(exists(kJobs, "rayjob-test"));
  // The Running rounds mirror the ready cluster's status with the Ray job's.
  ASSERT_TRUE(runUntil([&] {
    const Json job = rayJob("rayjob-test");
    return stringOr(jsonAt(job, {"status", "rayClusterStatus", "state"})) == "ready" &&
           stringOr(jsonAt(job, {"status", "jobStatus"})) == "RUNNING";
  }));

  ASSERT_TRUE(runUntilDeploymentStatus("rayjob-test", kJobDeploymentStatusComplete, seconds(120)));
  EXPECT_EQ(statusOf("rayjob-test", "jobStatus"), "SUCCEEDED");
  EXPECT_FALSE(statusOf("rayjob-test", "endTime").empty());
  EXPECT_EQ(counterOf("rayjob-test", "succeeded"), 1);
  EXPECT_EQ(counterOf("rayjob-test", "failed"), 0);
  EXPECT_FALSE(
      stringOr(jsonAt(rayJob("rayjob-test"), {"status", "rayJobInfo", "endTime"})).empty());

  // ttlSecondsAfterFinished 0: the cluster goes at once, the submitter Job stays.
  ASSERT_TRUE(runUntil([&] { return !exists(kRayClusters, clusterName); }, seconds(30)));
  run(seconds(10));
  EXPECT_TRUE(exists(kJobs, "rayjob-test"));
  EXPECT_TRUE(exists(kRayJobs, "rayjob-test"));
  EXPECT_THAT(eventReasons("rayjob-test"), Contains("CreatedRayCluster"));
  EXPECT_THAT(eventReasons("rayjob-test"), Contains("CreatedRayJobSubmitter"));
  EXPECT_THAT(eventReasons("rayjob-test"), Contains("DeletedRayCluster"));
}

}  // namespace
}  // namespace fakekube::ray::jobtest
