// Shared fixture of the cache tests: an ApiServer on a SimExecutor's clock, an InProcessClient
// over it, and a handler that records what an informer reports as "add ns/name rv" lines.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fakekube/api/object_meta.h"
#include "fakekube/apiserver/fixture.h"
#include "fakekube/cache/informer.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube::cachetest {

using apitest::configMap;
using apitest::must;
using apitest::pod;

// Records handler calls in the order they came.
struct Recorder {
  std::vector<std::string> events;

  ResourceEventHandler handler() {
    return {
        [this](const ObjectPtr& o) { events.push_back("add " + describe(*o)); },
        [this](const ObjectPtr& before, const ObjectPtr& after) {
          events.push_back("update " + describe(*before) + " -> " + meta::resourceVersion(*after));
        },
        [this](const ObjectPtr& o) { events.push_back("delete " + describe(*o)); },
    };
  }
  static std::string describe(const Json& o) {
    return meta::namespacedName(o) + " " + meta::resourceVersion(o);
  }
  std::vector<std::string> take() { return std::exchange(events, {}); }
};

class CacheTest : public ::testing::Test {
 protected:
  void SetUp() override { open(); }

  void open(std::size_t watchBacklog = 10000) {
    client.reset();
    server.reset();
    ApiServerOptions options;
    options.seed = 42;
    options.watchBacklog = watchBacklog;
    auto opened = ApiServer::open(ex.clock(), options);
    ASSERT_TRUE(opened.has_value()) << opened.error().str();
    server = std::move(*opened);
    client = std::make_unique<InProcessClient>(*server);
  }

  Json create(const GroupVersionResource& gvr, Json object) {
    return must(client->create(gvr, std::move(object)), "create");
  }
  Json mergePatch(const GroupVersionResource& gvr, const std::string& ns, const std::string& name,
                  const Json& patch) {
    return must(client->patch(gvr, ns, name, PatchType::Merge, patch.dump()), "patch");
  }
  Json labelled(Json object, const std::string& key, const std::string& value) {
    meta::setLabel(object, key, value);
    return object;
  }
  // The names of the objects, in order.
  static std::vector<std::string> names(const std::vector<ObjectPtr>& objects) {
    std::vector<std::string> out;
    for (const auto& o : objects) out.push_back(meta::namespacedName(*o));
    return out;
  }
  // What the server holds, as "ns/name rv" lines in key order.
  std::vector<std::string> serverState(const GroupVersionResource& gvr,
                                       const ListOptions& options = {}) {
    std::vector<std::string> out;
    for (const auto& o : must<ObjectList>(server->list(gvr, "", options)).items) {
      out.push_back(Recorder::describe(*o));
    }
    return out;
  }
  static std::vector<std::string> state(const Informer& informer) {
    std::vector<std::string> out;
    for (const auto& o : informer.list()) out.push_back(Recorder::describe(*o));
    return out;
  }

  SimExecutor ex;
  std::unique_ptr<ApiServer> server;
  std::unique_ptr<InProcessClient> client;
};

}  // namespace fakekube::cachetest
