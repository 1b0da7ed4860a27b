// rayservice_controller_unit_test.go's cases of the RayService controller's pure decisions: the
// spec hash, when a cluster is updated in place or replaced, when the Serve config is sent, when
// a cluster is ready, the RayCluster a RayService creates, validation and the timeout annotation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "controllers/ray/constants.h"
#include "controllers/ray/internal/pod_builder.h"
#include "controllers/ray/internal/rayservice_cluster.h"
#include "controllers/ray/internal/rayservice_serve.h"
#include "controllers/ray/internal/rayservice_types.h"
#include "controllers/ray/internal/rayservice_validation.h"
#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/object_meta.h"

namespace fakekube::ray {
namespace {

Json clusterSpec(const std::string& rayVersion = "2.46.0") {
  return {{"rayVersion", rayVersion},
          {"headGroupSpec",
           {{"template", {{"spec", {{"containers", Json::array({{{"name", "ray-head"}}})}}}}}}},
          {"workerGroupSpecs",
           Json::array(
               {{{"groupName", "worker-group-1"},
                 {"replicas", 1},
                 {"minReplicas", 1},
                 {"maxReplicas", 4},
                 {"template", {{"spec", {{"containers", Json::array({{{"name", "w"}}})}}}}}}})}};
}

Json rayServiceWith(Json spec) {
  return {{"apiVersion", "ray.io/v1"},
          {"kind", "RayService"},
          {"metadata", {{"name", "test-service"}, {"namespace", "test-namespace"}, {"uid", "u-1"}}},
          {"spec", {{"rayClusterConfig", std::move(spec)}}}};
}

// A cluster made from `rayService`, as constructRayClusterForRayService stamps it.
Json clusterFor(const Json& rayService, const std::string& name = "cluster") {
  return constructRayClusterForRayService(rayService, name).value();
}

TEST(RayServiceUnitTest, GenerateHashWithoutReplicasAndWorkersToDelete) {
  Json cluster = {{"spec", clusterSpec()}};
  const std::string hash1 = clusterHash(cluster);
  // The autoscaler's fields are muted.
  cluster["spec"]["workerGroupSpecs"][0]["replicas"] = 2;
  cluster["spec"]["workerGroupSpecs"][0]["scaleStrategy"] = {{"workersToDelete", {"w-1"}}};
  EXPECT_EQ(clusterHash(cluster), hash1);
  // RayVersion is not.
  cluster["spec"]["rayVersion"] = "2.100.0";
  EXPECT_NE(clusterHash(cluster), hash1);
  // Tolerations and scheduling gates injected by external controllers (Kueue) are muted.
  cluster["spec"]["rayVersion"] = "2.46.0";
  cluster["spec"]["headGroupSpec"]["template"]["spec"]["tolerations"] =
      Json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}}});
  cluster["spec"]["workerGroupSpecs"][0]["template"]["spec"]["schedulingGates"] =
      Json::array({{{"name", "kueue.x-k8s.io/admission"}}});
  EXPECT_EQ(clusterHash(cluster), hash1);
}

TEST(RayServiceUnitTest, CheckIfNeedSubmitServeApplications) {
  const Json apps = {{"myapp", {{"status", "RUNNING"}}}};
  const Json none = Json::object();
  // 1: nothing cached (a new cluster).
  EXPECT_TRUE(checkIfNeedSubmitServeApplications("", "serve-config-1", none).first);
  // 2: cached and unchanged.
  EXPECT_FALSE(checkIfNeedSubmitServeApplications("serve-config-1", "serve-config-1", apps).first);
  // 3: the config changed.
  EXPECT_TRUE(checkIfNeedSubmitServeApplications("serve-config-1", "serve-config-2", apps).first);
  // 4: the head crashed without GCS FT: no application.
  auto [crashed, reason] =
      checkIfNeedSubmitServeApplications("serve-config-1", "serve-config-1", none);
  EXPECT_TRUE(crashed);
  EXPECT_EQ(reason,
            "No Serve application found in the RayCluster. A possible reason is that the head Pod "
            "crashed and GCS FT was not enabled.");
  // 5: the operator restarted (nothing cached) while the cluster runs the application.
  EXPECT_TRUE(checkIfNeedSubmitServeApplications("", "serve-config-1", apps).first);
}

