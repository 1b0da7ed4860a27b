// The garbage collector in this process, on a Manager over the REST client, against
// `fakekube serve` running every part but its own collector: the collector learns the served
// kinds by discovery over HTTP, monitors them with informers over the REST client and collects
// dependents when their owner is deleted (Background, Foreground, Orphan).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/client/kubeconfig.h"
#include "fakekube/client/rest_client.h"
#include "fakekube/cluster/garbage_collector.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/thread_pool_executor.h"
#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {
namespace {

Json configMap(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", "default"}}}};
}

Json ownedBy(Json object, const Json& owner) {
  object["metadata"]["ownerReferences"] = Json::array({{{"apiVersion", "v1"},
                                                        {"kind", "ConfigMap"},
                                                        {"name", meta::name(owner)},
                                                        {"uid", meta::uid(owner)},
                                                        {"controller", true},
                                                        {"blockOwnerDeletion", true}}});
  return object;
}

// Takes DELETED events of `watch` until every one of `names` was deleted (or a minute passes
// without an event); answers the order they were deleted in.
std::vector<std::string> awaitDeleted(Watch& watch, std::set<std::string> names) {
  std::vector<std::string> order;
  while (!names.empty()) {
    auto event = watch.next(std::chrono::seconds(60));
    if (!event) break;
    if (event->type != WatchEventType::Deleted) continue;
    const std::string name = meta::name(*event->object);
    if (names.erase(name) != 0) order.push_back(name);
  }
  return order;
}

TEST(RemoteGarbageCollectorTest, CollectsDependentsOverRest) {
  TemporaryDirectory dir;
  // Everything but the collector.
  Serve serve(dir.path(), {"--controllers",
                           "namespace,node-lifecycle,scheduler,kubelet,job,ttl-after-finished,"
                           "replicaset,deployment"});
  auto rest = serve.restClient();
  ASSERT_TRUE(rest.has_value()) << rest.error().message;
  RestClient& client = **rest;

  auto create = [&](Json object) {
    auto created = client.create(kConfigMaps, std::move(object));
    EXPECT_TRUE(created.has_value()) << created.error().message;
    return created.value_or(Json::object());
  };
  auto remove = [&](const std::string& name, const std::string& policy) {
    DeleteOptions options;
    options.propagationPolicy = policy;
    auto deleted = client.deleteObject(kConfigMaps, "default", name, options);
    EXPECT_TRUE(deleted.has_value()) << deleted.error().message;
  };
  auto exists = [&](const std::string& name) {
    auto got = client.get(kConfigMaps, "default", name);
    if (!got) EXPECT_EQ(got.error().code, 404) << got.error().message;
    return got.has_value();
  };

  Json background = create(configMap("bg-owner"));
  create(ownedBy(configMap("bg-dep"), background));
  Json foreground = create(configMap("fg-owner"));
  create(ownedBy(configMap("fg-dep"), foreground));
  Json orphaning = create(configMap("or-owner"));
  create(ownedBy(configMap("or-dep"), orphaning));

  // What the test observes, on a connection of its own.
  WatchOptions from;
  from.resourceVersion = client.list(kConfigMaps, "")->at("metadata").value("resourceVersion", "");
  auto events = client.watch(kConfigMaps, "", from);
  ASSERT_TRUE(events.has_value()) << events.error().message;

  // Without a collector anywhere, a Background deletion leaves the dependent behind.
  remove("bg-owner", "Background");
  EXPECT_EQ(awaitDeleted(**events, {"bg-owner"}), std::vector<std::string>{"bg-owner"});
  EXPECT_TRUE(exists("bg-dep"));

  ThreadPoolExecutor executor(2);
  {
    Manager manager(executor, client);
    auto added = addGarbageCollector(manager);
    ASSERT_TRUE(added.has_value()) << added.error().message;
    GarbageCollector& collector = **added;
    EXPECT_GT(collector.monitors(), 30u) << "a monitor per served resource";
    manager.start();

    // The dangling dependent left while no collector ran.
    EXPECT_EQ(awaitDeleted(**events, {"bg-dep"}), std::vector<std::string>{"bg-dep"});

    // Foreground: the dependent goes first, then the owner.
    remove("fg-owner", "Foreground");
    EXPECT_EQ(awaitDeleted(**events, {"fg-owner", "fg-dep"}),
              (std::vector<std::string>{"fg-dep", "fg-owner"}));

    // Orphan: the owner goes, the dependent stays without its reference.
    remove("or-owner", "Orphan");
    EXPECT_EQ(awaitDeleted(**events, {"or-owner"}), std::vector<std::string>{"or-owner"});
    auto orphan = client.get(kConfigMaps, "default", "or-dep");
    ASSERT_TRUE(orphan.has_value()) << orphan.error().message;
    EXPECT_TRUE(meta::ownerReferences(*orphan).empty());

    EXPECT_GT(collector.metrics().success, 0u);
    EXPECT_NE(manager.renderMetrics().find("controller=\"garbage-collector-controller\""),
              std::string::npos);
    collector.stop();
    manager.stop();
  }
  EXPECT_FALSE(exists("bg-dep"));
  EXPECT_FALSE(exists("fg-dep"));
  EXPECT_FALSE(exists("fg-owner"));
  EXPECT_TRUE(exists("or-dep"));
  (*events)->stop();
  executor.shutdown();
}

}  // namespace
}  // namespace fakekube::e2e
