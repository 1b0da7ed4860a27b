#include "fakekube/runtime/priority_queue.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

namespace fakekube {

namespace {

double seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

// now + d without overflowing: a huge delay means "never", not a time in the past.
TimePoint saturatingAdd(TimePoint now, Duration d) {
  if (d > TimePoint::max() - now) return TimePoint::max();
  return now + d;
}

// What a worker gets when the queue has shut down.
QueueItem shutdownItem() {
  QueueItem item;
  item.shutdown = true;
  return item;
}

}  // namespace

// --- metrics ---

std::int64_t WorkQueueMetrics::depthAt(int priority) const {
  auto it = depth.find(priority);
  return it == depth.end() ? 0 : it->second;
}

std::int64_t WorkQueueMetrics::totalDepth() const {
  std::int64_t total = 0;
  for (const auto& [priority, n] : depth) total += n;
  return total;
}

// --- the queue ---

struct PriorityQueue::Impl : std::enable_shared_from_this<Impl> {
  struct Entry;
  // The order of ready items: higher priority first, then lower added counter (counters are
  // unique, so this is a total order). The sort fields live in the set's own nodes, so ordering
  // never reads an entry: at ten thousand items a pointer chase per comparison is what costs.
  struct ReadyKey {
    int priority;
    std::uint64_t counter;
    Entry* entry;
    bool operator<(const ReadyKey& o) const {
      if (priority != o.priority) return priority > o.priority;
      return counter < o.counter;
    }
  };
  // Waiting items: earliest ready time first, then the ready order.
  struct WaitingKey {
    TimePoint readyAt;
    ReadyKey order;
    bool operator<(const WaitingKey& o) const {
      if (readyAt != o.readyAt) return readyAt < o.readyAt;
      return order < o.order;
    }
  };
  using ReadySet = std::set<ReadyKey>;
  using WaitingSet = std::set<WaitingKey>;

  // Everything the queue knows about one key: its pending item (if any) and whether a worker
  // holds it. One entry per key, so a key's pending item and its lock live side by side and
  // handing an item out moves no data. The entry goes when the key is neither pending nor locked.
  struct Entry {
    const std::string* key = nullptr;  // the map's own key
    bool pending = false;              // has an item, in `ready` or `waiting`
    bool waiting = false;              // the item is in `waiting` (readyAt is meaningful)
    bool locked = false;               // handed out, done() not yet called
    int priority = 0;
    std::uint64_t counter = 0;       // the added counter: FIFO order within a priority
    TimePoint readyAt{};             // when a waiting item becomes ready
    TimePoint readySince{};          // when the item became ready (queue duration)
    TimePoint processingSince{};     // when it was handed out (work duration)
    ReadySet::iterator readyIt;      // valid while pending and not waiting
    WaitingSet::iterator waitingIt;  // valid while waiting
  };
  using Delivery = std::pair<GetCallback, QueueItem>;

  Impl(Executor& executor, Options options)
      : executor(executor),
        name(std::move(options.name)),
        limiter(options.rateLimiter ? std::move(options.rateLimiter)
                                    : defaultControllerRateLimiter(executor.clock())) {}

  Executor& executor;
  const std::string name;
  const std::unique_ptr<RateLimiter> limiter;

  mutable std::mutex mu;
  std::unordered_map<std::string, Entry, runtime_detail::KeyHash, runtime_detail::KeyEqual> entries;
  ReadySet ready;
  WaitingSet waiting;
  std::deque<GetCallback> waiters;  // workers that asked, in the order they asked
  std::uint64_t addedCounter = 0;
  std::size_t processing = 0;
  bool shutdown = false;
  bool dispatchPosted = false;  // a dispatch task is queued (one at a time is enough)
  // The one timer, set for the earliest waiting item. The generation tells a timer that fired
  // after being replaced (on a thread pool cancel() can lose that race) that it is stale.
  std::optional<TimerId> timer;
  TimePoint timerDue{};
  std::uint64_t timerGeneration = 0;
  WorkQueueMetrics stats;

  // Most inserts go at the end (a new item has the highest counter so far, a RequeueAfter
  // usually the latest ready time): the end() hint makes those O(1). A wrong hint costs only the
  // ordinary search.
  void insertReadyLocked(Entry& e) {
    e.readyIt = ready.emplace_hint(ready.end(), ReadyKey{e.priority, e.counter, &e});
  }
  void insertWaitingLocked(Entry& e) {
    e.waitingIt =
        waiting.emplace_hint(waiting.end(), WaitingKey{e.readyAt, {e.priority, e.counter, &e}});
  }

  // An item becomes ready: depth, adds and the start of its queue duration.
  void makeReadyLocked(Entry& e, TimePoint now) {
    e.waiting = false;
    e.readySince = now;
    insertReadyLocked(e);
    ++stats.adds;
    ++stats.depth[e.priority];
  }

