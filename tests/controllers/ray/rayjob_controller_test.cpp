// The RayJob controller against a real cluster on virtual time. Each test names the case of
// KubeRay's suites it mirrors (ray-operator/controllers/ray/rayjob_controller_test.go and
// rayjob_controller_unit_test.go, suite "RayJob controller").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "controllers/ray/constants.h"
#include "controllers/ray/rayjob_types.h"
#include "fakekube/api/resources.h"
#include "tests/controllers/ray/ray_fixture.h"

namespace fakekube::ray::testing {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
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

  ASSERT_TRUE(runUntil([&] { return exists(kRayClusters, "default", clusterName); }));
  Json rayCluster = get(kRayClusters, "default", clusterName);
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
  EXPECT_FALSE(exists(kJobs, "default", "rayjob-test"));

  ASSERT_TRUE(runUntilDeploymentStatus("rayjob-test", kJobDeploymentStatusRunning));
  EXPECT_EQ(statusOf("rayjob-test", "dashboardURL"),
            clusterName + "-head-svc.default.svc.cluster.local:8265");
  ASSERT_TRUE(exists(kJobs, "default", "rayjob-test"));
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
  ASSERT_TRUE(runUntil([&] { return !exists(kRayClusters, "default", clusterName); }, seconds(30)));
  run(seconds(10));
  EXPECT_TRUE(exists(kJobs, "default", "rayjob-test"));
  EXPECT_TRUE(exists(kRayJobs, "default", "rayjob-test"));
  EXPECT_THAT(eventReasons("rayjob-test"), Contains("CreatedRayCluster"));
  EXPECT_THAT(eventReasons("rayjob-test"), Contains("CreatedRayJobSubmitter"));
  EXPECT_THAT(eventReasons("rayjob-test"), Contains("DeletedRayCluster"));
}

// rayjob_controller_test.go "RayJob with a 47-character name" / "48-character name": the longest
// accepted name creates a cluster; one more character is ValidationFailed with a Warning Event.
TEST_F(RayJobTest, NameLengthValidation) {
  startOperator();
  const std::string ok(47, 'a');
  const std::string tooLong(48, 'a');
  create(kRayJobs, rayJobTemplate(ok));
  create(kRayJobs, rayJobTemplate(tooLong));
  ASSERT_TRUE(runUntilDeploymentStatus(tooLong, kJobDeploymentStatusValidationFailed, seconds(10)));
  EXPECT_EQ(statusOf(tooLong, "reason"), "ValidationFailed");
  EXPECT_EQ(statusOf(tooLong, "message"),
            "The RayJob metadata is invalid: RayJob name should be no more than 47 characters");
  EXPECT_THAT(eventReasons(tooLong), Contains("InvalidRayJobMetadata"));
  ASSERT_TRUE(runUntilDeploymentStatus(ok, kJobDeploymentStatusInitializing, seconds(10)));
  ASSERT_TRUE(
      runUntil([&] { return exists(kRayClusters, "default", statusOf(ok, "rayClusterName")); }));
  EXPECT_TRUE(list(kRayClusters, "ray.io/originated-from-cr-name=" + tooLong).empty());
}

// rayjob_controller_unit_test.go "TestValidateRayJobSpec" through the controller: an invalid spec
// (suspend without shutdownAfterJobFinishes) fails validation and is not requeued into work.
TEST_F(RayJobTest, InvalidSpecIsValidationFailed) {
  startOperator();
  Json job = rayJobTemplate("bad-spec");
  job["spec"]["shutdownAfterJobFinishes"] = false;
  job["spec"]["suspend"] = true;
  create(kRayJobs, job);
  ASSERT_TRUE(
      runUntilDeploymentStatus("bad-spec", kJobDeploymentStatusValidationFailed, seconds(10)));
  EXPECT_THAT(statusOf("bad-spec", "message"), HasSubstr("not allowed to be suspended"));
  EXPECT_THAT(eventReasons("bad-spec"), Contains("InvalidRayJobSpec"));
  run(seconds(30));
  EXPECT_TRUE(list(kRayClusters).empty());
}

