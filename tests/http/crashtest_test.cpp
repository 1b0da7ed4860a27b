// `fakekube crashtest` end to end: the binary on KubeRay's RayCluster sample (every write of the
// operator's way to a ready cluster, under every fault, converges), one replayed point, and each
// kind of bad input (exit 2 with one line on stderr).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures/child_process.h"

namespace fakekube::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

// A KubeRay sample of tests/http/manifests.
std::string manifestPath(const std::string& name) {
  return std::string(FAKEKUBE_SOURCE_DIR) + "/tests/http/manifests/" + name;
}

std::string sampleManifest() { return manifestPath("ray-cluster.sample.yaml"); }

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The last line of a run where every point converged.
std::string summaryLine(std::size_t points) {
  return std::to_string(points) + " crash points, " + std::to_string(points) +
         " converged, 0 violations";
}

// The number of operator writes of the clean run, from the report's first line ("clean run (seed
// 1): N operator writes, goal reached in S"); 0 when the line is not that.
std::size_t cleanRunWrites(const std::string& firstLine) {
  std::smatch clean;
  if (!std::regex_match(firstLine, clean,
                        std::regex(R"(clean run \(seed 1\): (\d+) operator writes, goal )"
                                   R"(reached in \d+\.\d{3}s)"))) {
    return 0;
  }
  return std::stoul(clean[1]);
}

ProcessResult crashtest(std::vector<std::string> args) {
  args.insert(args.begin(), {FAKEKUBE_CLI, "crashtest"});
  return runProcess(args);
}

std::string writeFile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(CrashtestTest, TheRayClusterSampleConvergesAtEveryCrashPoint) {
  ProcessResult ran = crashtest({"-f", sampleManifest()});
  ASSERT_EQ(ran.exitCode, 0) << ran.out << ran.err;
  const auto out = lines(ran.out);
  ASSERT_GE(out.size(), 3u) << ran.out;
  const std::size_t writes = cleanRunWrites(out.front());
  ASSERT_GT(writes, 0u) << out.front();
  // One row per write and fault, numbered 1..writes, in order.
  ASSERT_EQ(out.size(), 1 + 3 * writes + 1) << ran.out;
  const char* faults[] = {"before", "after", "lost"};
  for (std::size_t i = 0; i < 3 * writes; ++i) {
    const std::string& row = out[1 + i];
    EXPECT_THAT(row, StartsWith("k=" + std::to_string(i / 3 + 1) + " ")) << row;
    EXPECT_THAT(row, MatchesRegex(std::string("k=[0-9]+ (create|update|patch|delete) [a-z]+ "
                                              "default/[^ ]+( \\(status\\))? ") +
                                  faults[i % 3] + ": converged in [0-9]+\\.[0-9]{3}s"))
        << row;
  }
  // The first writes create the head pod and the worker, as KubeRay's reconcile does.
  EXPECT_THAT(ran.out, HasSubstr(" create pods default/raycluster-kuberay-head-* before: "));
  EXPECT_THAT(ran.out,
              HasSubstr(" create pods default/raycluster-kuberay-workergroup-worker-* lost: "));
  EXPECT_EQ(out.back(), summaryLine(3 * writes));
  // The same seed gives the same enumeration, row by row.
  ProcessResult again = crashtest({"-f", sampleManifest(), "--seed", "1"});
  EXPECT_EQ(again.exitCode, 0);
  EXPECT_EQ(again.out, ran.out);
  // The wall time and the rate, on stderr.
  EXPECT_THAT(ran.err, MatchesRegex("fakekube crashtest: [0-9]+ runs in [0-9.]+ s of wall time "
                                    "\\([0-9.]+ runs/s\\)\n"));
}

// KubeRay's RayService sample, from apply to serviceStatus Running: every write of the operator
// (the RayService controller's finalizer, the pending name, the RayCluster, the head label, the
// Services, the status; the RayCluster controller's pods) under each fault converges.
TEST(CrashtestTest, TheRayServiceSampleConvergesAtEveryCrashPoint) {
  const std::string manifest = manifestPath("ray-service.sample.yaml");
  ProcessResult ran = crashtest({"-f", manifest});
  ASSERT_EQ(ran.exitCode, 0) << ran.out << ran.err;
  const auto out = lines(ran.out);
  const std::size_t writes = cleanRunWrites(out.front());
  ASSERT_GT(writes, 0u) << out.front();
  EXPECT_THAT(ran.out, HasSubstr(" create rayclusters default/rayservice-sample-"));
  EXPECT_THAT(ran.out, HasSubstr(" create services default/rayservice-sample-serve-svc "));
  EXPECT_EQ(out.back(), summaryLine(3 * writes));
}

