// The simulated Ray head in a real cluster: a hand-made head pod and Service in KubeRay's shape
// serve gcs_healthz and the Jobs API through the in-process network; jobs go PENDING -> RUNNING ->
// SUCCEEDED / FAILED / STOPPED on virtual time; submission ids are unique; workers' wait-gcs-ready
// waits for GCS; a head pod that is deleted comes back with no jobs. The dashboard client is the
// one the RayJob controller uses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "tests/controllers/ray/ray_fixture.h"

namespace fakekube::ray::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::int64_t millis(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

class RayHeadTest : public RaySimulationTest {
 protected:
  // The head of the cluster "demo", started, and a client of its dashboard.
  DashboardClient startDemoHead() {
    startHead("demo");
    return dashboard("demo");
  }
  RayJobRequest request(const std::string& id, const std::string& entrypoint) {
    RayJobRequest r;
    r.submissionId = id;
    r.entrypoint = entrypoint;
    return r;
  }
};

TEST_F(RayHeadTest, GcsHealthzAnswersSuccessOnceTheHeadStarted) {
  create(kServices, headService("demo"));
  Json pod = create(kPods, headPod("demo"));
  HttpRequest healthz{.path = "/api/gcs_healthz"};
  const std::string host = "demo-head-svc.default.svc.cluster.local";
  // Container created after 1 s, then the head takes startupDelay (2 s) to listen.
  ex.advance(seconds(2));
  EXPECT_FALSE(cluster->network().call("default", host, 8265, healthz).has_value());
  EXPECT_FALSE(isPodReady(get(kPods, "default", meta::name(pod))));
  ex.advance(seconds(2));
  auto answer = cluster->network().call("default", host, 8265, healthz);
  ASSERT_TRUE(answer.has_value()) << answer.error().message;
  EXPECT_EQ(answer->status, 200);
  EXPECT_EQ(answer->body, "success");
  EXPECT_TRUE(isPodReady(get(kPods, "default", meta::name(pod))));
  EXPECT_TRUE(cluster->network().call("default", host, 6379, HttpRequest{}).has_value());
  // Every port of the head Service has a listener, as on a real head.
  EXPECT_TRUE(cluster->network().call("default", host, 10001, HttpRequest{}).has_value());
  auto raylet = cluster->network().call("default", host, 52365,
                                        HttpRequest{.path = "/api/local_raylet_healthz"});
  ASSERT_TRUE(raylet.has_value());
  EXPECT_EQ(raylet->body, "success");
}

TEST(RayHeadPortsTest, TheCommandLinesFlagsOrRaysDefaults) {
  RayHeadPorts defaults = rayHeadPorts("ulimit -n 65536; ray start --head --block");
  EXPECT_EQ(defaults.gcs, 6379);
  EXPECT_EQ(defaults.dashboard, 8265);
  EXPECT_EQ(defaults.client, 10001);
  RayHeadPorts flags = rayHeadPorts(
      "ray start --head --port=7000 --dashboard-port=9000 --metrics-export-port=9100 "
      "--dashboard-agent-listen-port=52000 --ray-client-server-port 11001");
  EXPECT_EQ(flags.gcs, 7000);
  EXPECT_EQ(flags.dashboard, 9000);
  EXPECT_EQ(flags.metrics, 9100);
  EXPECT_EQ(flags.dashboardAgent, 52000);
  EXPECT_EQ(flags.client, 11001);
}

TEST_F(RayHeadTest, AJobGoesPendingRunningSucceededWithTimesInMilliseconds) {
  DashboardClient client = startDemoHead();
  const TimePoint submittedAt = ex.now();
  auto id =
      client.submitJobRequest(request("demo-job-fghij", "echo start && sleep 10 && echo end"));
  ASSERT_TRUE(id.has_value()) << id.error().str();
  EXPECT_EQ(*id, "demo-job-fghij");

  auto pending = client.getJobInfo("demo-job-fghij");
  ASSERT_TRUE(pending.has_value());
  EXPECT_EQ(pending->jobStatus, "PENDING");
  EXPECT_EQ(pending->submissionId, "demo-job-fghij");
  EXPECT_EQ(pending->jobId, "");
  EXPECT_EQ(pending->startTime, static_cast<std::uint64_t>(millis(submittedAt)));
  EXPECT_EQ(pending->endTime, 0u);

  ex.advance(seconds(1));
  auto running = client.getJobInfo("demo-job-fghij");
  EXPECT_EQ(running->jobStatus, "RUNNING");
  EXPECT_EQ(running->message, "Job is currently running.");
  EXPECT_EQ(running->jobId, "01000000");

  ex.advance(seconds(10));
  auto done = client.getJobInfo("demo-job-fghij");
  EXPECT_EQ(done->jobStatus, "SUCCEEDED");
  EXPECT_EQ(done->message, "Job finished successfully.");
  EXPECT_EQ(done->endTime, static_cast<std::uint64_t>(millis(submittedAt + seconds(11))));
  EXPECT_TRUE(isJobTerminal(done->jobStatus));
  auto logs = client.getJobLog("demo-job-fghij");
  ASSERT_TRUE(logs.has_value());
  EXPECT_EQ(**logs, "start\nend\n");
}

TEST_F(RayHeadTest, ASecondSubmitOfTheSameIdIsRaysFiveHundred) {
  DashboardClient client = startDemoHead();
  ASSERT_TRUE(client.submitJobRequest(request("job-1", "sleep 100")).has_value());
  auto again = client.submitJobRequest(request("job-1", "sleep 1"));
  ASSERT_FALSE(again.has_value());
  EXPECT_TRUE(isAlreadyExists(again.error()));
  EXPECT_EQ(again.error().message,
            "submission ID 'job-1' already used, Please use a different submission_id");
  // On the wire: Ray's 500 and its words.
  auto raw = cluster->network().call(
      "default", "demo-head-svc", 8265,
      HttpRequest{.method = "POST",
                  .path = "/api/jobs/",
                  .body = R"({"entrypoint":"sleep 1","submission_id":"job-1"})"});
  ASSERT_TRUE(raw.has_value());
  EXPECT_EQ(raw->status, 500);
  EXPECT_EQ(raw->body,
            "Job with submission_id job-1 already exists. Please use a different submission_id.");
  // The first submission is untouched.
  auto jobs = client.listJobs();
  ASSERT_TRUE(jobs.has_value());
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].entrypoint, "sleep 100");
}

