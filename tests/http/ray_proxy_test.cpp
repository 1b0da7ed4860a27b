// The simulated Ray head behind `fakekube serve`, reached from outside through the API server's
// service and pod proxy: the real kubectl's `get --raw` and `create --raw`, and the dashboard
// client over the REST client (as the operator's --use-kubernetes-proxy) and over plain HTTP.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "controllers/ray/dashboard_client.h"
#include "controllers/ray/internal/submitter_command.h"
#include "fakekube/client/kubeconfig.h"
#include "fakekube/client/rest_client.h"
#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {
namespace {

using ::testing::HasSubstr;
using Json = fakekube::Json;

// A head pod and Service in the shape KubeRay creates.
constexpr const char* kHead = R"yaml(
apiVersion: v1
kind: Service
metadata: {name: demo-head-svc}
spec:
  clusterIP: None
  selector: {ray.io/cluster: demo, ray.io/node-type: head}
  ports:
  - {name: client, port: 10001, targetPort: 10001}
  - {name: dashboard, port: 8265, targetPort: 8265}
  - {name: gcs-server, port: 6379, targetPort: 6379}
---
apiVersion: v1
kind: Pod
metadata:
  name: demo-head
  labels: {ray.io/cluster: demo, ray.io/node-type: head, ray.io/group: headgroup}
spec:
  containers:
  - name: ray-head
    image: rayproject/ray:2.46.0
    command: [/bin/bash, -c, --]
    args: ["ulimit -n 65536; ray start --head --block --dashboard-host=0.0.0.0 --num-cpus=1 "]
    ports:
    - {containerPort: 6379, name: gcs-server}
    - {containerPort: 8265, name: dashboard}
)yaml";

constexpr const char* kJobsPath =
    "/api/v1/namespaces/default/services/demo-head-svc:8265/proxy/api/jobs/";

// Bounds a wait for the server, which runs on the real clock.
template <class Predicate>
bool within(std::chrono::seconds limit, Predicate predicate) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!predicate()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
  }
  return true;
}

class RayProxyTest : public KubectlTest {
 protected:
  void SetUp() override {
    KubectlTest::SetUp();
    if (IsSkipped()) return;
    ok({"apply", "-f", "-"}, kHead);
    ok({"wait", "--for=condition=Ready", "pod/demo-head", "--timeout=60s"});
    // The cluster's cache follows the server: the proxy answers once it sees the Ready pod.
    ASSERT_TRUE(within(std::chrono::seconds(30), [&] {
      return kubectl({"get", "--raw",
                      "/api/v1/namespaces/default/services/demo-head-svc:dashboard/proxy/api/"
                      "gcs_healthz"})
                 .out == "success";
    }));
    auto created = serve->restClient();
    ASSERT_TRUE(created.has_value()) << created.error().message;
    rest = std::move(*created);
  }

  std::unique_ptr<RestClient> rest;
};

TEST_F(RayProxyTest, KubectlGetRawListsTheJobsThroughTheServiceProxy) {
  ray::DashboardClient client(ray::kubernetesProxyTransport(*rest, "default", "demo-head-svc"));
  ray::RayJobRequest request;
  request.submissionId = "e2e-job";
  request.entrypoint = "echo hello from ray";
  auto submitted = client.submitJobRequest(request);
  ASSERT_TRUE(submitted.has_value()) << submitted.error().str();
  EXPECT_EQ(*submitted, "e2e-job");

  ASSERT_TRUE(within(std::chrono::seconds(30), [&] {
    auto info = client.getJobInfo("e2e-job");
    return info && info->jobStatus == "SUCCEEDED";
  }));
  Json jobs = Json::parse(ok({"get", "--raw", kJobsPath}), nullptr, false);
  ASSERT_TRUE(jobs.is_array());
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0]["submission_id"], "e2e-job");
  EXPECT_EQ(jobs[0]["status"], "SUCCEEDED");
  EXPECT_EQ(ok({"get", "--raw", std::string(kJobsPath) + "e2e-job/logs"}),
            R"({"logs":"hello from ray\n"})");
  // The pod proxy reaches the same head.
  EXPECT_EQ(ok({"get", "--raw",
                "/api/v1/namespaces/default/pods/demo-head:dashboard/proxy/api/gcs_healthz"}),
            "success");

  // POST through kubectl: the same submission id again is Ray's 500.
  ProcessResult again = kubectl({"create", "--raw", kJobsPath, "-f", "-"},
                                R"({"entrypoint": "true", "submission_id": "e2e-job"})");
  EXPECT_NE(again.exitCode, 0);
  EXPECT_THAT(again.err, HasSubstr("Please use a different submission_id"));
  auto duplicate = client.submitJobRequest(request);
  ASSERT_FALSE(duplicate.has_value());
  EXPECT_TRUE(isAlreadyExists(duplicate.error()));
}

