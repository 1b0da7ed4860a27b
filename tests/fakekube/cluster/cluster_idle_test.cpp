// Cluster's parts on one controller mechanism: the garbage collector and the namespace controller
// are controllers of the cluster's Manager like every other part, and Cluster::idle() is false
// while any part has work on its way (a watch event not yet delivered, an item queued).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster_fixture.h"
#include "fakekube/cluster/cluster.h"

namespace fakekube::clustertest {
namespace {

using std::chrono::seconds;

class ClusterIdleTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    cluster = std::make_unique<Cluster>(ex, *server, ClusterOptions{.nodes = 1});
    ASSERT_TRUE(cluster->start().has_value());
    ASSERT_TRUE(ex.runUntil([&] { return cluster->manager().running(); }, seconds(1)));
    ex.runUntilIdle();
  }
  void TearDown() override { cluster.reset(); }

  bool exists(const GroupVersionResource& gvr, std::string_view ns, std::string_view name) {
    return server->get(gvr, ns, name).has_value();
  }

  std::unique_ptr<Cluster> cluster;
};

TEST_F(ClusterIdleTest, TheCollectorAndTheNamespaceControllerAreControllersOfTheManager) {
  const std::string metrics = cluster->manager().renderMetrics();
  EXPECT_NE(metrics.find("controller=\"garbage-collector-controller\""), std::string::npos);
  EXPECT_NE(metrics.find("controller=\"namespace\""), std::string::npos);
}

TEST_F(ClusterIdleTest, IdleIsFalseWhileAnEventOrAnItemIsOnItsWay) {
  EXPECT_TRUE(cluster->idle());

  Json owner = create(kConfigMaps, configMap("owner"));
  create(kConfigMaps, ownedBy(configMap("dep"), {ownerRef(owner)}));
  EXPECT_FALSE(cluster->idle()) << "the writes' events have not reached the informers";
  ex.runUntilIdle();
  EXPECT_TRUE(cluster->idle());

  remove(kConfigMaps, "default", "owner");
  EXPECT_FALSE(cluster->idle()) << "the owner's deletion has not reached the collector";
  ex.runUntilIdle();
  EXPECT_TRUE(cluster->idle());
  EXPECT_FALSE(exists(kConfigMaps, "default", "dep"));
}

TEST_F(ClusterIdleTest, ARetryWaitingForItsTimeIsPendingWork) {
  Json owner = create(kConfigMaps, configMap("owner"));
  create(kConfigMaps, ownedBy(configMap("dep"), {ownerRef(owner)}));
  ex.runUntilIdle();

  // The collector's DELETE of the dependent fails once: its retry waits for the rate limiter.
  class FailOnce : public Interceptor {
   public:
    std::optional<Status> before(const Request& request) override {
      if (request.verb != Verb::Delete || request.resource.resource != "configmaps" ||
          request.name != "dep" || failed_) {
        return std::nullopt;
      }
      failed_ = true;
      return Status::internal("etcd is having a bad day");
    }
    bool failed_ = false;
  };
  auto faults = std::make_shared<FailOnce>();
  server->addInterceptor(faults);
  remove(kConfigMaps, "default", "owner");
  ex.runUntilIdle();
  EXPECT_TRUE(faults->failed_);
  EXPECT_TRUE(exists(kConfigMaps, "default", "dep"));
  EXPECT_FALSE(cluster->idle()) << "the collector's retry is pending";

  ex.advance(seconds(1));
  ex.runUntilIdle();
  EXPECT_FALSE(exists(kConfigMaps, "default", "dep"));
  EXPECT_TRUE(cluster->idle());
  server->removeInterceptor(faults.get());
}

}  // namespace
}  // namespace fakekube::clustertest
