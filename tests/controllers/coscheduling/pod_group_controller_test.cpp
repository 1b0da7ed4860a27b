// The PodGroup controller's phases (scheduler-plugins' podgroup_controller_test.go Test_Run and
// TestFillGroupStatusOccupied): one reconcile per pod, as the upstream test drives it, and the
// controller on a cluster.
#include "controllers/coscheduling/internal/pod_group_controller.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "controllers/coscheduling/internal/coscheduling_api.h"
#include "fakekube/api/json_lookup.h"
#include "tests/controllers/coscheduling/coscheduling_fixture.h"

namespace fakekube::coscheduling::testing {
namespace {

using std::chrono::seconds;

struct RunCase {
  const char* name;
  int minMember;
  int pods;
  const char* podPhase;
  const char* podNextPhase;  // "" = unchanged
  const char* previousPhase;
  const char* desiredGroupPhase;
  bool createdTooLongAgo = false;
};

Json groupFor(const RunCase& c) {
  // makePG: created now (or 72 hours ago), scheduling started now.
  return {{"metadata",
           {{"name", "pg"},
            {"namespace", "default"},
            {"creationTimestamp",
             c.createdTooLongAgo ? "2026-01-01T00:00:00Z" : "2026-01-04T00:00:00Z"}}},
          {"spec", {{"minMember", c.minMember}}},
          {"status",
           {{"phase", c.previousPhase},
            {"occupiedBy", "test"},
            {"scheduleStartTime", "2026-01-04T00:00:00Z"}}}};
}

std::vector<Json> podsFor(int count, const std::string& phase) {
  std::vector<Json> pods;
  for (int i = 0; i < count; ++i) {
    pods.push_back({{"metadata", {{"name", "pod" + std::to_string(i)}, {"namespace", "default"}}},
                    {"status", {{"phase", phase}}}});
  }
  return pods;
}

class PodGroupControllerRun : public ::testing::TestWithParam<RunCase> {};

TEST_P(PodGroupControllerRun, MovesThePhaseOneStepAReconcile) {
  const RunCase& c = GetParam();
  Json group = groupFor(c);
  const std::string phase = *c.podNextPhase ? c.podNextPhase : c.podPhase;
  const std::vector<Json> pods = podsFor(c.pods, phase);
  for (int i = 0; i < c.pods; ++i) group["status"] = nextPodGroupStatus(group, pods);
  EXPECT_EQ(jsonAt(group, {"status", "phase"}), c.desiredGroupPhase);
}

INSTANTIATE_TEST_SUITE_P(
    Test_Run, PodGroupControllerRun,
    ::testing::Values(
        RunCase{"GroupRunning", 2, 2, "Running", "", "Scheduling", "Running"},
        RunCase{"GroupRunningMoreThanMinMember", 2, 4, "Running", "", "Scheduling", "Running"},
        RunCase{"GroupFailed", 2, 2, "Failed", "", "Scheduling", "Failed"},
        RunCase{"GroupFinished", 2, 2, "Succeeded", "", "Scheduling", "Finished"},
        RunCase{"GroupStatusConvertFromPendingToPrescheduling", 2, 2, "Pending", "", "Pending",
                "Scheduling"},
        RunCase{"GroupStatusConvertFromSchedulingToFinished", 2, 2, "Pending", "Succeeded",
                "Scheduling", "Finished"},
        RunCase{"GroupStatusKeepsPending", 3, 2, "Running", "", "Pending", "Pending"},
        RunCase{"GroupStatusConvertFromPendingToFinished", 2, 2, "Pending", "Succeeded", "Pending",
                "Finished"},
        RunCase{"GroupShouldNotEnqueueCreatedTooLong", 2, 2, "Running", "", "Pending", "Pending",
                true},
        RunCase{"GroupMinMemberMoreThanPodNumber", 3, 2, "Pending", "", "Pending", "Pending"},
        RunCase{"GroupStatusConvertFromRunningToPending", 4, 2, "Pending", "", "Running",
                "Pending"}),
    [](const ::testing::TestParamInfo<RunCase>& info) { return std::string(info.param.name); });

TEST(PodGroupController, CountsThePodsByPhase) {
  Json group = groupFor({"", 2, 3, "Running", "", "Scheduling", ""});
  std::vector<Json> pods = podsFor(3, "Running");
  pods[2]["status"]["phase"] = "Failed";
  const Json status = nextPodGroupStatus(group, pods);
  EXPECT_EQ(status["running"], 2);
  EXPECT_EQ(status["failed"], 1);
  EXPECT_FALSE(status.contains("succeeded"));  // omitempty
  EXPECT_EQ(status["phase"], "Failed");        // failed + running >= minMember
}

TEST(PodGroupController, TestFillGroupStatusOccupiedWithMultiOwnerReferences) {
  Json group = groupFor({"", 2, 2, "Pending", "", "Pending", ""});
  std::vector<Json> pods = podsFor(2, "Pending");
  for (Json& pod : pods) {
    pod["metadata"]["ownerReferences"] = Json::array(
        {{{"apiVersion", "v1"}, {"kind", "ReplicaSet"}, {"name", "new-rs"}, {"uid", "2"}},
         {{"apiVersion", "v1"}, {"kind", "ReplicaSet"}, {"name", "old-rs"}, {"uid", "1"}}});
  }
  EXPECT_EQ(nextPodGroupStatus(group, pods)["occupiedBy"], "default/new-rs,default/old-rs");
}

TEST(PodGroupController, OnAClusterAGroupGoesPendingSchedulingRunning) {
  TestCluster cluster(coschedulingCluster(1));
  ASSERT_TRUE(cluster.start());
  createGroup(cluster, "pg", 2, 2, "1");
  EXPECT_TRUE(cluster.eventually([&] { return phaseOf(cluster, "pg") == "Running"; }, seconds(30)));
  auto group = cluster.get(kPodGroups, "default", "pg");
  ASSERT_TRUE(group);
  EXPECT_EQ(jsonAt(*group, {"status", "running"}), 2);
}

}  // namespace
}  // namespace fakekube::coscheduling::testing
