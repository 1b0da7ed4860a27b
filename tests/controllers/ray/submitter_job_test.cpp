// The submitter runs its real command: a batch/v1 Job whose ray-job-submitter container has
// KubeRay's BuildJobSubmitCommand script waits for the dashboard, submits with its submission id,
// follows the logs, and completes or fails with the Ray job; a retried submitter pod finds the
// existing submission instead of submitting again.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "fakekube/api/conditions.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/resources.h"
#include "tests/controllers/ray/ray_fixture.h"

namespace fakekube::ray::testing {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

class SubmitterJobTest : public RaySimulationTest {
 protected:
  std::vector<Json> submitterPods() { return pods("job-name=demo-job"); }

  // Pod names in creation order.
  std::vector<std::string> submitterPodNames() {
    std::vector<Json> pods = submitterPods();
    std::sort(pods.begin(), pods.end(), [](const Json& a, const Json& b) {
      return meta::creationTimestamp(a) < meta::creationTimestamp(b) ||
             (meta::creationTimestamp(a) == meta::creationTimestamp(b) &&
              meta::resourceVersion(a).size() < meta::resourceVersion(b).size()) ||
             (meta::creationTimestamp(a) == meta::creationTimestamp(b) &&
              meta::resourceVersion(a).size() == meta::resourceVersion(b).size() &&
              meta::resourceVersion(a) < meta::resourceVersion(b));
    });
    std::vector<std::string> names;
    for (const auto& p : pods) names.push_back(meta::name(p));
    return names;
  }

  bool runUntilJob(const std::string& condition, Duration limit = seconds(300)) {
    return ex.runUntil(
        [&] { return isConditionTrue(get(kJobs, "default", "demo-job"), condition); }, limit);
  }
};

TEST_F(SubmitterJobTest, TheSubmitterCompletesWhenTheRayJobSucceeds) {
  entrypoints->onCommand("train.py", {.duration = seconds(5), .logLines = {"training"}});
  startHead("demo");
  Json rayJob = rayJobFor("demo", "demo-job-fghij", "python /app/train.py");
  create(kJobs, submitterJob("demo-job", rayJob));
  ASSERT_TRUE(runUntilJob("Complete"));

  Json job = get(kJobs, "default", "demo-job");
  EXPECT_EQ(job["status"]["succeeded"], 1);
  auto info = dashboard("demo").getJobInfo("demo-job-fghij");
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->jobStatus, "SUCCEEDED");
  EXPECT_EQ(info->entrypoint, "python /app/train.py");

  auto names = submitterPodNames();
  ASSERT_EQ(names.size(), 1u);
  auto lines = printed(names[0]);
  EXPECT_THAT(lines, Contains("Job 'demo-job-fghij' submitted successfully"));
  EXPECT_THAT(lines, Contains("training"));
  EXPECT_THAT(lines, Contains("Job 'demo-job-fghij' succeeded"));
  // The health check and the status check print nothing (>/dev/null 2>&1).
  EXPECT_THAT(lines, Not(Contains(HasSubstr("Job status for"))));
}

