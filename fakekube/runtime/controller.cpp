#include "fakekube/runtime/controller.h"

#include <atomic>
#include <exception>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace fakekube {

namespace {

double inSeconds(Duration d) { return std::chrono::duration<double>(d).count(); }

// What an exception escaping a reconciler becomes (controller-runtime's recovered panic).
ReconcileOutcome panicOutcome(std::exception_ptr e) {
  std::string what = "unknown exception";
  try {
    std::rethrow_exception(std::move(e));
  } catch (const std::exception& ex) {
    what = ex.what();
  } catch (...) {
  }
  return reconcileError(Status::internal("panic: " + what + " [recovered]"));
}

}  // namespace

std::vector<double> ReconcileMetrics::reconcileTimeBounds() {
  return {0.005, 0.01, 0.025, 0.05, 0.1,  0.15, 0.2,  0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6,
          0.7,   0.8,  0.9,   1.0,  1.25, 1.5,  1.75, 2.0,  2.5, 3.0,  3.5, 4.0,  4.5, 5,
          6,     7,    8,     9,    10,   15,   20,   25,   30,  40,   50,  60};
}

struct Controller::State : std::enable_shared_from_this<State> {
  State(Executor& ex, ControllerOptions options)
      : executor(ex),
        name(options.name),
        maxConcurrent(options.maxConcurrentReconciles < 1 ? 1 : options.maxConcurrentReconciles),
        queue(ex, PriorityQueue::Options{options.name, std::move(options.rateLimiter)}) {
    metrics.maxConcurrentReconciles = maxConcurrent;
  }

  Executor& executor;
  // The controller that owns this state, for the observer; null once it is destroyed (a
  // reconcile in flight keeps the state alive, not the controller).
  Controller* self = nullptr;
  const std::string name;
  const int maxConcurrent;
  std::shared_ptr<const ReconcileObserver> observer;
  Reconciler syncReconciler;  // one of these two is set
  AsyncReconciler asyncReconciler;
  PriorityQueue queue;

  mutable std::mutex mu;
  bool started = false;
  bool shutdown = false;
  ReconcileMetrics metrics;
  std::unordered_map<std::string, int> running;  // keys being reconciled

  // One worker asks the queue for its next item.
  void ask() {
    std::weak_ptr<State> weak = weak_from_this();
    queue.getWithPriority([weak](QueueItem item) {
      auto self = weak.lock();
      if (!self || item.shutdown) return;
      self->process(std::move(item));
    });
  }

  void process(QueueItem item) {
    const TimePoint start = executor.now();
    std::shared_ptr<const ReconcileObserver> watcher;
    {
      std::lock_guard lock(mu);
      ++metrics.activeWorkers;
      if (metrics.activeWorkers > metrics.peakActiveWorkers) {
        metrics.peakActiveWorkers = metrics.activeWorkers;
      }
      if (running[item.key]++ > 0) ++metrics.overlappingReconciles;
      watcher = observer;
    }
    const ReconcileRequest request = ReconcileRequest::fromKey(item.key);
    if (watcher && watcher->onBegin && self) watcher->onBegin(*self, request);
    if (syncReconciler) {
      ReconcileOutcome outcome;
      try {
        outcome = syncReconciler(request);
      } catch (...) {
        countPanic();
        outcome = panicOutcome(std::current_exception());
      }
      // (A reconciler that crashed its own manager destroyed the controller: self is null.)
      if (watcher && watcher->onEnd && self) watcher->onEnd(*self, request, &outcome);
      finish(item, start, std::move(outcome));
      return;
    }
    auto finished = std::make_shared<std::atomic<bool>>(false);
    std::weak_ptr<State> weak = weak_from_this();
    ReconcileDone done = [weak, item, start, finished](ReconcileOutcome outcome) {
      if (finished->exchange(true)) return;
      if (auto self = weak.lock()) self->finish(item, start, std::move(outcome));
    };
    try {
      asyncReconciler(request, done);
    } catch (...) {
      countPanic();
      done(panicOutcome(std::current_exception()));
    }
    if (watcher && watcher->onEnd && self) watcher->onEnd(*self, request, nullptr);
  }

  void countPanic() {
    std::lock_guard lock(mu);
    ++metrics.panics;
  }

