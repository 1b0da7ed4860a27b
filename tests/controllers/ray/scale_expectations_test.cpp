// Mirrors KubeRay's controllers/ray/expectations/scale_expectations_test.go on virtual time.
#include "controllers/ray/internal/scale_expectations.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/cache/cache.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube::ray {
namespace {

Json testPod(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", {{"containers", Json::array({{{"name", "c"}, {"image", "i"}}})}}}};
}

class ScaleExpectationsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server = std::move(ApiServer::open(ex.clock()).value());
    client = std::make_unique<InProcessClient>(*server);
  }
  void createPod(const std::string& name) { ASSERT_TRUE(client->create(kPods, testPod(name))); }
  void deletePod(const std::string& name) {
    ASSERT_TRUE(client->deleteObject(kPods, "default", name, {.gracePeriodSeconds = 0}));
  }

  SimExecutor ex;
  std::unique_ptr<ApiServer> server;
  std::unique_ptr<InProcessClient> client;
};

// TestRayClusterExpectationsHeadPod.
TEST_F(ScaleExpectationsTest, HeadPod) {
  ScaleExpectations expectations(*client, ex.clock());
  expectations.expectScalePod("default", "raycluster", kExpectationsHeadGroup, "pod-head",
                              ScaleAction::Create);
  EXPECT_FALSE(expectations.isSatisfied("default", "raycluster", kExpectationsHeadGroup));
  createPod("pod-head");
  EXPECT_TRUE(expectations.isSatisfied("default", "raycluster", kExpectationsHeadGroup));
  EXPECT_EQ(expectations.size(), 0u);  // a satisfied item is removed

  expectations.expectScalePod("default", "raycluster", kExpectationsHeadGroup, "pod-head",
                              ScaleAction::Delete);
  EXPECT_FALSE(expectations.isSatisfied("default", "raycluster", kExpectationsHeadGroup));
  deletePod("pod-head");
  EXPECT_TRUE(expectations.isSatisfied("default", "raycluster", kExpectationsHeadGroup));
}

// TestRayClusterExpectationsForSamePod: the later record of a pod replaces the earlier one.
TEST_F(ScaleExpectationsTest, ForSamePod) {
  ScaleExpectations expectations(*client, ex.clock());
  createPod("pod-a");
  expectations.expectScalePod("default", "raycluster", "group-a", "pod-a", ScaleAction::Create);
  expectations.expectScalePod("default", "raycluster", "group-a", "pod-a", ScaleAction::Delete);
  EXPECT_EQ(expectations.size(), 1u);
  // The Delete is what counts now: the pod still exists.
  EXPECT_FALSE(expectations.isSatisfied("default", "raycluster", "group-a"));
  deletePod("pod-a");
  EXPECT_TRUE(expectations.isSatisfied("default", "raycluster", "group-a"));
}

// TestRayClusterExpectationsWorkerGroupPods: groups are independent; a group is satisfied only
// when all its pods are.
TEST_F(ScaleExpectationsTest, WorkerGroupPods) {
  ScaleExpectations expectations(*client, ex.clock());
  expectations.expectScalePod("default", "raycluster", "group-a", "pod-a1", ScaleAction::Create);
  expectations.expectScalePod("default", "raycluster", "group-a", "pod-a2", ScaleAction::Create);
  expectations.expectScalePod("default", "raycluster", "group-b", "pod-b1", ScaleAction::Create);
  createPod("pod-a1");
  EXPECT_FALSE(expectations.isSatisfied("default", "raycluster", "group-a"));
  EXPECT_FALSE(expectations.isSatisfied("default", "raycluster", "group-b"));
  createPod("pod-a2");
  EXPECT_TRUE(expectations.isSatisfied("default", "raycluster", "group-a"));
  EXPECT_FALSE(expectations.isSatisfied("default", "raycluster", "group-b"));
  // Another cluster's group of the same name is not involved.
  EXPECT_TRUE(expectations.isSatisfied("default", "other", "group-b"));
}