// A dashboard reporting one application in a given state.
class FakeServeDashboard : public RayDashboardClientInterface {
 public:
  explicit FakeServeDashboard(Json details) : details_(std::move(details)) {}
  Result<RayJobInfo> getJobInfo(std::string_view) override { return RayJobInfo{}; }
  Result<std::vector<RayJobInfo>> listJobs() override { return std::vector<RayJobInfo>{}; }
  Result<std::string> submitJobRequest(const RayJobRequest&) override { return std::string(); }
  Result<std::optional<std::string>> getJobLog(std::string_view) override {
    return std::optional<std::string>();
  }
  Result<void> stopJob(std::string_view) override { return {}; }
  Result<void> deleteJob(std::string_view) override { return {}; }
  Result<Json> getServeDetails() override { return details_; }

 private:
  Json details_;
};

Json serveDetails(const std::string& appStatus, const std::string& deploymentStatus) {
  return {{"applications",
           {{"serve-app-1",
             {{"name", "serve-app-1"},
              {"status", appStatus},
              {"deployments", {{"d", {{"name", "d"}, {"status", deploymentStatus}}}}}}}}}};
}

TEST(RayServiceUnitTest, GetAndCheckServeStatus) {
  struct Case {
    const char* name;
    Json details;
    bool ready;
  } cases[] = {
      {"Create a new Ray Serve application", serveDetails("DEPLOYING", "UPDATING"), false},
      {"Finishes the deployment process and becomes RUNNING", serveDetails("RUNNING", "HEALTHY"),
       true},
      {"Both the current Ray Serve application and RayService status are unhealthy",
       serveDetails("UNHEALTHY", "UNHEALTHY"), false},
      {"Both the current Ray Serve application and RayService status are DEPLOY_FAILED",
       serveDetails("DEPLOY_FAILED", "UPDATING"), false},
      {"Ray Serve application is not found", Json{{"applications", Json::object()}}, false},
  };
  for (auto& c : cases) {
    FakeServeDashboard dashboard(c.details);
    auto status = getAndCheckServeStatus(dashboard);
    ASSERT_TRUE(status.has_value()) << c.name;
    EXPECT_EQ(status->ready, c.ready) << c.name;
  }
  FakeServeDashboard running(serveDetails("RUNNING", "HEALTHY"));
  EXPECT_EQ(getAndCheckServeStatus(running)->applications,
            Json::parse(R"({"serve-app-1": {"status": "RUNNING",
                            "serveDeploymentStatuses": {"d": {"status": "HEALTHY"}}}})"));
}

TEST(RayServiceUnitTest, GetAndCheckServeStatusWrapsADashboardError) {
  class Failing : public FakeServeDashboard {
   public:
    Failing() : FakeServeDashboard(Json()) {}
    Result<Json> getServeDetails() override {
      return tl::unexpected(Status::internal("connection refused"));
    }
  } dashboard;
  auto status = getAndCheckServeStatus(dashboard);
  ASSERT_FALSE(status.has_value());
  EXPECT_THAT(
      status.error().message,
      ::testing::StartsWith("failed to get Serve application statuses from the dashboard."));
  EXPECT_THAT(status.error().message, ::testing::HasSubstr("failed to get serve details: "));
}

