// One Volcano session over documents (controllers/volcano/internal/session.h): Volcano's
// enqueue_test.go and gang_test.go cases by name, and the gang's all-or-nothing allocation.
#include "controllers/volcano/internal/session.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "tests/controllers/volcano/volcano_fixture.h"

namespace fakekube::volcano::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

TimePoint at() { return TimePoint{} + std::chrono::hours(24 * 365 * 56); }

SessionResult run(const SessionInput& input) { return runSession(input, {}, at(), "session-1"); }

// The phase each PodGroup has after the session: its update, or its phase as given.
std::map<std::string, std::string> phases(const SessionInput& input, const SessionResult& result) {
  std::map<std::string, std::string> out;
  for (const auto& group : input.podGroups) {
    const Json& phase = jsonAt(*group, {"status", "phase"});
    out[meta::namespacedName(*group)] = phase.is_string() ? phase.get<std::string>() : "";
  }
  for (const auto& update : result.podGroupUpdates) {
    out[meta::namespacedName(*update.object)] = update.status.value("phase", "");
  }
  return out;
}

std::map<std::string, std::string> bound(const SessionResult& result) {
  std::map<std::string, std::string> out;
  for (const auto& binding : result.bindings) out[meta::name(*binding.pod)] = binding.node;
  return out;
}

// --- enqueue_test.go TestEnqueue ---

TEST(VolcanoEnqueue, WhenPodgroupStatusIsInqueue) {
  SessionInput input;
  input.podGroups = {shared(podGroupDocument("c1", "pg1", "c1", 2, "Inqueue"))};
  input.pods = {shared(podDocument("c1", "p1", "pg1", "1", "1G")),
                shared(podDocument("c1", "p2", "pg1", "1", "1G"))};
  input.queues = {shared(queueDocument("c1", 1, {{"cpu", "4"}, {"memory", "4G"}})),
                  shared(queueDocument("c2", 1, {{"cpu", "4"}, {"memory", "4G"}}))};
  EXPECT_EQ(phases(input, run(input))["c1/pg1"], "Inqueue");
}

TEST(VolcanoEnqueue, WhenPodgroupStatusIsPending) {
  SessionInput input;
  input.podGroups = {shared(podGroupDocument("c1", "pg1", "c1", 1, "Pending")),
                     shared(podGroupDocument("c1", "pg2", "c2", 1, "Pending"))};
  input.pods = {shared(podDocument("c1", "p1", "pg1", "3", "1G")),
                shared(podDocument("c1", "p2", "pg2", "1", "1G"))};
  input.queues = {shared(queueDocument("c1", 1, {{"cpu", "4"}, {"memory", "4G"}})),
                  shared(queueDocument("c2", 1, {{"cpu", "4"}, {"memory", "4G"}}))};
  auto result = phases(input, run(input));
  EXPECT_EQ(result["c1/pg1"], "Inqueue");
  EXPECT_EQ(result["c1/pg2"], "Inqueue");
}

TEST(VolcanoEnqueue, WhenPodgroupStatusIsRunning) {
  SessionInput input;
  input.nodes = {shared(nodeDocument("n1", "4", "4G"))};
  input.podGroups = {shared(podGroupDocument("c1", "pg1", "c1", 2, "Running"))};
  input.pods = {shared(podDocument("c1", "p1", "pg1", "1", "1G", "Running", "n1")),
                shared(podDocument("c1", "p2", "pg1", "1", "1G", "Running", "n1"))};
  input.queues = {shared(queueDocument("c1", 1, {{"cpu", "4"}, {"memory", "4G"}}))};
  SessionResult result = run(input);
  EXPECT_EQ(phases(input, result)["c1/pg1"], "Running");
}

TEST(VolcanoEnqueue, PggroupCannotEnqueueBecauseTheSpecifiedQueueIsC1ButThereIsOnlyC2) {
  SessionInput input;
  input.podGroups = {shared(podGroupDocument("c1", "pg1", "c1", 0, "Pending"))};
  input.queues = {shared(queueDocument("c2", 1, {{"cpu", "4"}, {"memory", "4G"}}))};
  SessionResult result = run(input);
  EXPECT_THAT(result.podGroupUpdates, IsEmpty());  // not part of the session at all
}

