// The RayJob controller end to end: `kubectl apply` of KubeRay's RayJob samples against `fakekube
// serve` (real threads, real clock), every scenario in both places the operator runs:
//   OperatorInsideServe    the operator in serve's process, reaching each head's dashboard
//                          through the cluster's network
//   OperatorOutOfProcess   `fakekube operator --kubeconfig` in a second process against
//                          `fakekube serve --controllers <the cluster's, no Ray ones>`: informers
//                          over REST, dashboards through the API server's service proxy
// Timing: entrypoints are the simulation's (1 s for the sample's python, `sleep N`), TTLs and
// deadlines a few seconds; every wait is bounded and waits on a watch (`kubectl wait`, a RestClient
// watch), nothing sleeps.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "controllers/ray/custom_resource_definitions.h"
#include "fakekube/api/json.h"
#include "fakekube/client/kubeconfig.h"
#include "fakekube/client/rest_client.h"
#include "fakekube/sim/clock.h"
#include "tests/http/ray_operator_fixture.h"
#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {
namespace {

using ray::kRayClusters;
using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "the manifest has no \"" << from << "\"";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

class RayJobServeTest : public RayOperatorServeTest {
 protected:
  void SetUp() override {
    RayOperatorServeTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    auto created = serve->restClient();
    ASSERT_TRUE(created.has_value()) << created.error().message;
    rest = std::move(*created);
  }

  Json rayJob(const std::string& name) {
    return Json::parse(ok({"get", "rayjob", name, "-o", "json"}));
  }
  void waitFor(const std::string& jsonpath, const std::string& object, const std::string& timeout) {
    ok({"wait", "--for=jsonpath=" + jsonpath, object, "--timeout=" + timeout});
  }
  bool rayClusterExists(const std::string& name) {
    return rest->get(kRayClusters, "default", name).has_value();
  }
  // Watches RayCluster `name` from revision `after` until an event satisfies `wanted` (true) or
  // `limit` of wall time passes (false). Blocks on the stream: the server pushes each write.
  bool awaitRayClusterEvent(const std::string& name, const std::string& after,
                            std::chrono::seconds limit,
                            const std::function<bool(const WatchEvent&)>& wanted) {
    return awaitWatchEvent(kRayClusters, "metadata.name=" + name, after, limit, wanted);
  }
  // The same for any resource in "default" and a field selector.
  bool awaitWatchEvent(const GroupVersionResource& gvr, const std::string& fieldSelector,
                       const std::string& after, std::chrono::seconds limit,
                       const std::function<bool(const WatchEvent&)>& wanted) {
    WatchOptions options;
    options.resourceVersion = after;
    options.fieldSelector = fieldSelector;
    auto watch = rest->watch(gvr, "default", options);
    EXPECT_TRUE(watch.has_value()) << watch.error().message;
    if (!watch) return false;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    bool found = false;
    while (!found && !(*watch)->ended()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left <= std::chrono::milliseconds::zero()) break;
      auto event = (*watch)->next(left);
      if (event && wanted(*event)) found = true;
    }
    (*watch)->stop();
    return found;
  }

  std::unique_ptr<RestClient> rest;
};

// config/samples/ray-job.sample.yaml: Complete / SUCCEEDED; the dashboard, through the API
// server's service proxy, lists the submission.
TEST_P(RayJobServeTest, TheRayJobSampleCompletes) {
  EXPECT_THAT(ok({"apply", "-f", "-"}, readManifest("ray-job.sample.yaml")),
              HasSubstr("rayjob.ray.io/rayjob-sample created"));
  waitFor("{.status.jobDeploymentStatus}=Complete", "rayjob/rayjob-sample", "120s");
  Json job = rayJob("rayjob-sample");
  EXPECT_EQ(job["status"]["jobStatus"], "SUCCEEDED");
  EXPECT_EQ(job["status"]["succeeded"], 1);
  const std::string cluster = job["status"]["rayClusterName"].get<std::string>();
  const std::string jobId = job["status"]["jobId"].get<std::string>();
  EXPECT_THAT(cluster, MatchesRegex("rayjob-sample-[a-z0-9]{5}"));
  // shutdownAfterJobFinishes is false: the cluster stays, and its dashboard answers.
  Json jobs = Json::parse(ok(
      {"get", "--raw",
       "/api/v1/namespaces/default/services/" + cluster + "-head-svc:dashboard/proxy/api/jobs/"}));
  ASSERT_TRUE(jobs.is_array());
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0]["submission_id"], jobId);
  EXPECT_EQ(jobs[0]["status"], "SUCCEEDED");
  EXPECT_EQ(jobs[0]["entrypoint"], "python /home/ray/samples/sample_code.py");
  // kubectl get rayjob prints KubeRay's columns.
  EXPECT_THAT(ok({"get", "rayjob", "rayjob-sample"}), HasSubstr("SUCCEEDED"));
}

