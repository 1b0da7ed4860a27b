// KubeRay's batch-scheduler plug-ins (controllers/ray/batchscheduler/): the cases of KubeRay's
// volcano_scheduler_test.go, scheduler_plugins_test.go and schedulermanager_test.go by name, on
// an in-process API server serving Volcano's and KubeRay's definitions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "controllers/ray/batchscheduler/internal/batch_scheduler.h"
#include "controllers/ray/batchscheduler/internal/scheduler_plugins_batch_scheduler.h"
#include "controllers/ray/batchscheduler/internal/volcano_batch_scheduler.h"
#include "controllers/ray/constants.h"
#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/internal/operator_configuration.h"
#include "controllers/volcano/internal/volcano_api.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube::ray::batchscheduler {
namespace {

using ::testing::HasSubstr;

Json container(const std::string& name, bool gpu) {
  Json limits = {{"cpu", "500m"}, {"memory", "512Mi"}};
  if (gpu) limits["nvidia.com/gpu"] = "1";
  return {
      {"name", name},
      {"image", "rayproject/ray:2.46.0"},
      {"resources", {{"limits", limits}, {"requests", {{"cpu", "256m"}, {"memory", "256Mi"}}}}}};
}

// createTestRayCluster's spec: a head of 256m / 256Mi and a worker group of 2 (min 1, max 4) of
// 256m / 256Mi (and a GPU limit when `gpu`).
Json clusterSpec(int numOfHosts, bool gpu) {
  return {
      {"headGroupSpec",
       {{"template", {{"spec", {{"containers", Json::array({container("ray-head", false)})}}}}}}},
      {"workerGroupSpecs",
       Json::array(
           {{{"groupName", "workers"},
             {"replicas", 2},
             {"minReplicas", 1},
             {"maxReplicas", 4},
             {"numOfHosts", numOfHosts},
             {"template",
              {{"spec", {{"containers", Json::array({container("ray-worker", gpu)})}}}}}}})}};
}

Json createTestRayCluster(int numOfHosts) {
  return {
      {"apiVersion", "ray.io/v1"},
      {"kind", "RayCluster"},
      {"metadata", {{"name", "raycluster-sample"}, {"namespace", "default"}, {"uid", "uid-rc"}}},
      {"spec", clusterSpec(numOfHosts, true)}};
}

Json createTestRayJob(int numOfHosts) {
  return {{"apiVersion", "ray.io/v1"},
          {"kind", "RayJob"},
          {"metadata",
           {{"name", "rayjob-sample"},
            {"namespace", "default"},
            {"uid", "uid-rj"},
            {"labels",
             {{"volcano.sh/queue-name", "test-queue"},
              {"ray.io/priority-class-name", "test-priority"}}}}},
          {"spec", {{"rayClusterSpec", clusterSpec(numOfHosts, false)}}},
          {"status",
           {{"dashboardURL", "rayjob-sample-head-svc.default.svc:8265"},
            {"jobId", "rayjob-sample-abcde"}}}};
}

const Json& minResources(const Json& group) { return jsonAt(group, {"spec", "minResources"}); }

// --- volcano_scheduler_test.go ---

TEST(VolcanoBatchScheduler, TestCreatePodGroupForRayCluster) {
  const Json cluster = createTestRayCluster(1);
  auto [minMember, resources] = volcanoPodGroupParams(cluster["spec"]);
  auto group = volcanoPodGroup(cluster, minMember, resources);
  ASSERT_TRUE(group);
  EXPECT_EQ(meta::namespace_(*group), "default");
  EXPECT_EQ(jsonAt(*group, {"spec", "minMember"}), 3);  // 1 head + 2 workers (desired)
  EXPECT_EQ(minResources(*group)["cpu"], "768m");       // requests, not limits
  EXPECT_EQ(minResources(*group)["memory"], "768Mi");
  EXPECT_EQ(minResources(*group)["nvidia.com/gpu"], "2");
}

TEST(VolcanoBatchScheduler, TestCreatePodGroupForRayCluster_NumOfHosts2) {
  const Json cluster = createTestRayCluster(2);
  auto [minMember, resources] = volcanoPodGroupParams(cluster["spec"]);
  auto group = volcanoPodGroup(cluster, minMember, resources);
  ASSERT_TRUE(group);
  EXPECT_EQ(jsonAt(*group, {"spec", "minMember"}), 5);  // 2 workers x 2 hosts + 1 head
  EXPECT_EQ(minResources(*group)["cpu"], "1280m");
  EXPECT_EQ(minResources(*group)["memory"], "1280Mi");
  EXPECT_EQ(minResources(*group)["nvidia.com/gpu"], "4");
}

TEST(VolcanoBatchScheduler, TestCreatePodGroup_NetworkTopologyBothLabels) {
  Json cluster = createTestRayCluster(1);
  cluster["metadata"]["labels"] = {{"volcano.sh/network-topology-mode", "soft"},
                                   {"volcano.sh/network-topology-highest-tier-allowed", "3"}};
  auto group = volcanoPodGroup(cluster, 3, {});
  ASSERT_TRUE(group);
  EXPECT_EQ(jsonAt(*group, {"spec", "networkTopology", "mode"}), "soft");
  EXPECT_EQ(jsonAt(*group, {"spec", "networkTopology", "highestTierAllowed"}), 3);
}

TEST(VolcanoBatchScheduler, TestCreatePodGroup_NetworkTopologyOnlyModeLabel) {
  Json cluster = createTestRayCluster(1);
  cluster["metadata"]["labels"] = {{"volcano.sh/network-topology-mode", "hard"}};
  auto group = volcanoPodGroup(cluster, 3, {});
  ASSERT_TRUE(group);
  EXPECT_EQ(jsonAt(*group, {"spec", "networkTopology", "mode"}), "hard");
  EXPECT_TRUE(jsonAt(*group, {"spec", "networkTopology", "highestTierAllowed"}).is_null());
}

TEST(VolcanoBatchScheduler, TestCreatePodGroup_NetworkTopologyHighestTierAllowedNotInt) {
  Json cluster = createTestRayCluster(1);
  cluster["metadata"]["labels"] = {
      {"volcano.sh/network-topology-mode", "soft"},
      {"volcano.sh/network-topology-highest-tier-allowed", "not-an-int"}};
  auto group = volcanoPodGroup(cluster, 3, {});
  ASSERT_FALSE(group);
  EXPECT_THAT(group.error().message,
              HasSubstr("failed to convert volcano.sh/network-topology-highest-tier-allowed label "
                        "to int"));
}

class VolcanoPodGroupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server = ApiServer::open(executor.clock()).value();
    client = std::make_unique<InProcessClient>(*server);
    ASSERT_TRUE(volcano::installVolcanoApi(*client));
    ASSERT_TRUE(installCustomResourceDefinitions(*client));
  }
  // The PodGroup of the test RayJob once it is submitted in `submissionMode`.
  Json podGroupOnSubmission(Json rayJob, const std::string& submissionMode) {
    rayJob["spec"]["submissionMode"] = submissionMode;
    auto scheduled = scheduler.doBatchSchedulingOnSubmission(*client, rayJob);
    EXPECT_TRUE(scheduled) << scheduled.error().str();
    return podGroup("ray-rayjob-sample-pg");
  }
  Json podGroup(const std::string& name) {
    auto got = client->get(kVolcanoPodGroups, "default", name);
    EXPECT_TRUE(got) << name;
    return got ? *got : Json();
  }

  SimExecutor executor;
  std::unique_ptr<ApiServer> server;
  std::unique_ptr<InProcessClient> client;
  VolcanoBatchScheduler scheduler;
};

