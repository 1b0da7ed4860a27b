// The simulated cluster end to end: 1,000 pods from create to Ready on 50 nodes.
//
// BM_ThousandPodsReady/deployment: one Deployment of 1,000 replicas (Deployment controller ->
// ReplicaSet -> ReplicaSet controller's slow-start batches -> scheduler -> kubelet).
// BM_ThousandPodsReady/pods: 1,000 bare pods created one after another (scheduler -> kubelet).
//
// Every iteration builds a fresh in-memory server and a Cluster of 50 nodes with every part
// running (untimed), then times creating the workload and running the SimExecutor until the last
// pod is Ready, as seen by a pod watch drained after every task. Virtual time never sleeps: the
// kubelet's 1 s of ContainerCreating costs nothing, so the wall time is the work itself. Events
// are not recorded (ClusterOptions: scheduler, replicaSet, deployment recordEvents = false).
//
// Reports items_per_second = pods/s of wall time, `virtual_s` = the virtual seconds from the
// first create to the last Ready, and `x_kwok` = pods/s over kwok's default pod-readiness rate
// of 20 pods/s.
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/cluster/cluster.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube::bench {
namespace {

constexpr int kPodCount = 1000;
constexpr int kNodeCount = 50;
constexpr double kKwokPodsPerSecond = 20;

enum class Workload { Deployment, Pods };

Json podSpec() {
  return {{"containers",
           Json::array({{{"name", "web"},
                         {"image", "nginx:1.27"},
                         {"resources", {{"requests", {{"cpu", "100m"}, {"memory", "128Mi"}}}}}}})}};
}

Json deployment() {
  Json labels = {{"app", "web"}};
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", "web"}}},
          {"spec",
           {{"replicas", kPodCount},
            {"selector", {{"matchLabels", labels}}},
            {"template", {{"metadata", {{"labels", labels}}}, {"spec", podSpec()}}}}}};
}

Json barePod(int i) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", "web-" + std::to_string(i)}, {"labels", {{"app", "web"}}}}},
          {"spec", podSpec()}};
}

// A server and a started cluster of kNodeCount nodes, with a pod watch from the current revision.
struct World {
  SimExecutor executor{SimExecutor::Options{.seed = 1}};
  std::unique_ptr<ApiServer> server;
  std::unique_ptr<Cluster> cluster;
  std::shared_ptr<Watch> pods;
  std::unordered_set<std::string> ready;

  World() {
    ApiServerOptions serverOptions;
    serverOptions.seed = 1;
    server = std::move(*ApiServer::open(executor.clock(), serverOptions));
    ClusterOptions options;
    options.nodes = kNodeCount;
    options.scheduler.recordEvents = false;
    options.replicaSet.recordEvents = false;
    options.deployment.recordEvents = false;
    options.job.recordEvents = false;
    cluster = std::make_unique<Cluster>(executor, *server, options);
    if (!cluster->start()) throw std::runtime_error("the cluster did not start");
    // The controllers run once the manager's caches synced (a millisecond in).
    if (!executor.runUntil([&] { return cluster->manager().running(); }, std::chrono::seconds(1))) {
      throw std::runtime_error("the cluster's controllers did not start");
    }
    WatchOptions fromNow;
    fromNow.resourceVersion = std::to_string(server->revision());
    pods = *server->watch(kPods, "default", fromNow);
  }
  ~World() {
    pods->stop();
    cluster.reset();
  }

  // Takes the pod events; answers whether every pod is Ready.
  bool allReady() {
    while (auto event = pods->tryNext()) {
      const std::string name = meta::name(*event->object);
      if (event->type != WatchEventType::Deleted && isPodReady(*event->object)) {
        ready.insert(name);
      } else {
        ready.erase(name);
      }
    }
    return ready.size() == kPodCount;
  }
};

void BM_ThousandPodsReady(benchmark::State& state, Workload workload) {
  double virtualSeconds = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto world = std::make_unique<World>();
    const TimePoint start = world->executor.now();
    state.ResumeTiming();

    if (workload == Workload::Deployment) {
      if (!world->server->create(kDeployments, "default", deployment())) {
        state.SkipWithError("create Deployment failed");
        break;
      }
    } else {
      bool created = true;
      for (int i = 0; i < kPodCount && created; ++i) {
        created = world->server->create(kPods, "default", barePod(i)).has_value();
      }
      if (!created) {
        state.SkipWithError("create Pod failed");
        break;
      }
    }
    if (!world->executor.runUntil([&] { return world->allReady(); }, std::chrono::minutes(10))) {
      state.SkipWithError("not every pod became Ready in 10 virtual minutes");
      break;
    }

    state.PauseTiming();
    virtualSeconds += std::chrono::duration<double>(world->executor.now() - start).count();
    world.reset();
    state.ResumeTiming();
  }
  const double pods = static_cast<double>(state.iterations()) * kPodCount;
  state.SetItemsProcessed(static_cast<std::int64_t>(pods));
  state.counters["virtual_s"] =
      benchmark::Counter(virtualSeconds, benchmark::Counter::kAvgIterations);
  state.counters["x_kwok"] =
      benchmark::Counter(pods / kKwokPodsPerSecond, benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_ThousandPodsReady, deployment, Workload::Deployment)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ThousandPodsReady, pods, Workload::Pods)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fakekube::bench