// config/samples/ray-job.shutdown.yaml (ttlSecondsAfterFinished 5 instead of 10): the RayCluster
// is there until endTime + 5 s and gone after; the RayJob and the submitter Job stay. Everything
// is read after the fact, from the server's history, so a slow machine cannot make the cluster
// look deleted early: the watches replay from a revision taken before the apply, and the time of
// the deletion is the RayJob controller's DeletedRayCluster Event, on the clock that set endTime.
TEST_P(RayJobServeTest, TheShutdownSampleDeletesTheClusterAfterTheTtl) {
  constexpr seconds kTtl{5};
  auto before = rest->list(kRayClusters, "default");
  ASSERT_TRUE(before.has_value()) << before.error().message;
  const std::string start = (*before)["metadata"]["resourceVersion"].get<std::string>();
  ok({"apply", "-f", "-"}, replaced(readManifest("ray-job.shutdown.yaml"),
                                    "ttlSecondsAfterFinished: 10", "ttlSecondsAfterFinished: 5"));
  waitFor("{.status.jobDeploymentStatus}=Complete", "rayjob/rayjob-sample-shutdown", "120s");
  Json job = rayJob("rayjob-sample-shutdown");
  const std::string cluster = job["status"]["rayClusterName"].get<std::string>();
  TimePoint endTime;
  ASSERT_TRUE(parseRfc3339(job["status"].value("endTime", ""), &endTime)) << job.dump();
  // The cluster's history: created, then deleted.
  bool added = false;
  ASSERT_TRUE(awaitRayClusterEvent(cluster, start, seconds(60), [&](const WatchEvent& event) {
    if (event.type == WatchEventType::Added) added = true;
    return event.type == WatchEventType::Deleted;
  })) << "the RayCluster was not deleted";
  EXPECT_TRUE(added);
  // When: the controller records the Event right after its delete call. endTime has whole
  // seconds (the real end is in [endTime, endTime + 1 s)) and the Event's eventTime
  // microseconds, so a deletion at or after the real end + TTL stamps no earlier than
  // endTime + TTL.
  std::string deletedAt;
  ASSERT_TRUE(awaitWatchEvent(kEvents,
                              "involvedObject.name=rayjob-sample-shutdown,reason=DeletedRayCluster",
                              start, seconds(30),
                              [&](const WatchEvent& event) {
                                if (event.type != WatchEventType::Added || !event.object)
                                  return false;
                                // KubeRay records events.k8s.io/v1 Events.
                                deletedAt = event.object->value("eventTime", "");
                                return true;
                              }))
      << "no DeletedRayCluster Event";
  TimePoint deletedTime;
  ASSERT_TRUE(parseRfc3339(deletedAt, &deletedTime)) << deletedAt;
  EXPECT_GE(deletedTime, endTime + kTtl)
      << "deleted at " << deletedAt << ", endTime " << job["status"].value("endTime", "");
  EXPECT_EQ(ok({"get", "job", "rayjob-sample-shutdown", "-o", "jsonpath={.status.succeeded}"}),
            "1");
  EXPECT_EQ(rayJob("rayjob-sample-shutdown")["status"]["jobDeploymentStatus"], "Complete");
}

// A 48-character name: ValidationFailed.
TEST_P(RayJobServeTest, A48CharacterNameIsValidationFailed) {
  const std::string name(48, 'r');
  ok({"apply", "-f", "-"}, replaced(readManifest("ray-job.shutdown.yaml"),
                                    "name: rayjob-sample-shutdown", "name: " + name));
  waitFor("{.status.jobDeploymentStatus}=ValidationFailed", "rayjob/" + name, "30s");
  Json job = rayJob(name);
  EXPECT_EQ(job["status"]["reason"], "ValidationFailed");
  EXPECT_EQ(job["status"]["message"],
            "The RayJob metadata is invalid: RayJob name should be no more than 47 characters");
}