// rayjob_controller_test.go "RayJob with an invalid submitter pod template": a template without
// containers is a FailedToCreateRayJobSubmitter Warning, and the RayJob stays Initializing.
TEST_F(RayJobTest, InvalidSubmitterTemplateIsAnEvent) {
  startOperator();
  Json job = rayJobTemplate("bad-submitter", "sleep 999", 1);
  job["spec"]["submitterPodTemplate"] = {
      {"spec", {{"restartPolicy", "Never"}, {"containers", Json::array()}}}};
  create(kRayJobs, job);
  ASSERT_TRUE(runUntil([&] {
    auto reasons = eventReasons("bad-submitter");
    return std::find(reasons.begin(), reasons.end(), "FailedToCreateRayJobSubmitter") !=
           reasons.end();
  }));
  EXPECT_EQ(deploymentStatus("bad-submitter"), kJobDeploymentStatusInitializing);
  EXPECT_FALSE(exists(kJobs, "default", "bad-submitter"));
}

// rayjob_controller_test.go "DELETE_RAYJOB_CR_AFTER_JOB_FINISHES": the TTL deletes the RayJob
// itself (the garbage collector then takes its cluster and Job).
TEST_F(RayJobTest, DeleteRayJobAfterJobFinishes) {
  entrypoints->onCommand("sleep 999", {.duration = seconds(5)});
  OperatorOptions options;
  options.deleteRayJobAfterJobFinishes = true;
  startOperator(options);
  create(kRayJobs, rayJobTemplate("self-delete", "sleep 999", 1));
  ASSERT_TRUE(runUntilDeploymentStatus("self-delete", kJobDeploymentStatusComplete));
  const std::string clusterName = statusOf("self-delete", "rayClusterName");
  ASSERT_TRUE(runUntil([&] { return !exists(kRayJobs, "default", "self-delete"); }, seconds(30)));
  ASSERT_TRUE(runUntilClusterAndSubmitterDeleted(clusterName, "self-delete"));
}

// rayjob_controller_test.go "RayJob has passed the activeDeadlineSeconds": 3 s while the
// cluster is still initializing -> Failed/DeadlineExceeded, not retried.
TEST_F(RayJobTest, ActiveDeadlineWhileInitializing) {
  startOperator();
  Json job = rayJobTemplate("deadline");
  job["spec"]["activeDeadlineSeconds"] = 3;
  job["spec"]["backoffLimit"] = 2;
  create(kRayJobs, job);
  ASSERT_TRUE(runUntilDeploymentStatus("deadline", kJobDeploymentStatusFailed, seconds(20)));
  EXPECT_EQ(statusOf("deadline", "reason"), "DeadlineExceeded");
  EXPECT_THAT(statusOf("deadline", "message"),
              HasSubstr("The RayJob has passed the activeDeadlineSeconds. StartTime: 2024-01-01 "
                        "00:00:00 +0000 UTC. ActiveDeadlineSeconds: 3"));
  EXPECT_EQ(counterOf("deadline", "failed"), 1);
  run(seconds(30));
  EXPECT_EQ(deploymentStatus("deadline"), kJobDeploymentStatusFailed);
}

// rayjob_controller_unit_test.go "TestPreRunningDeadlineSeconds": the cluster not ready within
// preRunningDeadlineSeconds -> Failed/PreRunningDeadlineExceeded.
TEST_F(RayJobTest, PreRunningDeadline) {
  startOperator();
  Json job = rayJobTemplate("pre-deadline");
  job["spec"]["preRunningDeadlineSeconds"] = 2;
  create(kRayJobs, job);
  ASSERT_TRUE(runUntilDeploymentStatus("pre-deadline", kJobDeploymentStatusFailed, seconds(20)));
  EXPECT_EQ(statusOf("pre-deadline", "reason"), "PreRunningDeadlineExceeded");
}

// rayjob_controller_test.go "RayJob with backoffLimit 1": the first attempt FAILED -> Retrying;
// the old cluster and submitter Job are deleted; New with fresh names -> a second attempt that
// succeeds -> Complete with succeeded 1, failed 1.
TEST_F(RayJobTest, RetryAfterFailureWithBackoffLimit) {
  entrypoints->onCommand("python /app/train.py", {.duration = seconds(5), .exitCode = 1});
  startOperator();
  Json job = rayJobTemplate("retry", "python /app/train.py", 1);
  job["spec"]["backoffLimit"] = 1;
  job["spec"]["submitterConfig"] = {{"backoffLimit", 0}};
  create(kRayJobs, job);
  ASSERT_TRUE(runUntilDeploymentStatus("retry", kJobDeploymentStatusRunning));
  const std::string firstCluster = statusOf("retry", "rayClusterName");
  const std::string firstJobId = statusOf("retry", "jobId");
  ASSERT_TRUE(runUntilDeploymentStatus("retry", kJobDeploymentStatusRetrying));
  EXPECT_EQ(counterOf("retry", "failed"), 1);
  EXPECT_EQ(statusOf("retry", "jobStatus"), "FAILED");
  // The second attempt succeeds.
  entrypoints->onCommand("python /app/train.py", {.duration = seconds(5), .exitCode = 0});
  ASSERT_TRUE(
      runUntil([&] { return !exists(kRayClusters, "default", firstCluster); }, seconds(60)));
  ASSERT_TRUE(runUntilDeploymentStatus("retry", kJobDeploymentStatusInitializing));
  EXPECT_NE(statusOf("retry", "rayClusterName"), firstCluster);
  EXPECT_NE(statusOf("retry", "jobId"), firstJobId);
  ASSERT_TRUE(runUntilDeploymentStatus("retry", kJobDeploymentStatusComplete));
  EXPECT_EQ(statusOf("retry", "jobStatus"), "SUCCEEDED");
  EXPECT_EQ(counterOf("retry", "succeeded"), 1);
  EXPECT_EQ(counterOf("retry", "failed"), 1);
}

