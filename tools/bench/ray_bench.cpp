// The KubeRay operator at scale: N RayClusters of one head and two workers each, from create to
// every cluster's status.state == ready, on a simulated cluster with enough nodes.
//
// BM_RayClustersReady/{100,1000,10000}: every iteration builds a fresh in-memory server, a Cluster
// with every part running and the operator (RayCluster controller, --reconcile-concurrency 2, on
// a manager of its own) — untimed — then times creating the N RayClusters and running the
// SimExecutor until a RayCluster watch has seen all N ready. Every 1,000 creates the work due
// by then runs (as the informers keep up with a real client's stream of creates). Virtual time
// never sleeps, so the wall time is the work: the operator's reconciles, the scheduler, the
// kubelets (3N pods) and every watch. The containers run the registry's defaults (the workers'
// wait-gcs-ready init containers exit 0 after 1 s, the Ray containers run forever), not the Ray
// simulation. The operator's cache catches up on read (InformerOptions::catchUpOnRead): a round
// that created the head Service finds it when calculateStatus looks, as a real informer has
// usually received it by then. Without that, every first round fails "unable to find head
// service" and its rate-limited retry draws on the queue's 10 qps bucket, which at 10,000 clusters
// stretches the run to 1,000 virtual seconds of 300 s requeues (docs/ray-operator.md).
//
// BM_RayClustersReadyWarm/{100,1000,10000}: the same after an untimed run of the same size.
//
// BM_RayClustersReadySeeds/{100,1000}/{1..5}: the same with other seeds (see its comment below).
//
// BM_RayServicesReady/{100,1000}: the same world with the RayService controller and the Ray
// simulation: N RayServices from create to Ready (see its comment below).
//
// BM_RayJobsComplete/100: the same world with the RayJob controller too and the Ray simulation
// (heads with the Jobs API, the submitter's script): N RayJobs (entrypoint `sleep 10`, one head
// and two workers each, shutdownAfterJobFinishes) from create to every RayJob Complete; reports
// us_per_job and virtual_s.
//
// Reports us_per_cluster (wall), virtual_s (virtual seconds from the first create to the last
// ready), writes_per_cluster (how far the server's revision moved, over N: every create, update
// and delete of the run), relists (the lists the operator's RayCluster, Pod and Service informers
// and the cluster's Pod informer made during the run: each is a watch that fell too far behind),
// rounds_per_cluster (the RayCluster controller's reconciles, over N: its unconditional 300 s
// requeue adds rounds the longer the run lasts in virtual time) and rss_kib_per_cluster: the growth
// of the process's peak resident memory (VmHWM in /proc/self/status) during the iteration, over N;
// the peak is reset before each iteration through /proc/self/clear_refs. Run one size per process
// for it to mean what it says (memory freed by an earlier size is reused by the next without
// raising the peak).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/httpproxy_client.h"
#include "controllers/ray/internal/rayservice_types.h"
#include "controllers/ray/ray_operator.h"
#include "controllers/ray/sim/ray_simulation.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/cluster/cluster.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube::bench {
namespace {

// Each node holds 100 pods (the kubelet's limit is 110 pods). A RayCluster's head asks for 50m
// CPU / 64Mi; each worker for 200m / 256Mi, the requests of the wait-gcs-ready init container
// KubeRay injects, which exceed the worker's own. So that 100 pods fit whatever their mix, a
// RayCluster node has 32 CPUs and 64Gi.
constexpr int kPodsPerNode = 100;

// How many RayClusters are created before the work due meanwhile runs (see BM_RayClustersReady).
constexpr int kCreateBatch = 1000;

Json podTemplate(const std::string& container) {
  return {
      {"spec",
       {{"containers",
         Json::array({{{"name", container},
                       {"image", "rayproject/ray:2.52.0"},
                       {"resources", {{"requests", {{"cpu", "50m"}, {"memory", "64Mi"}}}}}}})}}}};
}

Json rayCluster(int i) {
  Json head = podTemplate("ray-head");
  head["spec"]["containers"][0]["ports"] =
      Json::array({{{"containerPort", 6379}, {"name", "gcs-server"}},
                   {{"containerPort", 8265}, {"name", "dashboard"}},
                   {{"containerPort", 10001}, {"name", "client"}}});
  return {{"apiVersion", "ray.io/v1"},
          {"kind", "RayCluster"},
          {"metadata", {{"name", "cluster-" + std::to_string(i)}, {"namespace", "default"}}},
          {"spec",
           {{"rayVersion", "2.52.0"},
            {"headGroupSpec", {{"rayStartParams", Json::object()}, {"template", head}}},
            {"workerGroupSpecs", Json::array({{{"groupName", "workers"},
                                               {"replicas", 2},
                                               {"minReplicas", 2},
                                               {"maxReplicas", 2},
                                               {"rayStartParams", Json::object()},
                                               {"template", podTemplate("ray-worker")}}})}}}};
}

// A RayService of one application (one deployment) on a cluster of a head and one worker of the
// same requests as a RayCluster's head above, in the shape of KubeRay's RayService samples.
Json rayService(int i) {
  Json worker = {{"groupName", "workers"},
                 {"replicas", 1},
                 {"minReplicas", 1},
                 {"maxReplicas", 1},
                 {"rayStartParams", Json::object()},
                 {"template", podTemplate("ray-worker")}};
  return {{"apiVersion", "ray.io/v1"},
          {"kind", "RayService"},
          {"metadata", {{"name", "service-" + std::to_string(i)}, {"namespace", "default"}}},
          {"spec",
           {{"serveConfigV2",
             "applications:\n"
             "- name: app\n"
             "  import_path: fruit.deployment_graph\n"
             "  route_prefix: /fruit\n"
             "  deployments:\n"
             "  - name: MangoStand\n"
             "    num_replicas: 1\n"},
            {"rayClusterConfig",
             {{"rayVersion", "2.52.0"},
              {"headGroupSpec",
               {{"rayStartParams", Json::object()}, {"template", podTemplate("ray-head")}}},
              {"workerGroupSpecs", Json::array({worker})}}}}}};
}

long peakRssKib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

void resetPeakRss() { std::ofstream("/proc/self/clear_refs") << "5"; }

// What a World runs: the RayCluster controller alone, or with the RayJob or the RayService one.
enum class RayWorkload { Clusters, Jobs, Services };

struct World {
  SimExecutor executor;
  const RayWorkload workload;
  std::unique_ptr<ApiServer> server;
  std::unique_ptr<Cluster> cluster;
  std::unique_ptr<Manager> rayOperator;
  std::shared_ptr<Watch> clusters;
  std::unordered_set<std::string> ready;

