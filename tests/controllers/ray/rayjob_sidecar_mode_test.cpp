// SidecarMode end to end on virtual time: the submitter is a container of the head pod, its real
// script finds the dashboard on the pod's own 127.0.0.1 (the simulated network resolves a pod's
// loopback to its own listeners), submits, follows the logs, and its termination on the head
// pod's status is what the RayJob controller reads instead of a submitter Job's conditions.
// Each test names the case of KubeRay's e2e suite it mirrors
// (ray-operator/test/e2erayjob/rayjob_sidecar_mode_test.go, rayjob_retry_test.go).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "controllers/ray/constants.h"
#include "controllers/ray/rayjob_types.h"
#include "fakekube/api/resources.h"
#include "tests/controllers/ray/ray_fixture.h"

namespace fakekube::ray::testing {
namespace {

using ::testing::AnyOf;
using ::testing::Eq;
using ::testing::HasSubstr;

// The sidecar submits as soon as the head's dashboard answers, before the workers are ready; a
// job must outlast the cluster's way to `ready` (about 10 s here) or the RayJob never leaves
// Initializing (AJobThatEndsBeforeTheClusterIsReadyStaysInitializing).
constexpr seconds kJobDuration{30};

class RayJobSidecarModeTest : public RayJobTest {
 protected:
  Json sidecarJob(const std::string& name, const std::string& entrypoint,
                  bool shutdownAfterJobFinishes) {
    Json job = rayJobTemplate(name, entrypoint, 1);
    job["spec"]["submissionMode"] = std::string(kSidecarMode);
    job["spec"]["shutdownAfterJobFinishes"] = shutdownAfterJobFinishes;
    return job;
  }
  std::vector<Json> headPods(const std::string& clusterName) {
    return list(kPods, "ray.io/cluster=" + clusterName + ",ray.io/node-type=head");
  }
  // The submitter container's status in the head pod (null while there is none).
  Json submitterStatus(const std::string& clusterName) {
    for (const Json& head : headPods(clusterName)) {
      const Json& statuses = jsonAt(head, {"status", "containerStatuses"});
      if (!statuses.is_array()) continue;
      for (const Json& s : statuses) {
        if (s.value("name", "") == kSubmitterContainerName) return s;
      }
    }
    return nullptr;
  }
};

// "Successful RayJob": Complete / SUCCEEDED with no submitter Job; the sidecar ended with 0 and
// its submission carried the entrypoint's resources; shutdownAfterJobFinishes removes the
// RayCluster.
TEST_F(RayJobSidecarModeTest, SuccessfulRayJob) {
  entrypoints->onCommand("python /home/ray/jobs/counter.py", {.duration = kJobDuration});
  startOperator();
  Json job = sidecarJob("counter", "python /home/ray/jobs/counter.py", true);
  job["spec"]["entrypointNumCpus"] = 2;
  job["spec"]["entrypointNumGpus"] = 2;
  job["spec"]["entrypointResources"] = R"({"R1": 2})";
  job["spec"]["runtimeEnvYAML"] = "env_vars:\n  counter_name: test_counter\n";
  create(kRayJobs, job);

  ASSERT_TRUE(runUntilDeploymentStatus("counter", kJobDeploymentStatusRunning));
  const std::string clusterName = statusOf("counter", "rayClusterName");
  const std::string jobId = statusOf("counter", "jobId");
  // The sidecar's script reached the head on 127.0.0.1 and submitted under the RayJob's id.
  ASSERT_TRUE(runUntil([&] { return statusOf("counter", "jobStatus") == "RUNNING"; }));
  auto info = dashboardOf("counter").getJobInfo(jobId);
  ASSERT_TRUE(info.has_value()) << info.error().message;
  EXPECT_EQ(info->entrypoint, "python /home/ray/jobs/counter.py");
  EXPECT_EQ(info->runtimeEnv["env_vars"]["counter_name"], "test_counter");

  ASSERT_TRUE(runUntilDeploymentStatus("counter", kJobDeploymentStatusComplete));
  EXPECT_EQ(statusOf("counter", "jobStatus"), "SUCCEEDED");
  EXPECT_EQ(counterOf("counter", "succeeded"), 1);
  EXPECT_FALSE(exists(kJobs, "default", "counter"));
  // Torn down once Complete (ttlSecondsAfterFinished 0).
  ASSERT_TRUE(runUntil([&] { return !exists(kRayClusters, "default", clusterName); }, seconds(30)));
  EXPECT_TRUE(list(kJobs).empty());
}

// The sidecar's own record: it ran on the head pod, ended with 0 when the job SUCCEEDED, and the
// head pod was neither restarted nor replaced meanwhile (restartPolicy Never,
// ray.io/disable-provisioned-head-restart).
TEST_F(RayJobSidecarModeTest, TheSidecarTerminatesWithZeroOnTheHeadPod) {
  entrypoints->onCommand("python /home/ray/jobs/counter.py", {.duration = kJobDuration});
  startOperator();
  create(kRayJobs, sidecarJob("kept", "python /home/ray/jobs/counter.py", false));
  ASSERT_TRUE(runUntil([&] { return !statusOf("kept", "rayClusterName").empty(); }));
  const std::string clusterName = statusOf("kept", "rayClusterName");
  ASSERT_TRUE(runUntil([&] { return headPods(clusterName).size() == 1; }));
  const std::string headName = meta::name(headPods(clusterName)[0]);
  const Json rayCluster = get(kRayClusters, "default", clusterName);
  EXPECT_EQ(meta::annotation(rayCluster, kDisableProvisionedHeadRestartAnnotationKey), "true");
  const Json& podSpec = jsonAt(rayCluster, {"spec", "headGroupSpec", "template", "spec"});
  EXPECT_EQ(podSpec["restartPolicy"], "Never");
  ASSERT_EQ(podSpec["containers"].size(), 2u);
  EXPECT_EQ(podSpec["containers"][1]["name"], "ray-job-submitter");
  EXPECT_THAT(podSpec["containers"][1]["args"][0].get<std::string>(),
              HasSubstr("ray job submit --address http://127.0.0.1:8265"));

  ASSERT_TRUE(runUntilDeploymentStatus("kept", kJobDeploymentStatusComplete))
      << rayJob("kept")["status"].dump(1) << "\n"
      << headPods(clusterName)[0]["status"].dump(1);
  const Json submitter = submitterStatus(clusterName);
  ASSERT_TRUE(jsonAt(submitter, {"state", "terminated"}).is_object()) << submitter.dump();
  EXPECT_EQ(jsonAt(submitter, {"state", "terminated", "exitCode"}), 0);
  EXPECT_EQ(submitter.value("restartCount", -1), 0);
  // shutdownAfterJobFinishes false: the cluster and its original head stay.
  run(seconds(30));
  ASSERT_EQ(headPods(clusterName).size(), 1u);
  EXPECT_EQ(meta::name(headPods(clusterName)[0]), headName);
  EXPECT_EQ(deploymentStatus("kept"), kJobDeploymentStatusComplete);
}

// "Failing RayJob without cluster shutdown after finished": the Ray job FAILED, the sidecar
// exited 1 -> Failed / AppFailed; no submitter Job; the head pod has the submitter container;
// deleting the RayJob cascades to the RayCluster.
TEST_F(RayJobSidecarModeTest, FailingRayJobWithoutClusterShutdownAfterFinished) {
  entrypoints->onCommand("python /home/ray/jobs/fail.py",
                         {.duration = kJobDuration, .exitCode = 1});
  startOperator();
  create(kRayJobs, sidecarJob("fail", "python /home/ray/jobs/fail.py", false));
  ASSERT_TRUE(runUntil([&] { return isJobTerminal(statusOf("fail", "jobStatus")); }));
  EXPECT_EQ(statusOf("fail", "jobStatus"), "FAILED");
  ASSERT_TRUE(runUntilDeploymentStatus("fail", kJobDeploymentStatusFailed, seconds(30)));
  EXPECT_EQ(statusOf("fail", "reason"), "AppFailed");
  EXPECT_TRUE(list(kJobs).empty());
  const std::string clusterName = statusOf("fail", "rayClusterName");
  ASSERT_TRUE(exists(kRayClusters, "default", clusterName));
  const auto heads = headPods(clusterName);
  ASSERT_EQ(heads.size(), 1u);
  std::set<std::string> containers;
  for (const Json& c : jsonAt(heads[0], {"spec", "containers"})) containers.insert(c["name"]);
  EXPECT_TRUE(containers.contains(std::string(kSubmitterContainerName)));
  EXPECT_EQ(jsonAt(submitterStatus(clusterName), {"state", "terminated", "exitCode"}), 1);

  ASSERT_TRUE(client->deleteObject(kRayJobs, "default", "fail").has_value());
  ASSERT_TRUE(runUntil([&] { return !exists(kRayClusters, "default", clusterName); }, seconds(60)));
}

// "Should transition to 'Complete' if the Ray job has stopped": stopping the Ray job while the
// RayJob is Running ends the sidecar's `ray job submit` with 0 (it fails only for FAILED), and
// the RayJob is Complete with jobStatus STOPPED.
TEST_F(RayJobSidecarModeTest, CompleteWhenTheRayJobIsStopped) {
  entrypoints->onCommand("python /home/ray/jobs/stop.py", {.duration = seconds(600)});
  startOperator();
  create(kRayJobs, sidecarJob("stop", "python /home/ray/jobs/stop.py", false));
  ASSERT_TRUE(runUntilDeploymentStatus("stop", kJobDeploymentStatusRunning));
  ASSERT_TRUE(runUntil([&] { return statusOf("stop", "jobStatus") == "RUNNING"; }));
  ASSERT_TRUE(dashboardOf("stop").stopJob(statusOf("stop", "jobId")).has_value());
  ASSERT_TRUE(runUntilDeploymentStatus("stop", kJobDeploymentStatusComplete, seconds(60)));
  EXPECT_EQ(statusOf("stop", "jobStatus"), "STOPPED");
  EXPECT_EQ(jsonAt(submitterStatus(statusOf("stop", "rayClusterName")),
                   {"state", "terminated", "exitCode"}),
            0);
}

// "RayJob fails when head Pod is deleted when job is running": the head is not recreated (its
// provisioned head must not restart in SidecarMode) and the RayJob ends Failed.
TEST_F(RayJobSidecarModeTest, DeletingTheHeadPodWhileRunningFailsTheRayJob) {
  entrypoints->onCommand("time.sleep", {.duration = seconds(60)});
  startOperator();
  create(kRayJobs, sidecarJob("delete-head-after-submit-sidecar-mode",
                              "python -c \"import time; time.sleep(60)\"", true));
  const std::string name = "delete-head-after-submit-sidecar-mode";
  ASSERT_TRUE(runUntil([&] { return statusOf(name, "jobStatus") == "RUNNING"; }));
  const std::string clusterName = statusOf(name, "rayClusterName");
  const Json rayCluster = get(kRayClusters, "default", clusterName);
  EXPECT_EQ(meta::label(rayCluster, kRayJobSubmissionModeLabelKey), "SidecarMode");
  EXPECT_EQ(meta::annotation(rayCluster, kDisableProvisionedHeadRestartAnnotationKey), "true");
  const auto heads = headPods(clusterName);
  ASSERT_EQ(heads.size(), 1u);
  ASSERT_TRUE(client->deleteObject(kPods, "default", meta::name(heads[0])).has_value());

  ASSERT_TRUE(runUntil([&] { return headPods(clusterName).empty(); }, seconds(60)));
  ASSERT_TRUE(runUntilDeploymentStatus(name, kJobDeploymentStatusFailed, seconds(60)));
  EXPECT_THAT(statusOf(name, "reason"), AnyOf(Eq("AppFailed"), Eq("SubmissionFailed")));
  // Consistently: no new head while the RayCluster is there.
  for (int i = 0; i < 10 && exists(kRayClusters, "default", clusterName); ++i) {
    run(seconds(2));
    EXPECT_TRUE(headPods(clusterName).empty());
  }
}

// rayjob_retry_test.go "Failing RayJob with SidecarMode submission mode": backoffLimit 2 gives
// three attempts, each with a cluster of its own -> Failed / AppFailed with failed 3,
// succeeded 0.
TEST_F(RayJobSidecarModeTest, FailingRayJobRespectsTheBackoffLimit) {
  entrypoints->onCommand("python /home/ray/jobs/fail.py",
                         {.duration = kJobDuration, .exitCode = 1});
  startOperator();
  Json job = sidecarJob("failing-rayjob-in-sidecar-mode", "python /home/ray/jobs/fail.py", false);
  job["spec"]["backoffLimit"] = 2;
  create(kRayJobs, job);
  const std::string name = "failing-rayjob-in-sidecar-mode";
  std::set<std::string> clusters;
  ASSERT_TRUE(runUntil(
      [&] {
        const std::string c = statusOf(name, "rayClusterName");
        if (!c.empty()) clusters.insert(c);
        return deploymentStatus(name) == kJobDeploymentStatusFailed;
      },
      seconds(600)));
  EXPECT_EQ(statusOf(name, "jobStatus"), "FAILED");
  EXPECT_EQ(statusOf(name, "reason"), "AppFailed");
  EXPECT_EQ(counterOf(name, "failed"), 3);
  EXPECT_EQ(counterOf(name, "succeeded"), 0);
  EXPECT_EQ(clusters.size(), 3u);
  EXPECT_TRUE(list(kJobs).empty());
}

// As upstream: a RayCluster becomes `ready` only while every pod is Ready, and a head pod whose
// sidecar has terminated is not. A Ray job that ends before the workers are ready leaves the
// cluster never ready and the RayJob in Initializing; preRunningDeadlineSeconds ends it.
TEST_F(RayJobSidecarModeTest, AJobThatEndsBeforeTheClusterIsReadyStaysInitializing) {
  entrypoints->onCommand("python /app/quick.py", {.duration = seconds(1)});
  startOperator();
  Json job = sidecarJob("quick", "python /app/quick.py", false);
  job["spec"]["preRunningDeadlineSeconds"] = 60;
  create(kRayJobs, job);
  ASSERT_TRUE(runUntil([&] { return !statusOf("quick", "rayClusterName").empty(); }));
  const std::string clusterName = statusOf("quick", "rayClusterName");
  ASSERT_TRUE(runUntil(
      [&] {
        return jsonAt(submitterStatus(clusterName), {"state", "terminated"}).is_object();
      },
      seconds(30)));
  EXPECT_EQ(jsonAt(submitterStatus(clusterName), {"state", "terminated", "exitCode"}), 0);
  EXPECT_EQ(deploymentStatus("quick"), kJobDeploymentStatusInitializing);
  ASSERT_TRUE(runUntilDeploymentStatus("quick", kJobDeploymentStatusFailed, seconds(90)));
  EXPECT_EQ(statusOf("quick", "reason"), kPreRunningDeadlineExceeded);
  EXPECT_NE(stringOr(jsonAt(get(kRayClusters, "default", clusterName), {"status", "state"})),
            "ready");
}

}  // namespace
}  // namespace fakekube::ray::testing