TEST(RayServiceUnitTest, IsClusterSpecHashEqual) {
  struct Case {
    const char* name;
    bool partial;
    bool diffReplicas;
    bool addNewWorkerGroup;
    bool updateClusterSpec;
    bool expected;
  } cases[] = {
      {"[full] diff replicas", false, true, false, false, true},
      {"[full] completely identical", false, false, false, false, true},
      {"[full] update cluster spec", false, false, false, true, false},
      {"[partial] new worker group", true, false, true, false, true},
      {"[partial] diff replicas + new worker group", true, true, true, false, true},
      {"[partial] diff replicas", true, true, false, false, true},
      {"[partial] update cluster spec", true, false, false, true, false},
  };
  for (const Case& c : cases) {
    Json service = rayServiceWith(clusterSpec());
    const Json cluster = clusterFor(service);
    Json& spec = service["spec"]["rayClusterConfig"];
    if (c.diffReplicas) spec["workerGroupSpecs"][0]["replicas"] = 2;
    if (c.addNewWorkerGroup) {
      Json group = spec["workerGroupSpecs"][0];
      group["groupName"] = "worker-group-2";
      spec["workerGroupSpecs"].push_back(group);
    }
    if (c.updateClusterSpec) spec["rayVersion"] = "new-version";
    EXPECT_EQ(isClusterSpecHashEqual(service, cluster, c.partial), c.expected) << c.name;
  }
}

TEST(RayServiceUnitTest, ShouldPrepareNewClusterWhenNeitherClusterExists) {
  EXPECT_TRUE(shouldPrepareNewCluster(rayServiceWith(clusterSpec()), Json(), Json(), false));
}

TEST(RayServiceUnitTest, ShouldPrepareNewClusterForAZeroDowntimeUpgrade) {
  Json service = rayServiceWith(clusterSpec("old-version"));
  const Json active = clusterFor(service, "active-cluster");
  service["spec"]["rayClusterConfig"]["rayVersion"] = "new-version";
  EXPECT_TRUE(shouldPrepareNewCluster(service, active, Json(), false));
  // With upgradeStrategy None the change waits (no new cluster).
  service["spec"]["upgradeStrategy"] = {{"type", "None"}};
  EXPECT_FALSE(shouldPrepareNewCluster(service, active, Json(), false));
}

TEST(RayServiceUnitTest, ShouldPrepareNewClusterOverridesAPendingClusterUnlessItServes) {
  Json service = rayServiceWith(clusterSpec("old-version"));
  const Json pending = clusterFor(service, "pending-cluster");
  service["spec"]["rayClusterConfig"]["rayVersion"] = "new-version";
  // "override the pending cluster if it is not serving"
  EXPECT_TRUE(shouldPrepareNewCluster(service, Json(), pending, false));
  // "do not override the pending cluster if it is serving"
  EXPECT_FALSE(shouldPrepareNewCluster(service, Json(), pending, true));
}

TEST(RayServiceUnitTest, IsZeroDowntimeUpgradeEnabled) {
  struct Case {
    const char* name;
    std::optional<std::string> type;
    bool env;  // ENABLE_ZERO_DOWNTIME: true unless "false"
    bool expected;
  } cases[] = {
      {"both upgrade strategy and env var are not set", std::nullopt, true, true},
      {"upgrade strategy is not set, but env var is set to false", std::nullopt, false, false},
      {"upgrade strategy is set to NewCluster", "NewCluster", true, true},
      {"upgrade strategy is set to NewCluster, and env var is set to false", "NewCluster", false,
       true},
      {"upgrade strategy is set to RayServiceUpgradeNone, and env var is not set", "None", true,
       false},
      {"upgrade strategy is set to RayServiceUpgradeNone, and env var is set to false", "None",
       false, false},
  };
  for (const Case& c : cases) {
    Json service = rayServiceWith(clusterSpec());
    if (c.type) service["spec"]["upgradeStrategy"] = {{"type", *c.type}};
    EXPECT_EQ(isZeroDowntimeUpgradeEnabled(service, c.env), c.expected) << c.name;
  }
}