TEST_F(RayHeadTest, AFailingEntrypointIsFailedWithItsExitCodeAndLogs) {
  DashboardClient client = startDemoHead();
  ASSERT_TRUE(client.submitJobRequest(request("job-1", "echo boom; exit 2")).has_value());
  ex.advance(seconds(2));
  auto info = client.getJobInfo("job-1");
  EXPECT_EQ(info->jobStatus, "FAILED");
  EXPECT_EQ(info->errorType, "JOB_ENTRYPOINT_COMMAND_ERROR");
  EXPECT_EQ(info->message,
            "Job entrypoint command failed with exit code 2, last available logs (truncated to "
            "20,000 chars):\nboom\n");
}

TEST_F(RayHeadTest, StopDeleteAndListBehaveAsRaysDashboard) {
  DashboardClient client = startDemoHead();
  ASSERT_TRUE(client.submitJobRequest(request("long", "sleep 100")).has_value());
  auto generated = client.submitJobRequest(request("", "true"));
  ASSERT_TRUE(generated.has_value());
  EXPECT_THAT(*generated, ::testing::MatchesRegex("raysubmit_[A-Za-z0-9]{16}"));
  ex.advance(seconds(5));

  auto jobs = client.listJobs();
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].submissionId, "long");
  EXPECT_EQ((*jobs)[0].jobStatus, "RUNNING");
  EXPECT_EQ((*jobs)[1].jobStatus, "SUCCEEDED");

  // A running job cannot be deleted.
  auto raw = cluster->network().call("default", "demo-head-svc", 8265,
                                     HttpRequest{.method = "DELETE", .path = "/api/jobs/long"});
  EXPECT_EQ(raw->status, 500);
  EXPECT_EQ(raw->body,
            "Attempted to delete job 'long', but it is in a non-terminal state RUNNING.");

  const TimePoint stoppedAt = ex.now();
  ASSERT_TRUE(client.stopJob("long").has_value());
  auto stopped = client.getJobInfo("long");
  EXPECT_EQ(stopped->jobStatus, "STOPPED");
  EXPECT_EQ(stopped->message, "Job was intentionally stopped.");
  EXPECT_EQ(stopped->endTime, static_cast<std::uint64_t>(millis(stoppedAt)));
  // Stopping a terminal job is fine (stopped: false, then the status is terminal).
  EXPECT_TRUE(client.stopJob("long").has_value());
  ex.advance(seconds(200));
  EXPECT_EQ(client.getJobInfo("long")->jobStatus, "STOPPED");

  ASSERT_TRUE(client.deleteJob("long").has_value());
  auto gone = client.getJobInfo("long");
  ASSERT_FALSE(gone.has_value());
  EXPECT_TRUE(isBadRequest(gone.error()));
  EXPECT_EQ(gone.error().message, "Job long does not exist on the cluster");
  auto noLogs = client.getJobLog("long");
  ASSERT_TRUE(noLogs.has_value());
  EXPECT_FALSE(noLogs->has_value());
  EXPECT_EQ(client.listJobs()->size(), 1u);
}

TEST_F(RayHeadTest, AJobStoppedWhilePendingNeverRuns) {
  DashboardClient client = startDemoHead();
  ASSERT_TRUE(client.submitJobRequest(request("early", "echo ran")).has_value());
  ASSERT_TRUE(client.stopJob("early").has_value());
  ex.advance(seconds(5));
  auto info = client.getJobInfo("early");
  EXPECT_EQ(info->jobStatus, "STOPPED");
  EXPECT_EQ(info->jobId, "");  // no driver ever started
  EXPECT_EQ(**client.getJobLog("early"), "");
}

