#include "controllers/ray/custom_resource_definitions.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube::ray {
namespace {

TEST(CustomResourceDefinitionsTest, InstallServesRayClustersAndRayJobsWithStatusSubresource) {
  SimExecutor executor;
  auto server = ApiServer::open(executor.clock()).value();
  InProcessClient client(*server);
  ASSERT_TRUE(installCustomResourceDefinitions(client).has_value());
  // A second install finds them and changes nothing.
  const std::string revision =
      (*client.list(kCustomResourceDefinitions, ""))["metadata"]["resourceVersion"];
  ASSERT_TRUE(installCustomResourceDefinitions(client).has_value());
  EXPECT_EQ((*client.list(kCustomResourceDefinitions, ""))["metadata"]["resourceVersion"],
            revision);

  Json cluster = {{"apiVersion", "ray.io/v1"},
                  {"kind", "RayCluster"},
                  {"metadata", {{"name", "c1"}, {"namespace", "default"}}},
                  {"spec", {{"headGroupSpec", {{"template", Json::object()}}}}}};
  auto created = client.create(kRayClusters, cluster);
  ASSERT_TRUE(created.has_value()) << created.error().message;
  // The main resource ignores status; the status subresource takes it.
  Json withStatus = *created;
  withStatus["status"] = {{"state", "ready"}};
  auto updated = client.update(kRayClusters, withStatus);
  ASSERT_TRUE(updated.has_value());
  EXPECT_FALSE(updated->contains("status"));
  withStatus["metadata"]["resourceVersion"] = (*updated)["metadata"]["resourceVersion"];
  auto statusUpdated = client.updateStatus(kRayClusters, withStatus);
  ASSERT_TRUE(statusUpdated.has_value()) << statusUpdated.error().message;
  EXPECT_EQ((*statusUpdated)["status"]["state"], "ready");

  Json job = {{"apiVersion", "ray.io/v1"},
              {"kind", "RayJob"},
              {"metadata", {{"name", "j1"}, {"namespace", "default"}}},
              {"spec", {{"entrypoint", "python main.py"}}}};
  EXPECT_TRUE(client.create(kRayJobs, job).has_value());
}

// KubeRay's defaults, where its CRDs put them, and unknown fields pruned outside pod templates.
TEST(CustomResourceDefinitionsTest, SchemasCarryKubeRaysDefaultsAndPruneUnknownFields) {
  SimExecutor executor;
  auto server = ApiServer::open(executor.clock()).value();
  InProcessClient client(*server);
  ASSERT_TRUE(installCustomResourceDefinitions(client).has_value());

  Json podTemplate = {
      {"spec", {{"containers", {{{"name", "ray-head"}, {"image", "rayproject/ray:2.46.0"}}}}}}};
  Json cluster = {
      {"apiVersion", "ray.io/v1"},
      {"kind", "RayCluster"},
      {"metadata", {{"name", "c1"}, {"namespace", "default"}}},
      {"spec",
       {{"rayVersion", "2.46.0"},
        {"notAField", true},
        {"headGroupSpec", {{"rayStartParams", Json::object()}, {"template", podTemplate}}},
        {"workerGroupSpecs", {{{"groupName", "workergroup"}, {"template", podTemplate}}}}}}};
  auto created = client.create(kRayClusters, cluster);
  ASSERT_TRUE(created.has_value()) << created.error().message;
  const Json& worker = (*created)["spec"]["workerGroupSpecs"][0];
  EXPECT_EQ(worker["replicas"], 0);
  EXPECT_EQ(worker["minReplicas"], 0);
  EXPECT_EQ(worker["maxReplicas"], 2147483647);
  EXPECT_EQ(worker["numOfHosts"], 1);
  EXPECT_EQ(worker["template"], podTemplate);  // pod templates keep every field
  EXPECT_FALSE((*created)["spec"].contains("notAField"));

  // The API server answers a wrong type with KubeRay's field path.
  Json bad = cluster;
  bad["metadata"]["name"] = "c2";
  bad["spec"]["workerGroupSpecs"][0]["replicas"] = "two";
  auto refused = client.create(kRayClusters, bad);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(
      refused.error().message,
      "RayCluster.ray.io \"c2\" is invalid: spec.workerGroupSpecs[0].replicas: Invalid value: "
      "\"string\": spec.workerGroupSpecs[0].replicas in body must be of type integer: \"string\"");

  Json job = {{"apiVersion", "ray.io/v1"},
              {"kind", "RayJob"},
              {"metadata", {{"name", "j1"}, {"namespace", "default"}}},
              {"spec", {{"entrypoint", "python main.py"}, {"rayClusterSpec", cluster["spec"]}}}};
  auto createdJob = client.create(kRayJobs, job);
  ASSERT_TRUE(createdJob.has_value()) << createdJob.error().message;
  EXPECT_EQ((*createdJob)["spec"]["submissionMode"], "K8sJobMode");
  EXPECT_EQ((*createdJob)["spec"]["backoffLimit"], 0);
  EXPECT_EQ((*createdJob)["spec"]["ttlSecondsAfterFinished"], 0);
  EXPECT_EQ((*createdJob)["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["numOfHosts"], 1);
  Json withStatus = *createdJob;
  withStatus["status"] = {{"jobDeploymentStatus", "Initializing"}};
  auto statusUpdated = client.updateStatus(kRayJobs, withStatus);
  ASSERT_TRUE(statusUpdated.has_value()) << statusUpdated.error().message;
  EXPECT_EQ((*statusUpdated)["status"]["succeeded"], 0);
  EXPECT_EQ((*statusUpdated)["status"]["failed"], 0);

  // v1alpha1 serves the same objects.
  auto alpha = client.get({"ray.io", "v1alpha1", "rayclusters"}, "default", "c1");
  ASSERT_TRUE(alpha.has_value()) << alpha.error().message;
  EXPECT_EQ((*alpha)["apiVersion"], "ray.io/v1alpha1");
}

}  // namespace
}  // namespace fakekube::ray
