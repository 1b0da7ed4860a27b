// The RayService controller's life beyond the happy path, as rayservice_controller_unit_test.go
// checks it with fake clients and hand-set clocks, here end to end on virtual time: the old
// cluster's deletion delay, the head's serve label, the finalizer, managedBy, suspend and resume,
// the initializing timeout, validation, a head that loses its applications, an operator restart,
// and a pending cluster whose application never runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "rayservice_fixture.h"

namespace fakekube::ray::testing {
namespace {

using ::testing::Contains;

class RayServiceLifecycleTest : public RayServiceTest {
 protected:
  std::string headLabel(const std::string& cluster) {
    for (const Json& pod : pods("ray.io/cluster=" + cluster + ",ray.io/node-type=head", true)) {
      return meta::label(pod, kRayClusterServingServiceLabelKey);
    }
    return "";
  }
  // Runs an upgrade to a new rayVersion until the new cluster is active: the old and the new
  // cluster's names.
  std::pair<std::string, std::string> upgrade(const std::string& name,
                                              const std::string& version = "2.47.0") {
    const std::string old = activeCluster(name);
    updateSpec(name, [&](Json& spec) { spec["rayClusterConfig"]["rayVersion"] = version; });
    EXPECT_TRUE(runUntil([&] { return !activeCluster(name).empty() && activeCluster(name) != old; },
                         seconds(180)));
    return {old, activeCluster(name)};
  }
};

// TestRayClusterDeletionDelaySeconds: the old cluster stays 60 s (the default) after the switch,
// then goes; with rayClusterDeletionDelaySeconds 5 it goes after 5 s.
TEST_F(RayServiceLifecycleTest, TheOldClusterIsDeletedAfterTheDefaultDeletionDelay) {
  startOperator();
  const std::string name = "delay-default";
  createAndRunUntilReady(rayServiceTemplate(name, "app1", 1));
  auto [old, now] = upgrade(name);
  run(seconds(55));
  EXPECT_TRUE(exists(kRayClusters, "default", old)) << "deleted before the 60 s delay";
  ASSERT_TRUE(runUntil([&] { return !exists(kRayClusters, "default", old); }, seconds(15)));
  EXPECT_THAT(eventReasons(name), Contains("DeletedRayCluster"));
  EXPECT_EQ(rayClusterNames(), std::vector<std::string>{now});
}

TEST_F(RayServiceLifecycleTest, TheOldClusterIsDeletedAfterRayClusterDeletionDelaySeconds) {
  startOperator();
  const std::string name = "delay-five";
  Json service = rayServiceTemplate(name, "app1", 1);
  service["spec"]["rayClusterDeletionDelaySeconds"] = 5;
  createAndRunUntilReady(service);
  auto [old, now] = upgrade(name);
  ASSERT_TRUE(runUntil([&] { return !exists(kRayClusters, "default", old); }, seconds(10)));
  EXPECT_TRUE(exists(kRayClusters, "default", now));
}

// TestLabelHeadPodForServeStatus: the head is labelled ray.io/serve=true once its proxy is
// healthy, and counts among the serve endpoints; with excludeHeadPodFromServeSvc it stays "false"
// and only the workers serve.
TEST_F(RayServiceLifecycleTest, TheHeadPodIsLabelledByItsServeProxysHealth) {
  startOperator();
  const std::string name = "label-head";
  const std::string active = createAndRunUntilReady(rayServiceTemplate(name, "app1", 2));
  ASSERT_TRUE(runUntil([&] { return numServeEndpoints(name) == 3; }, seconds(60)));
  EXPECT_EQ(headLabel(active), "true");
  EXPECT_THAT(eventReasons(name), Contains("UpdatedHeadPodServeLabel"));
}

TEST_F(RayServiceLifecycleTest, ExcludeHeadPodFromServeSvcKeepsTheHeadOutOfTheServeService) {
  startOperator();
  const std::string name = "exclude-head";
  Json service = rayServiceTemplate(name, "app1", 2);
  service["spec"]["excludeHeadPodFromServeSvc"] = true;
  const std::string active = createAndRunUntilReady(service);
  ASSERT_TRUE(runUntil([&] { return numServeEndpoints(name) == 2; }, seconds(60)));
  run(seconds(20));
  EXPECT_EQ(numServeEndpoints(name), 2);
  EXPECT_EQ(headLabel(active), "false");
}

// A test's own proxy client (upstream's FakeRayHttpProxyClient with IsHealthy false): the head is
// never labelled true.
class UnhealthyProxy : public RayHttpProxyClientInterface {
 public:
  Result<void> checkProxyActorHealth() override {
    return tl::unexpected(Status::internal("fake proxy actor is not healthy"));
  }
};

TEST_F(RayServiceLifecycleTest, AnUnhealthyProxyLeavesTheHeadLabelledFalse) {
  OperatorOptions options;
  options.httpProxyClients = [](const std::string&, const std::string&, const std::string&, int) {
    return std::unique_ptr<RayHttpProxyClientInterface>(new UnhealthyProxy());
  };
  startOperator(options);
  const std::string name = "unhealthy-proxy";
  const std::string active = createAndRunUntilReady(rayServiceTemplate(name, "app1", 1));
  ASSERT_TRUE(runUntil([&] { return numServeEndpoints(name) == 1; }, seconds(60)));
  run(seconds(10));
  EXPECT_EQ(headLabel(active), "false");
  EXPECT_EQ(numServeEndpoints(name), 1);  // the worker alone
}

// TestRayServiceFinalizer: deleting the RayService deletes its clusters at once (no delay), and
// the finalizer goes once none is left; the Services go with their owner.
TEST_F(RayServiceLifecycleTest, DeletingTheRayServiceDeletesItsClustersThenTheFinalizer) {
  startOperator();
  const std::string name = "finalizer";
  const std::string active = createAndRunUntilReady(rayServiceTemplate(name, "app1", 1));
  EXPECT_TRUE(meta::hasFinalizer(rayService(name), kRayServiceFinalizer));
  ASSERT_TRUE(client->deleteObject(kRayServices, "default", name).has_value());
  ASSERT_TRUE(runUntil([&] { return !exists(kRayServices, "default", name); }, seconds(30)));
  EXPECT_FALSE(exists(kRayClusters, "default", active));
  // The Services go with their owner (the garbage collector).
  EXPECT_TRUE(runUntil(
      [&] {
        return !exists(kServices, "default", name + "-serve-svc") &&
               !exists(kServices, "default", name + "-head-svc");
      },
      seconds(30)));
}

// Test_RayServiceReconcileManagedBy: a RayService managed by another controller is left alone.
TEST_F(RayServiceLifecycleTest, ARayServiceManagedByAnotherControllerIsSkipped) {
  startOperator();
  Json service = rayServiceTemplate("managed-elsewhere", "app1", 1);
  service["spec"]["managedBy"] = "kueue.x-k8s.io/multikueue";
  create(kRayServices, service);
  run(seconds(30));
  const Json stored = rayService("managed-elsewhere");
  EXPECT_FALSE(meta::hasFinalizer(stored, kRayServiceFinalizer));
  EXPECT_TRUE(jsonAt(stored, {"status"}).is_null() || jsonAt(stored, {"status"}).empty());
  EXPECT_TRUE(rayClusterNames().empty());
}

// handleSuspend: Suspending first (status reset), then the clusters and Services deleted, then
// Suspended; resuming (TestHandleSuspendResumeResetsReadyToInitializing) sets Ready back to
// Initializing and the RayService comes up again on a new cluster.
TEST_F(RayServiceLifecycleTest, SuspendDeletesEverythingAndResumeStartsOver) {
  startOperator();
  const std::string name = "suspend";
  const std::string first = createAndRunUntilReady(rayServiceTemplate(name, "app1", 1));
  updateSpec(name, [](Json& spec) { spec["suspend"] = true; });
  ASSERT_TRUE(runUntil([&] { return conditionTrue(name, kRayServiceSuspending); }, seconds(5)));
  EXPECT_EQ(conditionReason(name, kRayServiceReady), kSuspendInProgress);
  EXPECT_TRUE(activeCluster(name).empty());
  ASSERT_TRUE(runUntil([&] { return conditionTrue(name, kRayServiceSuspended); }, seconds(60)));
  EXPECT_FALSE(conditionTrue(name, kRayServiceSuspending));
  EXPECT_EQ(conditionReason(name, kRayServiceSuspended), kSuspendComplete);
  EXPECT_TRUE(rayClusterNames().empty());
  EXPECT_FALSE(exists(kServices, "default", name + "-serve-svc"));
  EXPECT_TRUE(jsonAt(rayService(name), {"status", "serviceStatus"}).is_null());
  const Json suspended = rayService(name);
  EXPECT_EQ(jsonAt(suspended, {"status", "observedGeneration"}), meta::generation(suspended));

  updateSpec(name, [](Json& spec) { spec["suspend"] = false; });
  ASSERT_TRUE(
      runUntil([&] { return conditionReason(name, kRayServiceSuspended) == kRayServiceResumed; },
               seconds(5)));
  EXPECT_EQ(conditionReason(name, kRayServiceReady), kRayServiceInitializing);
  ASSERT_TRUE(runUntil(
      [&] { return conditionTrue(name, kRayServiceReady) && !activeCluster(name).empty(); },
      seconds(180)));
  EXPECT_NE(activeCluster(name), first);
}

// Serve that never gets an application to run (every application ends DEPLOY_FAILED).
class RayServiceFailingServeTest : public RayServiceLifecycleTest {
 protected:
  RayServiceFailingServeTest() {
    serveOptions.applications["broken"].finalStatus = "DEPLOY_FAILED";
    serveOptions.applications["broken"].message = "ModuleNotFoundError: No module named 'fruit'";
  }
};

// TestMarkFailedIfInitializingTimedOut: a RayService not Ready within ray.io/initializing-timeout
// fails for good: Ready False/InitializingTimeout, a Warning, its cluster deleted.
TEST_F(RayServiceFailingServeTest, InitializingTimeoutFailsTheRayServiceAndDeletesItsCluster) {
  startOperator();
  const std::string name = "times-out";
  Json service = rayServiceTemplate(name, "broken", 1);
  service["metadata"]["annotations"]["ray.io/initializing-timeout"] = "90s";
  create(kRayServices, service);
  ASSERT_TRUE(runUntil([&] { return !rayClusterNames().empty(); }, seconds(10)));
  run(seconds(60));
  EXPECT_EQ(conditionReason(name, kRayServiceReady), kRayServiceInitializing);
  const Json app =
      jsonAt(rayService(name), {"status", "pendingServiceStatus", "applicationStatuses", "broken"});
  EXPECT_EQ(stringOr(jsonAt(app, {"status"})), "DEPLOY_FAILED");
  EXPECT_EQ(stringOr(jsonAt(app, {"message"})), "ModuleNotFoundError: No module named 'fruit'");
  ASSERT_TRUE(runUntil(
      [&] { return conditionReason(name, kRayServiceReady) == kRayServiceInitializingTimeout; },
      seconds(40)));
  const Json failed = rayService(name);
  EXPECT_THAT(stringOr(jsonAt(*findRayServiceCondition(failed, kRayServiceReady), {"message"})),
              ::testing::StartsWith("RayService failed to become ready within the configured "
                                    "timeout of 1m30s. Time spent initializing: "));
  EXPECT_TRUE(pendingClusterName(failed).empty());
  EXPECT_THAT(eventReasons(name), Contains("RayServiceInitializingTimeout"));
  // The cluster the status no longer names goes after the deletion delay (60 s).
  run(seconds(50));
  EXPECT_FALSE(rayClusterNames().empty());
  ASSERT_TRUE(runUntil([&] { return rayClusterNames().empty(); }, seconds(15)));
  // Terminal: nothing is created again.
  run(seconds(30));
  EXPECT_TRUE(rayClusterNames().empty());
  EXPECT_EQ(conditionReason(name, kRayServiceReady), kRayServiceInitializingTimeout);
}

// A pending cluster whose application fails to deploy never takes the traffic: the Services stay
// on the active cluster, which keeps serving; UpgradeInProgress stays True.
TEST_F(RayServiceFailingServeTest, APendingClusterWhoseApplicationFailsNeverTakesTheTraffic) {
  startOperator();
  const std::string name = "bad-upgrade";
  const std::string active = createAndRunUntilReady(rayServiceTemplate(name, "app1", 1));
  updateSpec(name, [](Json& spec) {
    spec["rayClusterConfig"]["rayVersion"] = "2.47.0";
    spec["serveConfigV2"] = serveConfigV2Template("broken");
  });
  ASSERT_TRUE(runUntil([&] { return !pendingCluster(name).empty(); }, seconds(5)));
  run(seconds(120));
  EXPECT_EQ(activeCluster(name), active);
  EXPECT_FALSE(pendingCluster(name).empty());
  EXPECT_EQ(selectedCluster(name + "-serve-svc"), active);
  EXPECT_EQ(selectedCluster(name + "-head-svc"), active);
  EXPECT_TRUE(conditionTrue(name, kRayServiceReady));
  EXPECT_TRUE(conditionTrue(name, kUpgradeInProgress));
  EXPECT_EQ(stringOr(jsonAt(rayService(name), {"status", "pendingServiceStatus",
                                               "applicationStatuses", "broken", "status"})),
            "DEPLOY_FAILED");
}

// ValidationFailed: a name that is no DNS-1035 label.
TEST_F(RayServiceLifecycleTest, AnInvalidRayServiceIsValidationFailed) {
  startOperator();
  create(kRayServices, rayServiceTemplate("1-starts-with-a-digit", "app1", 1));
  ASSERT_TRUE(runUntil(
      [&] {
        return conditionReason("1-starts-with-a-digit", kRayServiceReady) ==
               kRayServiceValidationFailed;
      },
      seconds(5)));
  EXPECT_THAT(eventReasons("1-starts-with-a-digit"), Contains("InvalidRayServiceMetadata"));
  EXPECT_TRUE(rayClusterNames().empty());
}

// checkIfNeedSubmitServeApplications, case "the head Pod crashed and GCS FT was not enabled": a
// new head has no application, and the controller sends the config again.
TEST_F(RayServiceLifecycleTest, AHeadThatLosesItsApplicationsGetsTheConfigAgain) {
  startOperator();
  const std::string name = "head-restart";
  const std::string active = createAndRunUntilReady(rayServiceTemplate(name, "app1", 1));
  EXPECT_EQ(eventCount(name, "UpdatedServeApplications"), 1);
  for (const Json& pod : pods("ray.io/cluster=" + active + ",ray.io/node-type=head", true)) {
    ASSERT_TRUE(client->deleteObject(kPods, "default", meta::name(pod)).has_value());
  }
  ASSERT_TRUE(
      runUntil([&] { return eventCount(name, "UpdatedServeApplications") == 2; }, seconds(120)));
  ASSERT_TRUE(runUntil(
      [&] {
        return stringOr(jsonAt(rayService(name), {"status", "activeServiceStatus",
                                                  "applicationStatuses", "app1", "status"})) ==
                   "RUNNING" &&
               numServeEndpoints(name) == 2;
      },
      seconds(120)));
  EXPECT_EQ(activeCluster(name), active);
}

// The Serve config cache and the deletion schedule are in memory: a restarted operator sends the
// config once more to the cluster (one extra PUT), and nothing else changes.
TEST_F(RayServiceLifecycleTest, ARestartedOperatorSendsTheConfigOnceMore) {
  startOperator();
  const std::string name = "operator-restart";
  const std::string active = createAndRunUntilReady(rayServiceTemplate(name, "app1", 1));
  EXPECT_EQ(eventCount(name, "UpdatedServeApplications"), 1);
  restartOperator();
  run(seconds(60));
  EXPECT_EQ(eventCount(name, "UpdatedServeApplications"), 2);
  EXPECT_EQ(activeCluster(name), active);
  EXPECT_TRUE(pendingCluster(name).empty());
  EXPECT_TRUE(conditionTrue(name, kRayServiceReady));
  EXPECT_EQ(rayClusterNames(), std::vector<std::string>{active});
}

}  // namespace
}  // namespace fakekube::ray::testing