  // controller-runtime's lockedAddWithOpts for one key.
  void addLocked(std::string_view key, const AddOptions& options) {
    if (shutdown) return;
    const TimePoint now = executor.now();
    Duration after = options.after;
    if (options.rateLimited) {
      const Duration limited = limiter->when(key);
      // Exactly controller-runtime's rule: only an `after` of exactly 0 means "the limiter's
      // delay alone"; a negative `after` is shorter than any delay, so the item is ready now.
      if (after == Duration::zero() || limited < after) after = limited;
    }
    std::optional<TimePoint> readyAt;
    if (after > Duration::zero()) {
      readyAt = saturatingAdd(now, after);
      ++stats.retries;
    }

    auto it = entries.find(key);
    if (it == entries.end()) it = entries.try_emplace(std::string(key)).first;
    Entry& e = it->second;
    e.key = &it->first;

    if (!e.pending) {  // a new pending item (the key may be locked: it then waits for done())
      e.pending = true;
      e.priority = options.priority;
      e.counter = addedCounter++;
      if (readyAt) {
        e.waiting = true;
        e.readyAt = *readyAt;
        insertWaitingLocked(e);
        rescheduleTimerLocked(now);
      } else {
        makeReadyLocked(e, now);
        scheduleDispatchLocked();
      }
      return;
    }

    // Merge into the pending item: the earlier ready time wins, the higher priority wins.
    const bool wasWaiting = e.waiting;
    if (!wasWaiting) {
      readyAt.reset();
    } else if (readyAt && e.readyAt < *readyAt) {
      readyAt = e.readyAt;
    }
    const bool raise = options.priority > e.priority;
    const bool becomesReady = wasWaiting && !readyAt;
    const bool earlier = wasWaiting && readyAt && *readyAt < e.readyAt;
    if (!raise && !becomesReady && !earlier) return;  // the common duplicate: nothing changes

    // The sets order by these fields: take the entry out before changing them.
    if (wasWaiting) {
      waiting.erase(e.waitingIt);
    } else {
      ready.erase(e.readyIt);
    }
    if (raise) {
      if (!wasWaiting) {
        --stats.depth[e.priority];
        ++stats.depth[options.priority];
      }
      e.priority = options.priority;
      // After the items already at the new priority.
      e.counter = addedCounter++;
    }
    if (!wasWaiting) {
      insertReadyLocked(e);
      scheduleDispatchLocked();
    } else if (becomesReady) {
      // Keeps its added counter (unless raised): controller-runtime renews the counter only for
      // items that the timer moves.
      makeReadyLocked(e, now);
      scheduleDispatchLocked();
      rescheduleTimerLocked(now);
    } else {
      e.readyAt = *readyAt;
      insertWaitingLocked(e);
      rescheduleTimerLocked(now);
    }
  }

  // Keeps the one timer due at the earliest waiting item. A timer due earlier than needed is
  // kept: it fires, finds nothing due and sets itself again, which is cheaper than re-posting a
  // timer on every change.
  void rescheduleTimerLocked(TimePoint now) {
    if (shutdown) return;
    if (waiting.empty()) {
      if (timer) {
        executor.cancel(*timer);
        timer.reset();
      }
      return;
    }
    const TimePoint earliest = waiting.begin()->readyAt;
    if (timer && timerDue <= earliest) return;
    if (timer) executor.cancel(*timer);
    timerDue = earliest;
    const std::uint64_t generation = ++timerGeneration;
    timer = executor.postAfter(earliest - now, [weak = weak_from_this(), generation] {
      if (auto self = weak.lock()) self->onTimer(generation);
    });
  }

  // controller-runtime's handleWaitingItems: every due item becomes ready with a fresh counter,
  // so items sort by when they became ready.
  void onTimer(std::uint64_t generation) {
    std::lock_guard lock(mu);
    if (generation == timerGeneration) timer.reset();
    if (shutdown) return;
    const TimePoint now = executor.now();
    bool moved = false;
    while (!waiting.empty() && waiting.begin()->readyAt <= now) {
      Entry& e = *waiting.begin()->order.entry;
      waiting.erase(waiting.begin());
      e.counter = addedCounter++;
      makeReadyLocked(e, now);
      moved = true;
    }
    rescheduleTimerLocked(now);
    if (moved) scheduleDispatchLocked();
  }

  void scheduleDispatchLocked() {
    if (dispatchPosted || shutdown || waiters.empty() || ready.empty()) return;
    dispatchPosted = true;
    executor.post([weak = weak_from_this()] {
      if (auto self = weak.lock()) self->dispatch();
    });
  }