// rayjob_controller_test.go "RayJob in InteractiveMode": Initializing -> Waiting (no jobId,
// no submitter); the user sets spec.jobId -> Running with status.jobId.
TEST_F(RayJobTest, InteractiveModeWaitsForTheJobId) {
  startOperator();
  Json job = rayJobTemplate("interactive", "sleep 999", 1);
  job["spec"]["submissionMode"] = "InteractiveMode";
  create(kRayJobs, job);
  ASSERT_TRUE(runUntilDeploymentStatus("interactive", kJobDeploymentStatusWaiting));
  EXPECT_EQ(statusOf("interactive", "jobId"), "");
  run(seconds(10));
  EXPECT_EQ(deploymentStatus("interactive"), kJobDeploymentStatusWaiting);
  EXPECT_FALSE(exists(kJobs, "default", "interactive"));
  updateSpec("interactive", [](Json& spec) { spec["jobId"] = "my-interactive-job"; });
  ASSERT_TRUE(runUntilDeploymentStatus("interactive", kJobDeploymentStatusRunning, seconds(10)));
  EXPECT_EQ(statusOf("interactive", "jobId"), "my-interactive-job");
}

// rayjob_controller_unit_test.go "TestJobStatusCheckTimeout": GetJobInfo failing starts
// jobStatusCheckFailureStartTime (persisted); past RAYJOB_STATUS_CHECK_TIMEOUT_SECONDS ->
// Failed/JobStatusCheckTimeoutExceeded, not retried.
TEST_F(RayJobTest, JobStatusCheckTimeout) {
  OperatorOptions options;
  options.rayJobStatusCheckTimeout = seconds(60);
  startOperator(options);
  Json job = rayJobTemplate("check-timeout", "sleep 999", 1);
  job["spec"]["backoffLimit"] = 3;
  create(kRayJobs, job);
  ASSERT_TRUE(runUntilDeploymentStatus("check-timeout", kJobDeploymentStatusRunning));
  dashboardDown = true;
  ASSERT_TRUE(
      runUntil([&] { return !statusOf("check-timeout", "jobStatusCheckFailureStartTime").empty(); },
               seconds(10)));
  const std::string since = statusOf("check-timeout", "jobStatusCheckFailureStartTime");
  run(seconds(30));
  EXPECT_EQ(statusOf("check-timeout", "jobStatusCheckFailureStartTime"), since);
  EXPECT_EQ(deploymentStatus("check-timeout"), kJobDeploymentStatusRunning);
  ASSERT_TRUE(runUntilDeploymentStatus("check-timeout", kJobDeploymentStatusFailed, seconds(60)));
  EXPECT_EQ(statusOf("check-timeout", "reason"), "JobStatusCheckTimeoutExceeded");
  EXPECT_THAT(statusOf("check-timeout", "message"), HasSubstr("exceeded timeout of 60s"));
  run(seconds(10));
  EXPECT_EQ(deploymentStatus("check-timeout"), kJobDeploymentStatusFailed);  // no retry
}

