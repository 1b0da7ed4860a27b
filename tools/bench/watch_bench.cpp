// Watch fan-out: one writer, N watchers on the same resource, each draining its queue. Counts
// events delivered per second (writes × watchers).
#include <benchmark/benchmark.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube::bench {
namespace {

void BM_WatchFanout(benchmark::State& state) {
  const int watchers = static_cast<int>(state.range(0));
  constexpr int kEvents = 10000;
  std::int64_t delivered = 0;
  for (auto _ : state) {
    state.PauseTiming();
    SimExecutor executor;
    ApiServerOptions options;
    options.watchBacklog = kEvents + 10;
    auto server = std::move(*ApiServer::open(executor.clock(), options));
    std::vector<std::shared_ptr<Watch>> watches;
    WatchOptions from;
    from.resourceVersion = std::to_string(server->revision());
    for (int i = 0; i < watchers; ++i)
      watches.push_back(*server->watch(kConfigMaps, "default", from));
    Json cm = {{"metadata", {{"name", "c"}, {"namespace", "default"}}}, {"data", {{"k", "0"}}}};
    auto current = *server->create(kConfigMaps, "default", cm);
    for (auto& w : watches)
      while (w->tryNext()) {
      }
    state.ResumeTiming();

    // Writes and deliveries interleave, as a live server's would.
    Json object = *current;
    for (int i = 0; i < kEvents; ++i) {
      object["data"]["k"] = std::to_string(i + 1);
      object = **server->update(kConfigMaps, "default", std::move(object));
      if (i % 100 == 99) {
        for (auto& w : watches) {
          while (auto e = w->tryNext()) {
            benchmark::DoNotOptimize(e);
            ++delivered;
          }
        }
      }
    }
    for (auto& w : watches) {
      while (auto e = w->tryNext()) ++delivered;
    }
  }
  state.counters["events_per_second"] =
      benchmark::Counter(static_cast<double>(delivered), benchmark::Counter::kIsRate);
  state.counters["writes_per_second"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * kEvents, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_WatchFanout)->Arg(100)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace fakekube::bench