TEST_F(RayProxyTest, TheDashboardClientOverPlainHttpAndTheProxyFactory) {
  ray::DashboardClient http(ray::httpTransport(
      serve->url() + "/api/v1/namespaces/default/services/demo-head-svc:dashboard/proxy"));
  ray::RayJobRequest request;
  request.submissionId = "long";
  request.entrypoint = "sleep 600";
  ASSERT_TRUE(http.submitJobRequest(request).has_value());
  ASSERT_TRUE(http.stopJob("long").has_value());
  EXPECT_EQ(http.getJobInfo("long")->jobStatus, "STOPPED");

  Json rayCluster = {{"metadata", {{"name", "demo"}, {"namespace", "default"}}}};
  auto viaFactory = ray::kubernetesProxyDashboardClients(*rest)(rayCluster, "ignored:8265");
  ASSERT_TRUE(viaFactory.has_value());
  auto jobs = (*viaFactory)->listJobs();
  ASSERT_TRUE(jobs.has_value()) << jobs.error().str();
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].jobStatus, "STOPPED");
  auto missing = (*viaFactory)->getJobInfo("nosuch");
  ASSERT_FALSE(missing.has_value());
  EXPECT_TRUE(isBadRequest(missing.error()));
}

TEST_F(RayProxyTest, ASubmitterJobWithKubeRaysScriptCompletesOnRealThreads) {
  Json rayJob = {{"spec", {{"entrypoint", "python /home/ray/samples/sample_code.py"}}},
                 {"status",
                  {{"jobId", "demo-job-fghij"},
                   {"dashboardURL", "demo-head-svc.default.svc.cluster.local:8265"}}}};
  auto tokens = ray::buildJobSubmitCommand(rayJob, "K8sJobMode");
  ASSERT_TRUE(tokens.has_value());
  Json job = {{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata", {{"name", "demo-job"}}},
              {"spec",
               {{"backoffLimit", 2},
                {"template",
                 {{"spec",
                   {{"restartPolicy", "Never"},
                    {"containers",
                     Json::array({{{"name", "ray-job-submitter"},
                                   {"image", "rayproject/ray:2.46.0"},
                                   {"command", Json::array({"/bin/bash", "-ce", "--"})},
                                   {"args", Json::array({ray::joinCommand(*tokens)})}}})}}}}}}}};
  ok({"apply", "-f", "-"}, job.dump());
  EXPECT_EQ(ok({"wait", "--for=condition=complete", "job/demo-job", "--timeout=60s"}),
            "job.batch/demo-job condition met\n");
  Json info = Json::parse(ok({"get", "--raw", std::string(kJobsPath) + "demo-job-fghij"}));
  EXPECT_EQ(info["status"], "SUCCEEDED");
  EXPECT_EQ(info["entrypoint"], "python /home/ray/samples/sample_code.py");
}

TEST_F(RayProxyTest, AServiceWithoutReadyPodsIsServiceUnavailable) {
  ok({"create", "service", "clusterip", "lonely", "--tcp=80:8080"});
  ProcessResult r =
      kubectl({"get", "--raw", "/api/v1/namespaces/default/services/lonely:80/proxy/"});
  EXPECT_NE(r.exitCode, 0);
  EXPECT_THAT(r.err, HasSubstr("ServiceUnavailable"));
  EXPECT_THAT(r.err, HasSubstr("no endpoints available for service"));
}

}  // namespace
}  // namespace fakekube::e2e