// The RayService sample with its rayVersion changed: applied after the sample, a NewCluster
// upgrade (a pending cluster, the Services switched to it, the old one deleted 60 s later).
std::string upgradedRayServiceManifest() {
  std::ifstream in(manifestPath("ray-service.sample.yaml"));
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const std::string from = "rayVersion: \"2.52.0\"";
  const auto at = yaml.find(from);
  EXPECT_NE(at, std::string::npos) << "the sample's rayVersion changed";
  if (at != std::string::npos) yaml.replace(at, from.size(), "rayVersion: \"2.53.0\"");
  return writeFile("ray-service.upgrade.yaml", yaml);
}

// The names of the RayClusters the rows create, in order of first appearance.
std::vector<std::string> createdRayClusters(const std::vector<std::string>& rows) {
  std::vector<std::string> names;
  const std::regex create(R"(k=\d+ create rayclusters default/(\S+) )");
  for (const auto& row : rows) {
    std::smatch m;
    if (!std::regex_search(row, m, create)) continue;
    if (std::find(names.begin(), names.end(), m[1].str()) == names.end()) names.push_back(m[1]);
  }
  return names;
}

// The sample, then its upgrade once it runs: every operator write of both phases (the first
// cluster's, the pending cluster's create, the Services' selector switch, the old cluster's
// deletion after rayClusterDeletionDelaySeconds) crashed before or after it commits converges to
// one cluster on the new rayVersion, the Services never selecting a cluster that is neither
// active nor pending. The lost answers are the next test's.
TEST(CrashtestTest, TheRayServiceUpgradeConvergesAtEveryCrashPoint) {
  const std::string sample = manifestPath("ray-service.sample.yaml");
  ProcessResult ran =
      crashtest({"-f", sample, "--then", upgradedRayServiceManifest(), "--faults", "before,after"});
  ASSERT_EQ(ran.exitCode, 0) << ran.out << ran.err;
  const auto out = lines(ran.out);
  const std::size_t writes = cleanRunWrites(out.front());
  ASSERT_GT(writes, 0u) << out.front();
  ASSERT_EQ(out.size(), 1 + 2 * writes + 1) << ran.out;
  for (std::size_t i = 1; i + 1 < out.size(); ++i) {
    EXPECT_THAT(out[i], MatchesRegex(".* (before|after): converged in [0-9]+\\.[0-9]{3}s"))
        << out[i];
  }
  // The first cluster, then the pending one.
  const auto clusters = createdRayClusters(out);
  ASSERT_EQ(clusters.size(), 2u) << ran.out;
  EXPECT_THAT(ran.out, HasSubstr(" create pods default/" + clusters[1] + "-head-* after: "));
  EXPECT_THAT(ran.out, HasSubstr(" update services default/rayservice-sample-head-svc after: "));
  EXPECT_THAT(ran.out, HasSubstr(" update services default/rayservice-sample-serve-svc before: "));
  EXPECT_THAT(ran.out, HasSubstr(" delete rayclusters default/" + clusters[0] + " before: "));
  EXPECT_EQ(out.back(), summaryLine(2 * writes));
}

