// NamespaceController: kube-controller-manager's namespace controller, in process.
//
// Deleting a Namespace does not remove it: the server marks it (deletionTimestamp, status.phase
// Terminating) and keeps it while spec.finalizers holds "kubernetes". This controller is what
// honours that finalizer. For every namespace being deleted it
//
//   1. deletes the namespace's contents: a DELETE collection (propagation Background) of every
//      namespaced kind the server serves, custom kinds included;
//   2. waits until nothing is left. Objects with finalizers of their own stay until whoever
//      owns those finalizers releases them, and pods wait for their kubelet; meanwhile the
//      namespace is looked at again every `recheckDelay` of virtual time;
//   3. removes "kubernetes" from spec.finalizers through the `finalize` subresource, after which
//      the server removes the namespace (once its metadata.finalizers are gone too).
//
// While a namespace is Terminating the server refuses new content in it (403 Forbidden), so the
// wait ends.
//
// It is a runtime controller like every other (controller "namespace"): a Namespace informer on
// a Manager's cache feeds its priority queue, conflicts and transient errors are retried through
// the queue's rate limiter (per-namespace exponential backoff from `retryDelay`), and its
// controller_runtime_* metrics are the manager's. It reads and writes only through the manager's
// clients and learns the served kinds by discovery (client/discovery.h), so on a Manager over a
// RestClient it runs against `fakekube serve`.
//
// It is added as every part is (addNamespaceController(manager, options), as the workload
// controllers' add*Controller): the controller is registered with the manager, which runs its
// workers once the manager's caches have synced. The caller holds the answer: destroying it stops
// the controller. The manager must outlive it.
#pragma once

#include <cstddef>
#include <memory>

#include "fakekube/api/status.h"
#include "fakekube/sim/clock.h"
#include "fakekube/sim/executor.h"

namespace fakekube {

class Manager;

struct NamespaceControllerOptions {
  // How often a namespace whose contents are still going away is looked at again.
  Duration recheckDelay = std::chrono::seconds(1);
  // The first retry after a conflict or a transient error; each further failure of the same
  // namespace doubles it, up to maxRetryDelay.
  Duration retryDelay = std::chrono::milliseconds(100);
  Duration maxRetryDelay = std::chrono::seconds(1000);
};

class NamespaceController;

// Adds the namespace controller to `manager` (over HTTP when its client is a RestClient) and
// starts it (start()).
Result<std::unique_ptr<NamespaceController>> addNamespaceController(
    Manager& manager, NamespaceControllerOptions options = {});

// What addNamespaceController answers: the running controller.
class NamespaceController {
 public:
  ~NamespaceController();
  NamespaceController(const NamespaceController&) = delete;
  NamespaceController& operator=(const NamespaceController&) = delete;

  // Registers the controller (namespaces already Terminating are picked up from the cache's
  // initial list). Idempotent; after stop() it registers a fresh controller.
  Result<void> start();
  // Shuts the controller's queue down.
  void stop();

  // Nothing to do right now: no Namespace event on its way to the manager's cache, no queued
  // namespace, no reconcile running, no retry waiting. A
  // namespace that only waits for its contents to go (its periodic recheck) does not count: it
  // waits for someone else.
  bool idle() const;
  // Namespaces being deleted whose contents have not all gone yet.
  std::size_t terminating() const;

 private:
  friend Result<std::unique_ptr<NamespaceController>> addNamespaceController(
      Manager&, NamespaceControllerOptions);
  NamespaceController(Manager& manager, NamespaceControllerOptions options);

  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fakekube
