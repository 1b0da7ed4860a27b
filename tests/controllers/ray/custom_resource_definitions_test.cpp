#include "controllers/ray/custom_resource_definitions.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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
  const std::string revision = (*client.list(kCustomResourceDefinitions, ""))["metadata"]["resourceVersion"];
  ASSERT_TRUE(installCustomResourceDefinitions(client).has_value());
  EXPECT_EQ((*client.list(kCustomResourceDefinitions, ""))["metadata"]["resourceVersion"], revision);

  Json cluster = {{"apiVersion", "ray.io/v1"},
                  {"kind", "RayCluster"},
                  {"metadata", {{"name", "c1"}, {"namespace", "default"}}},
                  {"spec", {{"headGroupSpec", Json::object()}}}};
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

}  // namespace
}  // namespace fakekube::ray