  // controller-runtime's reconcileHandler after Reconcile returned, then the deferred Done.
  void finish(const QueueItem& item, TimePoint start, ReconcileOutcome outcome) {
    enum class Kind { Success, Error, Terminal, Requeue, RequeueAfter } kind;
    if (!outcome) {
      kind = outcome.error().terminal ? Kind::Terminal : Kind::Error;
    } else if (outcome->requeueAfter > Duration{0}) {
      kind = Kind::RequeueAfter;
    } else if (outcome->requeue) {
      kind = Kind::Requeue;
    } else {
      kind = Kind::Success;
    }
    switch (kind) {
      case Kind::Error:
      case Kind::Requeue:
        queue.addWithOptions(item.key, AddOptions{Duration{0}, item.priority, true});
        break;
      case Kind::Terminal:
        break;
      case Kind::RequeueAfter:
        queue.forget(item.key);
        queue.addWithOptions(item.key, AddOptions{outcome->requeueAfter, item.priority, false});
        break;
      case Kind::Success:
        queue.forget(item.key);
        break;
    }
    {
      std::lock_guard lock(mu);
      switch (kind) {
        case Kind::Terminal:
          ++metrics.terminalErrors;
          [[fallthrough]];
        case Kind::Error:
          ++metrics.errors;
          ++metrics.error;
          break;
        case Kind::Requeue:
          ++metrics.requeue;
          break;
        case Kind::RequeueAfter:
          ++metrics.requeueAfter;
          break;
        case Kind::Success:
          ++metrics.success;
          break;
      }
      metrics.reconcileTime.observe(inSeconds(executor.now() - start));
      --metrics.activeWorkers;
      auto it = running.find(item.key);
      if (it != running.end() && --it->second == 0) running.erase(it);
    }
    queue.done(item.key);
    ask();
  }
};

Controller::Controller(Executor& executor, ControllerOptions options, Reconciler reconciler)
    : state_(std::make_shared<State>(executor, std::move(options))) {
  state_->self = this;
  state_->syncReconciler = std::move(reconciler);
}

Controller::Controller(Executor& executor, ControllerOptions options, AsyncReconciler reconciler)
    : state_(std::make_shared<State>(executor, std::move(options))) {
  state_->self = this;
  state_->asyncReconciler = std::move(reconciler);
}

void Controller::setReconcileObserver(ReconcileObserver observer) {
  std::lock_guard lock(state_->mu);
  if (!observer.onBegin && !observer.onEnd) {
    state_->observer.reset();
  } else {
    state_->observer = std::make_shared<const ReconcileObserver>(std::move(observer));
  }
}

Controller::~Controller() { state_->self = nullptr; }

const std::string& Controller::name() const { return state_->name; }

void Controller::watch(Informer& informer, EventHandler handler,
                       std::vector<Predicate> predicates) {
  struct Watched {
    EventHandler handler;
    std::vector<Predicate> predicates;
  };
  auto w = std::make_shared<const Watched>(Watched{std::move(handler), std::move(predicates)});
  std::weak_ptr<State> weak = state_;
  auto enqueue = [](State& s, const std::vector<ReconcileRequest>& requests) {
    for (const auto& r : requests) s.queue.add(r.key());
  };
  ResourceEventHandler h;
  h.onAdd = [weak, w, enqueue](const ObjectPtr& object) {
    auto self = weak.lock();
    if (!self || !w->handler.create) return;
    for (const auto& p : w->predicates) {
      if (!p.onCreate(object)) return;
    }
    enqueue(*self, w->handler.create(object));
  };
  h.onUpdate = [weak, w, enqueue](const ObjectPtr& oldObject, const ObjectPtr& newObject) {
    auto self = weak.lock();
    if (!self || !w->handler.update) return;
    for (const auto& p : w->predicates) {
      if (!p.onUpdate(oldObject, newObject)) return;
    }
    enqueue(*self, w->handler.update(oldObject, newObject));
  };
  h.onDelete = [weak, w, enqueue](const ObjectPtr& object) {
    auto self = weak.lock();
    if (!self || !w->handler.delete_) return;
    for (const auto& p : w->predicates) {
      if (!p.onDelete(object)) return;
    }
    enqueue(*self, w->handler.delete_(object));
  };
  informer.addEventHandler(std::move(h));
}

void Controller::enqueue(const ReconcileRequest& request) { state_->queue.add(request.key()); }

void Controller::enqueue(const ReconcileRequest& request, const AddOptions& options) {
  state_->queue.addWithOptions(request.key(), options);
}

void Controller::start() {
  {
    std::lock_guard lock(state_->mu);
    if (state_->started || state_->shutdown) return;
    state_->started = true;
  }
  for (int i = 0; i < state_->maxConcurrent; ++i) state_->ask();
}

bool Controller::started() const {
  std::lock_guard lock(state_->mu);
  return state_->started;
}

void Controller::shutDown() {
  {
    std::lock_guard lock(state_->mu);
    state_->shutdown = true;
  }
  state_->queue.shutDown();
}

ReconcileMetrics Controller::metrics() const {
  std::lock_guard lock(state_->mu);
  return state_->metrics;
}

PriorityQueue& Controller::queue() { return state_->queue; }

}  // namespace fakekube
