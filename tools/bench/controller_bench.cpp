// Controller throughput with a reconciler that does nothing: the cost the controller machinery
// (queue, workers, result handling, metrics) adds to every reconcile.
//
// BM_NoopReconcile/N/W: a Controller with W workers on a fresh SimExecutor; N distinct keys are
// enqueued and the executor runs until every one was reconciled once. Reports reconciles/s.
//
// BM_NoopReconcileManager/N: the same through a Manager over an API server holding N ConfigMaps
// (built once, outside the measured time): start, the informer's initial list, the For handler
// enqueueing each object, and N no-op reconciles.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/runtime/builder.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube::bench {
namespace {

void BM_NoopReconcile(benchmark::State& state) {
  const auto n = state.range(0);
  const int workers = static_cast<int>(state.range(1));
  std::vector<ReconcileRequest> requests;
  requests.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    requests.push_back({"default", "raycluster-" + std::to_string(i)});
  }
  std::int64_t reconciled = 0;
  for (auto _ : state) {
    SimExecutor executor;
    ControllerOptions options;
    options.name = "noop";
    options.maxConcurrentReconciles = workers;
    Controller controller(executor, std::move(options), Reconciler([&](const ReconcileRequest&) {
                            ++reconciled;
                            return ReconcileResult{};
                          }));
    controller.start();
    for (const auto& r : requests) controller.enqueue(r);
    executor.runUntilIdle();
  }
  if (reconciled != static_cast<std::int64_t>(state.iterations()) * n) {
    state.SkipWithError("not every request was reconciled");
  }
  state.SetItemsProcessed(reconciled);
  state.counters["reconciles/s"] =
      benchmark::Counter(static_cast<double>(reconciled), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_NoopReconcile)
    ->Args({10000, 1})
    ->Args({10000, 2})
    ->Args({10000, 8})
    ->Unit(benchmark::kMillisecond);

struct PopulatedServer {
  SimExecutor executor;
  std::unique_ptr<ApiServer> api;

  explicit PopulatedServer(std::int64_t count) {
    ApiServerOptions options;
    options.seed = 1;
    auto opened = ApiServer::open(executor.clock(), options);
    if (!opened) throw std::runtime_error(opened.error().message);
    api = std::move(*opened);
    for (std::int64_t i = 0; i < count; ++i) {
      Json cm = {{"apiVersion", "v1"},
                 {"kind", "ConfigMap"},
                 {"metadata", {{"name", "cm-" + std::to_string(i)}, {"namespace", "default"}}},
                 {"data", {{"key", "value"}}}};
      auto created = api->create(kConfigMaps, "default", std::move(cm));
      if (!created) throw std::runtime_error(created.error().message);
    }
  }
};

PopulatedServer& populated(std::int64_t count) {
  static std::map<std::int64_t, std::unique_ptr<PopulatedServer>> servers;
  auto& s = servers[count];
  if (!s) s = std::make_unique<PopulatedServer>(count);
  return *s;
}

void BM_NoopReconcileManager(benchmark::State& state) {
  const auto n = state.range(0);
  PopulatedServer& server = populated(n);
  std::int64_t reconciled = 0;
  for (auto _ : state) {
    Manager manager(server.executor, *server.api);
    auto c =
        ControllerBuilder(manager).forResource(kConfigMaps).complete([&](const ReconcileRequest&) {
          ++reconciled;
          return ReconcileResult{};
        });
    if (!c) state.SkipWithError("builder failed");
    manager.start();
    server.executor.runUntilIdle();
  }
  if (reconciled != static_cast<std::int64_t>(state.iterations()) * n) {
    state.SkipWithError("not every object was reconciled");
  }
  state.SetItemsProcessed(reconciled);
  state.counters["reconciles/s"] =
      benchmark::Counter(static_cast<double>(reconciled), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_NoopReconcileManager)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fakekube::bench