// Deleting a Running RayJob: its finalizer stops the Ray job (a finalizer of the test's holds the
// RayCluster, so its dashboard can still be asked), the RayJob goes, and the garbage collector
// removes the RayCluster and the submitter Job.
TEST_P(RayJobServeTest, DeletingARunningRayJobStopsItAndCleansUp) {
  ok({"apply", "-f", "-"},
     replaced(readManifest("ray-job.shutdown.yaml"),
              "entrypoint: python /home/ray/samples/sample_code.py", "entrypoint: sleep 600"));
  waitFor("{.status.jobStatus}=RUNNING", "rayjob/rayjob-sample-shutdown", "120s");
  Json job = rayJob("rayjob-sample-shutdown");
  EXPECT_EQ(job["metadata"]["finalizers"][0], "ray.io/rayjob-finalizer");
  const std::string cluster = job["status"]["rayClusterName"].get<std::string>();
  const std::string jobId = job["status"]["jobId"].get<std::string>();
  const Json held =
      Json::parse(ok({"patch", "raycluster", cluster, "--type=merge", "-p",
                      R"({"metadata":{"finalizers":["e2e.fakekube.io/hold"]}})", "-o", "json"}));
  const std::string heldAt = held["metadata"]["resourceVersion"].get<std::string>();

  ok({"delete", "rayjob", "rayjob-sample-shutdown", "--timeout=30s"});
  EXPECT_NE(kubectl({"get", "rayjob", "rayjob-sample-shutdown"}).exitCode, 0);
  Json info = Json::parse(ok({"get", "--raw",
                              "/api/v1/namespaces/default/services/" + cluster +
                                  "-head-svc:dashboard/proxy/api/jobs/" + jobId}));
  EXPECT_EQ(info["status"], "STOPPED");
  // The garbage collector has asked for the RayCluster's deletion; the test's finalizer held it.
  ASSERT_TRUE(awaitRayClusterEvent(cluster, heldAt, seconds(30), [](const WatchEvent& event) {
    return (*event.object)["metadata"].contains("deletionTimestamp");
  }));
  ok({"patch", "raycluster", cluster, "--type=merge", "-p", R"({"metadata":{"finalizers":null}})"});
  ok({"wait", "--for=delete", "raycluster/" + cluster, "job/rayjob-sample-shutdown",
      "--timeout=60s"});
}

// A failing entrypoint with backoffLimit 1: two attempts, then Failed/AppFailed with failed 2.
// The submitter Job's own backoffLimit is 1 (submitterConfig) instead of 2, which saves a 20 s
// pod backoff per attempt. Not 0: the Job would then fail within a second of the Ray job, and a
// round that sees the failed Job before it has seen the Ray job FAILED calls it
// SubmissionFailed, as upstream's would; the 10 s backoff before the second pod leaves rounds
// enough to see FAILED first.
TEST_P(RayJobServeTest, AFailingEntrypointWithBackoffLimit1EndsAppFailed) {
  std::string manifest =
      replaced(readManifest("ray-job.shutdown.yaml"),
               "entrypoint: python /home/ray/samples/sample_code.py", "entrypoint: exit 1");
  manifest = replaced(manifest, "shutdownAfterJobFinishes: true",
                      "shutdownAfterJobFinishes: true\n  backoffLimit: 1\n  submitterConfig:\n"
                      "    backoffLimit: 1");
  ok({"apply", "-f", "-"}, manifest);
  waitFor("{.status.jobDeploymentStatus}=Failed", "rayjob/rayjob-sample-shutdown", "150s");
  Json job = rayJob("rayjob-sample-shutdown");
  EXPECT_EQ(job["status"]["reason"], "AppFailed");
  EXPECT_EQ(job["status"]["jobStatus"], "FAILED");
  EXPECT_EQ(job["status"]["failed"], 2);
  EXPECT_EQ(job["status"].value("succeeded", 0), 0);
}

// activeDeadlineSeconds 3: the cluster is not ready in time -> Failed/DeadlineExceeded.
TEST_P(RayJobServeTest, ADeadlineEndsDeadlineExceeded) {
  ok({"apply", "-f", "-"},
     replaced(readManifest("ray-job.shutdown.yaml"), "shutdownAfterJobFinishes: true",
              "shutdownAfterJobFinishes: true\n  activeDeadlineSeconds: 3"));
  waitFor("{.status.jobDeploymentStatus}=Failed", "rayjob/rayjob-sample-shutdown", "60s");
  Json job = rayJob("rayjob-sample-shutdown");
  EXPECT_EQ(job["status"]["reason"], "DeadlineExceeded");
  EXPECT_THAT(job["status"].value("message", ""),
              HasSubstr("The RayJob has passed the activeDeadlineSeconds"));
}

INSTANTIATE_TEST_SUITE_P(BothPlacements, RayJobServeTest,
                         ::testing::Values(OperatorPlacement::InsideServe,
                                           OperatorPlacement::OutOfProcess),
                         operatorPlacementName);

}  // namespace
}  // namespace fakekube::e2e
