// The Job controller and the TTL-after-finished controller: completion with the 1.31 conditions,
// failure after backoffLimit with the pod backoff, parallelism and completions,
// activeDeadlineSeconds, and TTL deletion of the Job and (through the GC) its pods.
#include "fakekube/cluster/job_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fakekube/api/resources.h"
#include "fakekube/cluster/internal/controller_utils.h"
#include "fakekube/cluster/ttl_after_finished_controller.h"
#include "fakekube/cluster/workload_fixture.h"

namespace fakekube::workloadtest {
namespace {

using std::chrono::seconds;
using ::testing::ElementsAre;

class JobControllerTest : public WorkloadTest {
 protected:
  void SetUp() override {
    WorkloadTest::SetUp();
    newManager();
    ASSERT_TRUE(addJobController(*manager).has_value());
    ASSERT_TRUE(addTtlAfterFinishedController(*manager).has_value());
    startManager();
  }

  Json jobNamed(const std::string& name) { return get(kJobs, "default", name); }
  std::vector<Json> jobPods(const std::string& name) { return pods("job-name=" + name); }
  std::vector<Json> activePods(const std::string& name) {
    std::vector<Json> out;
    for (auto& p : jobPods(name)) {
      if (workload::isPodActive(p)) out.push_back(std::move(p));
    }
    return out;
  }
};

TEST_F(JobControllerTest, CompletesWithSuccessCriteriaMetThenComplete) {
  Json j = create(kJobs, job("pi"));
  EXPECT_EQ(j["spec"]["completions"], 1);
  EXPECT_EQ(j["spec"]["parallelism"], 1);
  EXPECT_EQ(j["spec"]["podReplacementPolicy"], "TerminatingOrFailed");
  const std::string startedAt = now();
  run();
  auto created = jobPods("pi");
  ASSERT_EQ(created.size(), 1u);
  const Json& p = created[0];
  EXPECT_EQ(meta::generateName(p), "pi-");
  EXPECT_TRUE(meta::hasFinalizer(p, "batch.kubernetes.io/job-tracking"));
  EXPECT_EQ(meta::label(p, "batch.kubernetes.io/controller-uid"), meta::uid(j));
  EXPECT_EQ(meta::controllerOf(p)->kind, "Job");
  Json status = jobNamed("pi")["status"];
  EXPECT_EQ(status, (Json{{"active", 1},
                          {"ready", 0},
                          {"terminating", 0},
                          {"startTime", startedAt},
                          {"uncountedTerminatedPods", Json::object()}}));

  run(seconds(3));
  markRunning(p);
  run();
  EXPECT_EQ(jobNamed("pi")["status"]["ready"], 1);

  run(seconds(7));
  markFinished(p, true);
  const std::string finishedAt = now();
  run();
  Json done = jobNamed("pi");
  EXPECT_THAT(conditionTypes(done), ElementsAre("SuccessCriteriaMet", "Complete"));
  for (const char* type : {"SuccessCriteriaMet", "Complete"}) {
    Json c = condition(done, type);
    EXPECT_EQ(c["status"], "True");
    EXPECT_EQ(c["reason"], "CompletionsReached");
    EXPECT_EQ(c["message"], "Reached expected number of succeeded pods");
    EXPECT_EQ(c["lastTransitionTime"], finishedAt);
    EXPECT_EQ(c["lastProbeTime"], finishedAt);
  }
  EXPECT_EQ(done["status"]["succeeded"], 1);
  EXPECT_FALSE(done["status"].contains("active"));
  EXPECT_FALSE(done["status"].contains("failed"));
  EXPECT_EQ(done["status"]["completionTime"], finishedAt);
  EXPECT_EQ(done["status"]["startTime"], startedAt);
  EXPECT_EQ(done["status"]["uncountedTerminatedPods"], Json::object());
  // The pod was counted, so it no longer carries the tracking finalizer; it stays, Succeeded.
  Json finishedPod = get(kPods, "default", meta::name(p));
  EXPECT_FALSE(meta::hasFinalizer(finishedPod, "batch.kubernetes.io/job-tracking"));
  EXPECT_EQ(finishedPod["status"]["phase"], "Succeeded");
}

TEST_F(JobControllerTest, FailsAfterBackoffLimitWithDoublingDelays) {
  Json spec = job("flaky");
  spec["spec"]["backoffLimit"] = 2;
  create(kJobs, spec);
  run();
  std::vector<std::string> seen;
  std::vector<long long> createdAfterFailure;  // seconds from a failure to the next pod
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto active = activePods("flaky");
    ASSERT_EQ(active.size(), 1u) << "attempt " << attempt;
    seen.push_back(meta::name(active[0]));
    markFinished(active[0], false);
    const TimePoint failedAt = ex.now();
    if (attempt == 2) break;
    ASSERT_TRUE(ex.runUntil([&] { return activePods("flaky").size() == 1; }, seconds(600)));
    createdAfterFailure.push_back(std::chrono::duration_cast<seconds>(ex.now() - failedAt).count());
  }
  EXPECT_THAT(createdAfterFailure, ElementsAre(10, 20));
  run();
  Json failed = jobNamed("flaky");
  EXPECT_THAT(conditionTypes(failed), ElementsAre("FailureTarget", "Failed"));
  for (const char* type : {"FailureTarget", "Failed"}) {
    Json c = condition(failed, type);
    EXPECT_EQ(c["status"], "True");
    EXPECT_EQ(c["reason"], "BackoffLimitExceeded");
    EXPECT_EQ(c["message"], "Job has reached the specified backoff limit");
    EXPECT_EQ(c["lastTransitionTime"], now());
  }
  EXPECT_EQ(failed["status"]["failed"], 3);
  EXPECT_FALSE(failed["status"].contains("succeeded"));
  EXPECT_FALSE(failed["status"].contains("completionTime"));
  EXPECT_EQ(jobPods("flaky").size(), 3u);
  // Nothing more is created for a failed Job.
  run(seconds(600));
  EXPECT_EQ(jobPods("flaky").size(), 3u);
}

TEST_F(JobControllerTest, ParallelismAndCompletions) {
  Json spec = job("batch");
  spec["spec"]["completions"] = 5;
  spec["spec"]["parallelism"] = 2;
  create(kJobs, spec);
  run();
  int succeeded = 0;
  while (succeeded < 5) {
    auto active = activePods("batch");
    ASSERT_LE(active.size(), 2u);
    ASSERT_EQ(active.size(), static_cast<std::size_t>(std::min(2, 5 - succeeded)));
    EXPECT_EQ(jobNamed("batch")["status"]["active"], static_cast<int>(active.size()));
    markFinished(active[0], true);
    ++succeeded;
    run(seconds(1));
    EXPECT_EQ(jobNamed("batch")["status"].value("succeeded", 0), succeeded);
  }
  // The last pod that was still running: once it ends the Job is complete (5 succeeded).
  auto rest = activePods("batch");
  EXPECT_TRUE(rest.empty());
  Json done = jobNamed("batch");
  EXPECT_EQ(done["status"]["succeeded"], 5);
  EXPECT_THAT(conditionTypes(done), ElementsAre("SuccessCriteriaMet", "Complete"));
  EXPECT_EQ(jobPods("batch").size(), 5u);
}

TEST_F(JobControllerTest, ActiveDeadlineSecondsFailsTheJobAndDeletesItsPods) {
  Json spec = job("slow");
  spec["spec"]["activeDeadlineSeconds"] = 30;
  spec["spec"]["parallelism"] = 2;
  spec["spec"]["completions"] = 2;
  create(kJobs, spec);
  run();
  for (const auto& p : activePods("slow")) markRunning(p);
  run(seconds(29));
  EXPECT_TRUE(conditionTypes(jobNamed("slow")).empty());
  run(seconds(1));
  Json failed = jobNamed("slow");
  EXPECT_THAT(conditionTypes(failed), ElementsAre("FailureTarget", "Failed"));
  Json c = condition(failed, "Failed");
  EXPECT_EQ(c["reason"], "DeadlineExceeded");
  EXPECT_EQ(c["message"], "Job was active longer than specified deadline");
  EXPECT_EQ(c["lastTransitionTime"], now());
  EXPECT_EQ(failed["status"]["failed"], 2);  // the deleted pods count as failed
  EXPECT_FALSE(failed["status"].contains("active"));
  EXPECT_EQ(failed["status"]["ready"], 0);
  EXPECT_TRUE(jobPods("slow").empty());  // unscheduled pods go at once once uncounted
}

TEST_F(JobControllerTest, SuspendDeletesActivePodsAndResumeRecreatesThemAfterTheBackoff) {
  create(kJobs, job("later"));
  run();
  ASSERT_EQ(activePods("later").size(), 1u);
  mergePatch(kJobs, "default", "later", {{"spec", {{"suspend", true}}}});
  run();
  Json suspended = jobNamed("later");
  Json c = condition(suspended, "Suspended");
  EXPECT_EQ(c["status"], "True");
  EXPECT_EQ(c["reason"], "JobSuspended");
  EXPECT_EQ(c["message"], "Job suspended");
  EXPECT_TRUE(activePods("later").empty());
  run(seconds(5));
  mergePatch(kJobs, "default", "later", {{"spec", {{"suspend", false}}}});
  run();
  Json resumed = jobNamed("later");
  c = condition(resumed, "Suspended");
  EXPECT_EQ(c["status"], "False");
  EXPECT_EQ(c["reason"], "JobResumed");
  EXPECT_EQ(resumed["status"]["startTime"], now());
  // The pod deleted by the suspension never succeeded, so it counted as failed, and its
  // replacement waits out the pod backoff (10 s from its deletion).
  EXPECT_EQ(resumed["status"]["failed"], 1);
  EXPECT_TRUE(activePods("later").empty());
  EXPECT_TRUE(ex.runUntil([&] { return activePods("later").size() == 1; }, seconds(10)));
}

TEST_F(JobControllerTest, TtlAfterFinishedDeletesTheJobAndThroughTheGcItsPods) {
  Json spec = job("once");
  spec["spec"]["ttlSecondsAfterFinished"] = 60;
  create(kJobs, spec);
  run();
  auto created = jobPods("once");
  ASSERT_EQ(created.size(), 1u);
  markFinished(created[0], true);
  run();
  ASSERT_THAT(conditionTypes(jobNamed("once")), ElementsAre("SuccessCriteriaMet", "Complete"));
  run(seconds(59));
  EXPECT_TRUE(exists(kJobs, "default", "once"));
  EXPECT_EQ(jobPods("once").size(), 1u);
  run(seconds(1));
  settle();
  EXPECT_FALSE(exists(kJobs, "default", "once"));
  EXPECT_TRUE(jobPods("once").empty());
}

TEST_F(JobControllerTest, PodsOfADeletedRunningJobLoseTheirFinalizerAndGo) {
  create(kJobs, job("gone"));
  run();
  ASSERT_EQ(jobPods("gone").size(), 1u);
  remove(kJobs, "default", "gone");  // Background: the GC deletes the pod
  settle();
  run();
  settle();
  EXPECT_TRUE(jobPods("gone").empty());
}

// The Job's cache lags behind the controller's own status writes while its pods' cache does
// not: after the last pod is counted and its tracking finalizer removed, the cached Job still
// counts nothing. The controller reads the Job from the server before creating pods, so no second
// pod is started for a Job that is complete.
class JobControllerWithStaleJobCacheTest : public WorkloadTest {
 protected:
  void SetUp() override {
    WorkloadTest::SetUp();
    newManager();
    InformerOptions lagging;
    lagging.deliveryDelay = seconds(2);
    ASSERT_TRUE(manager->cache().setResourceOptions(kJobs, lagging));
    ASSERT_TRUE(addJobController(*manager).has_value());
    startManager();
  }
};

TEST_F(JobControllerWithStaleJobCacheTest, ACompleteJobGetsNoSecondPod) {
  create(kJobs, job("once"));
  run(seconds(3));
  auto created = pods("job-name=once");
  ASSERT_EQ(created.size(), 1u);
  markRunning(created[0]);
  run(seconds(1));
  markFinished(created[0], true);
  for (int i = 0; i < 20; ++i) run(std::chrono::milliseconds(250));
  EXPECT_EQ(get(kJobs, "default", "once")["status"].value("succeeded", 0), 1);
  EXPECT_EQ(pods("job-name=once").size(), 1u);
}

}  // namespace
}  // namespace fakekube::workloadtest
