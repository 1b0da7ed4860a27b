// The garbage collector against the rules of spec C: propagation policies, dangling and solid
// owners, namespace scoping, chains, dependents with finalizers of their own, custom kinds.
#include <gtest/gtest.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "cluster_fixture.h"
#include "fakekube/api/resources.h"

namespace fakekube::clustertest {
namespace {

using GarbageCollectorTest = ClusterTest;

bool hasFinalizer(const Json& object, std::string_view finalizer) {
  return meta::hasFinalizer(object, finalizer);
}

// --- propagation policies ---

TEST_F(GarbageCollectorTest, BackgroundDeletionCollectsDependents) {
  Json owner = create(kConfigMaps, configMap("owner"));
  create(kConfigMaps, ownedBy(configMap("dep-cm"), {ownerRef(owner)}));
  create(kPods, ownedBy(pod("dep-pod"), {ownerRef(owner, /*block=*/false)}));
  settle();
  EXPECT_TRUE(exists(kConfigMaps, "default", "dep-cm"));
  EXPECT_TRUE(exists(kPods, "default", "dep-pod"));

  deleteWith(kConfigMaps, "default", "owner", "Background");
  EXPECT_FALSE(exists(kConfigMaps, "default", "owner"));  // Background removes the owner at once
  settle();
  EXPECT_FALSE(exists(kConfigMaps, "default", "dep-cm"));
  EXPECT_FALSE(exists(kPods, "default", "dep-pod"));
}

TEST_F(GarbageCollectorTest, DefaultDeletionIsBackground) {
  Json owner = create(kConfigMaps, configMap("owner"));
  create(kConfigMaps, ownedBy(configMap("dep"), {ownerRef(owner)}));
  settle();
  remove(kConfigMaps, "default", "owner");
  settle();
  EXPECT_FALSE(exists(kConfigMaps, "default", "dep"));
}

TEST_F(GarbageCollectorTest, ForegroundRemovesOwnerAfterItsDependents) {
  Json owner = create(kConfigMaps, configMap("owner"));
  create(kConfigMaps, ownedBy(configMap("dep-1"), {ownerRef(owner)}));
  create(kConfigMaps, ownedBy(configMap("dep-2"), {ownerRef(owner)}));
  settle();
  DeletionRecorder recorder;
  recorder.watch(*server, kConfigMaps);

  Json deleting = deleteWith(kConfigMaps, "default", "owner", "Foreground");
  EXPECT_TRUE(meta::isDeleting(deleting));
  EXPECT_TRUE(hasFinalizer(deleting, "foregroundDeletion"));
  settle();
  EXPECT_FALSE(exists(kConfigMaps, "default", "owner"));
  EXPECT_FALSE(exists(kConfigMaps, "default", "dep-1"));
  EXPECT_FALSE(exists(kConfigMaps, "default", "dep-2"));

  auto order = recorder.deleted();
  ASSERT_EQ(order.size(), 3u);
  EXPECT_LT(order["dep-1"], order["owner"]);
  EXPECT_LT(order["dep-2"], order["owner"]);
}

TEST_F(GarbageCollectorTest, ForegroundOwnerWaitsForBlockingDependentsOnly) {
  Json owner = create(kConfigMaps, configMap("owner"));
  // A blocking dependent held by a finalizer of its own, and a non-blocking one.
  create(kConfigMaps, withFinalizer(ownedBy(configMap("blocking"), {ownerRef(owner, true)}),
                                    "example.com/hold"));
  create(kConfigMaps, ownedBy(configMap("non-blocking"), {ownerRef(owner, false)}));
  settle();
  DeletionRecorder recorder;
  recorder.watch(*server, kConfigMaps);

  deleteWith(kConfigMaps, "default", "owner", "Foreground");
  settle();
  // The owner stays visible, being deleted, while its blocking dependent is held.
  Json stuck = get(kConfigMaps, "default", "owner");
  EXPECT_TRUE(meta::isDeleting(stuck));
  EXPECT_TRUE(hasFinalizer(stuck, "foregroundDeletion"));
  Json blocking = get(kConfigMaps, "default", "blocking");
  EXPECT_TRUE(meta::isDeleting(blocking)) << "the collector deletes the blocking dependent";
  // The non-blocking dependent is not waited for, and is collected only after the owner.
  Json nonBlocking = get(kConfigMaps, "default", "non-blocking");
  EXPECT_FALSE(meta::isDeleting(nonBlocking));

  // A whole minute later nothing moved: the owner waits for its dependent's finalizer.
  settle(std::chrono::seconds(60));
  EXPECT_TRUE(exists(kConfigMaps, "default", "owner"));

  release(kConfigMaps, "default", "blocking");
  settle();
  EXPECT_FALSE(exists(kConfigMaps, "default", "blocking"));
  EXPECT_FALSE(exists(kConfigMaps, "default", "owner"));
  EXPECT_FALSE(exists(kConfigMaps, "default", "non-blocking"));

  auto order = recorder.deleted();
  ASSERT_EQ(order.size(), 3u);
  EXPECT_LT(order["blocking"], order["owner"]);
  EXPECT_GT(order["non-blocking"], order["owner"]);
}

TEST_F(GarbageCollectorTest, OrphanKeepsDependentsWithoutTheReference) {
  Json owner = create(kConfigMaps, configMap("owner"));
  Json other = create(kConfigMaps, configMap("other-owner"));
  create(kConfigMaps, ownedBy(configMap("only-owner"), {ownerRef(owner)}));
  create(kPods, ownedBy(pod("two-owners"), {ownerRef(owner), ownerRef(other, true, false)}));
  settle();

  Json deleting = deleteWith(kConfigMaps, "default", "owner", "Orphan");
  EXPECT_TRUE(hasFinalizer(deleting, "orphan"));
  settle();
  EXPECT_FALSE(exists(kConfigMaps, "default", "owner"));

  Json orphan = get(kConfigMaps, "default", "only-owner");
  EXPECT_FALSE(meta::isDeleting(orphan));
  EXPECT_TRUE(meta::ownerReferences(orphan).empty());
  EXPECT_FALSE(orphan["metadata"].contains("ownerReferences"));

  Json kept = get(kPods, "default", "two-owners");
  EXPECT_FALSE(meta::isDeleting(kept));
  auto refs = meta::ownerReferences(kept);
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].uid, meta::uid(other));
}

