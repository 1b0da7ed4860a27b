// The controller work queue on its own: add, hand out and done() distinct keys, as a controller's
// informer handlers and workers do. Runs on a SimExecutor (runUntilIdle, no virtual time passes),
// so the figure is the queue's own cost plus the executor's per-task cost, not a machine's
// scheduling. Counts items (add + get + done) per second.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fakekube/runtime/priority_queue.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube::bench {
namespace {

// A worker that marks each item done at once and asks for the next: reconciling costs nothing.
struct InstantWorker {
  PriorityQueue& queue;
  std::int64_t processed = 0;
  std::function<void(QueueItem)> onItem;

  explicit InstantWorker(PriorityQueue& q) : queue(q) {
    onItem = [this](QueueItem item) {
      if (item.shutdown) return;
      queue.done(item.key);
      ++processed;
      queue.getWithPriority(onItem);
    };
  }
  void start() { queue.getWithPriority(onItem); }
};

void BM_WorkQueueAddGet(benchmark::State& state) {
  const int workers = static_cast<int>(state.range(0));
  constexpr int kKeys = 10000;
  std::vector<std::string> keys;
  keys.reserve(kKeys);
  for (int i = 0; i < kKeys; ++i) keys.push_back("default/raycluster-" + std::to_string(i));

  std::int64_t processed = 0;
  for (auto _ : state) {
    SimExecutor executor;
    PriorityQueue queue(executor);
    std::vector<std::unique_ptr<InstantWorker>> pool;
    for (int w = 0; w < workers; ++w) {
      pool.push_back(std::make_unique<InstantWorker>(queue));
      pool.back()->start();
    }
    for (const auto& key : keys) queue.add(key);
    executor.runUntilIdle();
    for (const auto& w : pool) processed += w->processed;
    queue.shutDown();
    executor.runUntilIdle();
  }
  if (processed != static_cast<std::int64_t>(state.iterations()) * kKeys) {
    state.SkipWithError("not every item was processed");
  }
  state.SetItemsProcessed(processed);
}
BENCHMARK(BM_WorkQueueAddGet)->Arg(1)->Arg(4)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fakekube::bench