// rayjob_controller_unit_test.go "TestHTTPModeJobNotFound": the dashboard unreachable starts the
// timer; once it answers, the 404 makes the controller submit, which clears the timer; the job
// then runs to Complete without any submitter Job.
TEST_F(RayJobTest, HttpModeSubmitsAndClearsTheFailureTimer) {
  entrypoints->onCommand("sleep 999", {.duration = seconds(5)});
  startOperator();
  Json job = rayJobTemplate("http-mode", "sleep 999", 1);
  job["spec"]["submissionMode"] = "HTTPMode";
  dashboardDown = true;
  create(kRayJobs, job);
  ASSERT_TRUE(runUntilDeploymentStatus("http-mode", kJobDeploymentStatusRunning));
  ASSERT_TRUE(
      runUntil([&] { return !statusOf("http-mode", "jobStatusCheckFailureStartTime").empty(); },
               seconds(10)));
  dashboardDown = false;
  ASSERT_TRUE(
      runUntil([&] { return statusOf("http-mode", "jobStatusCheckFailureStartTime").empty(); },
               seconds(10)));
  ASSERT_TRUE(runUntilDeploymentStatus("http-mode", kJobDeploymentStatusComplete, seconds(60)));
  EXPECT_EQ(statusOf("http-mode", "jobStatus"), "SUCCEEDED");
  EXPECT_FALSE(exists(kJobs, "default", "http-mode"));
}

// rayjob_controller_test.go "RayJob created suspended": Suspended with no cluster; resumed ->
// a cluster, and the submitter Job only once the cluster is ready.
TEST_F(RayJobTest, CreatedSuspendedThenResumed) {
  startOperator();
  Json job = rayJobTemplate("suspended", "sleep 999", 1);
  job["spec"]["suspend"] = true;
  create(kRayJobs, job);
  ASSERT_TRUE(runUntilDeploymentStatus("suspended", kJobDeploymentStatusSuspended, seconds(30)));
  run(seconds(10));
  EXPECT_TRUE(list(kRayClusters).empty());
  EXPECT_FALSE(exists(kJobs, "default", "suspended"));
  EXPECT_EQ(statusOf("suspended", "rayClusterName"), "");

  updateSpec("suspended", [](Json& spec) { spec["suspend"] = false; });
  ASSERT_TRUE(runUntil([&] { return list(kRayClusters).size() == 1; }, seconds(30)));
  EXPECT_FALSE(exists(kJobs, "default", "suspended"));
  const std::string clusterName = statusOf("suspended", "rayClusterName");
  ASSERT_TRUE(runUntil([&] { return exists(kJobs, "default", "suspended"); }, seconds(60)));
  EXPECT_EQ(stringOr(jsonAt(get(kRayClusters, "default", clusterName), {"status", "state"})),
            "ready");
}

// rayjob_controller_test.go "Suspend is atomic": suspending a Running RayJob whose RayCluster
// carries a finalizer stays Suspending (the cluster is only terminating) even when suspend is
// flipped back; once the finalizer goes -> Suspended, then New again.
TEST_F(RayJobTest, SuspendIsAtomic) {
  startOperator();
  create(kRayJobs, rayJobTemplate("atomic", "sleep 999", 1));
  ASSERT_TRUE(runUntilDeploymentStatus("atomic", kJobDeploymentStatusRunning));
  const std::string clusterName = statusOf("atomic", "rayClusterName");
  Json rayCluster = get(kRayClusters, "default", clusterName);
  meta::addFinalizer(rayCluster, "ray.io/test-hold");
  ASSERT_TRUE(client->update(kRayClusters, rayCluster).has_value());

  updateSpec("atomic", [](Json& spec) { spec["suspend"] = true; });
  ASSERT_TRUE(runUntilDeploymentStatus("atomic", kJobDeploymentStatusSuspending, seconds(10)));
  updateSpec("atomic", [](Json& spec) { spec["suspend"] = false; });
  run(seconds(30));
  EXPECT_EQ(deploymentStatus("atomic"), kJobDeploymentStatusSuspending);
  EXPECT_TRUE(meta::isDeleting(get(kRayClusters, "default", clusterName)));

  rayCluster = get(kRayClusters, "default", clusterName);
  meta::removeFinalizer(rayCluster, "ray.io/test-hold");
  ASSERT_TRUE(client->update(kRayClusters, rayCluster).has_value());
  // Suspended, and since suspend is false again, straight on to a new attempt.
  ASSERT_TRUE(runUntil(
      [&] {
        const std::string s = deploymentStatus("atomic");
        return s == kJobDeploymentStatusSuspended || s == kJobDeploymentStatusInitializing;
      },
      seconds(30)));
  ASSERT_TRUE(runUntilDeploymentStatus("atomic", kJobDeploymentStatusInitializing, seconds(30)));
  EXPECT_NE(statusOf("atomic", "rayClusterName"), clusterName);
}