TEST_F(VolcanoPodGroupTest, TestCreatePodGroupForRayJobNoSubmitterPodResources) {
  const Json group = podGroupOnSubmission(createTestRayJob(1), "HTTPMode");
  EXPECT_EQ(jsonAt(group, {"spec", "minMember"}), 3);
  EXPECT_EQ(minResources(group)["cpu"], "768m");
  EXPECT_EQ(minResources(group)["memory"], "768Mi");
  EXPECT_EQ(jsonAt(group, {"spec", "queue"}), "test-queue");
  EXPECT_EQ(jsonAt(group, {"spec", "priorityClassName"}), "test-priority");
  ASSERT_EQ(meta::ownerReferences(group).size(), 1u);
  EXPECT_EQ(meta::ownerReferences(group)[0].kind, "RayJob");
}

TEST_F(VolcanoPodGroupTest, TestCreatePodGroupForRayJobK8sJobModeIncludesSubmitterPodResources) {
  Json rayJob = createTestRayJob(1);
  rayJob["spec"]["submissionMode"] = "HTTPMode";
  ASSERT_TRUE(scheduler.doBatchSchedulingOnSubmission(*client, rayJob));
  rayJob["spec"]["submissionMode"] = "K8sJobMode";  // the existing group is updated
  ASSERT_TRUE(scheduler.doBatchSchedulingOnSubmission(*client, rayJob));
  const Json group = podGroup("ray-rayjob-sample-pg");
  EXPECT_EQ(jsonAt(group, {"spec", "minMember"}), 3);  // the submitter is not a member
  EXPECT_EQ(minResources(group)["cpu"], "1268m");      // 768m + 500m
  EXPECT_EQ(minResources(group)["memory"], "968Mi");   // 768Mi + 200Mi
}

