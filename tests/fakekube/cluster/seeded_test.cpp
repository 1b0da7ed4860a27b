// The collector and the namespace controller under many interleavings: every seed orders the
// work that is due at the same instant differently (SimExecutor), and every run must reach the
// same end state.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster_fixture.h"
#include "fakekube/api/resources.h"

namespace fakekube::clustertest {
namespace {

class SeededRun {
 public:
  explicit SeededRun(std::uint64_t seed) : ex(SimExecutor::Options{seed}) {
    server = openSeededServer(ex, seed);
    manager = std::make_unique<Manager>(ex, *server);
    gc = must(addGarbageCollector(*manager), "addGarbageCollector");
    namespaces = must(addNamespaceController(*manager), "addNamespaceController");
    manager->start();
  }
  ~SeededRun() {
    namespaces.reset();
    gc.reset();
    manager.reset();
  }

  Json create(const GroupVersionResource& gvr, Json object) {
    return must(server->create(gvr, "", std::move(object)), "create");
  }
  bool exists(const GroupVersionResource& gvr, std::string_view ns, std::string_view name) {
    return server->get(gvr, ns, name).has_value();
  }
  void remove(const GroupVersionResource& gvr, std::string_view ns, std::string_view name,
              std::string policy) {
    DeleteOptions options;
    options.propagationPolicy = std::move(policy);
    must(server->deleteObject(gvr, ns, name, options), "delete");
  }
  void settle() {
    ex.advance(std::chrono::seconds(2));
    EXPECT_TRUE(gc->idle());
    EXPECT_TRUE(namespaces->idle());
  }

  SimExecutor ex;
  std::unique_ptr<ApiServer> server;
  std::unique_ptr<Manager> manager;
  std::unique_ptr<GarbageCollector> gc;
  std::unique_ptr<NamespaceController> namespaces;
};

TEST(SeededClusterTest, EverySeedReachesTheSameEndState) {
  for (std::uint64_t seed = 1; seed <= 25; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    SeededRun run(seed);
    run.create(kNamespaces, namespaceObject("team"));
    // Two chains in default (one deleted Foreground with a held pod, one Orphaned), and a
    // chain inside a namespace that is deleted, all without settling in between.
    for (std::string name : {"fg", "or"}) {
      Json d = run.create(kDeployments, deployment(name));
      Json rs = run.create(kReplicaSets, ownedBy(replicaSet(name + "-rs"), {ownerRef(d)}));
      Json held = ownedBy(pod(name + "-a"), {ownerRef(rs)});
      if (name == "fg") held = withFinalizer(held, "example.com/hold");
      run.create(kPods, held);
      run.create(kPods, ownedBy(pod(name + "-b"), {ownerRef(rs)}));
      run.create(kConfigMaps, ownedBy(configMap(name + "-loose"), {ownerRef(d, false)}));
    }
    Json teamOwner = run.create(kConfigMaps, configMap("owner", "team"));
    run.create(kConfigMaps, ownedBy(configMap("dep", "team"), {ownerRef(teamOwner)}));
    run.remove(kDeployments, "default", "fg", "Foreground");
    run.remove(kDeployments, "default", "or", "Orphan");
    run.remove(kNamespaces, "", "team", "Background");
    run.settle();

    EXPECT_TRUE(run.exists(kDeployments, "default", "fg"));
    EXPECT_TRUE(run.exists(kReplicaSets, "default", "fg-rs"));
    EXPECT_TRUE(run.exists(kPods, "default", "fg-a"));
    EXPECT_FALSE(run.exists(kPods, "default", "fg-b"));
    EXPECT_TRUE(run.exists(kConfigMaps, "default", "fg-loose"));
    EXPECT_FALSE(run.exists(kDeployments, "default", "or"));
    EXPECT_TRUE(run.exists(kReplicaSets, "default", "or-rs"));
    EXPECT_TRUE(run.exists(kPods, "default", "or-a"));
    EXPECT_TRUE(run.exists(kConfigMaps, "default", "or-loose"));
    EXPECT_FALSE(run.exists(kNamespaces, "", "team"));

    must(run.server->patch(kPods, "default", "fg-a", PatchType::Merge,
                           R"({"metadata":{"finalizers":null}})"),
         "release");
    run.settle();
    for (std::string name : {"fg", "fg-rs", "fg-a", "fg-b", "fg-loose"}) {
      EXPECT_FALSE(run.exists(kDeployments, "default", name) ||
                   run.exists(kReplicaSets, "default", name) ||
                   run.exists(kPods, "default", name) || run.exists(kConfigMaps, "default", name))
          << name;
    }
  }
}

}  // namespace
}  // namespace fakekube::clustertest
