#include "fakekube/runtime/manager.h"

#include <chrono>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "fakekube/api/resource_registry.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/runtime/internal/core_event_recorder.h"
#include "fakekube/runtime/internal/events_v1_recorder.h"
#include "fakekube/runtime/workqueue_metrics.h"

namespace fakekube {

namespace {
// How often start() re-checks "caches synced": first at once (an informer's initial list is a
// task posted just before), then, if an informer is still retrying its list, every millisecond.
constexpr int kImmediateSyncChecks = 8;
constexpr Duration kSyncPollInterval = std::chrono::milliseconds(1);

// controller-runtime's controller_runtime_* metrics of one controller.
void exportControllerMetrics(MetricsRegistry& registry, const std::string& controller,
                             const ReconcileMetrics& m) {
  auto total =
      registry.counter("controller_runtime_reconcile_total",
                       "Total number of reconciliations per controller", {"controller", "result"});
  total.withLabels({controller, "success"}).setTotal(static_cast<double>(m.success));
  total.withLabels({controller, "error"}).setTotal(static_cast<double>(m.error));
  total.withLabels({controller, "requeue"}).setTotal(static_cast<double>(m.requeue));
  total.withLabels({controller, "requeue_after"}).setTotal(static_cast<double>(m.requeueAfter));
  registry
      .counter("controller_runtime_reconcile_errors_total",
               "Total number of reconciliation errors per controller", {"controller"})
      .withLabels({controller})
      .setTotal(static_cast<double>(m.errors));
  registry
      .counter("controller_runtime_terminal_reconcile_errors_total",
               "Total number of terminal reconciliation errors per controller", {"controller"})
      .withLabels({controller})
      .setTotal(static_cast<double>(m.terminalErrors));
  registry
      .counter("controller_runtime_reconcile_panics_total",
               "Total number of reconciliation panics per controller", {"controller"})
      .withLabels({controller})
      .setTotal(static_cast<double>(m.panics));
  registry
      .histogram("controller_runtime_reconcile_time_seconds",
                 "Length of time per reconciliation per controller",
                 ReconcileMetrics::reconcileTimeBounds(), {"controller"})
      .withLabels({controller})
      .load(m.reconcileTime);
  registry
      .gauge("controller_runtime_active_workers", "Number of currently used workers per controller",
             {"controller"})
      .withLabels({controller})
      .set(static_cast<double>(m.activeWorkers));
  registry
      .gauge("controller_runtime_max_concurrent_reconciles",
             "Maximum number of concurrent reconciles per controller", {"controller"})
      .withLabels({controller})
      .set(static_cast<double>(m.maxConcurrentReconciles));
}
}  // namespace

// Everything the manager keeps in memory; crash() drops it in one go. Members are destroyed in
// reverse order: controllers (and their queues) first, then the client and cache they use.
struct Manager::Runtime {
  Runtime(Executor& ex, std::unique_ptr<InProcessClient> own, Client& c, CacheOptions cacheOptions)
      : executor(ex),
        ownClient(std::move(own)),
        client(c),
        cache(std::make_unique<Cache>(client, executor, std::move(cacheOptions))),
        cachedClient(std::make_unique<CachedClient>(*cache, client)) {}

  Executor& executor;
  std::unique_ptr<InProcessClient> ownClient;
  Client& client;
  std::unique_ptr<Cache> cache;
  std::unique_ptr<CachedClient> cachedClient;
  // Destroyed before the client it writes through; its destructor does not release the lease,
  // as a killed process would not.
  std::unique_ptr<LeaderElector> elector;
  std::map<std::string, std::unique_ptr<EventRecorder>> recorders;
  std::map<std::string, std::unique_ptr<EventRecorder>> eventsV1Recorders;
  std::string hostname;
  MetricsRegistry metrics;

