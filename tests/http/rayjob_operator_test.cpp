// The RayJob controller end to end: `kubectl apply` of KubeRay's RayJob samples against `fakekube
// serve` (real threads, real clock; the operator in process reaching each head's dashboard
// through the cluster's network), and the API server's service proxy in front of the dashboard.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "fakekube/api/json.h"
#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

std::string readManifest(const std::string& name) {
  std::ifstream in(std::string(FAKEKUBE_SOURCE_DIR) + "/tests/http/manifests/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

class RayJobServeTest : public KubectlTest {
 protected:
  std::vector<std::string> serveArguments() override { return {"--nodes", "3"}; }
  Json rayJob(const std::string& name) {
    return Json::parse(ok({"get", "rayjob", name, "-o", "json"}));
  }
};

// config/samples/ray-job.sample.yaml: Complete / SUCCEEDED; the dashboard, through the API
// server's service proxy, lists the submission.
TEST_F(RayJobServeTest, TheRayJobSampleCompletes) {
  EXPECT_THAT(ok({"apply", "-f", "-"}, readManifest("ray-job.sample.yaml")),
              HasSubstr("rayjob.ray.io/rayjob-sample created"));
  ok({"wait", "--for=jsonpath={.status.jobDeploymentStatus}=Complete", "rayjob/rayjob-sample",
      "--timeout=120s"});
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

// config/samples/ray-job.shutdown.yaml: the RayCluster goes ttlSecondsAfterFinished (10 s) after
// endTime; the RayJob and the submitter Job stay.
TEST_F(RayJobServeTest, TheShutdownSampleDeletesTheClusterAfterTheTtl) {
  ok({"apply", "-f", "-"}, readManifest("ray-job.shutdown.yaml"));
  ok({"wait", "--for=jsonpath={.status.jobDeploymentStatus}=Complete",
      "rayjob/rayjob-sample-shutdown", "--timeout=120s"});
  const std::string cluster =
      rayJob("rayjob-sample-shutdown")["status"]["rayClusterName"].get<std::string>();
  EXPECT_THAT(ok({"get", "raycluster", cluster, "-o", "name"}), HasSubstr(cluster));
  ok({"wait", "--for=delete", "raycluster/" + cluster, "--timeout=60s"});
  EXPECT_EQ(ok({"get", "job", "rayjob-sample-shutdown", "-o", "jsonpath={.status.succeeded}"}),
            "1");
  EXPECT_EQ(rayJob("rayjob-sample-shutdown")["status"]["jobDeploymentStatus"], "Complete");
}

// A 48-character name: ValidationFailed.
TEST_F(RayJobServeTest, A48CharacterNameIsValidationFailed) {
  const std::string name(48, 'r');
  ok({"apply", "-f", "-"}, replaced(readManifest("ray-job.shutdown.yaml"),
                                    "name: rayjob-sample-shutdown", "name: " + name));
  ok({"wait", "--for=jsonpath={.status.jobDeploymentStatus}=ValidationFailed", "rayjob/" + name,
      "--timeout=30s"});
  EXPECT_EQ(rayJob(name)["status"]["reason"], "ValidationFailed");
}

// Deleting a Running RayJob: the finalizer stops the Ray job, goes, and the garbage collector
// removes the RayCluster and the submitter Job.
TEST_F(RayJobServeTest, DeletingARunningRayJobStopsItAndCleansUp) {
  ok({"apply", "-f", "-"},
     replaced(readManifest("ray-job.shutdown.yaml"),
              "entrypoint: python /home/ray/samples/sample_code.py", "entrypoint: sleep 600"));
  ok({"wait", "--for=jsonpath={.status.jobStatus}=RUNNING", "rayjob/rayjob-sample-shutdown",
      "--timeout=120s"});
  Json job = rayJob("rayjob-sample-shutdown");
  EXPECT_EQ(job["metadata"]["finalizers"][0], "ray.io/rayjob-finalizer");
  const std::string cluster = job["status"]["rayClusterName"].get<std::string>();
  ok({"delete", "rayjob", "rayjob-sample-shutdown", "--timeout=30s"});
  ok({"wait", "--for=delete", "raycluster/" + cluster, "job/rayjob-sample-shutdown",
      "--timeout=60s"});
}

// A failing entrypoint with backoffLimit 1: two attempts, then Failed/AppFailed with failed 2.
TEST_F(RayJobServeTest, AFailingEntrypointWithBackoffLimit1EndsAppFailed) {
  std::string manifest =
      replaced(readManifest("ray-job.shutdown.yaml"),
               "entrypoint: python /home/ray/samples/sample_code.py", "entrypoint: exit 1");
  manifest = replaced(manifest, "shutdownAfterJobFinishes: true",
                      "shutdownAfterJobFinishes: true\n  backoffLimit: 1");
  ok({"apply", "-f", "-"}, manifest);
  ok({"wait", "--for=jsonpath={.status.jobDeploymentStatus}=Failed",
      "rayjob/rayjob-sample-shutdown", "--timeout=240s"});
  Json job = rayJob("rayjob-sample-shutdown");
  EXPECT_EQ(job["status"]["reason"], "AppFailed");
  EXPECT_EQ(job["status"]["failed"], 2);
}

// activeDeadlineSeconds 5: the cluster is not ready in time -> Failed/DeadlineExceeded.
TEST_F(RayJobServeTest, ADeadlineEndsDeadlineExceeded) {
  ok({"apply", "-f", "-"},
     replaced(readManifest("ray-job.shutdown.yaml"), "shutdownAfterJobFinishes: true",
              "shutdownAfterJobFinishes: true\n  activeDeadlineSeconds: 5"));
  ok({"wait", "--for=jsonpath={.status.jobDeploymentStatus}=Failed",
      "rayjob/rayjob-sample-shutdown", "--timeout=60s"});
  EXPECT_EQ(rayJob("rayjob-sample-shutdown")["status"]["reason"], "DeadlineExceeded");
}

class RayJobOutOfProcessTest : public RayJobServeTest {
  std::vector<std::string> serveArguments() override {
    return {"--nodes", "3", "--controllers",
            "gc,namespace,node-lifecycle,scheduler,kubelet,job,ttl-after-finished,replicaset,"
            "deployment"};
  }
};

// The same sample with `fakekube operator` in a second process: it asks the dashboard through the
// API server's service proxy (useKubernetesProxy).
TEST_F(RayJobOutOfProcessTest, FakekubeOperatorCompletesTheSampleThroughTheServiceProxy) {
  ChildProcess rayOperator({FAKEKUBE_CLI, "operator", "--kubeconfig", serve->kubeconfig()});
  auto line = rayOperator.readLine();
  ASSERT_TRUE(line.has_value());
  ASSERT_THAT(*line, HasSubstr("fakekube operator: running against " + serve->url()));
  ok({"apply", "-f", "-"}, readManifest("ray-job.shutdown.yaml"));
  ok({"wait", "--for=jsonpath={.status.jobDeploymentStatus}=Complete",
      "rayjob/rayjob-sample-shutdown", "--timeout=120s"});
  Json job = rayJob("rayjob-sample-shutdown");
  EXPECT_EQ(job["status"]["jobStatus"], "SUCCEEDED");
  const std::string cluster = job["status"]["rayClusterName"].get<std::string>();
  ok({"wait", "--for=delete", "raycluster/" + cluster, "--timeout=60s"});
  rayOperator.signal(SIGTERM);
  EXPECT_EQ(rayOperator.wait(), 0);
}

}  // namespace
}  // namespace fakekube::e2e
