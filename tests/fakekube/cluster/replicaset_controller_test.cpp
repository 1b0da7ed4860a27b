// The ReplicaSet controller: keeps replicas, replaces deleted and failed pods, scales down worst
// pods first, adopts and releases by selector, and does not duplicate creates when its cache lags.
#include "fakekube/cluster/replicaset_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fakekube/api/resources.h"
#include "fakekube/cluster/internal/controller_expectations.h"
#include "fakekube/cluster/internal/controller_utils.h"
#include "fakekube/cluster/workload_fixture.h"

namespace fakekube::workloadtest {
namespace {

using std::chrono::seconds;
using ::testing::UnorderedElementsAre;

class ReplicaSetControllerTest : public WorkloadTest {
 protected:
  void SetUp() override {
    WorkloadTest::SetUp();
    newManager();
    auto added = addReplicaSetController(*manager);
    ASSERT_TRUE(added.has_value()) << added.error().str();
    controller = *added;
    startManager();
  }
  Controller* controller = nullptr;
};

TEST_F(ReplicaSetControllerTest, CreatesReplicasFromTheTemplate) {
  Json rs = create(kReplicaSets, replicaSet("web", "default", 3));
  run();
  auto created = pods("app=web");
  ASSERT_EQ(created.size(), 3u);
  for (const auto& p : created) {
    EXPECT_EQ(meta::generateName(p), "web-");
    EXPECT_EQ(meta::label(p, "app"), "web");
    auto ref = meta::controllerOf(p);
    ASSERT_TRUE(ref.has_value());
    EXPECT_EQ(ref->kind, "ReplicaSet");
    EXPECT_EQ(ref->uid, meta::uid(rs));
    EXPECT_TRUE(ref->blockOwnerDeletion);
    EXPECT_EQ(p["spec"]["containers"][0]["image"], "nginx:1.27");
  }
  Json status = get(kReplicaSets, "default", "web")["status"];
  EXPECT_EQ(status,
            (Json{{"replicas", 3}, {"fullyLabeledReplicas", 3}, {"observedGeneration", 1}}));

  for (const auto& p : created) markRunning(p);
  run();
  status = get(kReplicaSets, "default", "web")["status"];
  EXPECT_EQ(status["readyReplicas"], 3);
  EXPECT_EQ(status["availableReplicas"], 3);
}

TEST_F(ReplicaSetControllerTest, AvailableOnlyAfterMinReadySeconds) {
  Json rs = replicaSet("web", "default", 1);
  rs["spec"]["minReadySeconds"] = 10;
  create(kReplicaSets, rs);
  run();
  markRunning(pods("app=web").at(0));
  run();
  Json status = get(kReplicaSets, "default", "web")["status"];
  EXPECT_EQ(status["readyReplicas"], 1);
  EXPECT_FALSE(status.contains("availableReplicas"));
  run(seconds(9));
  EXPECT_FALSE(get(kReplicaSets, "default", "web")["status"].contains("availableReplicas"));
  run(seconds(2));  // ready for more than 10 s: the controller looked again on its own
  EXPECT_EQ(get(kReplicaSets, "default", "web")["status"]["availableReplicas"], 1);
}

TEST_F(ReplicaSetControllerTest, ReplacesADeletedPod) {
  create(kReplicaSets, replicaSet("web", "default", 2));
  run();
  auto before = pods("app=web");
  ASSERT_EQ(before.size(), 2u);
  remove(kPods, "default", meta::name(before[0]));
  run();
  auto after = pods("app=web");
  ASSERT_EQ(after.size(), 2u);
  std::vector<std::string> names = {meta::name(after[0]), meta::name(after[1])};
  EXPECT_THAT(names, ::testing::Contains(meta::name(before[1])));
  EXPECT_THAT(names, ::testing::Not(::testing::Contains(meta::name(before[0]))));
}

TEST_F(ReplicaSetControllerTest, ReplacesAFailedPodAndLeavesItThere) {
  create(kReplicaSets, replicaSet("web", "default", 2));
  run();
  auto before = pods("app=web");
  markFinished(before[0], false);
  run();
  auto after = pods("app=web");
  ASSERT_EQ(after.size(), 3u);
  int active = 0;
  for (const auto& p : after) active += workload::isPodActive(p) ? 1 : 0;
  EXPECT_EQ(active, 2);
  EXPECT_EQ(get(kReplicaSets, "default", "web")["status"]["replicas"], 2);
}

TEST_F(ReplicaSetControllerTest, ScalesDownPendingThenNotReadyPodsFirst) {
  create(kReplicaSets, replicaSet("web", "default", 3));
  run();
  auto created = pods("app=web");
  ASSERT_EQ(created.size(), 3u);
  markRunning(created[0], /*ready=*/true);
  markRunning(created[1], /*ready=*/false);
  // created[2] stays Pending.
  run();
  mergePatch(kReplicaSets, "default", "web", {{"spec", {{"replicas", 1}}}});
  run();
  auto left = pods("app=web");
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(meta::name(left[0]), meta::name(created[0]));
  EXPECT_EQ(get(kReplicaSets, "default", "web")["status"]["replicas"], 1);
}

TEST_F(ReplicaSetControllerTest, OfTwoReadyPodsTheOneReadyForLessTimeGoes) {
  create(kReplicaSets, replicaSet("web", "default", 2));
  run();
  auto created = pods("app=web");
  markRunning(created[1]);
  run(seconds(30));
  markRunning(created[0]);
  run();
  mergePatch(kReplicaSets, "default", "web", {{"spec", {{"replicas", 1}}}});
  run();
  auto left = pods("app=web");
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(meta::name(left[0]), meta::name(created[1]));
}

TEST_F(ReplicaSetControllerTest, AdoptsAnOrphanAndReleasesAPodThatStopsMatching) {
  Json orphan = pod("orphan");
  orphan["metadata"]["labels"] = {{"app", "web"}};
  create(kPods, orphan);
  Json rs = create(kReplicaSets, replicaSet("web", "default", 2));
  run();
  auto owned = pods("app=web");
  ASSERT_EQ(owned.size(), 2u);  // the orphan and one new pod
  Json adopted = get(kPods, "default", "orphan");
  ASSERT_TRUE(meta::controllerOf(adopted).has_value());
  EXPECT_EQ(meta::controllerOf(adopted)->uid, meta::uid(rs));

  // The orphan stops matching: it is released and replaced.
  mergePatch(kPods, "default", "orphan", {{"metadata", {{"labels", {{"app", "other"}}}}}});
  run();
  EXPECT_FALSE(meta::controllerOf(get(kPods, "default", "orphan")).has_value());
  EXPECT_EQ(pods("app=web").size(), 2u);
  EXPECT_EQ(podsOwnedBy(rs).size(), 2u);
}

TEST_F(ReplicaSetControllerTest, DoesNotAdoptPodsControlledByAnotherOwner) {
  Json other = create(kConfigMaps, configMap("other-owner"));
  Json owned = pod("taken");
  owned["metadata"]["labels"] = {{"app", "web"}};
  owned = ownedBy(owned, {ownerRef(other)});
  create(kPods, owned);
  Json rs = create(kReplicaSets, replicaSet("web", "default", 1));
  run();
  EXPECT_EQ(podsOwnedBy(rs).size(), 1u);
  EXPECT_EQ(meta::controllerOf(get(kPods, "default", "taken"))->uid, meta::uid(other));
}

// Refuses pod creates with a quota error while `refuse` is set; counts the creates it saw.
class RefusePodCreates : public Interceptor {
 public:
  std::optional<Status> before(const Request& request) override {
    if (request.verb != Verb::Create || request.resource.resource != "pods") return std::nullopt;
    ++creates;
    if (!refuse) return std::nullopt;
    return Status::forbidden({"", "pods"}, "web-x", "exceeded quota: pods, requested: pods=1");
  }
  bool refuse = true;
  int creates = 0;
};

TEST_F(ReplicaSetControllerTest, ReplicaFailureWhileCreatesFailSlowStartStopsAtTheFirstError) {
  auto refuse = std::make_shared<RefusePodCreates>();
  server->addInterceptor(refuse);
  create(kReplicaSets, replicaSet("web", "default", 8));
  run();
  // Slow start: in each sync the first batch (one pod) failed, so no more were tried.
  EXPECT_GE(refuse->creates, 1);
  EXPECT_EQ(static_cast<std::uint64_t>(refuse->creates), controller->metrics().total());
  Json failure = condition(get(kReplicaSets, "default", "web"), "ReplicaFailure");
  ASSERT_FALSE(failure.is_null());
  EXPECT_EQ(failure["status"], "True");
  EXPECT_EQ(failure["reason"], "FailedCreate");
  EXPECT_EQ(failure["message"],
            "pods \"web-x\" is forbidden: exceeded quota: pods, requested: pods=1");
  EXPECT_EQ(failure["lastTransitionTime"], now());

  refuse->refuse = false;
  run(seconds(2));  // the rate-limited retry
  EXPECT_EQ(pods("app=web").size(), 8u);
  EXPECT_TRUE(condition(get(kReplicaSets, "default", "web"), "ReplicaFailure").is_null());
  server->removeInterceptor(refuse.get());
}

// The cache sees the controller's own creates 5 s late. A reconcile in that window (forced here)
// must not create the pods again: its expectations are not yet satisfied.
class LaggingCacheTest : public WorkloadTest {
 protected:
  void SetUp() override {
    WorkloadTest::SetUp();
    ManagerOptions options;
    options.cache.defaults.deliveryDelay = seconds(5);
    newManager(std::move(options));
    auto added = addReplicaSetController(*manager);
    ASSERT_TRUE(added.has_value()) << added.error().str();
    controller = *added;
    startManager();
  }
  Controller* controller = nullptr;
};

TEST_F(LaggingCacheTest, NoDuplicateCreatesWhileTheCacheLags) {
  create(kReplicaSets, replicaSet("web", "default", 3));
  run(seconds(5));  // the ReplicaSet reaches the cache: three pods are created
  ASSERT_EQ(pods("app=web").size(), 3u);
  run(seconds(1));
  // The server has the pods; the cache does not yet.
  EXPECT_EQ((*manager->client().list(kPods, "default"))["items"].size(), 0u);
  controller->enqueue(ReconcileRequest{"default", "web"});
  run();
  EXPECT_EQ(pods("app=web").size(), 3u);
  run(seconds(10));
  EXPECT_EQ(pods("app=web").size(), 3u);
  EXPECT_EQ(get(kReplicaSets, "default", "web")["status"]["replicas"], 3);
}

TEST(ControllerExpectations, SatisfiedWhenObservedOrAfterTheTimeout) {
  SimExecutor ex;
  workload::ControllerExpectations expectations(ex.clock());
  EXPECT_TRUE(expectations.satisfied("ns/a"));
  expectations.expectCreations("ns/a", 2);
  EXPECT_FALSE(expectations.satisfied("ns/a"));
  expectations.creationObserved("ns/a");
  EXPECT_FALSE(expectations.satisfied("ns/a"));
  expectations.creationObserved("ns/a");
  EXPECT_TRUE(expectations.satisfied("ns/a"));

  expectations.expectDeletions("ns/a", std::vector<std::string>{"ns/p1", "ns/p2"});
  expectations.deletionObserved("ns/a", "ns/p1");
  expectations.deletionObserved("ns/a", "ns/p1");  // the same pod twice counts once
  EXPECT_EQ(expectations.pending("ns/a"), std::make_pair(0, 1));
  EXPECT_FALSE(expectations.satisfied("ns/a"));
  ex.advance(std::chrono::minutes(5));
  EXPECT_FALSE(expectations.satisfied("ns/a"));
  ex.advance(seconds(1));
  EXPECT_TRUE(expectations.satisfied("ns/a"));
}

}  // namespace
}  // namespace fakekube::workloadtest