TEST_F(RayHeadTest, TheClientReportsTransportErrorsAsGoWouldWordThem) {
  DashboardClient client = dashboard("nosuch");
  auto info = client.getJobInfo("x");
  ASSERT_FALSE(info.has_value());
  EXPECT_TRUE(isInternalError(info.error()));
  EXPECT_EQ(info.error().message,
            "Get \"http://nosuch-head-svc.default.svc.cluster.local:8265/api/jobs/x\": dial tcp: "
            "lookup nosuch-head-svc.default.svc.cluster.local: no such host");
}

TEST_F(RayHeadTest, WorkersWaitForGcsThenRun) {
  create(kServices, headService("demo"));
  create(kPods, workerPod("demo", "demo-worker-a"));
  ex.advance(seconds(12));
  Json worker = get(kPods, "default", "demo-worker-a");
  EXPECT_EQ(worker["status"]["phase"], "Pending");
  EXPECT_THAT(printed("demo-worker-a"),
              ElementsAre("0 seconds elapsed: Waiting for GCS to be ready.",
                          "5 seconds elapsed: Waiting for GCS to be ready.",
                          "10 seconds elapsed: Waiting for GCS to be ready."));
  create(kPods, headPod("demo"));
  ASSERT_TRUE(
      ex.runUntil([&] { return isPodReady(get(kPods, "default", "demo-worker-a")); }, seconds(30)));
  EXPECT_EQ(printed("demo-worker-a").back(), "GCS is ready.");
  ex.advance(seconds(60));
  worker = get(kPods, "default", "demo-worker-a");
  EXPECT_EQ(worker["status"]["phase"], "Running");
  EXPECT_EQ(worker["status"]["containerStatuses"][0]["restartCount"], 0);
}

TEST_F(RayHeadTest, AHeadPodThatIsDeletedLosesItsJobTable) {
  Json head = startHead("demo");
  DashboardClient client = dashboard("demo");
  ASSERT_TRUE(client.submitJobRequest(request("job-1", "sleep 1000")).has_value());
  ex.advance(seconds(2));
  ASSERT_EQ(client.getJobInfo("job-1")->jobStatus, "RUNNING");

  ASSERT_TRUE(server->deleteObject(kPods, "default", meta::name(head)).has_value());
  ASSERT_TRUE(
      ex.runUntil([&] { return get(kPods, "default", meta::name(head)).is_null(); }, seconds(60)));
  // Nothing listens any more.
  auto unreachable = client.getJobInfo("job-1");
  ASSERT_FALSE(unreachable.has_value());
  EXPECT_TRUE(isInternalError(unreachable.error()));

  startHead("demo");  // the RayCluster controller would recreate it
  auto lost = client.getJobInfo("job-1");
  ASSERT_FALSE(lost.has_value());
  EXPECT_TRUE(isBadRequest(lost.error()));
  EXPECT_TRUE(client.listJobs()->empty());
}

// A head container that crashes once, 20 s after its first start (as Ray's head does when GCS
// dies): the kubelet restarts it in the same pod.
class CrashingHead final : public Process {
 public:
  void start(std::shared_ptr<ProcessContext> context) override {
    head_ = rayHead()();
    head_->start(context);
    if (context->restartCount() == 0) {
      std::weak_ptr<ProcessContext> weak = context;
      context->after(seconds(20), [weak] {
        if (auto c = weak.lock()) c->exit(1);
      });
    }
  }
  void stop() override { head_->stop(); }

 private:
  std::unique_ptr<Process> head_;
};

TEST_F(RayHeadTest, AHeadContainerThatRestartsLosesItsJobTable) {
  cluster->behaviors().onCommand("ray start --head",
                                 [] { return std::make_unique<CrashingHead>(); });
  Json head = startHead("demo");
  DashboardClient client = dashboard("demo");
  ASSERT_TRUE(client.submitJobRequest(request("job-1", "sleep 1000")).has_value());
  ASSERT_TRUE(ex.runUntil(
      [&] {
        Json pod = get(kPods, "default", meta::name(head));
        return pod["status"]["containerStatuses"][0].value("restartCount", 0) == 1 &&
               isPodReady(pod);
      },
      seconds(60)));
  ASSERT_TRUE(ex.runUntil(
      [&] {
        auto info = client.getJobInfo("job-1");
        return !info && isBadRequest(info.error());
      },
      seconds(10)));
  EXPECT_TRUE(client.listJobs()->empty());
  // The restarted head takes new submissions, the same id included.
  EXPECT_TRUE(client.submitJobRequest(request("job-1", "true")).has_value());
}

}  // namespace
}  // namespace fakekube::ray::testing
