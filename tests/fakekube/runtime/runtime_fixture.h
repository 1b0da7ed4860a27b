// Shared fixture of the controller, builder and manager tests: an ApiServer on a SimExecutor's
// clock that serves the Widget custom resource (widgets.example.com/v1, with a status
// subresource), a client over it, and helpers to create and change objects.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/fixture.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/runtime/builder.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/runtime/reconcile.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube {
// How GoogleTest prints a request in failure messages.
inline void PrintTo(const ReconcileRequest& r, std::ostream* os) { *os << r.key(); }
}  // namespace fakekube

namespace fakekube::runtimetest {

using apitest::configMap;
using apitest::kWidgets;
using apitest::must;
using apitest::openSeededServer;
using apitest::widget;

class RuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ApiServerOptions options;
    options.seed = 42;
    auto opened = ApiServer::open(ex.clock(), options);
    ASSERT_TRUE(opened.has_value()) << opened.error().str();
    server = std::move(*opened);
    client = std::make_unique<InProcessClient>(*server);
    must(client->create(kCustomResourceDefinitions, apitest::widgetCrd()), "create CRD");
    start = ex.now();
  }

  Json create(const GroupVersionResource& gvr, Json object) {
    return must(client->create(gvr, std::move(object)), "create");
  }
  Json get(const GroupVersionResource& gvr, const std::string& ns, const std::string& name) {
    return must(client->get(gvr, ns, name), "get");
  }
  Json mergePatch(const GroupVersionResource& gvr, const std::string& ns, const std::string& name,
                  const Json& patch, const std::string& subresource = "") {
    return must(client->patch(gvr, ns, name, PatchType::Merge, patch.dump(), {}, subresource),
                "patch");
  }
  // Milliseconds of virtual time since the test started.
  long long elapsedMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(ex.now() - start).count();
  }

  SimExecutor ex;
  std::unique_ptr<ApiServer> server;
  std::unique_ptr<InProcessClient> client;
  TimePoint start;
};

inline ReconcileRequest req(const std::string& name, const std::string& ns = "default") {
  return ReconcileRequest{ns, name};
}

// What the reconciles of a controller with maxConcurrentReconciles did: how many ran at once at
// the most, how often one key was reconciled by two at the same time, and each key's rounds.
struct ReconcileConcurrency {
  // A reconcile of `key` starts; answers its round of the key (1 for the first).
  int begin(const std::string& key) {
    maxActive = std::max(maxActive, ++active);
    if (!inFlight.insert(key).second) ++overlaps;
    return ++rounds[key];
  }
  // The reconcile of `key` ended.
  void end(const std::string& key) {
    --active;
    inFlight.erase(key);
  }

  int active = 0;
  int maxActive = 0;
  int overlaps = 0;
  std::set<std::string> inFlight;
  std::map<std::string, int> rounds;
};

// A controller of ConfigMaps with two workers whose every reconcile spans 10 ms of virtual time
// (the asynchronous form), recorded in `seen`; `duringFirstRound` runs in each key's first round
// (where a test changes the object, which re-adds the key while it is locked).
inline Result<Controller*> addTwoWorkerConfigMapController(
    Manager& manager, SimExecutor& ex, ReconcileConcurrency& seen,
    std::function<void(const ReconcileRequest&)> duringFirstRound) {
  return ControllerBuilder(manager)
      .forResource(kConfigMaps)
      .withOptions({.maxConcurrentReconciles = 2})
      .completeAsync([&ex, &seen, duringFirstRound = std::move(duringFirstRound)](
                         const ReconcileRequest& r, ReconcileDone done) {
        const std::string key = r.key();
        if (seen.begin(key) == 1) duringFirstRound(r);
        ex.postAfter(std::chrono::milliseconds(10), [&seen, key, done] {
          seen.end(key);
          done(ReconcileResult{});
        });
      });
}

}  // namespace fakekube::runtimetest