// What `kubectl logs` shows: the submitter's container log, as Ray's CLI prints it, and the
// head's, as `ray start --head` prints it.
TEST_F(SubmitterJobTest, TheSubmitterAndTheHeadLogWhatRayPrints) {
  entrypoints->onCommand("train.py", {.duration = seconds(5), .logLines = {"training"}});
  Json head = startHead("demo");
  Json rayJob = rayJobFor("demo", "demo-job-fghij", "python /app/train.py");
  create(kJobs, submitterJob("demo-job", rayJob));
  ASSERT_TRUE(runUntilJob("Complete"));
  auto names = submitterPodNames();
  ASSERT_EQ(names.size(), 1u);
  auto log = cluster->podLogs().read("default", names[0], {});
  ASSERT_TRUE(log.has_value()) << log.error().str();
  const std::string address =
      "Job submission server address: http://demo-head-svc.default.svc.cluster.local:8265\n";
  EXPECT_THAT(*log, HasSubstr(address + "-------------------------------------------------------\n"
                                        "Job 'demo-job-fghij' submitted successfully\n"));
  EXPECT_THAT(*log, HasSubstr("Next steps\n  Query the logs of the job:\n    ray job logs "
                              "demo-job-fghij\n"));
  EXPECT_THAT(*log, HasSubstr("training\n-----------------------------------\n"
                              "Job 'demo-job-fghij' succeeded\n"));

  const std::string ip = head["status"]["podIP"];
  auto headLog = cluster->podLogs().read("default", meta::name(head), {});
  ASSERT_TRUE(headLog.has_value()) << headLog.error().str();
  EXPECT_THAT(*headLog, HasSubstr("Local node IP: " + ip + "\n"));
  EXPECT_THAT(*headLog, HasSubstr("Ray runtime started.\n"));
  EXPECT_THAT(*headLog, HasSubstr("ray start --address='" + ip + ":6379'\n"));
  EXPECT_THAT(*headLog, HasSubstr("view the dashboard at \n    " + ip + ":8265\n"));
}

TEST_F(SubmitterJobTest, TheSubmitterWaitsEveryTwoSecondsForTheDashboard) {
  create(kServices, headService("demo"));
  Json rayJob = rayJobFor("demo", "demo-job-fghij", "sleep 1");
  create(kJobs, submitterJob("demo-job", rayJob));
  ex.advance(seconds(8));
  create(kPods, headPod("demo"));
  ASSERT_TRUE(runUntilJob("Complete"));

  auto names = submitterPodNames();
  ASSERT_EQ(names.size(), 1u);
  auto lines = printed(names[0]);
  const std::string waiting =
      "Waiting for Ray Dashboard GCS to become healthy at "
      "http://demo-head-svc.default.svc.cluster.local:8265 ...";
  // The submitter starts 1 s after its pod is created and checks at 1, 3, 5, 7, 9 and 11 s; the
  // head, created at 8 s, starts at 9 s and listens from just after 11 s.
  EXPECT_EQ(std::count(lines.begin(), lines.end(), waiting), 6);
  EXPECT_EQ(lines.front(), waiting);
  std::vector<TimePoint> times;
  {
    std::lock_guard lock(outputMu);
    for (const auto& out : output) {
      if (out.pod == names[0] && out.line == waiting) times.push_back(out.time);
    }
  }
  ASSERT_EQ(times.size(), 6u);
  for (std::size_t i = 1; i < times.size(); ++i) EXPECT_EQ(times[i] - times[i - 1], seconds(2));
}

TEST_F(SubmitterJobTest, AFailedRayJobFailsTheSubmitterUnderItsBackoffLimit) {
  startHead("demo");
  // In the submitter's script an unquoted `;` of the entrypoint would end the `ray job submit`
  // command, as in bash upstream: the entrypoint quotes its script.
  Json rayJob = rayJobFor("demo", "demo-job-fghij", "bash -c 'sleep 2; exit 1'");
  create(kJobs, submitterJob("demo-job", rayJob, /*backoffLimit=*/1));
  ASSERT_TRUE(runUntilJob("Failed", seconds(600)));

  Json job = get(kJobs, "default", "demo-job");
  EXPECT_EQ(job["status"]["failed"], 2);
  auto info = dashboard("demo").getJobInfo("demo-job-fghij");
  EXPECT_EQ(info->jobStatus, "FAILED");
  EXPECT_EQ(dashboard("demo").listJobs()->size(), 1u);

  auto names = submitterPodNames();
  ASSERT_EQ(names.size(), 2u);
  EXPECT_THAT(printed(names[0]), Contains("Job 'demo-job-fghij' submitted successfully"));
  EXPECT_THAT(printed(names[0]), Contains("Job 'demo-job-fghij' failed"));
  // The retry found the submission: no second submit, the logs followed to the same end.
  EXPECT_THAT(printed(names[1]), Not(Contains(HasSubstr("submitted successfully"))));
  EXPECT_THAT(printed(names[1]), Contains("Job 'demo-job-fghij' failed"));
  for (const auto& p : submitterPods()) {
    EXPECT_EQ(p["status"]["phase"], "Failed");
    EXPECT_EQ(p["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"], 1);
  }
}

