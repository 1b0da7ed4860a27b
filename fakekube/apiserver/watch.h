// Watch: one watcher's end of a watch stream, as the WatchHub (watch_hub.h) fills it.
//
// A watch is a bounded queue between two parties that never wait for each other. The producer is
// the hub, which runs under the API server's mutex on whatever thread made the write; it must
// never block on a consumer, so a watcher that falls more than `maxBacklog` events behind is cut
// off: its queue is dropped and replaced by one ERROR 410 Expired, which makes client-go relist,
// exactly as a real API server does with a watcher whose buffer is full. The consumer is an HTTP
// thread (which may block in next()) or an executor task (which drains with tryNext() whenever
// setNotify's callback tells it there is something to take).
//
// Events carry shared, immutable documents (ObjectPtr): queueing an event never copies the
// object.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"
#include "fakekube/api/watch_event.h"
#include "fakekube/sim/clock.h"

namespace fakekube {

// The watch parameters of a list request (metav1.ListOptions with watch=true).
struct WatchOptions {
  std::string labelSelector;
  std::string fieldSelector;
  // "" or "0": start with a synthetic ADDED per current object, then live events.
  // "N": only events after revision N (replayed first when N is in the past).
  std::string resourceVersion;
  // "" or "NotOlderThan"; only allowed together with sendInitialEvents.
  std::string resourceVersionMatch;
  // Lets the server send BOOKMARK events (WatchHub::sendBookmarks).
  bool allowWatchBookmarks = false;
  // true: ADDED for every current object, then a BOOKMARK marking the end of the initial state,
  // then live events (requires resourceVersionMatch=NotOlderThan and allowWatchBookmarks).
  // false: no initial state whatever the resourceVersion.
  std::optional<bool> sendInitialEvents;
  // The server ends the watch cleanly (no ERROR) this long after it started; what was queued
  // before stays to be taken. Unset: the watch lasts until stopped.
  std::optional<std::int64_t> timeoutSeconds;
};

// One watcher. Thread-safe: the producer and the consumer may run on different threads.
//
// Created by WatchHub::watch(); the consumer only ever takes events from it. The consumer side
// is a single party: tryNext()/next() are not meant to be called from two threads at once.
class Watch {
 public:
  ~Watch();
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;

  // The oldest queued event, or nullopt when the queue is empty. Never blocks.
  std::optional<WatchEvent> tryNext();

  // Like tryNext(), but waits up to `timeout` for an event. nullopt on timeout, or at once when
  // the watch has ended and everything queued was taken. Blocks the calling thread: for real
  // threads only (the HTTP server), never inside an executor task.
  std::optional<WatchEvent> next(std::chrono::milliseconds timeout);

  // The consumer is done: drops whatever is queued and ends the watch. The hub forgets the
  // watcher the next time it fans out. Safe to call from any thread, more than once.
  void stop();

  // True once the watch has ended (ERROR delivered, stop(), WatchHub::closeAll()) *and* every
  // queued event was taken: no call to tryNext() will ever return an event again. Checking
  // ended() after tryNext() returns nullopt is race-free, so `while (!w.ended()) drain();` never
  // misses the final ERROR.
  bool ended() const;

  // Called with no lock held whenever the queue goes from empty to non-empty, and when the watch
  // ends. It is edge-triggered: after a call, the consumer must keep taking events until
  // tryNext() returns nullopt, or it will not be called again. If events are already queued (or
  // the watch already ended) when it is set, it is called at once from setNotify. It runs on the
  // producer's thread, under the API server's mutex: it must only schedule work (e.g.
  // executor.post), never call back into the API server. May be empty.
  void setNotify(std::function<void()> notify);

  // The resourceVersion of the newest event queued (bookmarks included); before any event, the
  // revision the watch started from. A consumer that resumes after a dropped connection watches
  // again from here.
  std::int64_t lastResourceVersion() const;

