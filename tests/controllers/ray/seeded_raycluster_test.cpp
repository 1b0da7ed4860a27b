// The RayCluster controller under shuffled same-instant ordering: for each seed, the executor
// runs simultaneous work (informer deliveries, queue dispatch, the two workers, the kubelets) in
// another order. Whatever the order, every cluster ends ready with exactly its pods, and no pod
// is ever created twice for one slot. A failing seed replays exactly when pinned.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fakekube/api/resources.h"
#include "tests/controllers/ray/ray_fixture.h"

namespace fakekube::ray::testing {
namespace {

class SeededRayClusterTest : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(SeededRayClusterTest, TenClustersWithInformerLagEndReadyWithoutDuplicates) {
  SimExecutor ex({.seed = GetParam()});
  ApiServerOptions serverOptions;
  serverOptions.seed = GetParam();
  auto server = std::move(ApiServer::open(ex.clock(), serverOptions).value());
  InProcessClient client(*server);
  ASSERT_TRUE(installCustomResourceDefinitions(client).has_value());
  ClusterOptions clusterOptions;
  clusterOptions.nodes = 4;
  Cluster cluster(ex, *server, clusterOptions);
  ASSERT_TRUE(cluster.start().has_value());
  ManagerOptions managerOptions;
  managerOptions.cache.defaults.deliveryDelay = std::chrono::milliseconds(700);
  Manager manager(ex, *server, std::move(managerOptions));
  auto controller = addRayClusterController(manager, {.reconcileConcurrency = 2});
  ASSERT_TRUE(controller.has_value());
  manager.start();
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(client.create(kRayClusters, sampleRayCluster("rc-" + std::to_string(i), 2, 0, 5)));
  }
  auto readyCount = [&] {
    int ready = 0;
    const Json list = client.list(kRayClusters, "default").value();
    for (const Json& rc : list["items"]) {
      ready += rc.contains("status") && rc["status"].value("state", "") == "ready";
    }
    return ready;
  };
  for (int second = 0; second < 120 && readyCount() < 10; ++second) {
    ex.advance(std::chrono::seconds(1));
  }
  EXPECT_EQ(readyCount(), 10) << "seed " << GetParam();
  const Json all = client.list(kPods, "default").value()["items"];
  EXPECT_EQ(all.size(), 30u) << "seed " << GetParam();
  // Every created pod is still there: none was created and then found surplus (and deleted,
  // which the controller records). The Events cannot count the creates: KubeRay records them
  // through events.k8s.io/v1, where the creates of one round make one Event series.
  const Json events = client.list(kEvents, "default").value();
  for (const Json& e : events["items"]) {
    EXPECT_NE(e.value("reason", ""), "DeletedWorkerPod") << "seed " << GetParam();
  }
  const ReconcileMetrics metrics = (*controller)->metrics();
  EXPECT_LE(metrics.peakActiveWorkers, 2);
  EXPECT_EQ(metrics.overlappingReconciles, 0u);
  EXPECT_EQ(metrics.panics, 0u);
  manager.crash();
  cluster.stop();
}

INSTANTIATE_TEST_SUITE_P(Seeds, SeededRayClusterTest, ::testing::Range<std::uint64_t>(1, 11));

}  // namespace
}  // namespace fakekube::ray::testing