TEST_F(GarbageCollectorTest, OwnerWithoutDependentsGoesAtOnceWithEveryPolicy) {
  for (std::string policy : {"Foreground", "Orphan"}) {
    create(kConfigMaps, configMap("lonely"));
    settle();
    deleteWith(kConfigMaps, "default", "lonely", policy);
    settle();
    EXPECT_FALSE(exists(kConfigMaps, "default", "lonely")) << policy;
  }
}

// --- dangling, solid ---

TEST_F(GarbageCollectorTest, ReferenceToAnotherObjectOfTheSameNameIsDangling) {
  Json owner = create(kConfigMaps, configMap("owner"));
  Json ref = ownerRef(owner);
  ref["uid"] = "00000000-0000-0000-0000-000000000000";
  create(kConfigMaps, ownedBy(configMap("impostor-dep"), {ref}));
  create(kConfigMaps, ownedBy(configMap("real-dep"), {ownerRef(owner)}));
  settle();
  EXPECT_FALSE(exists(kConfigMaps, "default", "impostor-dep"));
  EXPECT_TRUE(exists(kConfigMaps, "default", "real-dep"));
  EXPECT_TRUE(exists(kConfigMaps, "default", "owner"));
}

TEST_F(GarbageCollectorTest, OwnerRecreatedWhileNoCollectorRanIsDangling) {
  gc->stop();
  Json first = create(kConfigMaps, configMap("owner"));
  create(kConfigMaps, ownedBy(configMap("dep"), {ownerRef(first)}));
  remove(kConfigMaps, "default", "owner");
  create(kConfigMaps, configMap("owner"));  // same name, new uid
  gc->start();
  settle();
  EXPECT_FALSE(exists(kConfigMaps, "default", "dep"));
  EXPECT_TRUE(exists(kConfigMaps, "default", "owner"));
}

TEST_F(GarbageCollectorTest, SolidOwnerKeepsObjectAndDanglingRefIsPatchedAway) {
  Json solid = create(kConfigMaps, configMap("solid"));
  Json doomed = create(kConfigMaps, configMap("doomed"));
  create(kConfigMaps,
         ownedBy(configMap("dep"), {ownerRef(solid, true, false), ownerRef(doomed, true, true)}));
  settle();
  remove(kConfigMaps, "default", "doomed");
  settle();
  Json dep = get(kConfigMaps, "default", "dep");
  EXPECT_FALSE(meta::isDeleting(dep));
  auto refs = meta::ownerReferences(dep);
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].uid, meta::uid(solid));
}

