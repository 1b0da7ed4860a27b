// scheduler-plugins' coscheduling plugin on scheduler-plugins-scheduler
// (controllers/coscheduling/): PreFilter's quorum and minResources checks, Permit's wait and the
// group bound together, PostFilter's rejection of the waiting siblings, Unreserve on a timeout.
// Cases are named after coscheduling_test.go and core_test.go where they port one. Virtual time
// throughout.
#include "controllers/coscheduling/internal/coscheduling.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "fakekube/cluster/nodes.h"
#include "tests/controllers/coscheduling/coscheduling_fixture.h"

namespace fakekube::coscheduling::testing {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;

// The tests of one plugin point on one node, the cluster started.
class OneNodeCoschedulingTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(cluster.start()); }

  TestCluster cluster{coschedulingCluster(1)};
};
class CoschedulingPreFilter : public OneNodeCoschedulingTest {};
class CoschedulingPermit : public OneNodeCoschedulingTest {};

TEST_F(CoschedulingPreFilter, PodCountLessThanMinMemberIsRejectedUntilTheQuorumExists) {
  createGroup(cluster, "pg", 3, 2, "1");
  EXPECT_EQ(messageOfUnboundGroup(cluster, "pg", "pg-0"),
            "0/1 nodes are available: pre-filter pod pg-0 cannot find enough sibling pods, "
            "current pods number: 2, minMember of group: 3. preemption: 0/1 nodes are available: "
            "1 Preemption is not helpful for scheduling., PodGroup default/pg gets rejected due "
            "to Pod pg-0 is unschedulable even after PostFilter.");

  // pod count equal minMember: the third pod's arrival brings the others back (EventsToRegister).
  ASSERT_TRUE(cluster.client().create(kPods, coschedulingPod("pg-2", "pg", "1")));
  EXPECT_TRUE(cluster.eventually([&] { return boundMembers(cluster, "pg") == 3; }, seconds(5)));
}

TEST_F(CoschedulingPreFilter, PodBelongsToANonExistentPodGroupIsRejectedAtPermit) {
  ASSERT_TRUE(cluster.client().create(kPods, coschedulingPod("orphan", "missing", "1")));
  EXPECT_EQ(messageOfUnboundGroup(cluster, "missing", "orphan"), "PodGroup not found");
}

TEST_F(CoschedulingPreFilter, ClusterResourceCannotSatisfyMinResource) {
  createGroup(cluster, "big", 2, 2, "1", {{"minResources", {{"cpu", "20"}}}});
  EXPECT_EQ(messageOfUnboundGroup(cluster, "big", "big-0"),
            "0/1 nodes are available: resource gap: map[cpu:{{12000 -3} {<nil>}  DecimalSI}]. "
            "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling., "
            "PodGroup default/big gets rejected due to Pod big-0 is unschedulable even after "
            "PostFilter.");
}

TEST_F(CoschedulingPreFilter, ClusterResourceSatisfiesMinResource) {
  createGroup(cluster, "fits", 2, 2, "1", {{"minResources", {{"cpu", "2"}}}});
  EXPECT_TRUE(cluster.eventually([&] { return boundMembers(cluster, "fits") == 2; }, seconds(5)));
}

TEST_F(CoschedulingPreFilter, GatedPodsPushGroupBelowQuorum) {
  ASSERT_TRUE(cluster.client().create(kPodGroups, podGroupDocument("gated", 2)));
  ASSERT_TRUE(cluster.client().create(kPods, coschedulingPod("gated-0", "gated", "1")));
  Json gated = coschedulingPod("gated-1", "gated", "1");
  gated["spec"]["schedulingGates"] = Json::array({{{"name", "example.com/wait"}}});
  ASSERT_TRUE(cluster.client().create(kPods, gated));
  EXPECT_THAT(messageOfUnboundGroup(cluster, "gated", "gated-0"),
              HasSubstr("pre-filter pod gated-0 cannot proceed due to gated pods in the same "
                        "PodGroup."));
}

TEST_F(CoschedulingPermit, PodsDoNotBelongToAnyPodGroupAreScheduledAlone) {
  ASSERT_TRUE(cluster.client().create(kPods, coschedulingPod("alone", "", "1")));
  EXPECT_TRUE(cluster.eventually(
      [&] {
        auto pod = cluster.get(kPods, "default", "alone");
        return pod && podNodeName(*pod) == "node-1";
      },
      seconds(5)));
}

TEST(CoschedulingPostFilter, PodDoesNotBelongToAnyPodGroup) {
  TestCluster cluster(coschedulingCluster(1));
  ASSERT_TRUE(cluster.start());
  ASSERT_TRUE(cluster.client().create(kPods, coschedulingPod("huge", "", "16")));
  cluster.runFor(seconds(5));
  EXPECT_EQ(scheduledMessage(cluster, "huge"),
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 "
            "No preemption victims found for incoming pod., can not find pod group.");
}