  // Ends the watch cleanly once `clock` reaches `deadline` (timeoutSeconds): checked whenever an
  // event arrives or the consumer finds the queue empty, and by expire().
  void setDeadline(const Clock* clock, TimePoint deadline);
  // Ends the watch now if its deadline has passed (the API server's timer calls this, so a
  // consumer waiting for events learns of the end without polling).
  void expire();

 private:
  friend class WatchHub;
  friend class WatchFeed;
  bool pastDeadlineLocked() const;

  // What happened to a pushed event.
  enum class Push { Queued, Overflowed, Closed };

  struct Item {
    WatchEvent event;
    std::int64_t revision = 0;
    // A periodic bookmark that a later one may replace while neither was taken.
    bool coalescable = false;
  };

  Watch(std::size_t maxBacklog, std::int64_t startRevision);

  // --- producer side (the hub) ---
  // Queues an event of `revision`. Past maxBacklog untaken events, the queue is replaced by one
  // ERROR 410 and the watch ends (Overflowed). Closed when the watch had already ended.
  Push push(WatchEventType type, ObjectPtr object, std::int64_t revision);
  // Queues an event of the initial state (an ADDED, or the initial-events-end BOOKMARK). These
  // do not count against maxBacklog: the initial state of a big collection must not make every
  // new watcher overflow, which would turn into an endless relist loop.
  void pushInitial(WatchEventType type, ObjectPtr object, std::int64_t revision);
  // Queues a periodic BOOKMARK, replacing a queued one that was not taken yet.
  Push pushBookmark(ObjectPtr bookmark, std::int64_t revision);
  // Ends the watch; with an error, drops the queue and queues the error as its last event.
  void close(const Status* error);
  // The consumer called stop(): the hub drops the watcher.
  bool stopped() const { return stopped_.load(std::memory_order_relaxed); }

  // Replaces the queue by the ERROR 410 of a watcher that fell behind, and ends the watch.
  void overflowLocked(std::int64_t revision);
  // Unlocks, wakes a thread blocked in next(), and runs the notify callback if `notify`.
  void release(std::unique_lock<std::mutex>& lock, bool notify);

  const std::size_t maxBacklog_;
  std::atomic<bool> stopped_{false};

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  // How many events at the front of queue_ belong to the initial state (not counted against
  // maxBacklog).
  std::size_t initialQueued_ = 0;
  std::int64_t lastQueued_ = 0;  // revision of the newest event queued
  std::int64_t lastTaken_ = 0;   // revision of the newest event taken (for the 410 message)
  bool closed_ = false;
  const Clock* clock_ = nullptr;  // with deadline_, for timeoutSeconds
  TimePoint deadline_{};
  int waiters_ = 0;  // threads blocked in next()
  // Shared so the producer can take a reference under mu_ and call it after unlocking.
  std::shared_ptr<const std::function<void()>> notify_;
  // Set by a WatchFeed: tells the producer that the consumer stopped (run once, by stop()).
  std::function<void()> onStop_;
};

// WatchFeed: the producer end of a Watch whose events come from outside this process's API
// server — a RestClient reading a watch stream over HTTP. The consumer sees the same Watch as
// from ApiServer::watch(), so informers and controllers cannot tell the difference.
class WatchFeed {
 public:
  // A watch that resumes after `startRevision`. `onStop` runs once, on the consumer's thread,
  // when the consumer calls stop(): the producer abandons its source then (closes its socket).
  static std::shared_ptr<Watch> open(std::int64_t startRevision, std::function<void()> onStop,
                                     std::size_t maxBacklog = 10000);
  // Queues an event (a BOOKMARK replaces an untaken one). False once the watch has ended:
  // stopped by the consumer, or cut off after falling maxBacklog events behind.
  static bool push(Watch& watch, WatchEventType type, ObjectPtr object, std::int64_t revision);
  // Ends the watch; with an error, the error becomes its last event (an ERROR event).
  static void close(Watch& watch, const Status* error = nullptr);
  // The consumer called stop().
  static bool stopped(const Watch& watch) { return watch.stopped(); }
};

}  // namespace fakekube