  // `seed` seeds the executor's order of same-instant tasks, the server's names and uids and the
  // operator's random suffixes.
  explicit World(int rayClusters, RayWorkload workload = RayWorkload::Clusters,
                 std::uint64_t seed = 1)
      : executor(SimExecutor::Options{.seed = seed}), workload(workload) {
    const bool rayJobs = workload == RayWorkload::Jobs;
    ApiServerOptions serverOptions;
    serverOptions.seed = seed;
    server = std::move(*ApiServer::open(executor.clock(), serverOptions));
    ClusterOptions options;
    // A RayJob adds its submitter pod; a RayService's cluster has one worker.
    const int podsPer = rayJobs ? 4 : workload == RayWorkload::Services ? 2 : 3;
    options.nodes = (rayClusters * podsPer + kPodsPerNode - 1) / kPodsPerNode;
    // The submitter asks for KubeRay's 500m CPU: 650m a RayJob, on nodes of 8 CPUs.
    if (rayJobs) options.nodes = std::max(options.nodes, (rayClusters * 650 + 7999) / 8000);
    if (!rayJobs) {
      options.node.cpu = "32";
      options.node.memory = "64Gi";
    }
    options.scheduler.recordEvents = false;
    options.replicaSet.recordEvents = false;
    options.deployment.recordEvents = false;
    options.job.recordEvents = false;
    cluster = std::make_unique<Cluster>(executor, *server, options);
    if (workload != RayWorkload::Clusters) ray::addRayBehaviors(cluster->behaviors());
    if (!cluster->start()) throw std::runtime_error("the cluster did not start");
    ManagerOptions managerOptions;
    managerOptions.cache.defaults.catchUpOnRead = true;
    rayOperator = std::make_unique<Manager>(executor, *server, managerOptions);
    ray::OperatorOptions operatorOptions;
    operatorOptions.reconcileConcurrency = 2;
    operatorOptions.randomSeed = seed;
    std::set<std::string> controllers = {"raycluster"};
    if (rayJobs) controllers.insert("rayjob");
    if (workload == RayWorkload::Services) {
      controllers.insert("rayservice");
      operatorOptions.httpProxyClients = ray::inProcessHttpProxyClients(cluster->network());
    }
    if (!ray::addRayOperator(*rayOperator, controllers, operatorOptions,
                             ray::inProcessDashboardClients(cluster->network()))) {
      throw std::runtime_error("the operator did not start");
    }
    rayOperator->start();
    if (!executor.runUntil([&] { return cluster->manager().running() && rayOperator->running(); },
                           std::chrono::seconds(1))) {
      throw std::runtime_error("the controllers did not start");
    }
    WatchOptions fromNow;
    fromNow.resourceVersion = std::to_string(server->revision());
    clusters = *server->watch(workload == RayWorkload::Jobs       ? ray::kRayJobs
                              : workload == RayWorkload::Services ? ray::kRayServices
                                                                  : ray::kRayClusters,
                              "default", fromNow);
  }
  ~World() {
    clusters->stop();
    rayOperator.reset();
    cluster.reset();
  }