// coscheduling_test.go TestPermit "pods belong to a podGroup, and quorum satisfied": the group's
// first two pods wait at Permit holding node-1; the third fits nowhere, so PostFilter rejects the
// waiting ones (optimistic rejection); once node-2 comes up the three are bound at one instant.
TEST_F(CoschedulingPermit, PodsBelongToAPodGroupAndQuorumSatisfiedAreBoundTogether) {
  createGroup(cluster, "gang", 3, 3, "4");
  cluster.runFor(seconds(30));
  EXPECT_EQ(boundMembers(cluster, "gang"), 0);
  // Which pod is the one that fits nowhere depends on the order the last retry took them in.
  int optimistic = 0, failed = 0;
  for (const std::string pod : {"gang-0", "gang-1", "gang-2"}) {
    const std::string message = scheduledMessage(cluster, pod);
    if (message == "optimistic rejection in PostFilter") ++optimistic;
    if (message ==
        "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are "
        "available: 1 No preemption victims found for incoming pod., PodGroup "
        "default/gang gets rejected due to Pod " +
            pod + " is unschedulable even after PostFilter.") {
      ++failed;
    }
  }
  EXPECT_EQ(optimistic, 2);
  EXPECT_EQ(failed, 1);

  ASSERT_TRUE(addNode(cluster.client(), cluster.executor().clock(), NodeConfig{.name = "node-2"}));
  std::optional<TimePoint> firstBound, allBound;
  EXPECT_TRUE(cluster.eventually(
      [&] {
        const int bound = boundMembers(cluster, "gang");
        if (bound > 0 && !firstBound) firstBound = cluster.executor().now();
        if (bound == 3) allBound = cluster.executor().now();
        return bound == 3;
      },
      seconds(10)));
  ASSERT_TRUE(firstBound && allBound);
  EXPECT_EQ(*firstBound, *allBound);
}

// coscheduling_test.go TestPostFilterRejectThreshold "default 10%: 9/10 assigned (10% gap) → no
// rejection": nine pods of the ten wait at Permit, holding the node, until the group's
// scheduleTimeoutSeconds; then the first to time out is rejected and its Unreserve rejects the
// others. No pod is ever bound.
TEST_F(CoschedulingPermit, GroupLargerThanTheClusterWaitsThenIsRejectedAfterTheTimeout) {
  createGroup(cluster, "large", 10, 10, "850m", {{"scheduleTimeoutSeconds", 30}});
  auto messages = [&] {
    std::map<std::string, int> counts;
    for (int i = 0; i < 10; ++i) ++counts[scheduledMessage(cluster, "large-" + std::to_string(i))];
    return counts;
  };
  const std::string insufficient =
      "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No "
      "preemption victims found for incoming pod.";
  for (int second = 0; second < 29; ++second) {
    cluster.runFor(seconds(1));
    ASSERT_EQ(boundMembers(cluster, "large"), 0) << "at " << second << "s";
  }
  // Nine wait silently; the tenth fits nowhere, and PostFilter leaves the nine alone.
  EXPECT_EQ(messages(), (std::map<std::string, int>{{"", 9}, {insufficient, 1}}));

  cluster.runFor(seconds(2));
  EXPECT_EQ(boundMembers(cluster, "large"), 0);
  EXPECT_EQ(messages(), (std::map<std::string, int>{
                            {"rejected due to timeout after waiting 30s at plugin Coscheduling", 1},
                            {"rejection in Unreserve", 8},
                            {insufficient, 1}}));
  for (int second = 0; second < 300; ++second) {
    cluster.runFor(seconds(1));
    ASSERT_EQ(boundMembers(cluster, "large"), 0) << "at " << 31 + second << "s";
  }
}

// Two groups of three 4-cpu pods, created interleaved, on two 8-cpu nodes: both start waiting
// with two pods each; the one whose third pod fits nowhere is rejected in PostFilter, which frees
// its nodes for the other. At every second, each group has all or none of its pods bound.
TEST(CoschedulingAllOrNothing, TwoGroupsThatCannotBothFitNeverEndPartlyBound) {
  TestCluster cluster(coschedulingCluster(2));
  ASSERT_TRUE(cluster.start());
  ASSERT_TRUE(cluster.client().create(kPodGroups, podGroupDocument("a", 3)));
  ASSERT_TRUE(cluster.client().create(kPodGroups, podGroupDocument("b", 3)));
  for (int i = 0; i < 3; ++i) {
    for (const std::string group : {"a", "b"}) {
      ASSERT_TRUE(cluster.client().create(
          kPods, coschedulingPod(group + "-" + std::to_string(i), group, "4")));
    }
  }
  for (int second = 0; second < 400; ++second) {
    cluster.runFor(seconds(1));
    for (const std::string group : {"a", "b"}) {
      const int bound = boundMembers(cluster, group);
      ASSERT_TRUE(bound == 0 || bound == 3) << group << " has " << bound << " at " << second;
    }
  }
  EXPECT_EQ(boundMembers(cluster, "a") + boundMembers(cluster, "b"), 3);
}

// coscheduling_test.go TestPodGroupBackoffTime "prevent pod falling into infinite scheduling
// loop": a group rejected in PostFilter with all its pods present is refused at PreFilter for
// podGroupBackoff, even once it would fit; after that it is scheduled again.
TEST(CoschedulingPostFilter, PodGroupBackoffRefusesTheGroupUntilItExpires) {
  TestCluster cluster(coschedulingCluster(1, {.podGroupBackoff = seconds(20)}));
  ASSERT_TRUE(cluster.start());
  createGroup(cluster, "gang", 3, 3, "4");
  cluster.runFor(seconds(1));
  ASSERT_TRUE(addNode(cluster.client(), cluster.executor().clock(), NodeConfig{.name = "node-2"}));
  EXPECT_THAT(messageOfUnboundGroup(cluster, "gang", "gang-0"),
              HasSubstr(": podGroup default/gang failed recently. preemption:"));
  // The pods come back at the latest after the scheduler's 5 minutes.
  EXPECT_TRUE(cluster.eventually([&] { return boundMembers(cluster, "gang") == 3; },
                                 std::chrono::minutes(6)));
}

}  // namespace
}  // namespace fakekube::coscheduling::testing
