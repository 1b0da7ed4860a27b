// GarbageCollector: kube-controller-manager's garbage collector, on the controller runtime.
//
// It is a client like any other: it sees the cluster only through a Client (an InProcessClient
// or a RestClient, so it runs in process and against `fakekube serve` alike). As the real
// collector's GraphBuilder does, it keeps one monitor per resource that supports list, watch and
// delete — an Informer over the Client, for every kind discovery names (built-ins, and custom
// kinds as their CustomResourceDefinitions come and go: a definition's event makes the collector
// ask discovery again and start or drop monitors) — and a graph of the objects they report and
// their ownerReferences, keyed by uid (owner uid -> dependents). Events are not monitored, as
// kube-controller-manager's default ignores them. Changes of the graph become work items (uids)
// on a runtime Controller:
//
//   an object with ownerReferences   each owner is *dangling* (GET says 404, or the live object of
//                                    that name has another uid), *waiting* (being deleted with
//                                    `foregroundDeletion`) or *solid*.
//                                    - any solid owner: patch away the dangling and waiting refs;
//                                    - else a waiting owner it blocks (blockOwnerDeletion) and the
//                                      object has dependents: delete it Foreground (its own
//                                      dependents go first);
//                                    - else a waiting owner it does not block: nothing yet; it is
//                                      collected as dangling once that owner is gone;
//                                    - else: DELETE with a uid precondition, Orphan if it carries
//                                      `orphan`, Foreground if `foregroundDeletion`, else
//                                      Background.
//   a Foreground owner               (deletionTimestamp + `foregroundDeletion`) its dependents
//                                    whose reference has blockOwnerDeletion are deleted; once none
//                                    remain the finalizer is removed, and the server removes the
//                                    owner. Non-blocking dependents are collected afterwards, as
//                                    dangling.
//   an Orphan owner                  (deletionTimestamp + `orphan`) its reference is stripped from
//                                    every dependent, then `orphan` is removed.
//
// Scope rules: a namespaced owner is looked up in the dependent's namespace (an owner elsewhere is
// absent, so the dependent is collected); a cluster-scoped owner of a namespaced dependent is fine;
// a cluster-scoped dependent that names a namespaced owner kind is never collected, and gets one
// Warning Event (reason OwnerRefInvalidNamespace). An owner whose kind discovery does not know
// (yet) parks the item until the set of kinds changes: a definition's event, or the periodic look
// at discovery (Options::discoveryResyncPeriod), which starts and drops monitors as the served
// kinds changed meanwhile.
//
// The graph may lag the server, so every verdict is checked with a GET before acting, and every
// action carries a precondition (the uid on DELETE, uid and resourceVersion on PATCH). Before an
// item is judged, every monitor delivers what its watch has queued, and until every monitor has
// listed once the item waits (`retryDelay`): an owner is never judged by a graph that has not
// seen its dependents of some kind. A 409 or a transient error requeues the item through the rate
// limiter (`retryDelay` of virtual time, doubling per further failure of the item); a 404 means
// the world already moved on, and a monitor will report what happened.
//
// The work queue is a runtime Controller named "garbage-collector-controller", on a Manager: its
// priority queue merges repeated items and never runs one twice at once, its rate limiter spaces
// retries, and its controller_runtime_* metrics are the manager's (metrics()).
//
// It is added as every part is (addGarbageCollector(manager, options), as the workload
// controllers' add*Controller): the controller is registered with the manager, which runs its
// workers once the manager's caches have synced, over the manager's client
// (manager.client().underlyingClient(): InProcessClient or RestClient); the monitors list at
// once, in addGarbageCollector (as the real collector waits for its monitors before its workers
// run). The caller holds the answer: destroying it stops the collector.
//
//   Manager manager(executor, server);
//   auto collector = addGarbageCollector(manager).value();
//   manager.start();
//
// Thread-safe: handlers and work run on the executor under an internal lock; on a
// ThreadPoolExecutor they may run on several threads. The executor and the manager must outlive
// the collector; tasks still queued after it is destroyed do nothing.
#pragma once

#include <cstddef>
#include <memory>

#include "fakekube/api/status.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/sim/clock.h"
#include "fakekube/sim/executor.h"

namespace fakekube {

class Manager;

struct GarbageCollectorOptions {
  // How long to wait before retrying an item after a conflict or a transient error (and
  // before looking again at kinds and at monitors still listing).
  Duration retryDelay = std::chrono::milliseconds(100);
  Duration maxRetryDelay = std::chrono::seconds(1000);
  // How often discovery is asked again for the served kinds, whatever the definitions'
  // events said (kube-controller-manager's collector resyncs every 30 s): a definition's event
  // can reach the collector before the server serves its kind, and on a thread pool both looks
  // it then takes may come too early. Zero: only the definitions' events make it look.
  Duration discoveryResyncPeriod = std::chrono::seconds(30);
};

class GarbageCollector;

// Adds the garbage collector to `manager` (over HTTP when its client is a RestClient) and starts
// it (start()). Fails, adding nothing, when discovery fails.
Result<std::unique_ptr<GarbageCollector>> addGarbageCollector(Manager& manager,
                                                              GarbageCollectorOptions options = {});

// What addGarbageCollector answers: the running collector.
class GarbageCollector {
 public:
  // stop(); queued tasks become no-ops.
  ~GarbageCollector();
  GarbageCollector(const GarbageCollector&) = delete;
  GarbageCollector& operator=(const GarbageCollector&) = delete;

  // Asks discovery for the served kinds, starts a monitor per kind and registers the controller
  // (see the file comment). Objects that exist already are processed like new ones (dangling
  // references left while no collector ran are collected). Idempotent; after stop() it starts
  // afresh. Fails (and starts nothing) when discovery fails.
  Result<void> start();
  // Stops the monitors and shuts the controller's queue down; the graph is dropped. start() may
  // be called again.
  void stop();

  // No work pending: every monitor has listed and has no event on its way, no kind change waits
  // to be looked at, no item is queued, being processed or waiting for a retry. Items whose owner
  // kind is not served (yet) are parked until the set of kinds changes, and do not count.
  bool idle() const;

  // The number of objects in the graph (observed objects, not owners only named by a reference).
  std::size_t graphSize() const;
  // The number of resources monitored.
  std::size_t monitors() const;
  // The work queue's controller metrics (zero while stopped; a restart starts them again).
  ReconcileMetrics metrics() const;

 private:
  friend Result<std::unique_ptr<GarbageCollector>> addGarbageCollector(Manager&,
                                                                       GarbageCollectorOptions);
  GarbageCollector(Manager& manager, GarbageCollectorOptions options);

  class Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace fakekube
