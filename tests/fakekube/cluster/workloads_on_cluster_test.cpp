// The controllers of the built-in workload kinds inside a whole Cluster (scheduler and kubelets
// too): a StatefulSet behind a headless Service comes up in order with its EndpointSlice
// following, a DaemonSet runs on every node, a new namespace gets its default ServiceAccount.
#include <gtest/gtest.h>

#include "fakekube/api/resources.h"
#include "fakekube/apiserver/fixture.h"
#include "fakekube/cluster/cluster.h"

namespace fakekube::apitest {
namespace {

using std::chrono::seconds;

// An apps/v1 workload of `kind` whose nginx serves port 80 as "web".
Json workload(const std::string& kind, const std::string& name) {
  Json object = appsWorkload(kind, name);
  object["spec"]["template"]["spec"]["containers"][0]["ports"] =
      Json::array({{{"name", "web"}, {"containerPort", 80}}});
  return object;
}

class WorkloadsOnClusterTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    cluster = std::make_unique<Cluster>(ex, *server, ClusterOptions{.nodes = 2});
    ASSERT_TRUE(cluster->start().has_value());
    ASSERT_TRUE(ex.runUntil([&] { return cluster->manager().running(); }, seconds(1)));
  }
  void TearDown() override { cluster.reset(); }
  std::unique_ptr<Cluster> cluster;
};

TEST_F(WorkloadsOnClusterTest, StatefulSetDaemonSetEndpointsAndServiceAccounts) {
  Json service = {{"apiVersion", "v1"},
                  {"kind", "Service"},
                  {"metadata", {{"name", "db"}, {"namespace", "default"}}},
                  {"spec",
                   {{"clusterIP", "None"},
                    {"selector", {{"app", "db"}}},
                    {"ports", Json::array({{{"port", 80}, {"targetPort", "web"}}})}}}};
  create(kServices, service, "default");
  Json set = workload("StatefulSet", "db");
  set["spec"]["replicas"] = 3;
  set["spec"]["serviceName"] = "db";
  create(kStatefulSets, set, "default");
  create(kDaemonSets, workload("DaemonSet", "agent"), "default");
  create(kNamespaces, namespaceObject("team-a"));

  auto readyReplicas = [&] {
    Json status = get(kStatefulSets, "default", "db").value("status", Json::object());
    return status.value("readyReplicas", 0);
  };
  ASSERT_TRUE(ex.runUntil([&] { return readyReplicas() == 3; }, seconds(120)));
  // In order: each pod was created after the one before it became Ready.
  for (int i = 1; i < 3; ++i) {
    Json before = get(kPods, "default", "db-" + std::to_string(i - 1));
    Json pod = get(kPods, "default", "db-" + std::to_string(i));
    std::string readyAt;
    for (const auto& c : before["status"]["conditions"]) {
      if (c["type"] == "Ready") readyAt = c["lastTransitionTime"];
    }
    EXPECT_GE(meta::creationTimestamp(pod), readyAt) << i;
  }
  ex.runFor(seconds(1));
  ListOptions options;
  options.labelSelector = "kubernetes.io/service-name=db";
  Json slices = must(server->list(kEndpointSlices, "default", options), "list");
  ASSERT_EQ(slices["items"].size(), 1u);
  Json slice = slices["items"][0];
  ASSERT_EQ(slice["endpoints"].size(), 3u);
  for (const auto& e : slice["endpoints"]) EXPECT_EQ(e["conditions"]["ready"], true);
  EXPECT_EQ(slice["ports"][0]["port"], 80);

  ASSERT_TRUE(ex.runUntil(
      [&] {
        Json status = get(kDaemonSets, "default", "agent").value("status", Json::object());
        return status.value("numberReady", 0) == 2;
      },
      seconds(60)));
  EXPECT_TRUE(server->get(kServiceAccounts, "team-a", "default").has_value());
}

}  // namespace
}  // namespace fakekube::apitest
