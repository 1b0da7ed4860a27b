// Controller: a work queue, the workers that drain it into a reconciler, and the informer
// handlers that fill it (controller-runtime's internal controller).
//
//   informer event --predicates--> EventHandler --> keys --> PriorityQueue --> N workers
//                                                                  ^              |
//                                                                  +-- requeue ---+
//
// Workers. maxConcurrentReconciles workers, each an executor task chain, never a thread: a
// worker asks the queue for an item (getWithPriority), reconciles it, applies the outcome (see
// reconcile.h: rate-limited requeue on error, nothing on a terminal error, forget + delayed add
// for requeueAfter, forget on success), calls done(key) and asks again. The queue never hands a
// key to a worker while another has it, so one key is never reconciled twice at once, and at
// most maxConcurrentReconciles reconciles run at once. A requeue keeps the item's priority.
//
// Lifecycle. Events may be enqueued before start(); nothing is reconciled until start(), which
// a Manager calls only once its caches have synced. shutDown() stops the queue: idle workers
// end, a reconcile in flight finishes (its requeue is dropped) and no new one starts. Destroying
// the controller drops everything at once: tasks already posted, informer handlers registered
// through watch() and the done callback of an asynchronous reconcile still running all find it
// gone and do nothing (they hold only a weak reference).
//
// Metrics (ReconcileMetrics) are controller-runtime's controller_runtime_* metrics, plus two
// figures tests use to check concurrency: the peak of active workers and the number of times a
// key was handed out while already being reconciled (always 0 unless the queue is broken).
//
// Thread-safety: every method may be called from any thread; on a ThreadPoolExecutor the workers
// run concurrently, up to maxConcurrentReconciles of them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fakekube/cache/informer.h"
#include "fakekube/runtime/handler.h"
#include "fakekube/runtime/predicate.h"
#include "fakekube/runtime/priority_queue.h"
#include "fakekube/runtime/rate_limiter.h"
#include "fakekube/runtime/reconcile.h"
#include "fakekube/sim/executor.h"

namespace fakekube {

struct ControllerOptions {
  // The controller's name (and its queue's): "raycluster". Required by the builder, which
  // defaults it to the lower-case kind of the For resource.
  std::string name;
  // How many reconciles may run at once (KubeRay's --reconcile-concurrency; default 1).
  int maxConcurrentReconciles = 1;
  // The queue's rate limiter. Unset: defaultControllerRateLimiter() on the executor's clock
  // (exponential 5 ms..1000 s per key, max'd with a 10 qps / burst 100 bucket).
  std::unique_ptr<RateLimiter> rateLimiter;
};

// controller_runtime_* metrics of one controller.
struct ReconcileMetrics {
  // controller_runtime_reconcile_total{result}: one per finished reconcile, by outcome.
  std::uint64_t success = 0;
  std::uint64_t error = 0;  // errors of every kind, terminal ones included
  std::uint64_t requeue = 0;
  std::uint64_t requeueAfter = 0;
  // controller_runtime_reconcile_errors_total (= error).
  std::uint64_t errors = 0;
  // controller_runtime_terminal_reconcile_errors_total.
  std::uint64_t terminalErrors = 0;
  // controller_runtime_reconcile_panics_total: reconciles that threw.
  std::uint64_t panics = 0;
  // controller_runtime_reconcile_time_seconds, on the executor's clock (0 for a synchronous
  // reconcile on a SimExecutor, where no virtual time passes inside a task).
  DurationHistogram reconcileTime = DurationHistogram{reconcileTimeBounds()};
  // controller_runtime_active_workers: reconciles running now.
  std::int64_t activeWorkers = 0;
  // controller_runtime_max_concurrent_reconciles: the configured maximum.
  int maxConcurrentReconciles = 0;

  // Not exported by controller-runtime; for tests.
  // The most reconciles that ever ran at once.
  std::int64_t peakActiveWorkers = 0;
  // Times a key was handed out while a reconcile of it was running (the queue guarantees 0).
  std::uint64_t overlappingReconciles = 0;

  std::uint64_t total() const { return success + error + requeue + requeueAfter; }
  // controller-runtime's buckets: 5 ms .. 60 s.
  static std::vector<double> reconcileTimeBounds();
};

class Controller;

// Sees every reconcile of a controller from outside it: what a test fixture needs to tell which
// writes a reconcile made and whether reconciling an unchanged state writes again. Both run on
// the reconciling task, around the reconciler: onBegin just before it is called, onEnd just after
// it returns, with its outcome (a reconcile that threw ends with the outcome it is treated as).
// For an asynchronous reconciler both bracket the synchronous part of the call only, and onEnd
// gets nullptr: its outcome comes later. The controller reference is valid during the call.
struct ReconcileObserver {
  std::function<void(Controller& controller, const ReconcileRequest& request)> onBegin;
  std::function<void(Controller& controller, const ReconcileRequest& request,
                     const ReconcileOutcome* outcome)>
      onEnd;
};

class Controller {
 public:
  // `executor` must outlive the controller.
  Controller(Executor& executor, ControllerOptions options, Reconciler reconciler);
  Controller(Executor& executor, ControllerOptions options, AsyncReconciler reconciler);
  // Drops everything at once (see the file comment). Does not wait for anything.
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  const std::string& name() const;

  // Registers handlers on `informer`: each event that every one of `predicates` lets through
  // goes to `handler`, and the requests it answers are added to the queue. The handlers hold a
  // weak reference: they do nothing once the controller is gone. Call before the informer's
  // events matter; an informer replays its store to a late handler as adds.
  void watch(Informer& informer, EventHandler handler, std::vector<Predicate> predicates = {});

  // Adds a request to the queue, as a handler does.
  void enqueue(const ReconcileRequest& request);
  void enqueue(const ReconcileRequest& request, const AddOptions& options);

  // Starts the workers. Idempotent; does nothing after shutDown().
  void start();
  bool started() const;
  // Shuts the queue down; see the file comment. Idempotent.
  void shutDown();

  ReconcileMetrics metrics() const;
  PriorityQueue& queue();

  // Installs (or, with an empty one, removes) the observer of every reconcile from now on. A
  // Manager installs ManagerOptions::reconcileObserver on each controller it is given.
  void setReconcileObserver(ReconcileObserver observer);

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace fakekube
