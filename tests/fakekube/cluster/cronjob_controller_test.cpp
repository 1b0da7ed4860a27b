// The CronJob controller on virtual time: Jobs at the scheduled minutes named by them, status
// (active, lastScheduleTime, lastSuccessfulTime), history limits, concurrency policies, suspend
// and the starting deadline.
#include "fakekube/cluster/cronjob_controller.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fakekube/api/resources.h"
#include "fakekube/cluster/workload_fixture.h"

namespace fakekube::workloadtest {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

Json cronJob(const std::string& name, const std::string& schedule) {
  return {{"apiVersion", "batch/v1"},
          {"kind", "CronJob"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"schedule", schedule},
            {"jobTemplate",
             {{"metadata", {{"labels", {{"app", name}}}}},
              {"spec",
               {{"template",
                 {{"spec",
                   {{"restartPolicy", "Never"},
                    {"containers",
                     Json::array({{{"name", "main"}, {"image", "busybox:1.36"}}})}}}}}}}}}}}};
}

class CronJobControllerTest : public WorkloadTest {
 protected:
  void SetUp() override {
    WorkloadTest::SetUp();
    // Start on a whole minute, so "*/N" times are easy to reason about.
    auto sinceMinute = ex.now().time_since_epoch() % minutes(1);
    if (sinceMinute > Duration::zero()) ex.advance(minutes(1) - sinceMinute);
    newManager();
    ASSERT_TRUE(addCronJobController(*manager).has_value());
    startManager();
  }