  // How many lists the informers the run leans on have made: the operator's RayClusters, Pods
  // and Services, the cluster's Pods. A relist (a watch fallen too far behind, ended with 410)
  // costs a list of the whole resource; the benchmark reports how many happened.
  std::uint64_t informerLists() {
    std::uint64_t lists = 0;
    for (const auto* gvr : {&ray::kRayClusters, &kPods, &kServices}) {
      lists += rayOperator->cache().informerFor(*gvr).listCount();
    }
    return lists + cluster->manager().cache().informerFor(kPods).listCount();
  }

  // The finished reconciles so far (controller_runtime_reconcile_total of every result) of the
  // controller of the workload's kind (raycluster, rayservice), read from the operator's metrics.
  double rounds() {
    double rounds = 0;
    std::istringstream text(rayOperator->renderMetrics());
    const std::string prefix =
        fmt::format("controller_runtime_reconcile_total{{controller=\"{}\"",
                    workload == RayWorkload::Services ? "rayservice" : "raycluster");
    for (std::string line; std::getline(text, line);) {
      if (line.rfind(prefix, 0) == 0) rounds += std::stod(line.substr(line.rfind(' ') + 1));
    }
    return rounds;
  }

  bool allReady(std::size_t want) {
    while (auto event = clusters->tryNext()) {
      const std::string name = meta::name(*event->object);
      const Json& state = jsonAt(*event->object, {"status", "state"});
      const Json& deployment = jsonAt(*event->object, {"status", "jobDeploymentStatus"});
      const bool done = (state.is_string() && state == "ready") ||
                        (deployment.is_string() && deployment == "Complete") ||
                        ray::isRayServiceConditionTrue(*event->object, ray::kRayServiceReady);
      if (event->type != WatchEventType::Deleted && done) {
        ready.insert(name);
      } else {
        ready.erase(name);
      }
    }
    return ready.size() == want;
  }
};

// Creates `count` RayClusters (RayServices) in `world` and runs its executor until every one is
// ready (Ready) or 30 virtual minutes pass: the timed part of the benchmarks below. False if a
// create failed or not every one became ready.
bool createAndRunUntilReady(World& world, int count) {
  const bool services = world.workload == RayWorkload::Services;
  for (int i = 0; i < count; ++i) {
    if (!world.server
             ->create(services ? ray::kRayServices : ray::kRayClusters, "default",
                      services ? rayService(i) : rayCluster(i))
             .has_value()) {
      return false;
    }
    // A client's creates take time, during which the informers keep up. Issued here with no
    // executor turn in between, 10,000 of them would put every RayCluster watcher more than
    // the server's watch backlog (10,000 events) behind, and each would relist: a cost of the
    // benchmark's loop, not of the work. So the work due meanwhile runs every kCreateBatch
    // creates, at the same virtual instant (the bench's own watch is drained too).
    if ((i + 1) % kCreateBatch == 0 && i + 1 < count) {
      world.executor.runUntilIdle();
      (void)world.allReady(count);
    }
  }
  return world.executor.runUntil([&] { return world.allReady(count); }, std::chrono::minutes(30));
}

// `warm`: first an untimed run of the same size in the same process (BM_RayClustersReadyWarm).
// The counters are named per `unit` (us_per_cluster, writes_per_service, ...).
void runRayWorkloadReady(benchmark::State& state, RayWorkload workload, int count,
                         std::uint64_t seed, bool warm = false) {
  const std::string unit = workload == RayWorkload::Services ? "service" : "cluster";
  if (warm) {
    auto throwaway = std::make_unique<World>(count, workload, seed);
    if (!createAndRunUntilReady(*throwaway, count)) {
      state.SkipWithError("the warm-up run did not reach ready");
      return;
    }
  }
  double virtualSeconds = 0;
  double rssKib = 0;
  double writes = 0;
  double relists = 0;
  double rounds = 0;
  for (auto _ : state) {
    state.PauseTiming();
    resetPeakRss();
    const long rssBefore = peakRssKib();
    auto world = std::make_unique<World>(count, workload, seed);
    const TimePoint start = world->executor.now();
    const auto revisionBefore = world->server->revision();
    const auto listsBefore = world->informerLists();
    const double roundsBefore = world->rounds();
    state.ResumeTiming();

    if (!createAndRunUntilReady(*world, count)) {
      state.SkipWithError("a create failed, or not every one became ready in 30 virtual minutes");
      break;
    }

    state.PauseTiming();
    virtualSeconds += std::chrono::duration<double>(world->executor.now() - start).count();
    rssKib += static_cast<double>(peakRssKib() - rssBefore);
    writes += static_cast<double>(world->server->revision() - revisionBefore);
    relists += static_cast<double>(world->informerLists() - listsBefore);
    rounds += world->rounds() - roundsBefore;
    world.reset();
    state.ResumeTiming();
  }
  const double items = static_cast<double>(state.iterations()) * count;
  state.SetItemsProcessed(static_cast<std::int64_t>(items));
  state.counters["us_per_" + unit] =
      benchmark::Counter(items * 1e-6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["virtual_s"] =
      benchmark::Counter(virtualSeconds, benchmark::Counter::kAvgIterations);
  const auto perItem = [&](double total) {
    return benchmark::Counter(total / static_cast<double>(count),
                              benchmark::Counter::kAvgIterations);
  };
  state.counters["rss_kib_per_" + unit] = perItem(rssKib);
  state.counters["writes_per_" + unit] = perItem(writes);
  state.counters["relists"] = benchmark::Counter(relists, benchmark::Counter::kAvgIterations);
  state.counters["rounds_per_" + unit] = perItem(rounds);
}
// The sizes and settings of BM_RayClustersReady and BM_RayClustersReadyWarm: one iteration each
// (a run at 10,000 takes half a minute), timed by the wall clock.
void atEachClusterCount(benchmark::internal::Benchmark* benchmark) {
  benchmark->Arg(100)->Arg(1000)->Arg(10000)->Iterations(1)->UseRealTime()->Unit(
      benchmark::kMillisecond);
}
void BM_RayClustersReady(benchmark::State& state) {
  runRayWorkloadReady(state, RayWorkload::Clusters, static_cast<int>(state.range(0)), 1);
}
BENCHMARK(BM_RayClustersReady)->Apply(atEachClusterCount);

// The same run after an untimed one of the same size in the same process: the heap already holds
// what the run needs, as in a long-lived process (`fakekube serve`, a test binary), so the kernel's
// page faults and zeroing of fresh memory are not in it. BM_RayClustersReady, each size alone in
// a process, is the cold run: it pays them (the heap grows by 460 MB at 1,000).
// rss_kib_per_cluster is then the growth beyond what the warm-up left.
void BM_RayClustersReadyWarm(benchmark::State& state) {
  runRayWorkloadReady(state, RayWorkload::Clusters, static_cast<int>(state.range(0)), 1,
                      /*warm=*/true);
}
BENCHMARK(BM_RayClustersReadyWarm)->Apply(atEachClusterCount);

// The same run with seeds 1 to 5 (BM_RayClustersReadySeeds/N/seed). The seed orders the tasks due
// at the same virtual instant, and with them how events merge in the queues: the work of a run
// (rounds_per_cluster, writes_per_cluster) differs by a fifth from one seed to another, and a
// change that adds or removes one timer anywhere draws the later tie-breaks differently, as a new
// seed would. Compare two builds over the seeds (medians), not on seed 1 alone.
void BM_RayClustersReadySeeds(benchmark::State& state) {
  runRayWorkloadReady(state, RayWorkload::Clusters, static_cast<int>(state.range(0)),
                      static_cast<std::uint64_t>(state.range(1)));
}
BENCHMARK(BM_RayClustersReadySeeds)
    ->ArgsProduct({{100, 1000}, {1, 2, 3, 4, 5}})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// BM_RayServicesReady/{100,1000}: N RayServices from create to every one's Ready condition True
// (NonZeroServeEndpoints), every controller real and the Ray simulation answering: the heads'
// dashboards take the Serve config and deploy the application (1 s to DEPLOYING, 5 s to
// RUNNING), the head's and the worker's Serve proxies turn healthy, the EndpointSlices follow the
// pods. The counters are BM_RayClustersReady's, per RayService (rounds_per_service: the RayService
// controller's reconciles, its 2 s requeue among them). Compare writes_per_service with
// BM_RayClustersReady's writes_per_cluster of the same run: the RayService's own writes (its
// finalizer, the pending cluster's name, its status) and the two Services come on top of a
// cluster of one worker fewer.
void BM_RayServicesReady(benchmark::State& state) {
  runRayWorkloadReady(state, RayWorkload::Services, static_cast<int>(state.range(0)), 1);
}
BENCHMARK(BM_RayServicesReady)
    ->Arg(100)
    ->Arg(1000)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

Json rayJob(int i) {
  Json job = {{"apiVersion", "ray.io/v1"},
              {"kind", "RayJob"},
              {"metadata", {{"name", "job-" + std::to_string(i)}, {"namespace", "default"}}},
              {"spec",
               {{"entrypoint", "sleep 10"},
                {"shutdownAfterJobFinishes", true},
                {"rayClusterSpec", rayCluster(i)["spec"]}}}};
  return job;
}

void BM_RayJobsComplete(benchmark::State& state) {
  const int count = static_cast<int>(state.range(0));
  double virtualSeconds = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto world = std::make_unique<World>(count, RayWorkload::Jobs);
    const TimePoint start = world->executor.now();
    state.ResumeTiming();

    bool created = true;
    for (int i = 0; i < count && created; ++i) {
      created = world->server->create(ray::kRayJobs, "default", rayJob(i)).has_value();
    }
    if (!created) {
      state.SkipWithError("create RayJob failed");
      break;
    }
    if (!world->executor.runUntil([&] { return world->allReady(count); },
                                  std::chrono::minutes(30))) {
      state.SkipWithError("not every RayJob completed in 30 virtual minutes");
      break;
    }

    state.PauseTiming();
    virtualSeconds += std::chrono::duration<double>(world->executor.now() - start).count();
    world.reset();
    state.ResumeTiming();
  }
  const double jobs = static_cast<double>(state.iterations()) * count;
  state.SetItemsProcessed(static_cast<std::int64_t>(jobs));
  state.counters["us_per_job"] =
      benchmark::Counter(jobs * 1e-6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["virtual_s"] =
      benchmark::Counter(virtualSeconds, benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_RayJobsComplete)
    ->Arg(100)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fakekube::bench