TEST(VolcanoEnqueue, PggroupCannotEnqueueBecauseQueueResourcesAreLessThanPodgroupMinResources) {
  SessionInput input;
  input.nodes = {shared(nodeDocument("n1", "16", "16G"))};
  input.podGroups = {
      shared(podGroupDocument("c1", "pg1", "c1", 1, "Pending", {{"cpu", "8"}, {"memory", "8G"}}))};
  input.queues = {shared(queueDocument("c1", 1, {{"cpu", "1"}, {"memory", "1G"}}))};
  SessionResult result = run(input);
  EXPECT_EQ(phases(input, result)["c1/pg1"], "Pending");
  ASSERT_FALSE(result.events.empty());
  EXPECT_EQ(result.events.front().reason, "Unschedulable");
  EXPECT_EQ(result.events.front().message,
            "queue resource quota insufficient: insufficient cpu, insufficient memory");
}

// overcommit: idle = allocatable x 1.2 - used; a second group that would exceed it waits.
TEST(VolcanoEnqueue, OvercommitAdmitsUpToAllocatableTimesOnePointTwo) {
  SessionInput input;
  input.nodes = {shared(nodeDocument("n1", "2", "8G")), shared(nodeDocument("n2", "2", "8G"))};
  input.queues = {shared(queueDocument("default", 1))};
  input.podGroups = {shared(podGroupDocument("ns", "a", "default", 3, "Pending", {{"cpu", "3"}})),
                     shared(podGroupDocument("ns", "b", "default", 3, "Pending", {{"cpu", "3"}}))};
  SessionResult result = run(input);
  auto got = phases(input, result);
  EXPECT_EQ(got["ns/a"], "Inqueue");  // 3 <= 4 x 1.2
  EXPECT_EQ(got["ns/b"], "Pending");  // 3 + 3 > 4.8
  bool overused = false;
  for (const auto& event : result.events) {
    if (meta::name(*event.podGroup) == "b" &&
        event.message == "resource in cluster is overused: overused cpu") {
      overused = true;
    }
  }
  EXPECT_TRUE(overused);
}

// --- proportion: deserved shares by weight ---

TEST(VolcanoProportion, QueuesShareTheClusterByWeight) {
  SessionInput input;
  input.nodes = {shared(nodeDocument("n1", "8", "64G"))};
  input.queues = {shared(queueDocument("light", 1)), shared(queueDocument("heavy", 3))};
  for (const std::string queue : {"light", "heavy"}) {
    for (int i = 0; i < 8; ++i) {
      const std::string name = queue + "-" + std::to_string(i);
      input.podGroups.push_back(shared(podGroupDocument("ns", name, queue, 1, "Inqueue")));
      input.pods.push_back(shared(podDocument("ns", name, name, "1", "1G")));
    }
  }
  std::map<std::string, int> bound;
  for (const auto& binding : run(input).bindings) {
    ++bound[meta::annotation(*binding.pod, kGroupNameAnnotation).substr(0, 5)];
  }
  EXPECT_EQ(bound["light"], 2);  // 8 cpu x 1/4
  EXPECT_EQ(bound["heavy"], 6);  // 8 cpu x 3/4
}

TEST(VolcanoProportion, AQueueWithoutDemandLeavesItsShareToTheOthers) {
  SessionInput input;
  input.nodes = {shared(nodeDocument("n1", "8", "64G"))};
  input.queues = {shared(queueDocument("idle", 3)), shared(queueDocument("busy", 1))};
  for (int i = 0; i < 8; ++i) {
    const std::string name = "busy-" + std::to_string(i);
    input.podGroups.push_back(shared(podGroupDocument("ns", name, "busy", 1, "Inqueue")));
    input.pods.push_back(shared(podDocument("ns", name, name, "1", "1G")));
  }
  EXPECT_EQ(run(input).bindings.size(), 8u);
}

// --- gang_test.go TestShouldSkipUnschedulableForReleasing, on a session's condition ---

Json releasing(Json pod) {
  pod["metadata"]["deletionTimestamp"] = "2026-01-01T00:01:00Z";
  return pod;
}

struct ReleasingCase {
  int min;
  std::vector<Json> pods;
};

bool hasUnschedulableCondition(const ReleasingCase& c) {
  SessionInput input;
  input.nodes = {shared(nodeDocument("node-1", "1", "1G")),
                 shared(nodeDocument("node-2", "1", "1G")),
                 shared(nodeDocument("node-3", "1", "1G"))};
  input.queues = {shared(queueDocument("default", 1))};
  input.podGroups = {shared(podGroupDocument("ns", "job-1", "default", c.min, "Running"))};
  for (const auto& pod : c.pods) input.pods.push_back(shared(pod));
  SessionResult result = run(input);
  for (const auto& update : result.podGroupUpdates) {
    for (const auto& condition : jsonArrayAt(update.status, "conditions")) {
      if (condition.value("type", "") == "Unschedulable") return true;
    }
  }
  return false;
}

