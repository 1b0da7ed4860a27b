// The reconcile contract (controller-runtime's pkg/reconcile): what a controller asks its
// reconciler, and what the reconciler answers.
//
// A ReconcileRequest is only a key, namespace and name. It says nothing about what happened: the
// reconciler reads the object (from the cache) and drives the world towards it, whatever events
// led here, however many of them were merged into this one request.
//
// The answer is a ReconcileOutcome: either a ReconcileResult or a ReconcileError. The controller
// acts on it exactly as controller-runtime's reconcileHandler does:
//
//   error (not terminal)    rate-limited requeue (5 ms, 10 ms, 20 ms, ... for the same key);
//                           a ReconcileResult carried with the error is ignored
//   terminal error          no retry from this error (a later event still reconciles the key);
//                           counted in terminalErrors
//   requeueAfter > 0        forget the key's failures, add it again after that long
//   requeue                 rate-limited requeue (without counting as an error)
//   otherwise (success)     forget the key's failures
//
// An exception escaping a reconciler is caught and treated as a (non-terminal) error, as
// controller-runtime recovers a panic (RecoverPanic, on by default).
//
// A reconcile runs synchronously inside one executor task. A reconcile that must wait for
// something (a Pod to become ready) does not wait: it returns requeueAfter and the worker is
// free for other keys meanwhile. For tests that need a reconcile to span virtual time (to
// observe concurrency) there is an asynchronous form, AsyncReconciler, which finishes by calling
// a callback from a later task; the worker and the key stay busy until it does.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

#include "fakekube/api/status.h"
#include "fakekube/sim/clock.h"

namespace fakekube {

// reconcile.Request: the namespace ("" for a cluster-scoped object) and name of an object.
// (Named ReconcileRequest because fakekube::Request is a request to the API server.)
struct ReconcileRequest {
  std::string namespace_;
  std::string name;

  // "namespace/name", or "name" for a cluster-scoped object: the work queue's key.
  std::string key() const;
  // The inverse of key().
  static ReconcileRequest fromKey(std::string_view key);

  bool operator==(const ReconcileRequest&) const = default;
  auto operator<=>(const ReconcileRequest&) const = default;
};

// reconcile.Result. (Named ReconcileResult because fakekube::Result<T> is every verb's answer.)
struct ReconcileResult {
  // > 0: reconcile this key again after this long (an event may make it sooner).
  Duration requeueAfter{0};
  // Reconcile again after the rate limiter's delay. Deprecated in controller-runtime in favour
  // of requeueAfter; kept because code ported from Go still uses it.
  bool requeue = false;

  bool isZero() const { return requeueAfter <= Duration{0} && !requeue; }
  bool operator==(const ReconcileResult&) const = default;
};

// A failed reconcile: the Status that made it fail, and whether retrying can help.
struct ReconcileError {
  Status status;
  // reconcile.TerminalError: do not retry because of this error.
  bool terminal = false;
  // What a Go reconciler returns alongside a non-nil error (`return ctrl.Result{RequeueAfter:
  // d}, err`). The controller ignores it, as controller-runtime does; it is here so that ported
  // code can say what it said.
  ReconcileResult ignoredResult;
};

using ReconcileOutcome = tl::expected<ReconcileResult, ReconcileError>;

// `return reconcileError(status);` — a retryable error. `result` is ignored (see ReconcileError).
inline tl::unexpected<ReconcileError> reconcileError(Status status, ReconcileResult result = {}) {
  return tl::unexpected(ReconcileError{std::move(status), false, result});
}
// `if (!read) return ignoreNotFound(read.error());` (client.IgnoreNotFound): an object that is
// gone is nothing to reconcile; any other error is retried.
inline ReconcileOutcome ignoreNotFound(Status status) {
  if (isNotFound(status)) return ReconcileResult{};
  return reconcileError(std::move(status));
}
// `return terminalError(status);` — reconcile.TerminalError(err).
inline tl::unexpected<ReconcileError> terminalError(Status status) {
  return tl::unexpected(ReconcileError{std::move(status), true, {}});
}

// The synchronous reconciler: runs inside one executor task.
using Reconciler = std::function<ReconcileOutcome(const ReconcileRequest& request)>;

// The asynchronous form: the reconcile ends when `done` is called (once; later calls are
// ignored), from any task. If the reconciler throws before calling done, the exception is the
// outcome. If the controller is gone by then (stopped manager, crash), done does nothing.
using ReconcileDone = std::function<void(ReconcileOutcome outcome)>;
using AsyncReconciler = std::function<void(const ReconcileRequest& request, ReconcileDone done)>;

}  // namespace fakekube