TEST(RayServiceUnitTest, ConstructRayClusterForRayService) {
  Json service = rayServiceWith(clusterSpec());
  service["metadata"]["labels"] = {{"team", "serve"}};
  service["metadata"]["annotations"] = {{"foo", "bar"}};
  service["spec"]["rayClusterConfig"]["suspend"] = true;
  const Json cluster = clusterFor(service, "test-service-abcde");
  EXPECT_EQ(meta::name(cluster), "test-service-abcde");
  EXPECT_EQ(meta::namespace_(cluster), "test-namespace");
  EXPECT_EQ(meta::label(cluster, "team"), "serve");
  EXPECT_EQ(meta::label(cluster, kRayOriginatedFromCRNameLabelKey), "test-service");
  EXPECT_EQ(meta::label(cluster, kRayOriginatedFromCRDLabelKey), "RayService");
  EXPECT_EQ(meta::annotation(cluster, "foo"), "bar");
  EXPECT_EQ(meta::annotation(cluster, kNumWorkerGroupsKey), "1");
  EXPECT_EQ(meta::annotation(cluster, kKubeRayVersion), kKubeRayVersionValue);
  // The hash leaves suspend out: suspend goes to the cluster only at creation.
  Json unsuspended = service;
  unsuspended["spec"]["rayClusterConfig"].erase("suspend");
  EXPECT_EQ(meta::annotation(cluster, kHashWithoutReplicasAndWorkersToDeleteKey),
            clusterHash(Json{{"spec", unsuspended["spec"]["rayClusterConfig"]}}));
  EXPECT_EQ(cluster["spec"]["suspend"], true);
  const auto owner = meta::controllerOf(cluster);
  ASSERT_TRUE(owner.has_value());
  EXPECT_EQ(owner->kind, "RayService");
  EXPECT_EQ(owner->uid, "u-1");
}

TEST(RayServiceUnitTest, ShouldUpdateClusterForAppendedGroupsAndTheKubeRayVersion) {
  Json service = rayServiceWith(clusterSpec());
  Json active = clusterFor(service, "active");
  EXPECT_FALSE(shouldUpdateCluster(service, active, true));
  EXPECT_FALSE(shouldUpdateCluster(service, Json(), true));
  // An older KubeRay made the active cluster: updated in place.
  active["metadata"]["annotations"][std::string(kKubeRayVersion)] = "v1.3.0";
  EXPECT_TRUE(shouldUpdateCluster(service, active, true));
  active = clusterFor(service, "active");
  Json group = service["spec"]["rayClusterConfig"]["workerGroupSpecs"][0];
  group["groupName"] = "appended";
  service["spec"]["rayClusterConfig"]["workerGroupSpecs"].push_back(group);
  EXPECT_TRUE(shouldUpdateCluster(service, active, true));
  EXPECT_TRUE(shouldUpdateCluster(service, active, false));
  // During an upgrade only the pending cluster follows the spec.
  setRayServiceCondition(service, kUpgradeInProgress, "True", kBothActivePendingClustersExist, "",
                         TimePoint{});
  EXPECT_FALSE(shouldUpdateCluster(service, active, true));
  EXPECT_TRUE(shouldUpdateCluster(service, active, false));
}

TEST(RayServiceUnitTest, ModifyRayClusterKeepsTheClustersSuspend) {
  Json current = clusterFor(rayServiceWith(clusterSpec()), "c");
  current["spec"]["suspend"] = true;  // set by Kueue after creation
  Json goalService = rayServiceWith(clusterSpec("2.50.0"));
  modifyRayCluster(current, clusterFor(goalService, "c"));
  EXPECT_EQ(current["spec"]["rayVersion"], "2.50.0");
  EXPECT_EQ(current["spec"]["suspend"], true);
}

