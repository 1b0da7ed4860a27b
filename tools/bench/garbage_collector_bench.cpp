// The garbage collector alone: one owner ConfigMap with 1,000 dependent Pods (samplePod, not
// bound to a node, so a DELETE removes each at once), deleted with a propagation policy; timed
// from the owner's DELETE until the last dependent is gone, running the SimExecutor.
//
// Every iteration builds a fresh in-memory server and a started GarbageCollector over it
// (untimed: the monitors list, the graph learns the 1,000 dependents). The timed part is the
// collector's work: the graph's updates, one reconcile per dependent (a GET of it and of its
// owner, then a DELETE; Foreground first deletes the dependents, then drops the owner's
// finalizer) and the monitors' events for every write.
//
// BM_CollectDependents/background and /foreground. items_per_second = dependents/s.
#include <benchmark/benchmark.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/cluster/garbage_collector.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/sim_executor.h"
#include "tools/bench/bench_util.h"

namespace fakekube::bench {
namespace {

constexpr int kDependents = 1000;

struct World {
  SimExecutor executor{SimExecutor::Options{.seed = 1}};
  std::unique_ptr<ApiServer> server;
  std::unique_ptr<Manager> manager;
  std::unique_ptr<GarbageCollector> collector;

  World() {
    ApiServerOptions options;
    options.seed = 1;
    server = std::move(*ApiServer::open(executor.clock(), options));
    manager = std::make_unique<Manager>(executor, *server);
    collector = std::move(*addGarbageCollector(*manager));
    manager->start();
    auto owner = server->create(
        kConfigMaps, "default",
        {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "owner"}}}});
    if (!owner) throw std::runtime_error(owner.error().message);
    Json ref = {{"apiVersion", "v1"},        {"kind", "ConfigMap"}, {"name", "owner"},
                {"uid", meta::uid(**owner)}, {"controller", true},  {"blockOwnerDeletion", true}};
    for (int i = 0; i < kDependents; ++i) {
      Json pod = samplePod("dep-" + std::to_string(i));
      pod["metadata"]["ownerReferences"] = Json::array({ref});
      auto created = server->create(kPods, "default", std::move(pod));
      if (!created) throw std::runtime_error(created.error().message);
    }
    executor.advance(std::chrono::seconds(1));
    if (!collector->idle()) throw std::runtime_error("the collector did not settle");
  }
  ~World() {
    collector.reset();
    manager.reset();
  }

  bool collected() {
    auto pods = server->list(kPods, "default");
    return pods && pods->items.empty() && !server->get(kConfigMaps, "default", "owner");
  }
};

void BM_CollectDependents(benchmark::State& state, const char* policy) {
  for (auto _ : state) {
    state.PauseTiming();
    auto world = std::make_unique<World>();
    state.ResumeTiming();

    DeleteOptions options;
    options.propagationPolicy = policy;
    if (!world->server->deleteObject(kConfigMaps, "default", "owner", options)) {
      state.SkipWithError("delete failed");
      break;
    }
    world->executor.runUntilIdle();
    if (!world->collected()) {
      state.SkipWithError("the dependents were not collected");
      break;
    }

    state.PauseTiming();
    world.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * kDependents);
}
BENCHMARK_CAPTURE(BM_CollectDependents, background, "Background")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CollectDependents, foreground, "Foreground")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fakekube::bench
