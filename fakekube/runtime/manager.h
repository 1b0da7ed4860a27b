// Manager: runs a set of controllers over one shared cache and client (controller-runtime's
// manager.Manager).
//
// What it gives its controllers:
//   client()      reads from the shared Cache, writes to the API server (a CachedClient)
//   apiReader()   reads straight from the server (the answer to a 409; an expectation check)
//   cache()       the informers every controller registers its handlers on
//
// Lifecycle.
//   start()  starts the cache's informers, then, from executor tasks, waits until every informer
//            has synced and only then starts the controllers' workers: a controller never
//            reconciles against a cache that has not listed yet. Events that arrive meanwhile
//            wait in the queues. A controller added after start() starts the same way.
//   stop()   the orderly end: queues shut down (idle workers end, a reconcile in flight
//            finishes, nothing new starts), then the informers stop. The manager keeps its
//            state, for inspection.
//   crash()  the process dies: everything in memory — queues and their pending keys, rate
//            limiter records, the cache, the controllers and whatever their reconcilers keep —
//            is dropped at once. Tasks already posted to the executor find it gone and do
//            nothing; so does the done callback of an asynchronous reconcile in flight. The API
//            server is untouched, so a restart test builds a fresh Manager over the same server
//            and lets it finish the work.
// Destroying a manager is a crash(): it leaves no executor task that touches freed memory.
//
// After crash() the manager is dead: client(), cache() and the controllers it owns must not be
// used again (references into it dangle). On a ThreadPoolExecutor, crash() must not race
// a reconcile running on another thread that uses client() (controllers are safe: a running
// reconcile keeps its own controller alive).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fakekube/api/group_version.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/cache/cache.h"
#include "fakekube/cache/cached_client.h"
#include "fakekube/client/client.h"
#include "fakekube/metrics/metrics_registry.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/event_recorder.h"
#include "fakekube/runtime/leader_election.h"
#include "fakekube/sim/executor.h"

namespace fakekube {

struct ManagerOptions {
  // Options of the shared cache (per-resource restrictions, delivery delay).
  CacheOptions cache;
  // With leader election, controllers run only while this manager holds the Lease (replicas
  // sharing it add no concurrency). Losing the lease stops the controllers, as controller-runtime
  // exits the process; a new manager must be started to stand again. The callbacks of the
  // config are chained after the manager's own.
  std::optional<LeaderElectionConfig> leaderElection;
  // Installed on every controller added to the manager (see ReconcileObserver): how a test
  // fixture attributes requests to reconciles.
  ReconcileObserver reconcileObserver;
  // The host the manager runs on (os.Hostname() in a real process, the pod's name in a
  // cluster), which the events.k8s.io/v1 recorders name their reportingInstance after.
  std::string hostname = "fakekube";
};

class Manager {
 public:
  // Over an API server in the same process: the manager makes its own InProcessClient and can
  // tell the kind of any resource the server serves (kindFor). `executor` and `server` must
  // outlive the manager.
  Manager(Executor& executor, ApiServer& server, ManagerOptions options = {});
  // Over any client (the one writes go through and the cache lists and watches through).
  // kindFor() then knows kinds only if `client` is an InProcessClient.
  Manager(Executor& executor, Client& client, ManagerOptions options = {});
  // crash().
  ~Manager();
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  Executor& executor() const { return executor_; }
  // Reads from the cache, writes to the server.
  CachedClient& client() const;
  // Reads from the server.
  Reader& apiReader() const;
  Cache& cache() const;

  // The kind and scope of `gvr` as the API server serves it ("Pod", namespaced), if known.
  struct KindInfo {
    std::string kind;
    bool namespaced = true;
  };
  std::optional<KindInfo> kindFor(const GroupVersionResource& gvr) const;

  // Takes part in the manager's lifecycle: started once the caches sync (at once if they
  // already have), shut down by stop(), dropped by crash().
  // The manager owns the controller; the reference is valid until crash() or destruction.
  Controller& add(std::unique_ptr<Controller> controller);
  std::size_t numControllers() const;
  // No controller has work now: nothing ready in any queue, no reconcile running, no watch event
  // on its way to the cache's informers (Cache::hasPendingEvents, delivery lag included). Items
  // waiting for their time (a requeueAfter, a rate-limited retry) are later work and do not
  // count. A crashed manager is idle, and so is a controller that was shut down.
  bool idle() const;

  void start();
  // True once the caches synced and the controllers' workers were started.
  bool running() const;
  // Without leader election: true. With it: whether this manager holds the lease now.
  bool isLeader() const;

  // A recorder of core/v1 Events for `component` (controller-runtime's GetEventRecorderFor),
  // writing through the uncached client. Valid until crash().
  EventRecorder& eventRecorder(const std::string& component);
  // A recorder of events.k8s.io/v1 Events for `component` (controller-runtime's
  // GetEventRecorder), its reportingInstance "<component>-<options.hostname>", writing through
  // the uncached client. Valid until crash().
  EventRecorder& eventsV1Recorder(const std::string& component);
  // Every controller's queue and reconcile metrics, refreshed now, in Prometheus text format.
  std::string renderMetrics();
  void stop();
  void crash();
  bool crashed() const { return !runtime_; }

 private:
  struct Runtime;
  // Posts the next check for "caches synced", which starts the workers when true.
  static void scheduleSyncCheck(const std::shared_ptr<Runtime>& runtime, int attempt);
  void setUpLeaderElection(std::optional<LeaderElectionConfig> config);

  Executor& executor_;
  ApiServer* server_ = nullptr;
  std::shared_ptr<Runtime> runtime_;
};

}  // namespace fakekube
