// The demo-job story: demo-job from apply to cleanup, every component real (API server, scheduler,
// kubelets running the simulated Ray head, workers and the submitter's script, the Job
// controller, the garbage collector, both KubeRay controllers), on virtual time. And restart
// recovery: the operator restarted at each stage resumes from what it stored.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "controllers/ray/constants.h"
#include "controllers/ray/rayjob_types.h"
#include "fakekube/api/conditions.h"
#include "fakekube/api/resources.h"
#include "tests/controllers/ray/ray_fixture.h"

namespace fakekube::ray::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// default/demo-job: entrypoint `python /app/main.py`, K8sJobMode, shutdownAfterJobFinishes,
// ttlSecondsAfterFinished 60, a head and worker group `compute` x2.
Json demoJob() {
  Json job = rayJobTemplate("demo-job", "python /app/main.py", 2, "compute");
  job["spec"]["submissionMode"] = "K8sJobMode";
  job["spec"]["ttlSecondsAfterFinished"] = 60;
  return job;
}

class DemoJobStoryTest : public RayJobTest {
 protected:
  // A Ray job of 20 s: the operator crashes once it is RUNNING, and stays down until the
  // submitter Job is Complete.
  void crashWhileRunningUntilTheSubmitterCompletes() {
    entrypoints->onCommand("python /app/main.py", {.duration = seconds(20)});
    startOperator();
    create(kRayJobs, demoJob());
    ASSERT_TRUE(runUntil([&] { return statusOf("demo-job", "jobStatus") == "RUNNING"; }));
    crashOperator();
    ASSERT_TRUE(
        runUntil([&] { return isConditionTrue(get(kJobs, "default", "demo-job"), "Complete"); },
                 seconds(60)));
  }

  // Records each milestone the first time it holds, with the virtual time it was seen at.
  void observe() {
    auto seen = [&](const std::string& what, bool holds) {
      if (holds && !at.contains(what)) {
        at[what] = ex.clock().now();
        order.push_back(what);
      }
    };
    const Json job = rayJob("demo-job");
    const std::string deployment = stringOr(jsonAt(job, {"status", "jobDeploymentStatus"}));
    const std::string clusterName = stringOr(jsonAt(job, {"status", "rayClusterName"}));
    seen("Initializing", deployment == kJobDeploymentStatusInitializing);
    if (!clusterName.empty()) {
      const Json rayCluster = get(kRayClusters, "default", clusterName);
      seen("RayCluster created", !rayCluster.is_null());
      seen("RayCluster ready", stringOr(jsonAt(rayCluster, {"status", "state"})) == "ready");
      seen("RayCluster deleted", at.contains("RayCluster created") && rayCluster.is_null());
    }
    const Json submitter = get(kJobs, "default", "demo-job");
    seen("submitter Job created", !submitter.is_null());
    seen("Running", deployment == kJobDeploymentStatusRunning);
    const std::string url = stringOr(jsonAt(job, {"status", "dashboardURL"}));
    if (!url.empty() && !at.contains("Ray job SUCCEEDED") && !at.contains("RayCluster deleted")) {
      DashboardClient dashboard(networkTransport(cluster->network(), url));
      auto info = dashboard.getJobInfo(stringOr(jsonAt(job, {"status", "jobId"})));
      seen("Ray job SUCCEEDED", info && info->jobStatus == "SUCCEEDED");
    }
    seen("submitter Job complete", isConditionTrue(submitter, "Complete"));
    seen("Complete", deployment == kJobDeploymentStatusComplete &&
                         !stringOr(jsonAt(job, {"status", "endTime"})).empty());
  }

  std::map<std::string, TimePoint> at;
  std::vector<std::string> order;
};

