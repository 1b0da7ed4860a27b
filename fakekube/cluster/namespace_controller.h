// NamespaceController: kube-controller-manager's namespace controller, in process (spec C).
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
// wait ends. The controller sees the cluster only through the ApiServer's public verbs.
//
// Thread-safe like GarbageCollector: work runs on the executor under an internal lock; the
// executor and the server must outlive the controller.
#pragma once

#include <cstddef>
#include <memory>

#include "fakekube/sim/clock.h"
#include "fakekube/sim/executor.h"

namespace fakekube {

class ApiServer;

class NamespaceController {
 public:
  struct Options {
    // How often a namespace whose contents are still going away is looked at again.
    Duration recheckDelay = std::chrono::seconds(1);
    // How long to wait before retrying after a conflict or a transient error.
    Duration retryDelay = std::chrono::milliseconds(100);
  };

  NamespaceController(Executor& executor, ApiServer& server);
  NamespaceController(Executor& executor, ApiServer& server, Options options);
  ~NamespaceController();
  NamespaceController(const NamespaceController&) = delete;
  NamespaceController& operator=(const NamespaceController&) = delete;

  // Starts watching namespaces (those already Terminating are picked up). Idempotent.
  void start();
  void stop();

  // Nothing to do right now: no undelivered watch events, no queued namespace, no retry waiting.
  // A namespace that only waits for its contents to go (its periodic recheck) does not count:
  // it waits for someone else.
  bool idle() const;
  // Namespaces being deleted whose contents have not all gone yet.
  std::size_t terminating() const;

 private:
  class Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace fakekube
