// Managers with leader election, events and metrics: replicas sharing a Lease add no concurrency,
// and when the leader's process dies the other takes over once the lease expires (virtual time).
#include <gtest/gtest.h>

#include <string>

#include "fakekube/api/resources.h"
#include "fakekube/runtime/builder.h"
#include "fakekube/runtime/manager.h"
#include "runtime_fixture.h"

namespace fakekube::runtimetest {
namespace {

using std::chrono::seconds;

class ManagerLeaderTest : public RuntimeTest {
 protected:
  std::unique_ptr<Manager> replica(const std::string& identity, int& reconciles) {
    ManagerOptions options;
    LeaderElectionConfig election;
    election.leaseName = "configmap-controller";
    election.identity = identity;
    options.leaderElection = election;
    auto manager = std::make_unique<Manager>(ex, *server, options);
    auto built = ControllerBuilder(*manager)
                     .named("configmaps")
                     .forResource(kConfigMaps)
                     .complete([&reconciles](const ReconcileRequest&) -> ReconcileOutcome {
                       ++reconciles;
                       return ReconcileResult{};
                     });
    EXPECT_TRUE(built.has_value());
    return manager;
  }
};

TEST_F(ManagerLeaderTest, OneReplicaReconcilesAndTheOtherTakesOverWhenTheLeaderDies) {
  create(kConfigMaps, configMap("a"));
  int reconcilesA = 0;
  int reconcilesB = 0;
  auto a = replica("replica-a", reconcilesA);
  auto b = replica("replica-b", reconcilesB);
  a->start();
  b->start();
  ex.advance(seconds(1));
  ASSERT_NE(a->isLeader(), b->isLeader()) << "exactly one leads";
  Manager* leader = a->isLeader() ? a.get() : b.get();
  int& leaderReconciles = a->isLeader() ? reconcilesA : reconcilesB;
  int& followerReconciles = a->isLeader() ? reconcilesB : reconcilesA;
  EXPECT_GE(leaderReconciles, 1);
  EXPECT_EQ(followerReconciles, 0) << "the follower's workers do not run";

  // A minute of renewals: the follower stays a follower.
  ex.advance(seconds(60));
  EXPECT_EQ(followerReconciles, 0);

  // The leader's process dies: nothing releases the lease.
  const TimePoint died = ex.now();
  if (leader == a.get()) {
    a->crash();
  } else {
    b->crash();
  }
  create(kConfigMaps, configMap("b"));
  ex.advance(seconds(10));
  EXPECT_EQ(followerReconciles, 0) << "the lease has not expired yet";
  Manager& survivor = leader == a.get() ? *b : *a;
  ASSERT_TRUE(ex.runUntil([&] { return survivor.isLeader(); }, seconds(30)));
  EXPECT_GE(ex.now() - died, seconds(13)) << "not before the lease (15 s from the last renew)";
  EXPECT_LE(ex.now() - died, seconds(17));
  ex.advance(seconds(1));
  EXPECT_GE(followerReconciles, 2) << "the new leader syncs and reconciles both objects";
}

TEST_F(ManagerLeaderTest, ACleanStopHandsTheLeaseOverAtOnce) {
  int reconcilesA = 0;
  int reconcilesB = 0;
  auto a = replica("replica-a", reconcilesA);
  a->start();
  ex.advance(seconds(1));
  ASSERT_TRUE(a->isLeader());
  auto b = replica("replica-b", reconcilesB);
  b->start();
  ex.advance(seconds(1));
  EXPECT_FALSE(b->isLeader());
  a->stop();
  ASSERT_TRUE(ex.runUntil([&] { return b->isLeader(); }, seconds(3))) << "within one retry period";
}

TEST_F(ManagerLeaderTest, MetricsRenderTheControllersQueueAndReconcileCounters) {
  create(kConfigMaps, configMap("a"));
  Manager manager(ex, *server);
  ASSERT_TRUE(
      ControllerBuilder(manager)
          .named("configmaps")
          .forResource(kConfigMaps)
          .complete([](const ReconcileRequest&) -> ReconcileOutcome { return ReconcileResult{}; })
          .has_value());
  manager.start();
  ex.advance(seconds(1));
  std::string text = manager.renderMetrics();
  EXPECT_NE(
      text.find(
          "controller_runtime_reconcile_total{controller=\"configmaps\",result=\"success\"} 1"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("workqueue_adds_total{name=\"configmaps\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("controller_runtime_max_concurrent_reconciles{controller=\"configmaps\"} 1"),
            std::string::npos)
      << text;
}

TEST_F(ManagerLeaderTest, EventRecorderWritesEventsThroughTheServer) {
  Manager manager(ex, *server);
  Json cm = create(kConfigMaps, configMap("a"));
  ASSERT_TRUE(manager.eventRecorder("configmap-controller").event(cm, "Normal", "Synced", "ok"));
  auto events = must(client->list(GroupVersionResource{"", "v1", "events"}, "default"));
  ASSERT_EQ(events["items"].size(), 1u);
  EXPECT_EQ(events["items"][0]["source"]["component"], "configmap-controller");
  EXPECT_EQ(events["items"][0]["involvedObject"]["name"], "a");
}

}  // namespace
}  // namespace fakekube::runtimetest