TEST_F(DemoJobStoryTest, DemoJobFromApplyToCleanup) {
  startOperator();
  create(kRayJobs, demoJob());
  ASSERT_TRUE(runUntil(
      [&] {
        observe();
        return at.contains("RayCluster deleted");
      },
      seconds(300)));
  EXPECT_THAT(order, ElementsAre("Initializing", "RayCluster created", "RayCluster ready",
                                 "submitter Job created", "Running", "Ray job SUCCEEDED",
                                 "submitter Job complete", "Complete", "RayCluster deleted"));

  const Json job = rayJob("demo-job");
  const std::string jobId = stringOr(jsonAt(job, {"status", "jobId"}));
  const std::string clusterName = stringOr(jsonAt(job, {"status", "rayClusterName"}));
  EXPECT_THAT(jobId, StartsWith("demo-job-"));
  EXPECT_THAT(clusterName, StartsWith("demo-job-"));
  EXPECT_NE(jobId, clusterName);  // independent suffixes
  EXPECT_TRUE(meta::hasFinalizer(job, kRayJobStopJobFinalizer));
  EXPECT_EQ(stringOr(jsonAt(job, {"status", "jobStatus"})), "SUCCEEDED");

  // The RayCluster went 60 s after endTime (the next reconcile after the deadline).
  TimePoint endTime;
  ASSERT_TRUE(parseRfc3339(stringOr(jsonAt(job, {"status", "endTime"})), &endTime));
  EXPECT_GE(at["RayCluster deleted"], endTime + seconds(60));
  EXPECT_LE(at["RayCluster deleted"], endTime + seconds(63));

  // The submitter Job (owned by the RayJob) ran KubeRay's script with the job's submission id.
  const Json submitter = get(kJobs, "default", "demo-job");
  ASSERT_TRUE(meta::controllerOf(submitter).has_value());
  EXPECT_EQ(meta::controllerOf(submitter)->name, "demo-job");
  EXPECT_EQ(meta::controllerOf(submitter)->kind, "RayJob");
  const Json& container = jsonAt(submitter, {"spec", "template", "spec", "containers"})[0];
  EXPECT_EQ(container["command"], Json::array({"/bin/bash", "-ce", "--"}));
  const std::string args = container["args"][0].get<std::string>();
  EXPECT_THAT(args, HasSubstr("ray job submit --address http://" + clusterName +
                              "-head-svc.default.svc.cluster.local:8265 --no-wait"));
  EXPECT_THAT(args, HasSubstr("--submission-id " + jobId + " -- python /app/main.py ; fi"));
  EXPECT_EQ(jsonAt(submitter, {"spec", "backoffLimit"}), 2);

  // The GC removed the cluster's pods and head Service; the RayJob and its Job remain.
  ASSERT_TRUE(runUntil(
      [&] {
        return list(kPods, "ray.io/cluster=" + clusterName).empty() &&
               !exists(kServices, "default", clusterName + "-head-svc");
      },
      seconds(60)));
  EXPECT_TRUE(exists(kRayJobs, "default", "demo-job"));
  EXPECT_TRUE(exists(kJobs, "default", "demo-job"));
  EXPECT_EQ(deploymentStatus("demo-job"), kJobDeploymentStatusComplete);
}

// What the RayCluster controller built for demo-job: the head Service, one head pod, two
// `compute` workers, all owned by the RayCluster, which the RayJob owns.
TEST_F(DemoJobStoryTest, DemoJobsClusterIsOwnedAllTheWayDown) {
  startOperator();
  create(kRayJobs, demoJob());
  ASSERT_TRUE(runUntilDeploymentStatus("demo-job", kJobDeploymentStatusRunning));
  // reconcileServices runs in the Running rounds.
  ASSERT_TRUE(
      runUntil([&] { return exists(kServices, "default", "demo-job-head-svc"); }, seconds(10)));
  const std::string clusterName = statusOf("demo-job", "rayClusterName");
  const Json rayCluster = get(kRayClusters, "default", clusterName);
  EXPECT_EQ(meta::controllerOf(rayCluster)->name, "demo-job");
  const Json service = get(kServices, "default", clusterName + "-head-svc");
  ASSERT_FALSE(service.is_null());
  EXPECT_EQ(meta::controllerOf(service)->name, clusterName);
  auto heads = list(kPods, "ray.io/cluster=" + clusterName + ",ray.io/node-type=head");
  auto workers = list(kPods, "ray.io/cluster=" + clusterName + ",ray.io/group=compute");
  ASSERT_EQ(heads.size(), 1u);
  ASSERT_EQ(workers.size(), 2u);
  for (const Json& pod : heads) EXPECT_EQ(meta::controllerOf(pod)->name, clusterName);
  for (const Json& pod : workers) EXPECT_EQ(meta::controllerOf(pod)->name, clusterName);
  // KubeRay's RayJob head Service beside it, owned by the RayJob.
  const Json jobService = get(kServices, "default", "demo-job-head-svc");
  ASSERT_FALSE(jobService.is_null());
  EXPECT_EQ(meta::controllerOf(jobService)->name, "demo-job");
  EXPECT_EQ(jsonAt(jobService, {"spec", "selector", "ray.io/cluster"}), clusterName);
}