  // controller-runtime's handleReadyItems: hands ready items, in order, to waiting workers,
  // skipping keys that are locked.
  void dispatch() {
    std::vector<Delivery> deliveries;
    {
      std::lock_guard lock(mu);
      dispatchPosted = false;
      if (shutdown) return;
      const TimePoint now = executor.now();
      for (auto it = ready.begin(); it != ready.end() && !waiters.empty();) {
        Entry& e = *it->entry;
        if (e.locked) {  // its previous round is still running; it stays pending
          ++it;
          continue;
        }
        it = ready.erase(it);
        e.pending = false;
        e.locked = true;
        e.processingSince = now;
        ++processing;
        --stats.depth[e.priority];
        stats.queueDuration.observe(seconds(now - e.readySince));
        deliveries.emplace_back(std::move(waiters.front()), QueueItem{*e.key, e.priority, false});
        waiters.pop_front();
      }
    }
    deliver(std::move(deliveries));
  }

  // Runs the first callback here (this is already an executor task of its own) and posts the
  // others, so that on a thread pool the workers run concurrently.
  void deliver(std::vector<Delivery> deliveries) {
    if (deliveries.empty()) return;
    for (std::size_t i = 1; i < deliveries.size(); ++i) {
      executor.post([weak = weak_from_this(), d = std::move(deliveries[i])]() mutable {
        // A queue destroyed meanwhile: its worker must not be told to call done() on it.
        if (weak.expired()) return;
        d.first(std::move(d.second));
      });
    }
    deliveries[0].first(std::move(deliveries[0].second));
  }

  void done(std::string_view key) {
    std::lock_guard lock(mu);
    auto it = entries.find(key);
    if (it == entries.end() || !it->second.locked) return;
    Entry& e = it->second;
    e.locked = false;
    --processing;
    stats.workDuration.observe(seconds(executor.now() - e.processingSince));
    if (!e.pending) {
      entries.erase(it);
    } else if (!e.waiting) {
      scheduleDispatchLocked();
    }
  }
};

PriorityQueue::PriorityQueue(Executor& executor) : PriorityQueue(executor, Options{}) {}

PriorityQueue::PriorityQueue(Executor& executor, Options options)
    : impl_(std::make_shared<Impl>(executor, std::move(options))) {}

PriorityQueue::~PriorityQueue() {
  std::lock_guard lock(impl_->mu);
  if (impl_->timer) impl_->executor.cancel(*impl_->timer);
  impl_->timer.reset();
}

void PriorityQueue::add(std::string_view key) { addWithOptions(key, AddOptions{}); }

void PriorityQueue::addWithOptions(std::string_view key, const AddOptions& options) {
  std::lock_guard lock(impl_->mu);
  impl_->addLocked(key, options);
}

void PriorityQueue::addAfter(std::string_view key, Duration after) {
  addWithOptions(key, AddOptions{.after = after});
}

void PriorityQueue::addRateLimited(std::string_view key) {
  addWithOptions(key, AddOptions{.rateLimited = true});
}

void PriorityQueue::forget(std::string_view key) { impl_->limiter->forget(key); }

int PriorityQueue::numRequeues(std::string_view key) { return impl_->limiter->numRequeues(key); }

void PriorityQueue::getWithPriority(GetCallback callback) {
  {
    std::lock_guard lock(impl_->mu);
    if (!impl_->shutdown) {
      impl_->waiters.push_back(std::move(callback));
      impl_->scheduleDispatchLocked();
      return;
    }
  }
  impl_->executor.post([callback = std::move(callback)] { callback(shutdownItem()); });
}

void PriorityQueue::get(std::function<void(std::string key, bool shutdown)> callback) {
  getWithPriority([callback = std::move(callback)](QueueItem item) {
    callback(std::move(item.key), item.shutdown);
  });
}

void PriorityQueue::done(std::string_view key) { impl_->done(key); }

void PriorityQueue::shutDown() {
  std::deque<GetCallback> waiters;
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->shutdown) return;
    impl_->shutdown = true;
    if (impl_->timer) impl_->executor.cancel(*impl_->timer);
    impl_->timer.reset();
    waiters.swap(impl_->waiters);
  }
  for (auto& callback : waiters) {
    impl_->executor.post([callback = std::move(callback)] { callback(shutdownItem()); });
  }
}

bool PriorityQueue::shuttingDown() const {
  std::lock_guard lock(impl_->mu);
  return impl_->shutdown;
}

std::size_t PriorityQueue::len() const {
  std::lock_guard lock(impl_->mu);
  return impl_->ready.size();
}

std::size_t PriorityQueue::numWaiting() const {
  std::lock_guard lock(impl_->mu);
  return impl_->waiting.size();
}

std::size_t PriorityQueue::numProcessing() const {
  std::lock_guard lock(impl_->mu);
  return impl_->processing;
}

WorkQueueMetrics PriorityQueue::metrics() const {
  std::lock_guard lock(impl_->mu);
  WorkQueueMetrics snapshot = impl_->stats;
  const TimePoint now = impl_->executor.now();
  for (const auto& [key, e] : impl_->entries) {
    if (!e.locked) continue;
    const double age = seconds(now - e.processingSince);
    snapshot.unfinishedWorkSeconds += age;
    snapshot.longestRunningProcessorSeconds =
        std::max(snapshot.longestRunningProcessorSeconds, age);
  }
  return snapshot;
}

}  // namespace fakekube