// A submitter pod template whose container runs `script` with bash instead of submitting.
Json submitterRunning(const std::string& script) {
  return {{"spec",
           {{"restartPolicy", "Never"},
            {"containers", Json::array({{{"name", "ray-job-submitter"},
                                         {"image", "rayproject/ray:2.46.0"},
                                         {"command", Json::array({"/bin/bash", "-c", "--"})},
                                         {"args", Json::array({script})}}})}}}};
}

// rayjob_controller_test.go "Failing submitter Job": the submitter fails before submitting ->
// Failed, jobStatus "", reason SubmissionFailed with the Job's condition.
TEST_F(RayJobTest, FailingSubmitterIsSubmissionFailed) {
  startOperator();
  Json job = rayJobTemplate("submit-fails", "sleep 999", 1);
  job["spec"]["submitterConfig"] = {{"backoffLimit", 0}};
  job["spec"]["submitterPodTemplate"] = submitterRunning("exit 1");
  create(kRayJobs, job);
  ASSERT_TRUE(runUntilDeploymentStatus("submit-fails", kJobDeploymentStatusFailed));
  EXPECT_EQ(statusOf("submit-fails", "reason"), "SubmissionFailed");
  EXPECT_EQ(statusOf("submit-fails", "jobStatus"), "");
  EXPECT_THAT(statusOf("submit-fails", "message"),
              StartsWith("Job submission has failed. Reason: BackoffLimitExceeded."));
}

// rayjob_controller_unit_test.go "Submitter completed but Ray job not found": a submitter that
// exits 0 without submitting -> Failed/AppFailed.
TEST_F(RayJobTest, SubmitterFinishedWithoutRayJobIsAppFailed) {
  startOperator();
  Json job = rayJobTemplate("no-ray-job", "sleep 999", 1);
  job["spec"]["submitterPodTemplate"] = submitterRunning("true");
  create(kRayJobs, job);
  ASSERT_TRUE(runUntilDeploymentStatus("no-ray-job", kJobDeploymentStatusFailed));
  EXPECT_EQ(statusOf("no-ray-job", "reason"), "AppFailed");
  EXPECT_EQ(statusOf("no-ray-job", "message"),
            "Submitter completed but Ray job not found in RayCluster.");
}

// rayjob_controller_test.go "Ray job STOPPED": a stopped Ray job is terminal -> Complete
// (HTTPMode, so no submitter decides).
TEST_F(RayJobTest, StoppedRayJobIsComplete) {
  startOperator();
  Json job = rayJobTemplate("stopped", "sleep 999", 1);
  job["spec"]["submissionMode"] = "HTTPMode";
  create(kRayJobs, job);
  ASSERT_TRUE(runUntil([&] { return statusOf("stopped", "jobStatus") == "RUNNING"; }));
  ASSERT_TRUE(dashboardOf("stopped").stopJob(statusOf("stopped", "jobId")).has_value());
  ASSERT_TRUE(runUntilDeploymentStatus("stopped", kJobDeploymentStatusComplete, seconds(10)));
  EXPECT_EQ(statusOf("stopped", "jobStatus"), "STOPPED");
  EXPECT_EQ(counterOf("stopped", "succeeded"), 0);
}

// rayjob_controller_test.go "Head pod deleted while running": the RayCluster controller
// recreates it; the RayJob keeps its cluster.
TEST_F(RayJobTest, HeadPodDeletedWhileRunningIsRecreated) {
  startOperator();
  create(kRayJobs, rayJobTemplate("head-loss", "sleep 999", 1));
  ASSERT_TRUE(runUntilDeploymentStatus("head-loss", kJobDeploymentStatusRunning));
  const std::string clusterName = statusOf("head-loss", "rayClusterName");
  auto heads = list(kPods, "ray.io/cluster=" + clusterName + ",ray.io/node-type=head");
  ASSERT_EQ(heads.size(), 1u);
  const std::string oldHead = meta::name(heads[0]);
  ASSERT_TRUE(client->deleteObject(kPods, "default", oldHead).has_value());
  ASSERT_TRUE(runUntil(
      [&] {
        auto now = list(kPods, "ray.io/cluster=" + clusterName + ",ray.io/node-type=head");
        return now.size() == 1 && meta::name(now[0]) != oldHead;
      },
      seconds(60)));
  EXPECT_EQ(statusOf("head-loss", "rayClusterName"), clusterName);
}

