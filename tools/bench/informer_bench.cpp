// Informer initial sync: how fast an informer lists a big collection into its store and indexes.
//
// BM_InformerInitialSync/N creates N Pods (the 1.5 KiB samplePod) once, outside the measured time.
// Each iteration builds a new Informer on a fresh SimExecutor, starts it and runs the executor
// until the informer has synced: one LIST through the InProcessClient (which copies every
// document, as a client receiving them over the wire would own them), the store and the three
// built-in indexes (namespace, owner UID, labels), and the watch it opens afterwards.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/cache/informer.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/sim/sim_executor.h"
#include "tools/bench/bench_util.h"

namespace fakekube::bench {
namespace {

// A server holding `count` Pods; built once per count and kept for the process, since the
// benchmark function runs several times while the library picks an iteration count.
struct PopulatedServer {
  SimExecutor executor;
  std::unique_ptr<ApiServer> api;

  explicit PopulatedServer(std::int64_t count) {
    ApiServerOptions options;
    options.seed = 1;
    auto opened = ApiServer::open(executor.clock(), options);
    if (!opened) throw std::runtime_error(opened.error().message);
    api = std::move(*opened);
    const Json pod = samplePod("template");
    for (std::int64_t i = 0; i < count; ++i) {
      Json copy = pod;
      meta::setName(copy, "pod-" + std::to_string(i));
      auto created = api->create(kPods, "default", std::move(copy));
      if (!created) throw std::runtime_error(created.error().message);
    }
  }

  static PopulatedServer& with(std::int64_t count) {
    static std::map<std::int64_t, std::unique_ptr<PopulatedServer>> servers;
    auto& slot = servers[count];
    if (!slot) slot = std::make_unique<PopulatedServer>(count);
    return *slot;
  }
};

void BM_InformerInitialSync(benchmark::State& state) {
  const std::int64_t count = state.range(0);
  PopulatedServer& server = PopulatedServer::with(count);
  InProcessClient client(*server.api);
  for (auto _ : state) {
    SimExecutor executor;
    Informer informer(client, executor, kPods);
    informer.start();
    executor.runUntilIdle();
    if (!informer.hasSynced() || static_cast<std::int64_t>(informer.size()) != count) {
      state.SkipWithError("informer did not sync every pod");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * count);
}
BENCHMARK(BM_InformerInitialSync)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fakekube::bench
