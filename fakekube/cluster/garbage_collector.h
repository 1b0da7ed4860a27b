// GarbageCollector: kube-controller-manager's garbage collector, in process (spec C).
//
// It is a client like any other: it sees the cluster only through the ApiServer's public verbs.
// It watches every kind the server serves (built-ins, and custom kinds as their
// CustomResourceDefinitions appear), keeps a graph of objects and their ownerReferences keyed by
// uid (the real collector's graph builder), and turns changes of that graph into work items that
// it processes one at a time on the Executor:
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
// Warning Event (reason OwnerRefInvalidNamespace).
//
// The graph may lag the server, so every verdict is checked with a GET before acting, and every
// action carries a precondition (the uid on DELETE, uid and resourceVersion on PATCH). A 409 or a
// transient error requeues the item through the rate limiter (`retryDelay` of virtual time,
// doubling per further failure of the item); a 404 means the world already moved on, and the
// watch will report what happened.
//
// The work items (uids) run on a runtime Controller ("garbage-collector-controller"): its
// priority queue merges repeated items and never runs one twice at once, its rate limiter spaces
// retries, and metrics() are its controller_runtime_* figures. The watches are still the
// server's own (KindWatch), not a Manager's cache over a Client: the collector runs in process.
//
// Thread-safe: work runs on the executor, one item at a time under an internal lock; the watch
// callbacks that the server runs on writer threads only post to the executor. The executor and
// the server must outlive the collector; tasks still queued after it is destroyed do nothing.
#pragma once

#include <cstddef>
#include <memory>

#include "fakekube/runtime/controller.h"
#include "fakekube/sim/clock.h"
#include "fakekube/sim/executor.h"

namespace fakekube {

class ApiServer;

class GarbageCollector {
 public:
  struct Options {
    // How long to wait before retrying an item after a conflict or a transient error.
    Duration retryDelay = std::chrono::milliseconds(100);
    Duration maxRetryDelay = std::chrono::seconds(1000);
  };

  GarbageCollector(Executor& executor, ApiServer& server);
  GarbageCollector(Executor& executor, ApiServer& server, Options options);
  // Stops the watches; queued tasks become no-ops.
  ~GarbageCollector();
  GarbageCollector(const GarbageCollector&) = delete;
  GarbageCollector& operator=(const GarbageCollector&) = delete;

  // Starts watching every served kind. Idempotent. Objects that exist already are processed
  // like new ones (dangling references left while no collector ran are collected).
  void start();
  // Stops watching; pending work is dropped. start() may be called again.
  void stop();

  // No work pending: no undelivered watch events, no queued or running item, no retry waiting.
  // Items whose owner kind is not served (yet) are parked until a CustomResourceDefinition changes,
  // and do not count.
  bool idle() const;

  // The number of objects in the graph (observed objects, not owners only named by a reference).
  std::size_t graphSize() const;
  // The work queue's controller metrics (zero while stopped; a restart starts them again).
  ReconcileMetrics metrics() const;

 private:
  class Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace fakekube
