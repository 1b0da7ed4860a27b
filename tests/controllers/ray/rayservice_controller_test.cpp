// rayservice_controller_test.go's env tests, on the simulated cluster and virtual time. Upstream
// plays the kubelet (updateHeadPodToRunningAndReady) and a fake dashboard that reports every
// application RUNNING; here the head really starts, Ray Serve really deploys the config the
// controller sends, and the serve Service's EndpointSlices follow the pods' readiness.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "rayservice_fixture.h"

namespace fakekube::ray::testing {
namespace {

using ::testing::Contains;
using ::testing::Not;

// "RayService with a maximum name": a 47-character RayService gets its pending cluster, promotes
// it, and names its Services <name>-head-svc and <name>-serve-svc.
TEST_F(RayServiceTest, RayServiceWithAMaximumNameIsPromotedAndNamesItsServices) {
  startOperator();
  const std::string name(kMaxRayServiceNameLength, 's');
  create(kRayServices, rayServiceTemplate(name));

  // Should create a pending RayCluster.
  ASSERT_TRUE(runUntil([&] { return !pendingCluster(name).empty(); }, seconds(3)));
  const std::string pending = pendingCluster(name);
  // Promote the pending RayCluster to the active RayCluster.
  ASSERT_TRUE(runUntil([&] { return activeCluster(name) == pending; }, seconds(120)))
      << rayService(name).dump(2);
  EXPECT_TRUE(exists(kRayClusters, "default", pending));
  // Check RayService service names.
  EXPECT_TRUE(exists(kServices, "default", name + "-head-svc"));
  EXPECT_TRUE(exists(kServices, "default", name + "-serve-svc"));
}

// "After a RayService is running" (its BeforeEach): the conditions start False, the pending
// cluster is created under the name the status committed first, it is promoted once its
// application runs, the annotations reach the cluster, the application is healthy, both Services
// exist, and Ready turns True with serve endpoints.
TEST_F(RayServiceTest, AfterARayServiceIsRunningItIsReadyWithServeEndpoints) {
  startOperator();
  create(kRayServices, rayServiceTemplate("test-base-path"));
  const std::string name = "test-base-path";

  // Conditions should be initialized correctly.
  ASSERT_TRUE(
      runUntil([&] { return !conditionReason(name, kRayServiceReady).empty(); }, seconds(3)));
  EXPECT_FALSE(conditionTrue(name, kUpgradeInProgress));
  EXPECT_FALSE(conditionTrue(name, kRayServiceReady));
  EXPECT_EQ(conditionReason(name, kRayServiceReady), kRayServiceInitializing);

  // Should create a pending RayCluster: its name is in the status before the cluster exists.
  const std::string pending = pendingCluster(name);
  ASSERT_FALSE(pending.empty());
  EXPECT_TRUE(pending.starts_with(name + "-"));
  ASSERT_TRUE(runUntil([&] { return exists(kRayClusters, "default", pending); }, seconds(5)));

  // Promote the pending RayCluster to the active RayCluster.
  ASSERT_TRUE(runUntil([&] { return activeCluster(name) == pending; }, seconds(120)));
  EXPECT_TRUE(pendingCluster(name).empty());
  const Json cluster = get(kRayClusters, "default", pending);
  EXPECT_EQ(meta::annotation(cluster, "foo"), "bar");

  // The serve application should be healthy.
  const Json app =
      jsonAt(rayService(name), {"status", "activeServiceStatus", "applicationStatuses", "app1"});
  EXPECT_EQ(stringOr(jsonAt(app, {"status"})), "RUNNING");
  EXPECT_EQ(stringOr(jsonAt(app, {"serveDeploymentStatuses", "MangoStand", "status"})), "HEALTHY");

  // Should create a new head service and serve service, selecting the cluster.
  EXPECT_EQ(selectedCluster(name + "-head-svc"), pending);
  EXPECT_EQ(selectedCluster(name + "-serve-svc"), pending);

  // Ready becomes True when the number of endpoints is greater than 0: here the real
  // EndpointSlices of the serve Service (the head once labelled ray.io/serve=true, the three
  // workers once their Serve proxies are healthy).
  ASSERT_TRUE(runUntil([&] { return numServeEndpoints(name) == 4; }, seconds(60)))
      << rayService(name).dump(2);
  EXPECT_TRUE(conditionTrue(name, kRayServiceReady));
  EXPECT_EQ(conditionReason(name, kRayServiceReady), kNonZeroServeEndpoints);
  EXPECT_EQ(stringOr(jsonAt(rayService(name), {"status", "serviceStatus"})), "Running");
  EXPECT_EQ(conditionReason(name, kUpgradeInProgress), kNoPendingCluster);
  const Json service = rayService(name);
  const Json* ready = findRayServiceCondition(service, kRayServiceReady);
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->value("observedGeneration", 0), 1);
}

// "Testing in-place update: updating the serveConfigV2": the new application appears in the
// status, an UpdatedServeApplications Event is recorded, and no new cluster is prepared.
TEST_F(RayServiceTest, InPlaceUpdateOfServeConfigV2ShowsTheNewApplicationOnTheSameCluster) {
  startOperator();
  const std::string name = "test-in-place";
  const std::string active = createAndRunUntilReady(rayServiceTemplate(name));
  ASSERT_FALSE(active.empty());

  updateSpec(name, [](Json& spec) { spec["serveConfigV2"] = serveConfigV2Template("newAppName"); });
  ASSERT_TRUE(runUntil(
      [&] {
        const Json app = jsonAt(rayService(name), {"status", "activeServiceStatus",
                                                   "applicationStatuses", "newAppName"});
        return stringOr(jsonAt(app, {"status"})) == "RUNNING";
      },
      seconds(60)));
  // The first config, then the new one: one Event, counted twice (the recorder aggregates a
  // repeat of the same reason and message).
  EXPECT_EQ(eventCount(name, "UpdatedServeApplications"), 2);
  EXPECT_TRUE(pendingCluster(name).empty());
  EXPECT_EQ(activeCluster(name), active);
  // The application the config no longer names is gone from the cluster.
  run(seconds(10));
  EXPECT_TRUE(
      jsonAt(rayService(name), {"status", "activeServiceStatus", "applicationStatuses", "app1"})
          .is_null());
}

// "Testing appending a new worker group to the active RayCluster": the active cluster is updated
// in place, no pending cluster is prepared, the active cluster stays.
TEST_F(RayServiceTest, AppendingAWorkerGroupUpdatesTheActiveClusterInPlace) {
  startOperator();
  const std::string name = "test-append-active";
  const std::string active = createAndRunUntilReady(rayServiceTemplate(name, "app1", 1));
  updateSpec(name, [](Json& spec) {
    Json group = spec["rayClusterConfig"]["workerGroupSpecs"][0];
    group["groupName"] = "worker-group-to-active-cluster";
    spec["rayClusterConfig"]["workerGroupSpecs"].push_back(group);
  });
  ASSERT_TRUE(runUntil(
      [&] {
        return jsonAt(get(kRayClusters, "default", active), {"spec", "workerGroupSpecs"}).size() ==
               2;
      },
      seconds(10)));
  EXPECT_TRUE(pendingCluster(name).empty());
  run(seconds(3));
  EXPECT_EQ(activeCluster(name), active);
  EXPECT_TRUE(pendingCluster(name).empty());
  EXPECT_THAT(eventReasons(name), Contains("UpdatedRayCluster"));
}

// "During the zero-downtime upgrade process" / "Promote the pending RayCluster to the active
// RayCluster": a new rayVersion prepares a pending cluster, which is promoted once its
// applications run; the Services switch to it keeping their clusterIPs, and UpgradeInProgress is
// True in between.
TEST_F(RayServiceTest, ZeroDowntimeUpgradePromotesThePendingCluster) {
  startOperator();
  const std::string name = "test-upgrade";
  const std::string old = createAndRunUntilReady(rayServiceTemplate(name, "app1", 1));
  const std::string serveClusterIp =
      stringOr(jsonAt(get(kServices, "default", name + "-serve-svc"), {"spec", "clusterIP"}));
  ASSERT_FALSE(serveClusterIp.empty());

  updateSpec(name,
             [](Json& spec) { spec["rayClusterConfig"]["rayVersion"] = "mock-ray-version-1"; });
  ASSERT_TRUE(runUntil([&] { return !pendingCluster(name).empty(); }, seconds(5)));
  const std::string pending = pendingCluster(name);
  ASSERT_TRUE(runUntil([&] { return exists(kRayClusters, "default", pending); }, seconds(5)));
  EXPECT_TRUE(conditionTrue(name, kUpgradeInProgress));
  EXPECT_EQ(conditionReason(name, kUpgradeInProgress), kBothActivePendingClustersExist);
  // Traffic stays on the old cluster while the new one prepares.
  EXPECT_EQ(selectedCluster(name + "-serve-svc"), old);
  EXPECT_TRUE(conditionTrue(name, kRayServiceReady));

  ASSERT_TRUE(runUntil([&] { return activeCluster(name) == pending; }, seconds(120)));
  EXPECT_EQ(selectedCluster(name + "-head-svc"), pending);
  EXPECT_EQ(selectedCluster(name + "-serve-svc"), pending);
  EXPECT_EQ(stringOr(jsonAt(get(kServices, "default", name + "-serve-svc"), {"spec", "clusterIP"})),
            serveClusterIp);
  EXPECT_FALSE(conditionTrue(name, kUpgradeInProgress));
  EXPECT_EQ(stringOr(jsonAt(get(kRayClusters, "default", pending), {"spec", "rayVersion"})),
            "mock-ray-version-1");
}

// "Updating the RayVersion again to prepare a new pending cluster": a second change while the
// first pending cluster prepares replaces it with a new pending cluster.
TEST_F(RayServiceTest, UpdatingTheRayVersionAgainPreparesANewPendingCluster) {
  startOperator();
  const std::string name = "test-upgrade-twice";
  createAndRunUntilReady(rayServiceTemplate(name, "app1", 1));
  updateSpec(name,
             [](Json& spec) { spec["rayClusterConfig"]["rayVersion"] = "mock-ray-version-1"; });
  ASSERT_TRUE(runUntil([&] { return !pendingCluster(name).empty(); }, seconds(5)));
  const std::string first = pendingCluster(name);
  ASSERT_TRUE(runUntil([&] { return exists(kRayClusters, "default", first); }, seconds(5)));

  updateSpec(name,
             [](Json& spec) { spec["rayClusterConfig"]["rayVersion"] = "mock-ray-version-2"; });
  ASSERT_TRUE(runUntil(
      [&] { return !pendingCluster(name).empty() && pendingCluster(name) != first; }, seconds(10)));
}

// "Testing appending a new worker group to the pending RayCluster": the pending cluster is
// updated in place and no other pending cluster is prepared.
TEST_F(RayServiceTest, AppendingAWorkerGroupUpdatesThePendingClusterInPlace) {
  startOperator();
  const std::string name = "test-append-pending";
  createAndRunUntilReady(rayServiceTemplate(name, "app1", 1));
  updateSpec(name,
             [](Json& spec) { spec["rayClusterConfig"]["rayVersion"] = "mock-ray-version-1"; });
  ASSERT_TRUE(runUntil([&] { return !pendingCluster(name).empty(); }, seconds(5)));
  const std::string pending = pendingCluster(name);
  ASSERT_TRUE(runUntil([&] { return exists(kRayClusters, "default", pending); }, seconds(5)));

  updateSpec(name, [](Json& spec) {
    Json group = spec["rayClusterConfig"]["workerGroupSpecs"][0];
    group["groupName"] = "worker-group-to-pending-cluster";
    spec["rayClusterConfig"]["workerGroupSpecs"].push_back(group);
  });
  ASSERT_TRUE(runUntil(
      [&] {
        return jsonAt(get(kRayClusters, "default", pending), {"spec", "workerGroupSpecs"}).size() ==
               2;
      },
      seconds(15)));
  // Should not prepare a new pending cluster (checked over 3 s, as upstream's Consistently).
  for (int i = 0; i < 6; ++i) {
    run(std::chrono::milliseconds(500));
    const std::string now = pendingCluster(name);
    if (!now.empty()) EXPECT_EQ(now, pending);
    if (now.empty()) EXPECT_EQ(activeCluster(name), pending);  // promoted meanwhile
  }
}

// "Autoscaler updates RayCluster should not trigger zero downtime upgrade": replicas changed on
// the pending, then on the active cluster, leave the RayService on its cluster.
TEST_F(RayServiceTest, AutoscalerUpdatesOfTheRayClusterDoNotTriggerAZeroDowntimeUpgrade) {
  startOperator();
  const std::string name = "test-autoscaler";
  create(kRayServices, rayServiceTemplate(name, "app1", 1));
  ASSERT_TRUE(runUntil([&] { return !pendingCluster(name).empty(); }, seconds(15)));
  const std::string pending = pendingCluster(name);
  ASSERT_TRUE(runUntil([&] { return exists(kRayClusters, "default", pending); }, seconds(5)));

  auto scale = [&](const std::string& cluster) {
    for (int i = 0; i < 5; ++i) {
      Json c = get(kRayClusters, "default", cluster);
      c["spec"]["workerGroupSpecs"][0]["replicas"] =
          c["spec"]["workerGroupSpecs"][0].value("replicas", 0) + 1;
      if (client->update(kRayClusters, c)) return;
    }
    ADD_FAILURE() << "could not scale " << cluster;
  };
  // The autoscaler updates the pending RayCluster: it stays the pending one.
  scale(pending);
  for (int i = 0; i < 10; ++i) {
    run(std::chrono::milliseconds(500));
    if (activeCluster(name).empty()) EXPECT_EQ(pendingCluster(name), pending);
  }
  // Promote the pending RayCluster to the active RayCluster.
  ASSERT_TRUE(runUntil([&] { return activeCluster(name) == pending; }, seconds(120)));
  // The autoscaler updates the active RayCluster: no new cluster.
  scale(pending);
  for (int i = 0; i < 10; ++i) {
    run(std::chrono::milliseconds(500));
    EXPECT_EQ(activeCluster(name), pending);
    EXPECT_TRUE(pendingCluster(name).empty());
  }
  EXPECT_THAT(rayClusterNames(), Not(Contains(::testing::Ne(pending))));
}

}  // namespace
}  // namespace fakekube::ray::testing
