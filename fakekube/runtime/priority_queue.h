// PriorityQueue: a controller's work queue of reconcile requests (controller-runtime's
// priorityqueue, the default queue of every controller).
//
// A request is only a key, "namespace/name" (or "name" for a cluster-scoped object): it carries
// no operation, because the reconcile re-reads the object. That is what lets the queue merge:
//
//   Pending keys are never duplicated. Adding a key that is already pending merges into the
//   pending item: the earlier ready time wins, the higher priority wins. Ten events about one
//   object before a worker gets to it make one reconcile, not ten.
//
//   A key being reconciled is locked. Adding it again creates a new pending item, which is not
//   handed out until done(key). So one key is never reconciled twice at once, and a change that
//   arrives during a reconcile yields exactly one more round after it, however many adds it made.
//
//   Items added with a delay (addAfter, addRateLimited) wait, on one executor timer set for the
//   earliest of them. When due they become ready with a fresh "added counter", so they sort by
//   when they became ready, not by when they were added.
//
//   Ready items are handed out by priority (higher first), then by added counter. Raising the
//   priority of a pending item also gives it a fresh counter: it goes after the items already at
//   that priority. The queue is not strict FIFO.
//
// Workers. Workers in fakekube are executor tasks, not threads, so there is no blocking get():
// a worker registers a callback with getWithPriority(), and the queue calls it, from an executor
// task, with the next item it hands that worker. Waiting workers are served in the order they
// asked. A worker reconciles, calls done(key) and asks again; N workers are N callbacks in
// flight. controller-runtime's background goroutines (flush the add buffer, move due items,
// match ready items with waiters) become: add() updates the index at once, one executor timer
// moves due items, and one posted "dispatch" task matches ready items with waiting workers.
//
// Metrics (WorkQueueMetrics) count the way controller-runtime's priority queue counts them:
// from when an item becomes ready. A delayed item is not in the depth until it is due, and its
// queue duration does not include the delay. Time is the executor's Clock throughout.
//
// Thread-safety: every method may be called from any thread (a ThreadPoolExecutor runs workers
// and event handlers concurrently). Callbacks are never called with the queue's lock held and
// never from inside the call that registered them, so a callback may call back into the queue.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/metrics/duration_histogram.h"
#include "fakekube/runtime/rate_limiter.h"
#include "fakekube/sim/executor.h"

namespace fakekube {

// controller-runtime's priorityqueue.AddOpts.
struct AddOptions {
  // > 0: the item becomes ready only after this long. 0 (or less): ready now.
  Duration after{0};
  // Higher is handed out first. Events from the initial list of an informer use a low priority
  // in controller-runtime, so that changes made while a controller starts are not stuck behind
  // its whole backlog.
  int priority = 0;
  // Ask the rate limiter for a delay (counting one more failure of the key) and use the shorter
  // of that and `after`. `after` exactly 0 means "only the rate limiter's"; a negative `after`
  // is shorter than any delay, so the item is ready at once (controller-runtime's
  // `after == 0 || rlAfter < after`).
  bool rateLimited = false;
};

// What a waiting worker receives.
struct QueueItem {
  std::string key;
  int priority = 0;
  // True: the queue shut down before it had an item for this worker. `key` is empty; the worker
  // stops asking. An item handed out before shutDown() is still delivered, with shutdown false,
  // and must still be done().
  bool shutdown = false;
};

// The workqueue_* metrics of one queue (a metrics registry that exports them comes later).
struct WorkQueueMetrics {
  // workqueue_depth{priority}: ready items (waiting ones are not counted), by priority. Includes
  // a ready item whose key is locked (it is ready; it waits for its key, not for time).
  std::map<int, std::int64_t> depth;
  // workqueue_adds_total: items that became ready. An add merged into an item that is already
  // ready adds nothing; a delayed item counts when it becomes ready.
  std::uint64_t adds = 0;
  // workqueue_retries_total: adds that carried a delay (addAfter, addRateLimited), counted when
  // added, as client-go counts every delayed add.
  std::uint64_t retries = 0;
  // workqueue_queue_duration_seconds: from becoming ready to being handed out.
  DurationHistogram queueDuration;
  // workqueue_work_duration_seconds: from being handed out to done().
  DurationHistogram workDuration;
  // workqueue_unfinished_work_seconds and workqueue_longest_running_processor_seconds: over the
  // keys handed out and not yet done, at the instant metrics() was called.
  double unfinishedWorkSeconds = 0;
  double longestRunningProcessorSeconds = 0;

  // The depth at one priority (0 if that priority was never seen).
  std::int64_t depthAt(int priority) const;
  // The depth summed over priorities.
  std::int64_t totalDepth() const;
};

class PriorityQueue {
 public:
  // Called with what the queue hands a worker; see QueueItem.
  using GetCallback = std::function<void(QueueItem item)>;

  struct Options {
    // The name the metrics registry will export the queue under (controller-runtime uses the
    // controller's name).
    std::string name;
    // For addRateLimited, forget and numRequeues. Unset: defaultControllerRateLimiter() on the
    // executor's clock, which is what every controller-runtime controller passes to its queue.
    std::unique_ptr<RateLimiter> rateLimiter;
  };

  // `executor` must outlive the queue.
  explicit PriorityQueue(Executor& executor);
  PriorityQueue(Executor& executor, Options options);
  // Cancels the timer; work already posted finds the queue gone and does nothing. Workers still
  // waiting are not called.
  ~PriorityQueue();
  PriorityQueue(const PriorityQueue&) = delete;
  PriorityQueue& operator=(const PriorityQueue&) = delete;

  // --- adding (all no-ops after shutDown()) ---

  // Ready now, priority 0.
  void add(std::string_view key);
  void addWithOptions(std::string_view key, const AddOptions& options);
  // Ready after `after`.
  void addAfter(std::string_view key, Duration after);
  // Ready after the rate limiter's delay for `key` (which counts as one more failure).
  void addRateLimited(std::string_view key);

  // --- the rate limiter's record of a key ---

  // A reconcile of `key` succeeded: its next failure starts again from the base delay.
  void forget(std::string_view key);
  int numRequeues(std::string_view key);

  // --- workers ---

  // Registers one waiting worker. The queue calls `callback` once, from an executor task, with
  // the next item it hands out to this worker (the key is then locked until done(key)), or with
  // shutdown set once the queue shuts down.
  void getWithPriority(GetCallback callback);
  // The same, for a worker that does not care about priorities.
  void get(std::function<void(std::string key, bool shutdown)> callback);
  // The worker has finished `key`: unlocks it, so an item added meanwhile can be handed out.
  // Done for a key that is not locked does nothing.
  void done(std::string_view key);

  // --- lifecycle and observation ---

  // Stops handing out items: waiting workers are called with shutdown set; later adds do
  // nothing and later gets answer shutdown. Pending items stay (len() still counts them) but are
  // never handed out; done() still works. Idempotent.
  void shutDown();
  bool shuttingDown() const;

  // Ready items, including a ready item whose key is locked (controller-runtime's Len()).
  std::size_t len() const;
  // Items waiting for their ready time.
  std::size_t numWaiting() const;
  // Keys handed out and not yet done.
  std::size_t numProcessing() const;
  // A snapshot; the unfinished-work figures are computed at the executor's now().
  WorkQueueMetrics metrics() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace fakekube
