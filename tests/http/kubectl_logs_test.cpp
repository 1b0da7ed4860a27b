// `kubectl logs` against `fakekube serve`: a plain container's simulated line, containers of a
// multi-container pod, --tail, --timestamps, --previous after a restart, deploy/ and job/
// resolved by their selectors, and `logs -f` of a RayJob's submitter ending when it ends.
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

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

class KubectlLogsTest : public KubectlTest {
 protected:
  // kubectl bounded by `seconds` (coreutils' timeout: exit 124 when it ran out).
  ProcessResult bounded(int seconds, const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"/usr/bin/timeout", std::to_string(seconds)};
    for (auto& a : kubectlArgv(args)) argv.push_back(std::move(a));
    return runProcess(argv);
  }
};

TEST_F(KubectlLogsTest, LogsOfPlainContainers) {
  ok({"run", "web", "--image=nginx:1.27"});
  ok({"wait", "--for=condition=Ready", "pod/web", "--timeout=60s"});
  const std::string line =
      "fakekube: simulated container \"web\" (image nginx:1.27): runs until stopped\n";
  EXPECT_EQ(ok({"logs", "web"}), line);
  EXPECT_EQ(ok({"logs", "web", "--tail=1"}), line);
  EXPECT_EQ(ok({"logs", "web", "--tail=0"}), "");
  EXPECT_THAT(ok({"logs", "web", "--timestamps"}),
              MatchesRegex("20[0-9-]+T[0-9:]+\\.[0-9]{9}Z fakekube: simulated container .*\n"));
  EXPECT_EQ(ok({"logs", "web", "--since=1h"}), line);
  EXPECT_EQ(ok({"logs", "web", "--limit-bytes=9"}), "fakekube:");

  ProcessResult previous = kubectl({"logs", "web", "--previous"});
  EXPECT_NE(previous.exitCode, 0);
  EXPECT_THAT(previous.err,
              HasSubstr("previous terminated container \"web\" in pod \"web\" not found"));
  ProcessResult unknown = kubectl({"logs", "web", "-c", "nope"});
  EXPECT_NE(unknown.exitCode, 0);
  EXPECT_THAT(unknown.err, HasSubstr("container nope is not valid for pod web"));
  ProcessResult missing = kubectl({"logs", "nosuch"});
  EXPECT_NE(missing.exitCode, 0);
  EXPECT_THAT(missing.err, HasSubstr("pods \"nosuch\" not found"));

  // Two containers: kubectl picks the first and says so; -c picks one.
  ok({"apply", "-f", "-"}, R"({"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "two"},
       "spec": {"containers": [{"name": "a", "image": "nginx:1.27"},
                               {"name": "b", "image": "redis:7", "command": ["redis-server"]}]}})");
  ok({"wait", "--for=condition=Ready", "pod/two", "--timeout=60s"});
  ProcessResult first = kubectl({"logs", "two"});
  EXPECT_EQ(first.exitCode, 0) << first.err;
  EXPECT_THAT(first.out, HasSubstr("simulated container \"a\""));
  EXPECT_THAT(first.err, HasSubstr("Defaulted container \"a\" out of: a, b"));
  EXPECT_EQ(ok({"logs", "two", "-c", "b"}),
            "fakekube: simulated container \"b\" (image redis:7, command redis-server): runs "
            "until stopped\n");
  EXPECT_THAT(ok({"logs", "two", "--all-containers"}), HasSubstr("simulated container \"b\""));

  // deploy/NAME: kubectl finds a pod by the Deployment's selector.
  ok({"create", "deployment", "api", "--image=httpd:2.4", "--replicas=2"});
  ok({"rollout", "status", "deployment/api", "--timeout=60s"});
  EXPECT_EQ(ok({"logs", "deploy/api"}),
            "fakekube: simulated container \"httpd\" (image httpd:2.4): runs until stopped\n");
}

// A container that exits and restarts: --previous reads the instance before. (A container named
// ray-job-submitter runs its `bash -c` script in the Ray simulation's shell.)
TEST_F(KubectlLogsTest, PreviousReadsTheInstanceBeforeTheRestart) {
  ok({"apply", "-f", "-"}, R"({"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "crash"},
       "spec": {"restartPolicy": "Always",
                "containers": [{"name": "ray-job-submitter", "image": "rayproject/ray:2.46.0",
                                "command": ["bash", "-c", "echo attempt; exit 3"]}]}})");
  ok({"wait", "--for=jsonpath={.status.containerStatuses[0].restartCount}=1", "pod/crash",
      "--timeout=60s"});
  EXPECT_EQ(ok({"logs", "crash", "--previous"}), "attempt\n");
  EXPECT_EQ(ok({"logs", "crash"}), "attempt\n");
}

// The RayJob sample's submitter: `kubectl logs -f job/NAME` prints what Ray's CLI prints and
// returns when the submitter's container ends.
TEST_F(KubectlLogsTest, FollowingTheSubmitterEndsWhenItsContainerEnds) {
  ok({"apply", "-f", "-"}, readManifest("ray-job.sample.yaml"));
  ok({"wait", "--for=jsonpath={.status.jobDeploymentStatus}=Running", "rayjob/rayjob-sample",
      "--timeout=120s"});
  // The submitter Job exists from Running on, its pod once the Job started; the pod's container
  // has started once it has an ID (which it keeps after it ends).
  ok({"wait", "--for=jsonpath={.status.startTime}", "job/rayjob-sample", "--timeout=60s"});
  ok({"wait", "--for=jsonpath={.status.containerStatuses[0].containerID}", "pod", "-l",
      "batch.kubernetes.io/job-name=rayjob-sample", "--timeout=60s"});
  ProcessResult followed = bounded(120, {"logs", "-f", "job/rayjob-sample"});
  ASSERT_EQ(followed.exitCode, 0) << followed.err;
  const std::string jobId =
      Json::parse(ok({"get", "rayjob", "rayjob-sample", "-o", "json"}))["status"]["jobId"];
  EXPECT_THAT(followed.out, HasSubstr("Job submission server address: http://"));
  EXPECT_THAT(followed.out, HasSubstr("Job '" + jobId + "' submitted successfully"));
  EXPECT_THAT(followed.out, HasSubstr("Job '" + jobId + "' succeeded"));
  // KubeRay submits with --no-wait, then follows with `ray job logs --follow`.
  EXPECT_THAT(followed.out, HasSubstr("ray job logs " + jobId));
  ok({"wait", "--for=jsonpath={.status.jobDeploymentStatus}=Complete", "rayjob/rayjob-sample",
      "--timeout=120s"});

  // The head's log is what `ray start --head` prints.
  const std::string cluster =
      Json::parse(ok({"get", "rayjob", "rayjob-sample", "-o", "json"}))["status"]["rayClusterName"];
  const std::string head =
      ok({"get", "pods", "-l", "ray.io/cluster=" + cluster + ",ray.io/node-type=head", "-o",
          "jsonpath={.items[0].metadata.name}"});
  std::string headLog = ok({"logs", head, "-c", "ray-head"});
  EXPECT_THAT(headLog, HasSubstr("Ray runtime started."));
  EXPECT_THAT(headLog, ContainsRegex("view the dashboard at \n    10\\.244\\.[0-9.]+:8265"));
}

}  // namespace
}  // namespace fakekube::e2e