// The same enumeration with lost answers: the one row that fails is the pending cluster's head
// pod create. KubeRay records its head pod expectation only from the create's answer (as
// upstream), so when the answer is lost and the next reconcile comes before the cache has seen the
// pod, it creates a second head pod, and then waits for someone to delete one: the upgrade never
// ends. The row says so, with the command that replays it, and the exit code is 1.
TEST(CrashtestTest, ALostAnswerToThePendingClustersHeadPodCreateIsReported) {
  const std::string sample = manifestPath("ray-service.sample.yaml");
  const std::string upgrade = upgradedRayServiceManifest();
  ProcessResult ran = crashtest({"-f", sample, "--then", upgrade, "--faults", "lost"});
  ASSERT_EQ(ran.exitCode, 1) << ran.out << ran.err;
  const auto out = lines(ran.out);
  const std::size_t writes = cleanRunWrites(out.front());
  ASSERT_GT(writes, 0u) << out.front();
  const auto clusters = createdRayClusters(out);
  ASSERT_EQ(clusters.size(), 2u) << ran.out;
  std::vector<std::string> violated;
  for (const auto& row : out) {
    if (row.find(" lost: VIOLATED ") != std::string::npos) violated.push_back(row);
  }
  ASSERT_EQ(violated.size(), 1u) << ran.out;
  EXPECT_THAT(violated[0], MatchesRegex("k=[0-9]+ create pods default/" + clusters[1] +
                                        "-head-\\* lost: VIOLATED goal: then apply .*"));
  EXPECT_THAT(ran.out, HasSubstr("invariant \"RayCluster pods\": RayCluster " + clusters[1] +
                                 " has 2 head pods, expected at most 1"));
  const std::string k = violated[0].substr(2, violated[0].find(' ') - 2);
  EXPECT_THAT(ran.out, HasSubstr("    replay: fakekube crashtest -f " + sample + " --then " +
                                 upgrade + " --seed 1 --point " + k + " --fault lost\n"));
  EXPECT_EQ(out.back(), std::to_string(writes) + " crash points, " + std::to_string(writes - 1) +
                            " converged, 1 violations");
}

// KubeRay's remedy for that row: with ENABLE_DETERMINISTIC_HEAD_POD_NAME=true in the operator's
// environment (crashtest reads the operator's variables as `fakekube operator` does), the head
// pod is "<cluster>-head", a second create of it is refused AlreadyExists, and every crash point
// of the upgrade converges under each of the three faults.
TEST(CrashtestTest, WithDeterministicHeadPodNamesEveryCrashPointOfTheUpgradeConverges) {
  const std::string sample = manifestPath("ray-service.sample.yaml");
  ProcessResult ran =
      runProcess({"/usr/bin/env", "ENABLE_DETERMINISTIC_HEAD_POD_NAME=true", FAKEKUBE_CLI,
                  "crashtest", "-f", sample, "--then", upgradedRayServiceManifest()});
  ASSERT_EQ(ran.exitCode, 0) << ran.out << ran.err;
  const auto out = lines(ran.out);
  const std::size_t writes = cleanRunWrites(out.front());
  ASSERT_GT(writes, 0u) << out.front();
  ASSERT_EQ(out.size(), 1 + 3 * writes + 1) << ran.out;
  const auto clusters = createdRayClusters(out);
  ASSERT_EQ(clusters.size(), 2u) << ran.out;
  EXPECT_THAT(ran.out, HasSubstr(" create pods default/" + clusters[1] + "-head lost: converged"));
  EXPECT_EQ(out.back(), summaryLine(3 * writes));
}

// KubeRay's RayJob sample, from apply to Complete: every operator write of the lifecycle (the
// finalizer, Initializing, the RayCluster and its pods, the submitter Job, Running, Complete),
// under each of the three faults, converges with one RayCluster, one submitter Job and one Ray
// submission, and the same seed replays the same run.
TEST(CrashtestTest, TheRayJobSampleConvergesAtEveryCrashPoint) {
  const std::string manifest = manifestPath("ray-job.sample.yaml");
  ProcessResult ran = crashtest({"-f", manifest});
  ASSERT_EQ(ran.exitCode, 0) << ran.out << ran.err;
  const auto out = lines(ran.out);
  const std::size_t writes = cleanRunWrites(out.front());
  ASSERT_GT(writes, 0u) << out.front();
  ASSERT_EQ(out.size(), 1 + 3 * writes + 1) << ran.out;
  EXPECT_THAT(ran.out, HasSubstr(" update rayjobs default/rayjob-sample before: "));
  EXPECT_THAT(ran.out, HasSubstr(" create rayclusters default/rayjob-sample-"));
  EXPECT_THAT(ran.out, HasSubstr(" create jobs default/rayjob-sample after: "));
  EXPECT_EQ(out.back(), summaryLine(3 * writes));
  ProcessResult again = crashtest({"-f", manifest});
  EXPECT_EQ(again.out, ran.out);
}