TEST_F(VolcanoPodGroupTest, TestCreatePodGroupForRayJobSidecarModeIncludesSubmitterPodResources) {
  const Json group = podGroupOnSubmission(createTestRayJob(1), "SidecarMode");
  EXPECT_EQ(jsonAt(group, {"spec", "minMember"}), 3);
  EXPECT_EQ(minResources(group)["cpu"], "1268m");
  EXPECT_EQ(minResources(group)["memory"], "968Mi");
}

TEST_F(VolcanoPodGroupTest, TestCreatePodGroupForRayJob_NumOfHosts2K8sJobMode) {
  const Json group = podGroupOnSubmission(createTestRayJob(2), "K8sJobMode");
  EXPECT_EQ(jsonAt(group, {"spec", "minMember"}), 5);
  EXPECT_EQ(minResources(group)["cpu"], "1780m");      // 1280m + 500m
  EXPECT_EQ(minResources(group)["memory"], "1480Mi");  // 1280Mi + 200Mi
}

TEST_F(VolcanoPodGroupTest, ARayJobReferencingAnExistingClusterIsRefused) {
  Json rayJob = createTestRayJob(1);
  rayJob["spec"].erase("rayClusterSpec");
  auto refused = scheduler.doBatchSchedulingOnSubmission(*client, rayJob);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message,
            "gang scheduling does not support RayJob default/rayjob-sample referencing an "
            "existing RayCluster");
}

TEST_F(VolcanoPodGroupTest, ARayJobsClusterCreatesNoGroupOfItsOwn) {
  Json cluster = createTestRayCluster(1);
  cluster["metadata"]["labels"] = {
      {std::string(kRayOriginatedFromCRDLabelKey), "RayJob"},
      {std::string(kRayOriginatedFromCRNameLabelKey), "rayjob-sample"}};
  ASSERT_TRUE(scheduler.doBatchSchedulingOnSubmission(*client, cluster));
  EXPECT_FALSE(client->get(kVolcanoPodGroups, "default", "ray-raycluster-sample-pg"));
  EXPECT_FALSE(client->get(kVolcanoPodGroups, "default", "ray-rayjob-sample-pg"));
  EXPECT_EQ(volcanoPodGroupName(cluster), "ray-rayjob-sample-pg");
}

TEST(VolcanoBatchScheduler, TestAddMetadataToSubmitterPod) {
  VolcanoBatchScheduler scheduler;
  const Json rayJob = createTestRayJob(1);
  Json submitterTemplate = {{"metadata", Json::object()}, {"spec", Json::object()}};
  scheduler.addMetadataToChildResource(rayJob, submitterTemplate, ChildKind::PodTemplate,
                                       kSubmitterGroupName);
  EXPECT_EQ(meta::annotation(submitterTemplate, "scheduling.k8s.io/group-name"),
            "ray-rayjob-sample-pg");
  EXPECT_EQ(meta::annotation(submitterTemplate, "volcano.sh/task-spec"), "submittergroup");
  EXPECT_EQ(meta::label(submitterTemplate, "volcano.sh/queue-name"), "test-queue");
  EXPECT_EQ(meta::label(submitterTemplate, "ray.io/priority-class-name"), "test-priority");
  EXPECT_EQ(jsonAt(submitterTemplate, {"spec", "schedulerName"}), "volcano");
}

TEST(VolcanoBatchScheduler, TestCalculatePodGroupParamsAutoscalingDisabled) {
  auto [minMember, resources] = volcanoPodGroupParams(createTestRayCluster(1)["spec"]);
  EXPECT_EQ(minMember, 3);
  EXPECT_EQ(resourceListJson(resources)["cpu"], "768m");
  EXPECT_EQ(resourceListJson(resources)["memory"], "768Mi");
}