  mutable std::mutex mu;
  bool started = false;
  bool running = false;
  bool stopped = false;
  bool leading = false;  // meaningful only with an elector
  std::vector<std::unique_ptr<Controller>> controllers;
  ReconcileObserver reconcileObserver;
};

Manager::Manager(Executor& executor, ApiServer& server, ManagerOptions options)
    : executor_(executor), server_(&server) {
  auto own = std::make_unique<InProcessClient>(server);
  Client& client = *own;
  runtime_ = std::make_shared<Runtime>(executor, std::move(own), client, std::move(options.cache));
  runtime_->reconcileObserver = std::move(options.reconcileObserver);
  runtime_->hostname = std::move(options.hostname);
  setUpLeaderElection(std::move(options.leaderElection));
}

Manager::Manager(Executor& executor, Client& client, ManagerOptions options) : executor_(executor) {
  if (auto* inProcess = dynamic_cast<InProcessClient*>(&client)) server_ = &inProcess->server();
  runtime_ = std::make_shared<Runtime>(executor, nullptr, client, std::move(options.cache));
  runtime_->reconcileObserver = std::move(options.reconcileObserver);
  runtime_->hostname = std::move(options.hostname);
  setUpLeaderElection(std::move(options.leaderElection));
}

void Manager::setUpLeaderElection(std::optional<LeaderElectionConfig> config) {
  if (!config) return;
  std::weak_ptr<Runtime> weak = runtime_;
  auto started = std::move(config->onStartedLeading);
  auto stoppedLeading = std::move(config->onStoppedLeading);
  config->onStartedLeading = [weak, started] {
    if (auto rt = weak.lock()) {
      {
        std::lock_guard lock(rt->mu);
        rt->leading = true;
      }
      scheduleSyncCheck(rt, 0);
    }
    if (started) started();
  };
  config->onStoppedLeading = [weak, stoppedLeading] {
    // controller-runtime exits the process when it loses the lease: another replica may already
    // be reconciling. Stop every controller; this manager does not stand again.
    if (auto rt = weak.lock()) {
      std::vector<Controller*> controllers;
      {
        std::lock_guard lock(rt->mu);
        rt->leading = false;
        rt->running = false;
        rt->stopped = true;
        for (const auto& c : rt->controllers) controllers.push_back(c.get());
      }
      for (Controller* c : controllers) c->shutDown();
    }
    if (stoppedLeading) stoppedLeading();
  };
  runtime_->elector =
      std::make_unique<LeaderElector>(runtime_->client, executor_, std::move(*config));
}

Manager::~Manager() { crash(); }

namespace {
[[noreturn]] void deadManager() { throw std::logic_error("fakekube::Manager used after crash()"); }
}  // namespace

CachedClient& Manager::client() const {
  if (!runtime_) deadManager();
  return *runtime_->cachedClient;
}

Reader& Manager::apiReader() const {
  if (!runtime_) deadManager();
  return runtime_->client;
}

Cache& Manager::cache() const {
  if (!runtime_) deadManager();
  return *runtime_->cache;
}

std::optional<Manager::KindInfo> Manager::kindFor(const GroupVersionResource& gvr) const {
  if (!server_) return std::nullopt;
  auto info = server_->registry().find(gvr.group, gvr.resource);
  if (!info) return std::nullopt;
  return KindInfo{info->kind, info->namespaced};
}

Controller& Manager::add(std::unique_ptr<Controller> controller) {
  if (!runtime_) deadManager();
  Controller& added = *controller;
  if (runtime_->reconcileObserver.onBegin || runtime_->reconcileObserver.onEnd) {
    added.setReconcileObserver(runtime_->reconcileObserver);
  }
  bool started;
  {
    std::lock_guard lock(runtime_->mu);
    runtime_->controllers.push_back(std::move(controller));
    started = runtime_->started && !runtime_->stopped;
    if (started) runtime_->running = false;
    if (runtime_->elector && !runtime_->leading) started = false;
  }
  // Its informers may be new: wait for them to sync too.
  if (started) scheduleSyncCheck(runtime_, 0);
  return added;
}

std::size_t Manager::numControllers() const {
  if (!runtime_) return 0;
  std::lock_guard lock(runtime_->mu);
  return runtime_->controllers.size();
}

bool Manager::idle() const {
  std::shared_ptr<Runtime> runtime = runtime_;
  if (!runtime) return true;
  std::vector<Controller*> controllers;
  {
    std::lock_guard lock(runtime->mu);
    for (const auto& c : runtime->controllers) controllers.push_back(c.get());
  }
  // Outside the manager's lock: each queue takes its own. The controllers live as long as
  // `runtime`, which this call holds.
  for (Controller* c : controllers) {
    PriorityQueue& queue = c->queue();
    if (queue.shuttingDown()) continue;  // what it still holds is never handed out
    if (queue.len() > 0 || queue.numProcessing() > 0) return false;
  }
  // Events still on their way to the handlers are work the controllers have not seen yet.
  return !runtime->cache->hasPendingEvents();
}

void Manager::start() {
  if (!runtime_) deadManager();
  {
    std::lock_guard lock(runtime_->mu);
    if (runtime_->started || runtime_->stopped) return;
    runtime_->started = true;
  }
  runtime_->cache->start();
  if (runtime_->elector) runtime_->elector->start();  // workers wait for the lease too
  scheduleSyncCheck(runtime_, 0);
}

void Manager::scheduleSyncCheck(const std::shared_ptr<Runtime>& runtime, int attempt) {
  std::weak_ptr<Runtime> weak = runtime;
  Task check = [weak, attempt] {
    auto rt = weak.lock();
    if (!rt) return;
    {
      std::lock_guard lock(rt->mu);
      if (rt->stopped || rt->running) return;
      // Not leading: onStartedLeading schedules the check again.
      if (rt->elector && !rt->leading) return;
    }
    if (!rt->cache->synced()) {
      scheduleSyncCheck(rt, attempt + 1);
      return;
    }
    std::vector<Controller*> toStart;
    {
      std::lock_guard lock(rt->mu);
      if (rt->stopped || rt->running) return;
      rt->running = true;
      for (const auto& c : rt->controllers) toStart.push_back(c.get());
    }
    for (Controller* c : toStart) c->start();
  };
  if (attempt < kImmediateSyncChecks) {
    runtime->executor.post(std::move(check));
  } else {
    runtime->executor.postAfter(kSyncPollInterval, std::move(check));
  }
}

bool Manager::running() const {
  if (!runtime_) return false;
  std::lock_guard lock(runtime_->mu);
  return runtime_->running;
}

void Manager::stop() {
  if (!runtime_) return;
  std::vector<Controller*> controllers;
  {
    std::lock_guard lock(runtime_->mu);
    if (runtime_->stopped) return;
    runtime_->stopped = true;
    runtime_->running = false;
    for (const auto& c : runtime_->controllers) controllers.push_back(c.get());
  }
  for (Controller* c : controllers) c->shutDown();
  runtime_->cache->stop();
  // A clean stop hands the lease over at once (ReleaseOnCancel).
  if (runtime_->elector) runtime_->elector->stop();
}

bool Manager::isLeader() const {
  if (!runtime_) return false;
  if (!runtime_->elector) return true;
  std::lock_guard lock(runtime_->mu);
  return runtime_->leading;
}

EventRecorder& Manager::eventRecorder(const std::string& component) {
  if (!runtime_) deadManager();
  std::lock_guard lock(runtime_->mu);
  auto& recorder = runtime_->recorders[component];
  if (!recorder) {
    recorder = std::make_unique<CoreEventRecorder>(runtime_->client, executor_.clock(), component);
  }
  return *recorder;
}

EventRecorder& Manager::eventsV1Recorder(const std::string& component) {
  if (!runtime_) deadManager();
  std::lock_guard lock(runtime_->mu);
  auto& recorder = runtime_->eventsV1Recorders[component];
  if (!recorder) {
    recorder = std::make_unique<EventsV1Recorder>(runtime_->client, executor_.clock(), component,
                                                  runtime_->hostname);
  }
  return *recorder;
}

std::string Manager::renderMetrics() {
  if (!runtime_) deadManager();
  std::vector<Controller*> controllers;
  {
    std::lock_guard lock(runtime_->mu);
    for (const auto& c : runtime_->controllers) controllers.push_back(c.get());
  }
  for (Controller* c : controllers) {
    exportWorkQueueMetrics(runtime_->metrics, c->name(), c->queue().metrics());
    exportControllerMetrics(runtime_->metrics, c->name(), c->metrics());
  }
  return runtime_->metrics.renderPrometheusText();
}

void Manager::crash() {
  // Move it out first, so that nothing reached from the destructors sees a half-dead manager.
  std::shared_ptr<Runtime> dying = std::move(runtime_);
  dying.reset();
}

}  // namespace fakekube
