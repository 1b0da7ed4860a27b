// buildJobSubmitCommand produces KubeRay's BuildJobSubmitCommand tokens exactly (the cases of
// upstream's common/job_test.go), and the one-string argument the submitter container gets.
#include "controllers/ray/internal/submitter_command.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fakekube/api/status.h"

namespace fakekube::ray {
namespace {

// rayJobTemplate() of upstream's job_test.go.
Json rayJobTemplate() {
  return {{"apiVersion", "ray.io/v1"},
          {"kind", "RayJob"},
          {"metadata", {{"name", "test"}, {"namespace", "default"}}},
          {"spec",
           {{"runtimeEnvYAML", "test: test"},
            {"metadata", {{"testKey", "testValue"}}},
            {"rayClusterSpec", {{"rayVersion", "2.6.0"}}},
            {"entrypoint", "echo no quote 'single quote' \"double quote\""},
            {"entrypointNumCpus", 1},
            {"entrypointNumGpus", 0.5},
            {"entrypointResources", R"({"Custom_1": 1, "Custom_2": 5.5})"}}},
          {"status", {{"dashboardURL", "http://127.0.0.1:8265"}, {"jobId", "testJobId"}}}};
}

const std::string kHealth =
    "python -c \"import urllib.request; "
    "r=urllib.request.urlopen('http://127.0.0.1:8265/api/gcs_healthz', timeout=10); exit(0 if "
    "b'success' in r.read() else 1)\"";

TEST(BuildJobSubmitCommandTest, K8sJobModeMatchesUpstreamTokenForToken) {
  // TestBuildJobSubmitCommandWithK8sJobMode.
  std::vector<std::string> expected = {
      "until",
      kHealth,
      ">/dev/null",
      "2>&1",
      ";",
      "do",
      "echo",
      "\"Waiting for Ray Dashboard GCS to become healthy at http://127.0.0.1:8265 ...\"",
      ";",
      "sleep",
      "2",
      ";",
      "done",
      ";",
      "if",
      "!",
      "ray",
      "job",
      "status",
      "--address",
      "http://127.0.0.1:8265",
      "testJobId",
      ">/dev/null",
      "2>&1",
      ";",
      "then",
      "ray",
      "job",
      "submit",
      "--address",
      "http://127.0.0.1:8265",
      "--no-wait",
      "--runtime-env-json",
      R"("{\"test\":\"test\"}")",
      "--metadata-json",
      R"("{\"testKey\":\"testValue\"}")",
      "--submission-id",
      "testJobId",
      "--entrypoint-num-cpus",
      "1.000000",
      "--entrypoint-num-gpus",
      "0.500000",
      "--entrypoint-resources",
      R"("{\"Custom_1\": 1, \"Custom_2\": 5.5}")",
      "--",
      "echo no quote 'single quote' \"double quote\"",
      ";",
      "fi",
      ";",
      "ray",
      "job",
      "logs",
      "--address",
      "http://127.0.0.1:8265",
      "--follow",
      "testJobId"};
  auto command = buildJobSubmitCommand(rayJobTemplate(), "K8sJobMode");
  ASSERT_TRUE(command.has_value()) << command.error().str();
  EXPECT_EQ(*command, expected);
}

TEST(BuildJobSubmitCommandTest, SidecarModeProbesLocalhostAndSkipsTheStatusCheck) {
  // TestBuildJobSubmitCommandWithSidecarMode.
  Json job = rayJobTemplate();
  job["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"] =
      Json::array({{{"ports", Json::array({{{"name", "dashboard"}, {"containerPort", 8265}}})}}});
  auto command = buildJobSubmitCommand(job, "SidecarMode");
  ASSERT_TRUE(command.has_value());
  std::vector<std::string> expected = {
      "until",
      "python -c \"import urllib.request; "
      "r=urllib.request.urlopen('http://localhost:8265/api/gcs_healthz', timeout=10); exit(0 if "
      "b'success' in r.read() else 1)\"",
      ">/dev/null",
      "2>&1",
      ";",
      "do",
      "echo",
      "\"Waiting for Ray Dashboard GCS to become healthy at http://127.0.0.1:8265 ...\"",
      ";",
      "sleep",
      "2",
      ";",
      "done",
      ";",
      "ray",
      "job",
      "submit",
      "--address",
      "http://127.0.0.1:8265",
      "--runtime-env-json",
      R"("{\"test\":\"test\"}")",
      "--metadata-json",
      R"("{\"testKey\":\"testValue\"}")",
      "--submission-id",
      "testJobId",
      "--entrypoint-num-cpus",
      "1.000000",
      "--entrypoint-num-gpus",
      "0.500000",
      "--entrypoint-resources",
      R"("{\"Custom_1\": 1, \"Custom_2\": 5.5}")",
      "--",
      "echo no quote 'single quote' \"double quote\"",
      ";"};
  EXPECT_EQ(*command, expected);
}

TEST(BuildJobSubmitCommandTest, SidecarModeUsesTheHeadsDashboardPortName) {
  Json job = rayJobTemplate();
  job["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"] =
      Json::array({{{"ports", Json::array({{{"name", "dashboard"}, {"containerPort", 18265}}})}}});
  auto command = buildJobSubmitCommand(job, "SidecarMode");
  ASSERT_TRUE(command.has_value());
  EXPECT_NE((*command)[1].find("localhost:18265/api/gcs_healthz"), std::string::npos);
  EXPECT_EQ((*command)[18], "http://127.0.0.1:18265");
}

TEST(BuildJobSubmitCommandTest, AMinimalRayJobJoinsIntoTheSubmittersOneArgument) {
  Json job = {{"spec", {{"entrypoint", "  python /home/ray/samples/sample_code.py "}}},
              {"status",
               {{"dashboardURL", "demo-raycluster-abcde-head-svc.default.svc.cluster.local:8265"},
                {"jobId", "demo-job-fghij"}}}};
  auto command = buildJobSubmitCommand(job, "K8sJobMode");
  ASSERT_TRUE(command.has_value());
  const std::string addr = "http://demo-raycluster-abcde-head-svc.default.svc.cluster.local:8265";
  EXPECT_EQ(joinCommand(*command),
            "until python -c \"import urllib.request; r=urllib.request.urlopen('" + addr +
                "/api/gcs_healthz', timeout=10); exit(0 if b'success' in r.read() else 1)\" "
                ">/dev/null 2>&1 ; do echo \"Waiting for Ray Dashboard GCS to become healthy at " +
                addr + " ...\" ; sleep 2 ; done ; if ! ray job status --address " + addr +
                " demo-job-fghij >/dev/null 2>&1 ; then ray job submit --address " + addr +
                " --no-wait --submission-id demo-job-fghij -- python "
                "/home/ray/samples/sample_code.py ; fi ; ray job logs --address " +
                addr + " --follow demo-job-fghij");
}

TEST(BuildJobSubmitCommandTest, MetadataNeedsRay260AndOtherModesAreRefused) {
  Json job = rayJobTemplate();
  job["spec"]["rayClusterSpec"]["rayVersion"] = "2.5.0";
  auto old = buildJobSubmitCommand(job, "K8sJobMode");
  ASSERT_FALSE(old.has_value());
  EXPECT_EQ(old.error().message,
            "the Ray version must be at least 2.6.0 to use the metadata field");
  job["spec"]["rayClusterSpec"]["rayVersion"] = "2.41";
  EXPECT_TRUE(buildJobSubmitCommand(job, "K8sJobMode").has_value());
  auto http = buildJobSubmitCommand(job, "HTTPMode");
  ASSERT_FALSE(http.has_value());
  EXPECT_EQ(http.error().message, "unsupported submission mode for job submit command: HTTPMode");
}

TEST(BuildJobSubmitCommandTest, RuntimeEnvYamlBecomesSortedGoJson) {
  Json job = rayJobTemplate();
  job["spec"]["runtimeEnvYAML"] = "pip: [\"requests==2.26.0\"]\nenv_vars:\n  A: \"<&>\"\n";
  auto command = buildJobSubmitCommand(job, "K8sJobMode");
  ASSERT_TRUE(command.has_value());
  EXPECT_EQ((*command)[33],
            R"("{\"env_vars\":{\"A\":\"\\u003c\\u0026\\u003e\"},\"pip\":[\"requests==2.26.0\"]}")");
  job["spec"]["runtimeEnvYAML"] = "a: [unclosed";
  EXPECT_FALSE(buildJobSubmitCommand(job, "K8sJobMode").has_value());
}

}  // namespace
}  // namespace fakekube::ray