TEST(VolcanoBatchScheduler, TestCalculatePodGroupParamsAutoscalingEnabled) {
  Json spec = createTestRayCluster(1)["spec"];
  spec["enableInTreeAutoscaling"] = true;
  auto [minMember, resources] = volcanoPodGroupParams(spec);
  EXPECT_EQ(minMember, 2);  // 1 head + 1 worker (min replicas)
  EXPECT_EQ(resourceListJson(resources)["cpu"], "512m");
  EXPECT_EQ(resourceListJson(resources)["memory"], "512Mi");
}

TEST(VolcanoBatchScheduler, TestGetAppPodGroupName) {
  EXPECT_EQ(volcanoPodGroupName(createTestRayCluster(1)), "ray-raycluster-sample-pg");
  EXPECT_EQ(volcanoPodGroupName(createTestRayJob(1)), "ray-rayjob-sample-pg");
}

TEST(VolcanoBatchScheduler, TestCreatePodGroup_OwnerAnnotationsCopiedRayClusterWithAnnotations) {
  Json cluster = createTestRayCluster(1);
  cluster["metadata"]["annotations"] = {{"example.com/team", "ml"}, {"example.com/cost", "42"}};
  auto group = volcanoPodGroup(cluster, 3, {});
  ASSERT_TRUE(group);
  EXPECT_EQ(meta::annotations(*group), cluster["metadata"]["annotations"]);
}

TEST(VolcanoBatchScheduler, TestCreatePodGroup_OwnerAnnotationsCopiedRayClusterWithNilAnnotations) {
  auto group = volcanoPodGroup(createTestRayCluster(1), 3, {});
  ASSERT_TRUE(group);
  EXPECT_TRUE(meta::annotations(*group).empty());
}

TEST_F(VolcanoPodGroupTest, TestCleanupOnCompletionRayClusterShouldBeNoOp) {
  auto cleaned = scheduler.cleanupOnCompletion(*client, createTestRayCluster(1));
  ASSERT_TRUE(cleaned);
  EXPECT_FALSE(*cleaned);
}

TEST_F(VolcanoPodGroupTest, TestCleanupOnCompletionEmptyRayClusterNameReturnsEarly) {
  auto cleaned = scheduler.cleanupOnCompletion(*client, createTestRayJob(1));
  ASSERT_TRUE(cleaned);
  EXPECT_FALSE(*cleaned);
}

TEST_F(VolcanoPodGroupTest,
       TestCleanupOnCompletionRayClusterNotFoundUpdatesExistingPodGroupWithEmptyResources) {
  Json rayJob = createTestRayJob(1);
  ASSERT_TRUE(scheduler.doBatchSchedulingOnSubmission(*client, rayJob));
  rayJob["status"]["rayClusterName"] = "rayjob-sample-cluster";
  auto cleaned = scheduler.cleanupOnCompletion(*client, rayJob);
  ASSERT_TRUE(cleaned) << cleaned.error().str();
  EXPECT_TRUE(*cleaned);
  const Json group = podGroup("ray-rayjob-sample-pg");
  EXPECT_EQ(jsonAt(group, {"spec", "minMember"}), 0);
  EXPECT_EQ(minResources(group), Json::object());
  // The bool reflects an update: a second call changes nothing.
  auto again = scheduler.cleanupOnCompletion(*client, rayJob);
  ASSERT_TRUE(again);
  EXPECT_FALSE(*again);
}

TEST_F(VolcanoPodGroupTest, TestCleanupOnCompletionRayClusterExistsRecalculatesFromLiveSpec) {
  Json rayJob = createTestRayJob(1);
  ASSERT_TRUE(scheduler.doBatchSchedulingOnSubmission(*client, rayJob));  // with the submitter
  Json cluster = createTestRayCluster(1);
  cluster["metadata"].erase("uid");
  cluster["metadata"]["name"] = "rayjob-sample-cluster";
  cluster["spec"]["workerGroupSpecs"][0]["suspend"] = true;
  ASSERT_TRUE(client->create(kRayClusters, cluster));
  rayJob["status"]["rayClusterName"] = "rayjob-sample-cluster";
  auto cleaned = scheduler.cleanupOnCompletion(*client, rayJob);
  ASSERT_TRUE(cleaned);
  EXPECT_TRUE(*cleaned);
  const Json group = podGroup("ray-rayjob-sample-pg");
  EXPECT_EQ(jsonAt(group, {"spec", "minMember"}), 1);  // the head; the workers are suspended
  EXPECT_EQ(minResources(group)["cpu"], "256m");
}

// --- scheduler_plugins_test.go ---