TEST_F(GarbageCollectorTest, SolidOwnerKeepsObjectAndWaitingRefIsPatchedAway) {
  Json solid = create(kConfigMaps, configMap("solid"));
  Json leaving = create(kConfigMaps, configMap("leaving"));
  create(kConfigMaps,
         ownedBy(configMap("dep"), {ownerRef(solid, true, false), ownerRef(leaving, true, true)}));
  settle();
  deleteWith(kConfigMaps, "default", "leaving", "Foreground");
  settle();
  EXPECT_FALSE(exists(kConfigMaps, "default", "leaving"));
  Json dep = get(kConfigMaps, "default", "dep");
  EXPECT_FALSE(meta::isDeleting(dep));
  auto refs = meta::ownerReferences(dep);
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].uid, meta::uid(solid));
}

TEST_F(GarbageCollectorTest, DanglingReferencesLeftBeforeTheCollectorStartedAreCollected) {
  gc.reset();
  Json owner = create(kConfigMaps, configMap("owner"));
  create(kConfigMaps, ownedBy(configMap("dep"), {ownerRef(owner)}));
  remove(kConfigMaps, "default", "owner");
  ex.runUntilIdle();
  EXPECT_TRUE(exists(kConfigMaps, "default", "dep"));

  startGarbageCollector();
  settle();
  EXPECT_FALSE(exists(kConfigMaps, "default", "dep"));
}

// --- namespaces and scope ---

TEST_F(GarbageCollectorTest, NamespacedOwnerInAnotherNamespaceIsAbsent) {
  create(kNamespaces, namespaceObject("other"));
  Json owner = create(kConfigMaps, configMap("owner", "other"));
  create(kConfigMaps, ownedBy(configMap("dep", "default"), {ownerRef(owner)}));
  create(kConfigMaps, ownedBy(configMap("same-ns-dep", "other"), {ownerRef(owner)}));
  settle();
  EXPECT_FALSE(exists(kConfigMaps, "default", "dep"));
  EXPECT_TRUE(exists(kConfigMaps, "other", "same-ns-dep"));
  EXPECT_TRUE(exists(kConfigMaps, "other", "owner"));
}

TEST_F(GarbageCollectorTest, ClusterScopedOwnerOfNamespacedDependentIsFine) {
  Json ns = get(kNamespaces, "", "default");
  Json worker = create(kNodes, node("worker-1"));
  create(kConfigMaps, ownedBy(configMap("ns-owned"), {ownerRef(ns, false, false)}));
  create(kPods, ownedBy(pod("node-owned"), {ownerRef(worker)}));
  settle();
  EXPECT_TRUE(exists(kConfigMaps, "default", "ns-owned"));
  EXPECT_TRUE(exists(kPods, "default", "node-owned"));

  // And the cluster-scoped owner's deletion collects the namespaced dependent.
  remove(kNodes, "", "worker-1");
  settle();
  EXPECT_FALSE(exists(kPods, "default", "node-owned"));
}

TEST_F(GarbageCollectorTest, ClusterScopedDependentOfNamespacedOwnerIsKeptWithOneWarning) {
  Json owner = create(kConfigMaps, configMap("owner"));
  create(kNamespaces, ownedBy(namespaceObject("invalid-child"), {ownerRef(owner)}));
  settle();
  remove(kConfigMaps, "default", "owner");  // even once the named owner is gone
  settle();
  Json child = get(kNamespaces, "", "invalid-child");
  EXPECT_FALSE(meta::isDeleting(child));

  // Reprocessing the dependent (its references change) does not record a second event.
  Json other = create(kConfigMaps, configMap("other"));
  mergePatch(
      kNamespaces, "", "invalid-child",
      {{"metadata", {{"ownerReferences", {ownerRef(owner), ownerRef(other, true, false)}}}}});
  settle();
  EXPECT_TRUE(exists(kNamespaces, "", "invalid-child"));

  ListOptions byReason;
  byReason.fieldSelector = "reason=OwnerRefInvalidNamespace";
  Json events = list(kEvents, "", byReason);
  ASSERT_EQ(events["items"].size(), 1u) << events.dump(2);
  const Json& event = events["items"][0];
  EXPECT_EQ(event["type"], "Warning");
  EXPECT_EQ(event["metadata"]["namespace"], "default");
  EXPECT_EQ(event["involvedObject"]["kind"], "Namespace");
  EXPECT_EQ(event["involvedObject"]["name"], "invalid-child");
  EXPECT_EQ(event["involvedObject"]["uid"], meta::uid(child));
  EXPECT_EQ(event["message"], "ownerRef [v1/ConfigMap, namespace: , name: owner, uid: " +
                                  meta::uid(owner) + "] does not exist in namespace \"\"");
}