TEST_F(SubmitterJobTest, ARetriedSubmitterFindsTheExistingSubmission) {
  startHead("demo");
  Json rayJob = rayJobFor("demo", "demo-job-fghij", "sleep 60");
  create(kJobs, submitterJob("demo-job", rayJob));
  ASSERT_TRUE(ex.runUntil(
      [&] {
        auto info = dashboard("demo").getJobInfo("demo-job-fghij");
        return info && info->jobStatus == "RUNNING";
      },
      seconds(60)));
  // The first submitter pod goes away while it follows the logs.
  auto first = submitterPodNames();
  ASSERT_EQ(first.size(), 1u);
  ASSERT_TRUE(server->deleteObject(kPods, "default", first[0]).has_value());
  ASSERT_TRUE(runUntilJob("Complete"));

  auto names = submitterPodNames();
  ASSERT_EQ(names.size(), 1u);  // the deleted pod is gone; its replacement completed
  EXPECT_NE(names[0], first[0]);
  auto lines = printed(names[0]);
  EXPECT_THAT(lines, Not(Contains(HasSubstr("submitted successfully"))));
  EXPECT_THAT(lines, Contains("Job 'demo-job-fghij' succeeded"));
  auto jobs = dashboard("demo").listJobs();
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].jobStatus, "SUCCEEDED");
}

TEST_F(SubmitterJobTest, AnUnquotedAndInTheEntrypointBelongsToTheSubmittersShellAsUpstream) {
  // The script is `... --submission-id ID -- echo training && sleep 5 ; fi ; ...`: bash ends the
  // `ray job submit` words at `&&`, so Ray gets "echo training" and the submitter sleeps.
  startHead("demo");
  Json rayJob = rayJobFor("demo", "demo-job-fghij", "echo training && sleep 5");
  create(kJobs, submitterJob("demo-job", rayJob));
  ASSERT_TRUE(runUntilJob("Complete"));
  auto info = dashboard("demo").getJobInfo("demo-job-fghij");
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->entrypoint, "echo training");
  EXPECT_EQ(info->jobStatus, "SUCCEEDED");
}

TEST_F(SubmitterJobTest, ASubmitTheDashboardRefusesFailsTheContainer) {
  startHead("demo");
  DashboardClient client = dashboard("demo");
  RayJobRequest existing;
  existing.submissionId = "taken";
  existing.entrypoint = "sleep 100";
  ASSERT_TRUE(client.submitJobRequest(existing).has_value());
  // A user's own submitter command, without KubeRay's status check.
  Json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", "own-submitter"}, {"namespace", "default"}}},
      {"spec",
       {{"restartPolicy", "Never"},
        {"containers",
         Json::array(
             {{{"name", "submit"},
               {"image", kRayImage},
               {"command", Json::array({"/bin/bash", "-c"})},
               {"args", Json::array({"ray job submit "
                                     "--address=http://$RAY_DASHBOARD_ADDRESS "
                                     "--submission-id=$RAY_JOB_SUBMISSION_ID "
                                     "--no-wait -- python main.py"})},
               {"env",
                Json::array({{{"name", "RAY_DASHBOARD_ADDRESS"}, {"value", "demo-head-svc:8265"}},
                             {{"name", "RAY_JOB_SUBMISSION_ID"}, {"value", "taken"}}})}}})}}}};
  create(kPods, pod);
  ASSERT_TRUE(ex.runUntil(
      [&] {
        return get(kPods, "default", "own-submitter")["status"].value("phase", "") == "Failed";
      },
      seconds(30)));
  EXPECT_EQ(
      get(kPods, "default",
          "own-submitter")["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"],
      1);
  EXPECT_THAT(printed("own-submitter"),
              Contains("RuntimeError: Request failed with status code 500: Job with submission_id "
                       "taken already exists. Please use a different submission_id.."));
}

}  // namespace
}  // namespace fakekube::ray::testing