TEST(SchedulerPluginsBatchScheduler, TestCreatePodGroup) {
  const Json group = coschedulingPodGroup(createTestRayCluster(1));
  EXPECT_EQ(meta::name(group), "raycluster-sample");
  EXPECT_EQ(jsonAt(group, {"spec", "minMember"}), 3);
  EXPECT_EQ(minResources(group)["cpu"], "768m");
  EXPECT_EQ(minResources(group)["memory"], "768Mi");
  EXPECT_EQ(minResources(group)["nvidia.com/gpu"], "2");
}

TEST(SchedulerPluginsBatchScheduler, TestCreatePodGroupWithMultipleHosts) {
  const Json group = coschedulingPodGroup(createTestRayCluster(2));
  EXPECT_EQ(jsonAt(group, {"spec", "minMember"}), 5);
  EXPECT_EQ(minResources(group)["cpu"], "1280m");
  EXPECT_EQ(minResources(group)["nvidia.com/gpu"], "4");
}

TEST(SchedulerPluginsBatchScheduler, TestAddMetadataToChildResource) {
  SchedulerPluginsBatchScheduler scheduler;
  Json cluster = createTestRayCluster(1);
  Json pod = {{"metadata", Json::object()}, {"spec", Json::object()}};
  scheduler.addMetadataToChildResource(cluster, pod, ChildKind::Pod, "workers");
  EXPECT_FALSE(meta::labelIfPresent(pod, "scheduling.x-k8s.io/pod-group"));
  EXPECT_EQ(jsonAt(pod, {"spec", "schedulerName"}), "scheduler-plugins-scheduler");
  cluster["metadata"]["labels"] = {{"ray.io/gang-scheduling-enabled", "true"}};
  scheduler.addMetadataToChildResource(cluster, pod, ChildKind::Pod, "workers");
  EXPECT_EQ(meta::label(pod, "scheduling.x-k8s.io/pod-group"), "raycluster-sample");
}

// --- schedulermanager_test.go TestGetSchedulerFactory ---

std::string pluginOf(std::string_view name, bool enable) {
  auto scheduler = newBatchScheduler(name, enable);
  if (!scheduler) return "error: " + scheduler.error().message;
  return *scheduler ? (*scheduler)->name() : "default";
}

TEST(SchedulerManager, TestGetSchedulerFactory) {
  EXPECT_EQ(pluginOf("", false), "default");  // enableBatchScheduler=false, batchScheduler=''
  EXPECT_EQ(pluginOf("volcano", false), "volcano");
  EXPECT_EQ(pluginOf("scheduler-plugins", false), "scheduler-plugins-scheduler");
  EXPECT_EQ(pluginOf("unknown-scheduler-name", false),
            "error: the scheduler is not supported, name=unknown-scheduler-name");
  // enableBatchScheduler=true: volcano, the legacy option.
  EXPECT_EQ(pluginOf("", true), "volcano");
  EXPECT_EQ(pluginOf("volcano", true), "volcano");
}

// --- config_utils.go ValidateBatchSchedulerConfig, and the Configuration file ---

TEST(SchedulerManager, ValidateBatchSchedulerConfigRefusesBothSwitchesAndUnknownNames) {
  EXPECT_TRUE(validateBatchSchedulerConfig("", false));
  EXPECT_TRUE(validateBatchSchedulerConfig("volcano", false));
  EXPECT_TRUE(validateBatchSchedulerConfig("", true));
  auto both = validateBatchSchedulerConfig("volcano", true);
  ASSERT_FALSE(both);
  EXPECT_EQ(both.error().message,
            "both feature flags enable-batch-scheduler (deprecated) and batch-scheduler are set. "
            "Please use batch-scheduler only");
  auto unknown = validateBatchSchedulerConfig("slurm", false);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message, "scheduler is not supported, name=slurm");
}

TEST(SchedulerManager, TheConfigurationFileSetsTheBatchScheduler) {
  OperatorOptions options;
  ASSERT_TRUE(applyOperatorConfiguration(
      "apiVersion: config.ray.io/v1alpha1\nkind: Configuration\nbatchScheduler: volcano\n",
      options));
  EXPECT_EQ(options.batchScheduler, "volcano");
  EXPECT_FALSE(options.enableBatchScheduler);
  auto wrongType = applyOperatorConfiguration(
      "apiVersion: config.ray.io/v1alpha1\nkind: Configuration\nbatchScheduler: 3\n", options);
  ASSERT_FALSE(wrongType);
  EXPECT_THAT(wrongType.error().message, HasSubstr("Configuration.batchScheduler of type string"));
}

}  // namespace
}  // namespace fakekube::ray::batchscheduler