// --- chains ---

class ChainTest : public ClusterTest {
 protected:
  // Deployment web -> ReplicaSet web-1 -> Pods web-1-a, web-1-b, as the controllers would make
  // them (controller references that block owner deletion).
  void makeChain(bool holdPodA = false) {
    Json deploy = create(kDeployments, deployment("web"));
    Json rs = create(kReplicaSets, ownedBy(replicaSet("web-1"), {ownerRef(deploy)}));
    Json podA = ownedBy(pod("web-1-a"), {ownerRef(rs)});
    if (holdPodA) podA = withFinalizer(podA, "example.com/hold");
    create(kPods, podA);
    create(kPods, ownedBy(pod("web-1-b"), {ownerRef(rs)}));
    settle();
    recorder.watch(*server, kDeployments);
    recorder.watch(*server, kReplicaSets);
    recorder.watch(*server, kPods);
  }
  bool anyLeft() {
    return exists(kDeployments, "default", "web") || exists(kReplicaSets, "default", "web-1") ||
           exists(kPods, "default", "web-1-a") || exists(kPods, "default", "web-1-b");
  }
  DeletionRecorder recorder;
};

TEST_F(ChainTest, BackgroundDeletionCollectsTheWholeChain) {
  makeChain();
  deleteWith(kDeployments, "default", "web", "Background");
  settle();
  EXPECT_FALSE(anyLeft());
  auto order = recorder.deleted();
  ASSERT_EQ(order.size(), 4u);
  // Top down: each level is collected once its owner is gone.
  EXPECT_LT(order["web"], order["web-1"]);
  EXPECT_LT(order["web-1"], order["web-1-a"]);
  EXPECT_LT(order["web-1"], order["web-1-b"]);
}

TEST_F(ChainTest, ForegroundDeletionRemovesTheChainBottomUp) {
  makeChain();
  deleteWith(kDeployments, "default", "web", "Foreground");
  settle();
  EXPECT_FALSE(anyLeft());
  auto order = recorder.deleted();
  ASSERT_EQ(order.size(), 4u);
  EXPECT_LT(order["web-1-a"], order["web-1"]);
  EXPECT_LT(order["web-1-b"], order["web-1"]);
  EXPECT_LT(order["web-1"], order["web"]);
}

TEST_F(ChainTest, ForegroundDeletionWaitsForAHeldPodAtTheBottom) {
  makeChain(/*holdPodA=*/true);
  deleteWith(kDeployments, "default", "web", "Foreground");
  settle();
  // Every level is being deleted in the foreground, held by the pod's finalizer.
  Json deploy = get(kDeployments, "default", "web");
  Json rs = get(kReplicaSets, "default", "web-1");
  EXPECT_TRUE(meta::isDeleting(deploy));
  EXPECT_TRUE(hasFinalizer(deploy, "foregroundDeletion"));
  EXPECT_TRUE(meta::isDeleting(rs));
  EXPECT_TRUE(hasFinalizer(rs, "foregroundDeletion"));
  EXPECT_TRUE(meta::isDeleting(get(kPods, "default", "web-1-a")));
  EXPECT_FALSE(exists(kPods, "default", "web-1-b"));

  release(kPods, "default", "web-1-a");
  settle();
  EXPECT_FALSE(anyLeft());
  auto order = recorder.deleted();
  EXPECT_LT(order["web-1-a"], order["web-1"]);
  EXPECT_LT(order["web-1"], order["web"]);
}

TEST_F(ChainTest, OrphaningTheDeploymentKeepsTheRestOfTheChain) {
  makeChain();
  deleteWith(kDeployments, "default", "web", "Orphan");
  settle();
  EXPECT_FALSE(exists(kDeployments, "default", "web"));
  EXPECT_TRUE(meta::ownerReferences(get(kReplicaSets, "default", "web-1")).empty());
  EXPECT_EQ(meta::ownerReferences(get(kPods, "default", "web-1-a")).size(), 1u);
  EXPECT_EQ(meta::ownerReferences(get(kPods, "default", "web-1-b")).size(), 1u);
}