TEST(VolcanoGang, ShouldSkipUnschedulableForReleasingPartialTermination) {
  EXPECT_FALSE(hasUnschedulableCondition(
      {2,
       {podDocument("ns", "running", "job-1", "1", "1G", "Running", "node-1"),
        releasing(podDocument("ns", "releasing", "job-1", "1", "1G", "Running", "node-2"))}}));
}

TEST(VolcanoGang, ShouldSkipUnschedulableForReleasingPendingReplacementStillNeedsCondition) {
  // The replacement needs a node the other two hold: it cannot be placed.
  EXPECT_TRUE(hasUnschedulableCondition(
      {2,
       {podDocument("ns", "running", "job-1", "1", "1G", "Running", "node-1"),
        releasing(podDocument("ns", "releasing", "job-1", "1", "1G", "Running", "node-2")),
        podDocument("ns", "replacement", "job-1", "2", "1G")}}));
}

TEST(VolcanoGang, ShouldSkipUnschedulableForReleasingScheduledTasksBelowMinAvailable) {
  EXPECT_TRUE(hasUnschedulableCondition(
      {3,
       {podDocument("ns", "running", "job-1", "1", "1G", "Running", "node-1"),
        releasing(podDocument("ns", "releasing", "job-1", "1", "1G", "Running", "node-2"))}}));
}

// --- all or nothing ---

TEST(VolcanoGang, AllOrNothingBindsNoPodOfAGroupThatDoesNotFitWhole) {
  SessionInput input;
  input.nodes = {shared(nodeDocument("n1", "2", "8G")), shared(nodeDocument("n2", "2", "8G"))};
  input.queues = {shared(queueDocument("default", 1))};
  input.podGroups = {shared(podGroupDocument("ns", "big", "default", 5, "Inqueue"))};
  for (int i = 0; i < 5; ++i) {
    input.pods.push_back(shared(podDocument("ns", "big-" + std::to_string(i), "big", "1", "1G")));
  }
  SessionResult result = run(input);
  EXPECT_THAT(result.bindings, IsEmpty());
  ASSERT_EQ(result.podGroupUpdates.size(), 1u);
  const Json& status = result.podGroupUpdates.front().status;
  EXPECT_EQ(status.value("phase", ""), "Inqueue");
  const Json& condition = status["conditions"][0];
  EXPECT_EQ(condition.value("type", ""), "Unschedulable");
  EXPECT_EQ(condition.value("reason", ""), "NotEnoughResources");
  EXPECT_EQ(condition.value("message", ""),
            "1/5 tasks in gang unschedulable: pod group is not ready, 5 Pending, 5 minAvailable; "
            "Pending: 1 Unschedulable, 4 Schedulable");
  // The pods are told why they wait (TaskSchedulingReason).
  std::map<std::string, int> reasons;
  for (const auto& pod : result.unschedulablePods) {
    ++reasons[pod.reason];
    if (pod.reason == "Schedulable") {
      EXPECT_THAT(pod.message, ::testing::MatchesRegex("Pod ns/big-[0-3] can possibly be "
                                                       "assigned to n[12], once minAvailable is "
                                                       "satisfied"));
    }
  }
  EXPECT_EQ(reasons["Schedulable"], 4);
  EXPECT_EQ(reasons["Unschedulable"], 1);
}

TEST(VolcanoGang, AGroupThatFitsIsBoundWholeAndRunning) {
  SessionInput input;
  input.nodes = {shared(nodeDocument("n1", "2", "8G")), shared(nodeDocument("n2", "2", "8G"))};
  input.queues = {shared(queueDocument("default", 1))};
  input.podGroups = {shared(podGroupDocument("ns", "g", "default", 3, "Inqueue"))};
  for (int i = 0; i < 3; ++i) {
    input.pods.push_back(shared(podDocument("ns", "g-" + std::to_string(i), "g", "1", "1G")));
  }
  SessionResult result = run(input);
  EXPECT_EQ(bound(result).size(), 3u);
  EXPECT_EQ(phases(input, result)["ns/g"], "Running");
}

}  // namespace
}  // namespace fakekube::volcano::testing