TEST(RayServiceUnitTest, ValidateRayServiceMetadataAndSpec) {
  Json service = rayServiceWith(clusterSpec());
  EXPECT_EQ(validateRayServiceMetadata(service), std::nullopt);
  EXPECT_EQ(validateRayServiceSpec(service), std::nullopt);
  service["metadata"]["name"] = std::string(48, 'a');
  EXPECT_EQ(validateRayServiceMetadata(service),
            "The RayService metadata is invalid: RayService name should be no more than 47 "
            "characters");
  service["metadata"]["name"] = "ok";
  service["metadata"]["annotations"] = {{"ray.io/initializing-timeout", "-5m"}};
  EXPECT_EQ(validateRayServiceMetadata(service),
            "The RayService metadata is invalid: RayService annotations is invalid: annotation "
            "ray.io/initializing-timeout must be a positive duration, got: -5m");
  service["metadata"]["annotations"] = {{"ray.io/initializing-timeout", "soon"}};
  EXPECT_THAT(validateRayServiceMetadata(service).value_or(""),
              ::testing::HasSubstr("has invalid format: soon. Expected Go duration format"));
  service["spec"]["upgradeStrategy"] = {{"type", "Blue"}};
  EXPECT_EQ(validateRayServiceSpec(service),
            "The RayService spec is invalid: Spec.UpgradeStrategy.Type value Blue is invalid, "
            "valid options are NewClusterWithIncrementalUpgrade, NewCluster, or None");
  service["spec"]["upgradeStrategy"] = {{"type", "NewCluster"}};
  service["spec"]["rayClusterConfig"]["headGroupSpec"]["headService"] = {
      {"metadata", {{"name", "mine"}}}};
  EXPECT_EQ(validateRayServiceSpec(service),
            "The RayService spec is invalid: "
            "spec.rayClusterConfig.headGroupSpec.headService.metadata.name should not be set");
}

TEST(RayServiceUnitTest, InitializingTimeoutAcceptsGoDurationsAndSeconds) {
  Json service = rayServiceWith(clusterSpec());
  auto timeoutOf = [&](const std::string& text) {
    service["metadata"]["annotations"] = {{"ray.io/initializing-timeout", text}};
    return initializingTimeout(service).timeout;
  };
  EXPECT_EQ(timeoutOf("5m"), std::chrono::minutes(5));
  EXPECT_EQ(timeoutOf("1h30m"), std::chrono::minutes(90));
  EXPECT_EQ(timeoutOf("300"), std::chrono::seconds(300));
  EXPECT_EQ(timeoutOf("1.5s"), std::chrono::milliseconds(1500));
  EXPECT_EQ(goDurationString(std::chrono::seconds(90)), "1m30s");
  EXPECT_EQ(goDurationString(std::chrono::minutes(5)), "5m0s");
  EXPECT_EQ(goDurationString(std::chrono::milliseconds(1500)), "1.5s");
  EXPECT_EQ(goDurationString(std::chrono::hours(2)), "2h0m0s");
}

TEST(RayServiceUnitTest, InconsistentRayServiceStatusesIgnoresTheClusterStatusAlone) {
  const Json base = Json::parse(R"({"activeServiceStatus": {"rayClusterName": "a",
      "rayClusterStatus": {"state": "ready"}, "applicationStatuses": {"app": {"status": "RUNNING"}}},
      "numServeEndpoints": 2})");
  Json changed = base;
  changed["activeServiceStatus"]["rayClusterStatus"]["state"] = "suspended";
  changed["lastUpdateTime"] = "2026-01-01T00:00:00Z";
  EXPECT_FALSE(inconsistentRayServiceStatuses(base, changed));
  changed["activeServiceStatus"]["applicationStatuses"]["app"]["status"] = "UNHEALTHY";
  EXPECT_TRUE(inconsistentRayServiceStatuses(base, changed));
  changed = base;
  changed["numServeEndpoints"] = 3;
  EXPECT_TRUE(inconsistentRayServiceStatuses(base, changed));
}

}  // namespace
}  // namespace fakekube::ray