// Restart recovery: restarted while Initializing (the names are stored): the same jobId and cluster
// name, one RayCluster, no duplicate.
TEST_F(DemoJobStoryTest, RestartWhileInitializingReusesTheNames) {
  startOperator();
  create(kRayJobs, demoJob());
  ASSERT_TRUE(runUntil([&] { return list(kRayClusters).size() == 1; }));
  const std::string jobId = statusOf("demo-job", "jobId");
  const std::string clusterName = statusOf("demo-job", "rayClusterName");
  restartOperator();
  ASSERT_TRUE(runUntilDeploymentStatus("demo-job", kJobDeploymentStatusComplete));
  EXPECT_EQ(statusOf("demo-job", "jobId"), jobId);
  EXPECT_EQ(statusOf("demo-job", "rayClusterName"), clusterName);
  EXPECT_EQ(list(kRayClusters).size(), 1u);
}

// Restart recovery: the Ray job finished while the operator was down: the new operator records
// Complete from the submitter Job and the dashboard.
TEST_F(DemoJobStoryTest, JobFinishedWhileTheOperatorWasDown) {
  ASSERT_NO_FATAL_FAILURE(crashWhileRunningUntilTheSubmitterCompletes());
  run(seconds(10));
  EXPECT_EQ(deploymentStatus("demo-job"), kJobDeploymentStatusRunning);
  startOperator(operatorOptions);
  ASSERT_TRUE(runUntilDeploymentStatus("demo-job", kJobDeploymentStatusComplete, seconds(10)));
  EXPECT_EQ(statusOf("demo-job", "jobStatus"), "SUCCEEDED");
  EXPECT_EQ(counterOf("demo-job", "succeeded"), 1);
}

// The same with the operator down for more than DefaultSubmitterFinishedTimeout (30 s) after the
// submitter finished: as upstream, checkSubmitterFinishedTimeout runs before the dashboard is
// asked, so the RayJob is Failed/JobDeploymentStatusTransitionGracePeriodExceeded although the Ray
// job succeeded.
TEST_F(DemoJobStoryTest, OperatorDownPastTheSubmitterFinishedTimeout) {
  ASSERT_NO_FATAL_FAILURE(crashWhileRunningUntilTheSubmitterCompletes());
  run(seconds(31));
  startOperator(operatorOptions);
  ASSERT_TRUE(runUntilDeploymentStatus("demo-job", kJobDeploymentStatusFailed, seconds(10)));
  EXPECT_EQ(statusOf("demo-job", "reason"), "JobDeploymentStatusTransitionGracePeriodExceeded");
  EXPECT_EQ(statusOf("demo-job", "jobStatus"), "FAILED");
  EXPECT_THAT(statusOf("demo-job", "message"),
              HasSubstr("but the ray job did not reach terminal state within 30s"));
}

// Restart recovery: Complete with endTime stored, the operator crashes 20 s into the 60 s TTL: the
// cluster is deleted at endTime + 60 s, not restart + 60 s.
TEST_F(DemoJobStoryTest, RestartDuringTheTtlKeepsTheDeadline) {
  startOperator();
  create(kRayJobs, demoJob());
  ASSERT_TRUE(runUntilDeploymentStatus("demo-job", kJobDeploymentStatusComplete));
  const std::string clusterName = statusOf("demo-job", "rayClusterName");
  TimePoint endTime;
  ASSERT_TRUE(parseRfc3339(statusOf("demo-job", "endTime"), &endTime));
  run(endTime + seconds(20) - ex.clock().now());
  restartOperator();
  ASSERT_TRUE(
      runUntil([&] { return !exists(kRayClusters, "default", clusterName); }, seconds(120)));
  EXPECT_GE(ex.clock().now(), endTime + seconds(60));
  EXPECT_LE(ex.clock().now(), endTime + seconds(63));
}

}  // namespace
}  // namespace fakekube::ray::testing
