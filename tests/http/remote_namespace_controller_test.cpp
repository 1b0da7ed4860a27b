// The namespace controller in this process, on a Manager over the REST client, against
// `fakekube serve` running every other part: the controller learns the served kinds by discovery
// over HTTP, deletes a namespace's contents and finalizes it through the `finalize` subresource.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/client/discovery.h"
#include "fakekube/client/kubeconfig.h"
#include "fakekube/client/rest_client.h"
#include "fakekube/cluster/namespace_controller.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/thread_pool_executor.h"
#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {
namespace {

TEST(RemoteNamespaceControllerTest, DiscoveryOverHttpListsTheServedKinds) {
  TemporaryDirectory dir;
  Serve serve(dir.path());
  auto rest = serve.restClient();
  ASSERT_TRUE(rest.has_value()) << rest.error().message;
  auto served = servedResources(**rest);
  ASSERT_TRUE(served.has_value()) << served.error().message;
  bool configMaps = false, namespaces = false, deployments = false;
  for (const auto& r : *served) {
    EXPECT_EQ(r.gvr.resource.find('/'), std::string::npos) << "no subresources";
    if (r.gvr == kConfigMaps) configMaps = r.namespaced && r.kind == "ConfigMap";
    if (r.gvr == kNamespaces) namespaces = !r.namespaced && r.kind == "Namespace";
    if (r.gvr == GroupVersionResource{"apps", "v1", "deployments"}) deployments = r.namespaced;
  }
  EXPECT_TRUE(configMaps);
  EXPECT_TRUE(namespaces);
  EXPECT_TRUE(deployments);
}

TEST(RemoteNamespaceControllerTest, DeletesTheContentsAndFinalizesTheNamespaceOverRest) {
  TemporaryDirectory dir;
  Serve serve(dir.path(), {"--controllers",
                           "gc,node-lifecycle,scheduler,kubelet,job,ttl-after-finished,"
                           "replicaset,deployment"});
  auto rest = serve.restClient();
  ASSERT_TRUE(rest.has_value()) << rest.error().message;
  RestClient& client = **rest;

  ASSERT_TRUE(
      client
          .create(kNamespaces,
                  {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "team"}}}})
          .has_value());
  ASSERT_TRUE(client
                  .create(kConfigMaps, {{"apiVersion", "v1"},
                                        {"kind", "ConfigMap"},
                                        {"metadata", {{"name", "cm"}, {"namespace", "team"}}}})
                  .has_value());

  // What the test observes, on a connection of its own.
  WatchOptions from;
  from.resourceVersion = client.list(kNamespaces, "")->at("metadata").value("resourceVersion", "");
  auto events = client.watch(kNamespaces, "", from);
  ASSERT_TRUE(events.has_value()) << events.error().message;

  // Without a namespace controller anywhere the namespace stays Terminating.
  auto deleting = client.deleteObject(kNamespaces, "", "team");
  ASSERT_TRUE(deleting.has_value()) << deleting.error().message;
  EXPECT_TRUE(meta::isDeleting(*client.get(kNamespaces, "", "team")));
  EXPECT_TRUE(client.get(kConfigMaps, "team", "cm").has_value());

  ThreadPoolExecutor executor(2);
  {
    Manager manager(executor, client);
    auto added = addNamespaceController(manager);
    ASSERT_TRUE(added.has_value()) << added.error().message;
    NamespaceController& controller = **added;
    manager.start();

    bool deleted = false;
    while (auto event = (*events)->next(std::chrono::seconds(60))) {
      if (event->type == WatchEventType::Deleted && meta::name(*event->object) == "team") {
        deleted = true;
        break;
      }
    }
    EXPECT_TRUE(deleted) << "the namespace was not removed";
    controller.stop();
    manager.stop();
  }
  auto cm = client.get(kConfigMaps, "team", "cm");
  ASSERT_FALSE(cm.has_value());
  EXPECT_EQ(cm.error().code, 404);
  auto ns = client.get(kNamespaces, "", "team");
  ASSERT_FALSE(ns.has_value());
  EXPECT_EQ(ns.error().code, 404);
  (*events)->stop();
  executor.shutdown();
}

}  // namespace
}  // namespace fakekube::e2e