// --- dependents with finalizers of their own ---

TEST_F(GarbageCollectorTest, DependentWithItsOwnFinalizerStaysUntilReleased) {
  Json owner = create(kConfigMaps, configMap("owner"));
  create(kConfigMaps,
         withFinalizer(ownedBy(configMap("held"), {ownerRef(owner)}), "example.com/hold"));
  settle();
  remove(kConfigMaps, "default", "owner");
  settle(std::chrono::seconds(30));
  Json held = get(kConfigMaps, "default", "held");
  EXPECT_TRUE(meta::isDeleting(held));
  EXPECT_TRUE(hasFinalizer(held, "example.com/hold"));

  release(kConfigMaps, "default", "held");
  settle();
  EXPECT_FALSE(exists(kConfigMaps, "default", "held"));
}

TEST_F(GarbageCollectorTest, DependentCarryingOrphanIsDeletedWithOrphanPropagation) {
  // A dependent that asked for orphaning (its own `orphan` finalizer) is collected with policy
  // Orphan: its own dependents survive it.
  Json top = create(kConfigMaps, configMap("top"));
  Json middle =
      create(kConfigMaps, withFinalizer(ownedBy(configMap("middle"), {ownerRef(top)}), "orphan"));
  create(kConfigMaps, ownedBy(configMap("bottom"), {ownerRef(middle)}));
  settle();
  remove(kConfigMaps, "default", "top");
  settle();
  EXPECT_FALSE(exists(kConfigMaps, "default", "middle"));
  Json bottom = get(kConfigMaps, "default", "bottom");
  EXPECT_TRUE(meta::ownerReferences(bottom).empty());
}

// --- custom kinds ---

TEST_F(GarbageCollectorTest, CustomKindsDefinedAfterStartAreCollected) {
  installWidgetCrd();
  settle();
  Json owner = create(kWidgets, widget("owner"));
  create(kWidgets, ownedBy(widget("child-widget"), {ownerRef(owner)}));
  create(kConfigMaps, ownedBy(configMap("child-cm"), {ownerRef(owner)}));
  settle();
  EXPECT_TRUE(exists(kWidgets, "default", "child-widget"));

  deleteWith(kWidgets, "default", "owner", "Foreground");
  settle();
  EXPECT_FALSE(exists(kWidgets, "default", "owner"));
  EXPECT_FALSE(exists(kWidgets, "default", "child-widget"));
  EXPECT_FALSE(exists(kConfigMaps, "default", "child-cm"));

  // A custom resource owned by a built-in one.
  Json cm = create(kConfigMaps, configMap("cm-owner"));
  create(kWidgets, ownedBy(widget("cm-child"), {ownerRef(cm)}));
  settle();
  remove(kConfigMaps, "default", "cm-owner");
  settle();
  EXPECT_FALSE(exists(kWidgets, "default", "cm-child"));
}

TEST_F(GarbageCollectorTest, ReferenceToAnUnservedKindWaitsForItsDefinition) {
  Json ref = {{"apiVersion", "example.com/v1"},
              {"kind", "Widget"},
              {"name", "never-created"},
              {"uid", "11111111-1111-1111-1111-111111111111"},
              {"blockOwnerDeletion", true}};
  create(kConfigMaps, ownedBy(configMap("dep"), {ref}));
  settle();
  EXPECT_TRUE(exists(kConfigMaps, "default", "dep")) << "an unknown owner kind is not absence";

  installWidgetCrd();
  settle();
  EXPECT_FALSE(exists(kConfigMaps, "default", "dep"));
}

TEST_F(GarbageCollectorTest, GraphForgetsDeletedObjects) {
  Json owner = create(kConfigMaps, configMap("owner"));
  create(kConfigMaps, ownedBy(configMap("dep"), {ownerRef(owner)}));
  settle();
  const std::size_t before = gc->graphSize();
  remove(kConfigMaps, "default", "owner");
  settle();
  EXPECT_EQ(gc->graphSize(), before - 2);
}

// Fails the first `count` requests of one verb on one resource with `status`.
class FailFirst : public Interceptor {
 public:
  FailFirst(Verb verb, std::string resource, int count, Status status)
      : verb_(verb), resource_(std::move(resource)), left_(count), status_(std::move(status)) {}
  std::optional<Status> before(const Request& request) override {
    if (request.verb != verb_ || request.resource.resource != resource_ || left_ == 0) {
      return std::nullopt;
    }
    --left_;
    ++failed_;
    return status_;
  }
  int failed() const { return failed_; }

