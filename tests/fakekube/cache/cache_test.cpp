// Cache and CachedClient: reads from informers, writes through the client, and the lag between.
#include "fakekube/cache/cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

#include "cache_fixture.h"
#include "fakekube/api/resources.h"
#include "fakekube/cache/cached_client.h"

namespace fakekube::cachetest {
namespace {

using namespace std::chrono_literals;
using apitest::failsWith;
using ::testing::ElementsAre;

using CacheReadTest = CacheTest;

std::vector<std::string> itemNames(const Json& list) {
  std::vector<std::string> out;
  for (const auto& item : list["items"]) out.push_back(meta::namespacedName(item));
  return out;
}

// The acceptance test of the lag: the write succeeded, the cache has not seen it yet.
TEST_F(CacheReadTest, InformerLagHidesAFreshCreateUntilDelivered) {
  Cache cache(*client, ex);
  ASSERT_TRUE(cache.setResourceOptions(kConfigMaps, {.deliveryDelay = 2s}));
  cache.informerFor(kConfigMaps);
  cache.start();
  EXPECT_FALSE(cache.synced());
  ex.runUntilIdle();
  ASSERT_TRUE(cache.synced());

  CachedClient cached(cache, *client);
  Json created = must(cached.create(kConfigMaps, configMap("a")));
  ex.runUntilIdle();

  EXPECT_TRUE(failsWith(cached.get(kConfigMaps, "default", "a"), 404, "NotFound",
                        "configmaps \"a\" not found"));
  Json fresh = must(cached.uncachedReader().get(kConfigMaps, "default", "a"));
  EXPECT_EQ(fresh, created);
  EXPECT_TRUE(itemNames(must(cached.list(kConfigMaps, "default"))).empty());

  ex.advance(2s);
  Json seen = must(cached.get(kConfigMaps, "default", "a"));
  EXPECT_EQ(seen, created);
  EXPECT_THAT(itemNames(must(cached.list(kConfigMaps, "default"))), ElementsAre("default/a"));
}

TEST_F(CacheReadTest, NotFoundIsExactlyTheServersStatus) {
  Cache cache(*client, ex);
  auto fromCache = cache.get(kConfigMaps, "default", "missing");
  auto fromServer = client->get(kConfigMaps, "default", "missing");
  ASSERT_FALSE(fromCache.has_value());
  ASSERT_FALSE(fromServer.has_value());
  EXPECT_EQ(fromCache.error().toJson(), fromServer.error().toJson());

  const GroupVersionResource deployments{"apps", "v1", "deployments"};
  auto missingDeployment = cache.get(deployments, "default", "web");
  ASSERT_FALSE(missingDeployment.has_value());
  EXPECT_EQ(missingDeployment.error().toJson(),
            client->get(deployments, "default", "web").error().toJson());
}

TEST_F(CacheReadTest, ReadsOfAnUnseenResourceSyncItsInformerOnDemand) {
  create(kConfigMaps, configMap("a"));
  Cache cache(*client, ex);
  cache.start();
  // No informer yet, nothing run: the read lists right away rather than blocking.
  Json a = must(cache.get(kConfigMaps, "default", "a"));
  EXPECT_EQ(meta::name(a), "a");
  EXPECT_TRUE(cache.synced());
  // ... and the informer keeps watching.
  create(kConfigMaps, configMap("b"));
  ex.runUntilIdle();
  EXPECT_TRUE(cache.get(kConfigMaps, "default", "b").has_value());
}

TEST_F(CacheReadTest, ListFiltersByNamespaceLabelsAndFields) {
  must(client->create(kNamespaces, apitest::namespaceObject("team")));
  create(kConfigMaps, labelled(configMap("a"), "app", "web"));
  create(kConfigMaps, labelled(configMap("b"), "app", "db"));
  create(kConfigMaps, labelled(configMap("c", "team"), "app", "web"));
  Cache cache(*client, ex);
  cache.informerFor(kConfigMaps);
  cache.start();
  ex.runUntilIdle();

  Json all = must(cache.list(kConfigMaps, ""));
  EXPECT_EQ(all["apiVersion"], "v1");
  EXPECT_EQ(all["kind"], "ConfigMapList");
  EXPECT_EQ(all["metadata"]["resourceVersion"], std::to_string(server->revision()));
  EXPECT_THAT(itemNames(all), ElementsAre("default/a", "default/b", "team/c"));

  EXPECT_THAT(itemNames(must(cache.list(kConfigMaps, "default"))),
              ElementsAre("default/a", "default/b"));
  ListOptions web;
  web.labelSelector = "app=web";
  EXPECT_THAT(itemNames(must(cache.list(kConfigMaps, "", web))),
              ElementsAre("default/a", "team/c"));
  EXPECT_THAT(itemNames(must(cache.list(kConfigMaps, "team", web))), ElementsAre("team/c"));
  ListOptions byName;
  byName.fieldSelector = "metadata.name=b";
  EXPECT_THAT(itemNames(must(cache.list(kConfigMaps, "", byName))), ElementsAre("default/b"));
  ListOptions limited;
  limited.limit = 2;
  EXPECT_EQ(must(cache.list(kConfigMaps, "", limited))["items"].size(), 2u);

  // Selector errors are the server's.
  ListOptions bad;
  bad.labelSelector = "app in (web";
  auto fromCache = cache.list(kConfigMaps, "", bad);
  auto fromServer = client->list(kConfigMaps, "", bad);
  ASSERT_FALSE(fromCache.has_value());
  ASSERT_FALSE(fromServer.has_value());
  EXPECT_EQ(fromCache.error().code, 400);
  EXPECT_EQ(fromCache.error().message, fromServer.error().message);
}

TEST_F(CacheReadTest, ClusterScopedObjectsIgnoreTheNamespace) {
  Cache cache(*client, ex);
  EXPECT_EQ(meta::name(must(cache.get(kNamespaces, "", "default"))), "default");
  EXPECT_EQ(meta::name(must(cache.get(kNamespaces, "whatever", "default"))), "default");
}

TEST_F(CacheReadTest, PerResourceLabelRestriction) {
  Cache cache(*client, ex);
  ASSERT_TRUE(cache.setResourceOptions(kPods, {.labelSelector = "ray.io/node-type"}));
  create(kPods, labelled(pod("head"), "ray.io/node-type", "head"));
  create(kPods, pod("unrelated"));
  create(kConfigMaps, configMap("cm"));  // configmaps keep the defaults: unrestricted
  cache.start();

  EXPECT_TRUE(cache.get(kPods, "default", "head").has_value());
  EXPECT_TRUE(failsWith(cache.get(kPods, "default", "unrelated"), 404, "NotFound",
                        "pods \"unrelated\" not found"));
  EXPECT_TRUE(cache.get(kConfigMaps, "default", "cm").has_value());
  // Options are fixed once the informer exists.
  EXPECT_FALSE(cache.setResourceOptions(kPods, {}));
}

TEST_F(CacheReadTest, NamespaceRestrictedCacheRefusesOtherNamespaces) {
  Cache cache(*client, ex, {.defaults = {.namespace_ = "default"}});
  create(kConfigMaps, configMap("a"));
  EXPECT_TRUE(cache.get(kConfigMaps, "default", "a").has_value());
  auto elsewhere = cache.get(kConfigMaps, "kube-system", "a");
  ASSERT_FALSE(elsewhere.has_value());
  EXPECT_EQ(elsewhere.error().code, 400);
  EXPECT_FALSE(cache.list(kConfigMaps, "kube-system").has_value());
}

TEST_F(CacheReadTest, CachedReadsAreCopies) {
  create(kConfigMaps, configMap("a"));
  Cache cache(*client, ex);
  Json a = must(cache.get(kConfigMaps, "default", "a"));
  a["data"]["key"] = "scribbled";
  EXPECT_EQ((*must<ObjectPtr>(cache.getShared(kConfigMaps, "default", "a")))["data"]["key"],
            "value");
}

TEST_F(CacheReadTest, CachedClientWritesGoToTheServer) {
  Cache cache(*client, ex);
  cache.start();
  CachedClient cached(cache, *client);
  Json a = must(cached.create(kConfigMaps, configMap("a")));
  ex.runUntilIdle();
  Json read = must(cached.get(kConfigMaps, "default", "a"));
  read["data"]["key"] = "v2";
  must(cached.update(kConfigMaps, read));
  // A second update from the same (now stale) read is the server's 409.
  read["data"]["key"] = "v3";
  EXPECT_TRUE(isConflict(cached.update(kConfigMaps, read)));
  must(cached.patch(kConfigMaps, "default", "a", PatchType::Merge, R"({"data":{"x":"y"}})"));
  ex.runUntilIdle();
  EXPECT_EQ(must(cached.get(kConfigMaps, "default", "a"))["data"]["x"], "y");
  must(cached.deleteObject(kConfigMaps, "default", "a"));
  ex.runUntilIdle();
  EXPECT_TRUE(isNotFound(cached.get(kConfigMaps, "default", "a")));
  EXPECT_EQ(&cached.underlyingClient(), client.get());
}

}  // namespace
}  // namespace fakekube::cachetest