// TestRayClusterExpectationsDeleteAll.
TEST_F(ScaleExpectationsTest, DeleteAll) {
  ScaleExpectations expectations(*client, ex.clock());
  expectations.expectScalePod("default", "raycluster", kExpectationsHeadGroup, "pod-head",
                              ScaleAction::Create);
  expectations.expectScalePod("default", "raycluster", "group-a", "pod-a", ScaleAction::Create);
  expectations.expectScalePod("default", "other", "group-a", "pod-x", ScaleAction::Create);
  expectations.deleteCluster("raycluster", "default");
  EXPECT_EQ(expectations.size(), 1u);
  EXPECT_TRUE(expectations.isSatisfied("default", "raycluster", kExpectationsHeadGroup));
  EXPECT_TRUE(expectations.isSatisfied("default", "raycluster", "group-a"));
  EXPECT_FALSE(expectations.isSatisfied("default", "other", "group-a"));
}

// The records are indexed by namespace, cluster and group: a pod recorded again under another
// group leaves the first group's index; deleteCluster takes one cluster's groups only, not those
// of a cluster whose name it begins, nor those of its namesake in another namespace.
TEST_F(ScaleExpectationsTest, GroupIndexFollowsReRecordsAndClusterDeletion) {
  ScaleExpectations expectations(*client, ex.clock());
  expectations.expectScalePod("default", "ray", "group-a", "pod-1", ScaleAction::Create);
  expectations.expectScalePod("default", "ray", "group-b", "pod-1", ScaleAction::Create);
  EXPECT_EQ(expectations.size(), 1u);
  EXPECT_TRUE(expectations.isSatisfied("default", "ray", "group-a")) << "pod-1 moved to group-b";
  EXPECT_FALSE(expectations.isSatisfied("default", "ray", "group-b"));

  expectations.expectScalePod("default", "ray-2", "group-a", "pod-2", ScaleAction::Create);
  expectations.expectScalePod("team", "ray", "group-a", "pod-3", ScaleAction::Create);
  expectations.deleteCluster("ray", "default");
  EXPECT_EQ(expectations.size(), 2u);
  EXPECT_TRUE(expectations.isSatisfied("default", "ray", "group-b"));
  EXPECT_FALSE(expectations.isSatisfied("default", "ray-2", "group-a"));
  EXPECT_FALSE(expectations.isSatisfied("team", "ray", "group-a"));
  createPod("pod-2");
  EXPECT_TRUE(expectations.isSatisfied("default", "ray-2", "group-a"));
  EXPECT_EQ(expectations.size(), 1u);
}

// TestRayClusterExpectationsTimeout / TestIsPodScaledTimeout: a Create whose pod never shows up
// is met 30 s (virtual) after it was recorded; a Delete never times out.
TEST_F(ScaleExpectationsTest, Timeout) {
  ScaleExpectations expectations(*client, ex.clock());
  expectations.expectScalePod("default", "raycluster", "group-a", "never-seen",
                              ScaleAction::Create);
  ex.advance(std::chrono::seconds(30));
  EXPECT_FALSE(expectations.isSatisfied("default", "raycluster", "group-a"));
  ex.advance(std::chrono::milliseconds(1));
  EXPECT_TRUE(expectations.isSatisfied("default", "raycluster", "group-a"));

  createPod("kept");
  expectations.expectScalePod("default", "raycluster", "group-b", "kept", ScaleAction::Delete);
  ex.advance(std::chrono::minutes(10));
  EXPECT_FALSE(expectations.isSatisfied("default", "raycluster", "group-b"));
}

// TestIsPodScaled through a lagging cache: "scaled" means the cache has seen the pod.
TEST_F(ScaleExpectationsTest, IsPodScaledReadsThroughTheGivenReader) {
  Cache cache(*client, ex, {.defaults = {.deliveryDelay = std::chrono::seconds(2)}});
  cache.informerFor(kPods);
  cache.start();
  ex.runUntilIdle();
  ScaleExpectations expectations(cache, ex.clock());
  createPod("pod-a");
  expectations.expectScalePod("default", "raycluster", "group-a", "pod-a", ScaleAction::Create);
  ex.runUntilIdle();
  EXPECT_FALSE(expectations.isSatisfied("default", "raycluster", "group-a"));
  ex.advance(std::chrono::seconds(2));
  EXPECT_TRUE(expectations.isSatisfied("default", "raycluster", "group-a"));
  cache.stop();
}

}  // namespace
}  // namespace fakekube::ray