  std::int64_t minutesNow() {
    return std::chrono::duration_cast<minutes>(ex.now().time_since_epoch()).count();
  }
  // The CronJob's Jobs, by name, not being deleted.
  std::vector<std::string> jobNames() {
    std::vector<std::string> out;
    Json listed = list(kJobs, "default");
    for (const auto& j : listed["items"]) {
      if (!meta::isDeleting(j)) out.push_back(meta::name(j));
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  void finishJob(const std::string& name, bool succeeded) {
    Json job = get(kJobs, "default", name);
    Json status = job.value("status", Json::object());
    status["startTime"] = now();
    if (succeeded) status["completionTime"] = now();
    Json conditions = Json::array();
    if (succeeded) {
      conditions.push_back(
          {{"type", "SuccessCriteriaMet"}, {"status", "True"}, {"lastTransitionTime", now()}});
    } else {
      conditions.push_back(
          {{"type", "FailureTarget"}, {"status", "True"}, {"lastTransitionTime", now()}});
    }
    conditions.push_back({{"type", succeeded ? "Complete" : "Failed"},
                          {"status", "True"},
                          {"lastTransitionTime", now()}});
    status["conditions"] = conditions;
    if (succeeded)
      status["succeeded"] = 1;
    else
      status["failed"] = 1;
    job["status"] = status;
    updateStatus(kJobs, job);
  }
  std::string nameAt(std::int64_t minute) { return fmt::format("every-{}", minute); }
};

TEST_F(CronJobControllerTest, RunsOnScheduleAndKeepsHistory) {
  Json cj = cronJob("every", "*/2 * * * *");
  cj["spec"]["successfulJobsHistoryLimit"] = 2;
  create(kCronJobs, cj);
  const std::int64_t start = minutesNow();
  run();
  EXPECT_TRUE(jobNames().empty()) << "nothing is due at creation";
  const std::int64_t first = start % 2 == 0 ? start + 2 : start + 1;
  run(minutes(first - start) - seconds(1));
  EXPECT_TRUE(jobNames().empty());
  run(seconds(1));
  ASSERT_EQ(jobNames(), std::vector<std::string>{nameAt(first)});
  Json job = get(kJobs, "default", nameAt(first));
  EXPECT_EQ(meta::label(job, "app"), "every");
  EXPECT_EQ(meta::controllerOf(job)->kind, "CronJob");
  EXPECT_EQ(meta::annotation(job, "batch.kubernetes.io/cronjob-scheduled-timestamp"), now());
  Json status = get(kCronJobs, "default", "every")["status"];
  EXPECT_EQ(status["lastScheduleTime"], now());
  ASSERT_EQ(status["active"].size(), 1u);
  EXPECT_EQ(status["active"][0]["name"], nameAt(first));

  // Each Job succeeds; only the two newest stay.
  finishJob(nameAt(first), true);
  const std::string firstSuccess = now();
  for (int i = 1; i <= 3; ++i) {
    run(minutes(2));
    finishJob(nameAt(first + 2 * i), true);
  }
  run();
  EXPECT_EQ(jobNames(), (std::vector<std::string>{nameAt(first + 4), nameAt(first + 6)}));
  status = get(kCronJobs, "default", "every")["status"];
  EXPECT_FALSE(status.contains("active"));
  EXPECT_EQ(status["lastSuccessfulTime"], now());
  EXPECT_NE(status["lastSuccessfulTime"], firstSuccess);
}

TEST_F(CronJobControllerTest, FailedHistoryLimitAndAllowRunsConcurrently) {
  Json cj = cronJob("every", "* * * * *");
  create(kCronJobs, cj);
  const std::int64_t start = minutesNow();
  run(minutes(1));
  run(minutes(1));
  EXPECT_EQ(jobNames(), (std::vector<std::string>{nameAt(start + 1), nameAt(start + 2)}));
  EXPECT_EQ(get(kCronJobs, "default", "every")["status"]["active"].size(), 2u);
  finishJob(nameAt(start + 1), false);
  finishJob(nameAt(start + 2), false);
  run();
  EXPECT_EQ(jobNames(), std::vector<std::string>{nameAt(start + 2)}) << "failed limit 1";
}

TEST_F(CronJobControllerTest, ForbidSkipsWhileActiveAndReplaceReplaces) {
  Json cj = cronJob("every", "* * * * *");
  cj["spec"]["concurrencyPolicy"] = "Forbid";
  create(kCronJobs, cj);
  const std::int64_t start = minutesNow();
  run(minutes(1));
  run(minutes(1));
  EXPECT_EQ(jobNames(), std::vector<std::string>{nameAt(start + 1)});
  // The time skipped while the Job ran is still due (upstream runs it late too, unless
  // startingDeadlineSeconds says otherwise).
  finishJob(nameAt(start + 1), true);
  run();
  EXPECT_EQ(jobNames(), (std::vector<std::string>{nameAt(start + 1), nameAt(start + 2)}));

  mergePatch(kCronJobs, "default", "every", {{"spec", {{"concurrencyPolicy", "Replace"}}}});
  run(minutes(1));
  EXPECT_EQ(jobNames(), (std::vector<std::string>{nameAt(start + 1), nameAt(start + 3)}))
      << "the active one is deleted";
  Json status = get(kCronJobs, "default", "every")["status"];
  ASSERT_EQ(status["active"].size(), 1u);
  EXPECT_EQ(status["active"][0]["name"], nameAt(start + 3));
}

TEST_F(CronJobControllerTest, SuspendAndStartingDeadline) {
  Json cj = cronJob("every", "* * * * *");
  cj["spec"]["suspend"] = true;
  cj["spec"]["startingDeadlineSeconds"] = 30;
  create(kCronJobs, cj);
  const std::int64_t start = minutesNow();
  run(minutes(5));
  EXPECT_TRUE(jobNames().empty());
  // Resumed 20s past a minute: that minute is within the deadline.
  run(seconds(20));
  mergePatch(kCronJobs, "default", "every", {{"spec", {{"suspend", false}}}});
  run();
  EXPECT_EQ(jobNames(), std::vector<std::string>{nameAt(start + 5)}) << "only the latest missed";
}

TEST_F(CronJobControllerTest, MissedBeyondTheDeadlineIsNotRun) {
  Json cj = cronJob("every", "0 * * * *");
  cj["spec"]["suspend"] = true;
  cj["spec"]["startingDeadlineSeconds"] = 30;
  create(kCronJobs, cj);
  run(minutes(61));
  while (minutesNow() % 60 != 10) run(minutes(1));  // ten minutes past the last due hour
  mergePatch(kCronJobs, "default", "every", {{"spec", {{"suspend", false}}}});
  run();
  EXPECT_TRUE(jobNames().empty());
}

}  // namespace
}  // namespace fakekube::workloadtest