// rayjob_controller_test.go "Delete a running RayJob": the finalizer stops the Ray job, goes,
// and the garbage collector removes the RayCluster and the submitter Job.
TEST_F(RayJobTest, DeletingARunningRayJobStopsTheRayJob) {
  startOperator();
  create(kRayJobs, rayJobTemplate("to-delete", "sleep 999", 1));
  ASSERT_TRUE(runUntil([&] { return statusOf("to-delete", "jobStatus") == "RUNNING"; }));
  const std::string clusterName = statusOf("to-delete", "rayClusterName");
  const std::string jobId = statusOf("to-delete", "jobId");
  DashboardClient dashboard = dashboardOf("to-delete");
  ASSERT_TRUE(client->deleteObject(kRayJobs, "default", "to-delete").has_value());
  ASSERT_TRUE(runUntil([&] { return !exists(kRayJobs, "default", "to-delete"); }, seconds(10)));
  // The finalizer's StopJob ran before the finalizer went (the head still answers).
  auto info = dashboard.getJobInfo(jobId);
  ASSERT_TRUE(info.has_value()) << info.error().message;
  EXPECT_EQ(info->jobStatus, "STOPPED");
  EXPECT_THAT(eventReasons("to-delete"), Not(Contains("DeletedRayCluster")));
  ASSERT_TRUE(runUntilClusterAndSubmitterDeleted(clusterName, "to-delete"));
}

// rayjob_controller_unit_test.go "TestDeletionRules": DeleteWorkers after 10 s suspends every
// worker group, DeleteCluster after 20 s deletes the cluster; the submitter Job stays.
TEST_F(RayJobTest, DeletionRulesRunInOrder) {
  entrypoints->onCommand("sleep 999", {.duration = seconds(2)});
  startOperator();
  Json job = rayJobTemplate("rules", "sleep 999", 1);
  job["spec"]["shutdownAfterJobFinishes"] = false;
  job["spec"]["deletionStrategy"] = {
      {"deletionRules",
       Json::array({{{"policy", "DeleteWorkers"},
                     {"condition", {{"jobStatus", "SUCCEEDED"}, {"ttlSeconds", 10}}}},
                    {{"policy", "DeleteCluster"},
                     {"condition", {{"jobStatus", "SUCCEEDED"}, {"ttlSeconds", 20}}}}})}};
  create(kRayJobs, job);
  ASSERT_TRUE(runUntilDeploymentStatus("rules", kJobDeploymentStatusComplete));
  const std::string clusterName = statusOf("rules", "rayClusterName");
  TimePoint endTime;
  ASSERT_TRUE(parseRfc3339(statusOf("rules", "endTime"), &endTime));
  ASSERT_TRUE(runUntil(
      [&] {
        return jsonAt(get(kRayClusters, "default", clusterName), {"spec", "workerGroupSpecs"})[0]
            .value("suspend", false);
      },
      seconds(30)));
  EXPECT_GE(ex.clock().now(), endTime + seconds(10));
  EXPECT_TRUE(exists(kRayClusters, "default", clusterName));
  ASSERT_TRUE(runUntil([&] { return !exists(kRayClusters, "default", clusterName); }, seconds(30)));
  EXPECT_GE(ex.clock().now(), endTime + seconds(20));
  EXPECT_TRUE(exists(kJobs, "default", "rules"));
}

// rayjob_controller_test.go "RayJob with backoffLimit 1 that keeps failing": two attempts, each
// with its own cluster, then Failed/AppFailed with failed 2, succeeded 0.
TEST_F(RayJobTest, FailingEntrypointExhaustsTheBackoffLimit) {
  entrypoints->onCommand("python /app/broken.py", {.duration = seconds(2), .exitCode = 1});
  startOperator();
  Json job = rayJobTemplate("broken", "python /app/broken.py", 1);
  job["spec"]["backoffLimit"] = 1;
  create(kRayJobs, job);
  std::set<std::string> clusters;
  ASSERT_TRUE(runUntil(
      [&] {
        if (const std::string c = statusOf("broken", "rayClusterName"); !c.empty()) {
          clusters.insert(c);
        }
        return deploymentStatus("broken") == kJobDeploymentStatusFailed;
      },
      seconds(600)));
  EXPECT_EQ(statusOf("broken", "reason"), "AppFailed");
  EXPECT_EQ(statusOf("broken", "jobStatus"), "FAILED");
  EXPECT_EQ(counterOf("broken", "failed"), 2);
  EXPECT_EQ(counterOf("broken", "succeeded"), 0);
  EXPECT_EQ(clusters.size(), 2u);
}

}  // namespace
}  // namespace fakekube::ray::testing