 private:
  Verb verb_;
  std::string resource_;
  int left_;
  Status status_;
  int failed_ = 0;
};

TEST_F(GarbageCollectorTest, DeleteFailuresAreRetriedAfterADelay) {
  Json owner = create(kConfigMaps, configMap("owner"));
  create(kPods, ownedBy(pod("dep"), {ownerRef(owner)}));
  settle();
  auto faults = std::make_shared<FailFirst>(Verb::Delete, "pods", 2,
                                            Status::internal("etcd is having a bad day"));
  server->addInterceptor(faults);
  remove(kConfigMaps, "default", "owner");
  ex.runUntilIdle();
  EXPECT_EQ(faults->failed(), 1);
  EXPECT_FALSE(gc->idle()) << "a retry is pending";
  EXPECT_TRUE(exists(kPods, "default", "dep"));
  settle();
  EXPECT_EQ(faults->failed(), 2);
  EXPECT_FALSE(exists(kPods, "default", "dep"));
  server->removeInterceptor(faults.get());
}

TEST_F(GarbageCollectorTest, PatchConflictsAreRetried) {
  Json owner = create(kConfigMaps, configMap("owner"));
  create(kConfigMaps, ownedBy(configMap("dep"), {ownerRef(owner)}));
  settle();
  auto faults = std::make_shared<FailFirst>(Verb::Patch, "configmaps", 3,
                                            Status::conflictModified({"", "configmaps"}, "dep"));
  server->addInterceptor(faults);
  deleteWith(kConfigMaps, "default", "owner", "Orphan");
  settle();
  EXPECT_EQ(faults->failed(), 3);
  EXPECT_FALSE(exists(kConfigMaps, "default", "owner"));
  EXPECT_TRUE(meta::ownerReferences(get(kConfigMaps, "default", "dep")).empty());
  server->removeInterceptor(faults.get());
}

// GarbageCollector.Sync: discovery is asked again every 30 s whatever the definitions' events
// said. (On a thread pool a definition's event can reach the collector before the server serves
// its kind; here the collector hears of no definition at all: its watch of them ends and its
// relists fail.)
TEST_F(GarbageCollectorTest, DiscoveryIsAskedAgainEvery30SecondsWhateverTheDefinitionsSay) {
  const Status unreadable = Status::serviceUnavailable("the definitions cannot be read");
  auto refuseLists = std::make_shared<FailFirst>(Verb::List, "customresourcedefinitions",
                                                 std::numeric_limits<int>::max(), unreadable);
  auto refuseWatches = std::make_shared<FailFirst>(Verb::Watch, "customresourcedefinitions",
                                                   std::numeric_limits<int>::max(), unreadable);
  server->addInterceptor(refuseLists);
  server->addInterceptor(refuseWatches);
  ASSERT_TRUE(server->closeWatches(kCustomResourceDefinitions, Status::internal("the watch ended"))
                  .has_value());
  installWidgetCrd();
  Json owner = create(kConfigMaps, configMap("owner"));
  create(kWidgets, ownedBy(widget("dependent"), {ownerRef(owner)}));
  remove(kConfigMaps, "default", "owner");
  // The collector started a second ago (SetUp): its next look at discovery is 29 s away.
  settle(std::chrono::seconds(27));
  EXPECT_TRUE(exists(kWidgets, "default", "dependent")) << "widgets are not monitored yet";
  settle(std::chrono::seconds(3));
  EXPECT_FALSE(exists(kWidgets, "default", "dependent"));
  server->removeInterceptor(refuseWatches.get());
  server->removeInterceptor(refuseLists.get());
}

TEST_F(GarbageCollectorTest, StoppedCollectorDoesNothing) {
  Json owner = create(kConfigMaps, configMap("owner"));
  create(kConfigMaps, ownedBy(configMap("dep"), {ownerRef(owner)}));
  settle();
  gc->stop();
  remove(kConfigMaps, "default", "owner");
  settle();
  EXPECT_TRUE(exists(kConfigMaps, "default", "dep"));
  EXPECT_EQ(gc->graphSize(), 0u);
}

}  // namespace
}  // namespace fakekube::clustertest
