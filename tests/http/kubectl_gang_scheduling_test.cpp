// Gang scheduling over HTTP: `fakekube serve --batch-scheduler volcano` runs Volcano's API, the
// default Queue and the simulated Volcano scheduler, and starts the KubeRay operator with its
// Volcano plug-in. KubeRay's own ray-job.sample.yaml, with the label volcano.sh/queue-name added,
// completes, its pods scheduled by Volcano in the RayJob's PodGroup; kubectl prints Volcano's
// columns (docs/gang-scheduling.md).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

class GangSchedulingServeTest : public KubectlTest {
 protected:
  std::vector<std::string> serveArguments() override {
    return {"--nodes", "3", "--time-scale", "10", "--batch-scheduler", "volcano"};
  }
};

TEST_F(GangSchedulingServeTest, TheRayJobSampleWithAVolcanoQueueCompletesInARunningPodGroup) {
  std::string manifest = readManifest("ray-job.sample.yaml");
  const std::string name = "metadata:\n  name: rayjob-sample\n";
  const auto at = manifest.find(name);
  ASSERT_NE(at, std::string::npos);
  manifest.insert(at + name.size(), "  labels:\n    volcano.sh/queue-name: default\n");
  ok({"apply", "-f", "-"}, manifest);
  ok({"wait", "--for=jsonpath={.status.jobDeploymentStatus}=Complete", "rayjob/rayjob-sample",
      "--timeout=120s"});
  // The sample keeps its cluster: the group stays Running with its head and worker.
  ok({"wait", "--for=jsonpath={.status.phase}=Running", "podgroup/ray-rayjob-sample-pg",
      "--timeout=60s"});
  const std::string groups = ok({"get", "podgroups"});
  EXPECT_THAT(groups, MatchesRegex("NAME +STATUS +MINMEMBER +RUNNINGS +AGE\n"
                                   "ray-rayjob-sample-pg +Running +2 +2 +[0-9]+s\n"));
  EXPECT_THAT(ok({"get", "podgroups", "-o", "wide"}), HasSubstr("QUEUE"));
  EXPECT_THAT(ok({"get", "queues"}), MatchesRegex("NAME +PARENT\ndefault *\n"));
  // Every pod of the job, the submitter's too, was Volcano's, in the RayJob's group.
  const std::string pods =
      ok({"get", "pods", "-o",
          "jsonpath={range .items[*]}{.spec.schedulerName} "
          "{.metadata.annotations.scheduling\\.k8s\\.io/group-name}{\"\\n\"}{end}"});
  EXPECT_THAT(pods, MatchesRegex("(volcano ray-rayjob-sample-pg\n){3}"));
}

}  // namespace
}  // namespace fakekube::e2e
