// raycluster_controller_test.go, Describe("RayCluster with RayClusterStatusConditions feature
// gate enabled"), It("Should handle RayClusterReplicaFailure condition correctly"): a head
// container whose imagePullPolicy kube-apiserver does not support makes every head Pod create a
// 422, which the RayCluster shows as ReplicaFailure True with reason FailedCreateHeadPod and the
// joined error (the tag, then the API server's message) as its message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fakekube/api/conditions.h"
#include "fakekube/api/resources.h"
#include "tests/controllers/ray/ray_fixture.h"

namespace fakekube::ray::testing {
namespace {

using std::chrono::seconds;

TEST_F(RayClusterTest, ShouldHandleRayClusterReplicaFailureConditionCorrectly) {
  startOperator();
  Json cluster = sampleRayCluster("raycluster-status-conditions-enabled-invalid", 1, 0, 5);
  cluster["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] =
      "!invalid!";
  createCluster(cluster);
  run(seconds(3));

  Json rc = getCluster("raycluster-status-conditions-enabled-invalid");
  ASSERT_EQ(conditionStatus(rc, "ReplicaFailure"), "True");
  const Json* condition = findCondition(rc, "ReplicaFailure");
  EXPECT_EQ(condition->value("reason", ""), "FailedCreateHeadPod");
  const std::string message = condition->value("message", "");
  EXPECT_THAT(message, ::testing::StartsWith("FailedCreateHeadPod\nPod \""));
  EXPECT_THAT(message, ::testing::EndsWith(
                           "\" is invalid: spec.containers[0].imagePullPolicy: Unsupported value: "
                           "\"!invalid!\": supported values: \"Always\", \"IfNotPresent\", "
                           "\"Never\""));
  EXPECT_TRUE(headPods("raycluster-status-conditions-enabled-invalid").empty());
  EXPECT_FALSE(events("FailedToCreateHeadPod").empty());
}

}  // namespace
}  // namespace fakekube::ray::testing