TEST(CrashtestTest, UntilAndFaultsNarrowTheEnumeration) {
  ProcessResult ran = crashtest({"-f", sampleManifest(), "--until",
                                 "raycluster/raycluster-kuberay:{.status.head.serviceName}="
                                 "raycluster-kuberay-head-svc",
                                 "--faults", "lost", "--timeout", "1m30s", "--seed", "7"});
  ASSERT_EQ(ran.exitCode, 0) << ran.out << ran.err;
  const auto out = lines(ran.out);
  EXPECT_THAT(out.front(), StartsWith("clean run (seed 7): "));
  for (std::size_t i = 1; i + 1 < out.size(); ++i) {
    EXPECT_THAT(out[i], MatchesRegex("k=[0-9]+ .* lost: converged in .*")) << out[i];
  }
  EXPECT_EQ(out.back(), summaryLine(out.size() - 2));
}

TEST(CrashtestTest, ReplaysOnePoint) {
  // The operator's third write creates the head pod (after the head Service and an Event).
  ProcessResult ran =
      crashtest({"-f", sampleManifest(), "--seed", "1", "--point", "3", "--fault", "after"});
  ASSERT_EQ(ran.exitCode, 0) << ran.out << ran.err;
  const auto out = lines(ran.out);
  ASSERT_EQ(out.size(), 1u) << ran.out;
  EXPECT_THAT(out[0], MatchesRegex("k=3 create pods default/raycluster-kuberay-head-\\* after: "
                                   "converged in .*"));
}

struct BadInput {
  std::string name;
  std::vector<std::string> args;
  std::string error;  // a part of the one line
};

TEST(CrashtestTest, BadInputIsExitTwoWithOneLine) {
  const std::string badYaml = writeFile("crashtest-bad.yaml", "kind: [RayCluster\n");
  const std::string empty = writeFile("crashtest-empty.yaml", "# nothing\n");
  const std::string configMap = writeFile("crashtest-configmap.yaml",
                                          "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n");
  const std::string sample = sampleManifest();
  const std::vector<BadInput> cases = {
      {"missing file", {"-f", "/nonexistent/ray.yaml"}, "/nonexistent/ray.yaml"},
      {"bad YAML", {"-f", badYaml}, "crashtest-bad.yaml"},
      {"no objects", {"-f", empty}, "no objects"},
      {"unknown kind", {"-f", sample, "--until", "widget/w1=ready"}, "unknown kind \"widget\""},
      {"no value", {"-f", sample, "--until", "raycluster/raycluster-kuberay"}, "KIND/NAME=VALUE"},
      {"no default field", {"-f", sample, "--until", "service/s=1"}, "has no default field"},
      {"bad path", {"-f", sample, "--until", "raycluster/x:{.status..state}=ready"}, "--until"},
      {"bad duration", {"-f", sample, "--timeout", "5x"}, "unknown unit \"x\""},
      {"no unit", {"-f", sample, "--timeout", "90"}, "missing unit"},
      {"zero timeout", {"-f", sample, "--timeout", "0"}, "positive"},
      {"unknown fault", {"-f", sample, "--faults", "before,sideways"}, "\"sideways\""},
      {"point without fault", {"-f", sample, "--point", "1"}, "go together"},
      {"bad seed", {"-f", sample, "--seed", "many"}, "--seed"},
      {"no file", {}, "-f"},
      {"then-until alone", {"-f", sample, "--then-until", "raycluster/x=ready"}, "needs --then"},
      {"then with replay",
       {"--replay", empty, "--then", sample},
       "--then does not combine with --replay"},
      {"then with merge",
       {"--merge", empty, "--then", sample},
       "--then does not combine with --merge"},
      {"then with explore", {"-f", sample, "--then", sample, "--explore", "stale"}, "--explore"},
      {"then missing file",
       {"-f", sample, "--then", "/nonexistent/up.yaml"},
       "/nonexistent/up.yaml"},
      {"then no objects", {"-f", sample, "--then", empty}, "--then: the manifests hold no objects"},
      {"then bad goal",
       {"-f", sample, "--then", sample, "--then-until", "widget/w=1"},
       "--then-until \"widget/w=1\": unknown kind"},
      {"then nothing to wait for", {"-f", sample, "--then", configMap}, "with --then-until"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ProcessResult ran = crashtest(c.args);
    EXPECT_EQ(ran.exitCode, 2) << ran.out << ran.err;
    EXPECT_EQ(ran.out, "");
    EXPECT_THAT(ran.err, StartsWith("fakekube crashtest: "));
    EXPECT_THAT(ran.err, HasSubstr(c.error));
    EXPECT_EQ(lines(ran.err).size(), 1u) << ran.err;
  }
}

}  // namespace
}  // namespace fakekube::e2e
