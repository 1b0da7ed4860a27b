// Gang scheduling at scale: BM_GangScheduling/{100,1000}.
//
// N PodGroups of 4 pods (1 cpu each, minMember 4) on N nodes of 8 cpu (room for two groups a
// node: enough for all), with the simulated Volcano scheduler (controllers/volcano/) on its own
// manager and no other part of the cluster running: nothing else writes. Every iteration builds a
// fresh in-memory server, the nodes and the scheduler (untimed), then times creating the groups
// and their pods and running the SimExecutor, one virtual second at a time, until every group is
// Running (all four pods bound at once). Then, untimed in the benchmark's clock but measured, the
// same 4N pods without groups go to the default scheduler on a fresh cluster of the same nodes,
// until every pod is bound.
//
// Reports `per_group_us` (wall time per group, create to Running), `volcano_us_per_pod` and
// `default_us_per_pod` (wall time per pod bound, each scheduler on its own cluster) and their
// ratio `volcano_over_default`. The gang scheduler's cost per group should stay flat from 100 to
// 1,000 groups (within 1.5x), and its cost per pod within 2x of the default scheduler's: a
// session reads the whole cache every second, and stops filtering a task's nodes after
// numFeasibleNodesToFind (docs/gang-scheduling.md, docs/performance.md).
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "controllers/volcano/internal/volcano_api.h"
#include "controllers/volcano/internal/volcano_scheduler.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/cluster/cluster.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube::bench {
namespace gang {
namespace {

constexpr int kMembers = 4;

Json memberPod(const std::string& name, const std::string& group) {
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}}},
              {"spec",
               {{"containers", Json::array({{{"name", "main"},
                                             {"image", "busybox"},
                                             {"resources", {{"requests", {{"cpu", "1"}}}}}}})}}}};
  if (!group.empty()) {
    pod["spec"]["schedulerName"] = "volcano";
    pod["metadata"]["annotations"] = {{std::string(volcano::kGroupNameAnnotation), group}};
  }
  return pod;
}

Json podGroup(const std::string& name) {
  return {
      {"apiVersion", "scheduling.volcano.sh/v1beta1"},
      {"kind", "PodGroup"},
      {"metadata", {{"name", name}}},
      {"spec", {{"minMember", kMembers}, {"minResources", {{"cpu", std::to_string(kMembers)}}}}}};
}

// A server with `nodes` nodes of 8 cpu, the cluster's parts `enabled` and, with `volcano`, the
// Volcano scheduler.
struct World {
  SimExecutor executor{SimExecutor::Options{.seed = 1}};
  std::unique_ptr<ApiServer> server;
  std::unique_ptr<Cluster> cluster;
  std::unique_ptr<Manager> scheduler;

  World(int nodes, bool volcano) {
    ApiServerOptions serverOptions;
    serverOptions.seed = 1;
    server = std::move(*ApiServer::open(executor.clock(), serverOptions));
    ClusterOptions options;
    options.nodes = nodes;
    options.enabled = volcano ? std::set<std::string>{} : std::set<std::string>{"scheduler"};
    options.scheduler.recordEvents = false;
    cluster = std::make_unique<Cluster>(executor, *server, options);
    if (!cluster->start()) throw std::runtime_error("the cluster did not start");
    if (volcano) {
      scheduler = std::make_unique<Manager>(executor, *server);
      if (!volcano::addVolcanoScheduler(*scheduler)) {
        throw std::runtime_error("the Volcano scheduler did not start");
      }
      scheduler->start();
    }
    executor.runFor(std::chrono::milliseconds(10));
  }
  ~World() {
    scheduler.reset();
    cluster.reset();
  }

  int runningGroups() {
    auto groups = server->list(volcano::kPodGroups, "default", {});
    int running = 0;
    for (const auto& group : groups->items) {
      running += jsonAt(*group, {"status", "phase"}) == "Running";
    }
    return running;
  }
  int boundPods() {
    auto pods = server->list(kPods, "default", {});
    int bound = 0;
    for (const auto& pod : pods->items) bound += !podNodeName(*pod).empty();
    return bound;
  }
};

// Runs one virtual second at a time until `done`, at most ten virtual minutes.
template <typename Done>
bool runUntil(World& world, Done done) {
  for (int second = 0; second < 600; ++second) {
    if (done()) return true;
    world.executor.advance(std::chrono::seconds(1));
  }
  return done();
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void BM_GangScheduling(benchmark::State& state) {
  const int groups = static_cast<int>(state.range(0));
  const int nodes = groups / 2 + groups / 10;  // room for every group, and some to spare
  double volcanoSeconds = 0;
  double defaultSeconds = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto world = std::make_unique<World>(nodes, true);
    state.ResumeTiming();
    const auto start = std::chrono::steady_clock::now();
    for (int g = 0; g < groups; ++g) {
      const std::string name = "g" + std::to_string(g);
      bool created =
          world->server->create(volcano::kPodGroups, "default", podGroup(name)).has_value();
      for (int m = 0; m < kMembers && created; ++m) {
        created =
            world->server->create(kPods, "default", memberPod(name + "-" + std::to_string(m), name))
                .has_value();
      }
      if (!created) {
        state.SkipWithError("create failed");
        return;
      }
    }
    if (!runUntil(*world, [&] { return world->runningGroups() == groups; })) {
      state.SkipWithError("not every group Running in 10 virtual minutes");
      return;
    }
    volcanoSeconds += secondsSince(start);
    state.PauseTiming();
    world.reset();
    // The default scheduler, the same pods without groups, on a cluster of its own.
    auto plain = std::make_unique<World>(nodes, false);
    const auto plainStart = std::chrono::steady_clock::now();
    for (int p = 0; p < groups * kMembers; ++p) {
      (void)plain->server->create(kPods, "default", memberPod("p" + std::to_string(p), ""));
    }
    if (!runUntil(*plain, [&] { return plain->boundPods() == groups * kMembers; })) {
      state.SkipWithError("the default scheduler did not bind every pod in 10 virtual minutes");
      return;
    }
    defaultSeconds += secondsSince(plainStart);
    plain.reset();
    state.ResumeTiming();
  }
  const double iterations = static_cast<double>(state.iterations());
  const double pods = iterations * groups * kMembers;
  state.counters["per_group_us"] = volcanoSeconds * 1e6 / (iterations * groups);
  state.counters["volcano_us_per_pod"] = volcanoSeconds * 1e6 / pods;
  state.counters["default_us_per_pod"] = defaultSeconds * 1e6 / pods;
  state.counters["volcano_over_default"] = volcanoSeconds / defaultSeconds;
}
BENCHMARK(BM_GangScheduling)->Arg(100)->Arg(1000)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gang
}  // namespace fakekube::bench
