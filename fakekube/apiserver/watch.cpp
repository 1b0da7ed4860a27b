#include "fakekube/apiserver/watch.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

namespace fakekube {

Watch::Watch(std::size_t maxBacklog, std::int64_t startRevision)
    : maxBacklog_(std::max<std::size_t>(1, maxBacklog)),
      lastQueued_(startRevision),
      lastTaken_(startRevision) {}

Watch::~Watch() = default;

bool Watch::pastDeadlineLocked() const { return clock_ != nullptr && clock_->now() >= deadline_; }

void Watch::setDeadline(const Clock* clock, TimePoint deadline) {
  std::lock_guard lock(mu_);
  clock_ = clock;
  deadline_ = deadline;
}

void Watch::expire() {
  std::unique_lock lock(mu_);
  if (closed_ || !pastDeadlineLocked()) return;
  closed_ = true;
  release(lock, /*notify=*/true);
}

std::optional<WatchEvent> Watch::tryNext() {
  std::unique_lock lock(mu_);
  if (queue_.empty()) {
    if (!closed_ && pastDeadlineLocked()) {
      closed_ = true;
      release(lock, /*notify=*/false);
    }
    return std::nullopt;
  }
  Item& item = queue_.front();
  WatchEvent event = std::move(item.event);
  lastTaken_ = item.revision;
  queue_.pop_front();
  if (initialQueued_ > 0) --initialQueued_;
  return event;
}

std::optional<WatchEvent> Watch::next(std::chrono::milliseconds timeout) {
  {
    std::unique_lock lock(mu_);
    if (queue_.empty() && !closed_) {
      ++waiters_;
      cv_.wait_for(lock, timeout, [this] { return !queue_.empty() || closed_; });
      --waiters_;
    }
  }
  // Only this consumer takes events, so what the wait saw is still queued.
  return tryNext();
}

void Watch::stop() {
  std::unique_lock lock(mu_);
  const bool first = !stopped_.exchange(true, std::memory_order_relaxed);
  queue_.clear();
  initialQueued_ = 0;
  closed_ = true;
  std::function<void()> onStop = first ? std::move(onStop_) : nullptr;
  // The consumer itself asked: wake a blocked next(), but do not ask it to drain.
  release(lock, /*notify=*/false);
  if (onStop) onStop();
}

bool Watch::ended() const {
  std::lock_guard lock(mu_);
  return closed_ && queue_.empty();
}

void Watch::setNotify(std::function<void()> notify) {
  std::unique_lock lock(mu_);
  notify_ = notify ? std::make_shared<const std::function<void()>>(std::move(notify)) : nullptr;
  // Events queued before the consumer could set the callback (the initial state, a replay, an
  // ERROR) would otherwise never be announced.
  const bool pending = !queue_.empty() || (closed_ && !stopped());
  release(lock, pending);
}

std::int64_t Watch::lastResourceVersion() const {
  std::lock_guard lock(mu_);
  return lastQueued_;
}

Watch::Push Watch::push(WatchEventType type, ObjectPtr object, std::int64_t revision) {
  std::unique_lock lock(mu_);
  if (closed_) return Push::Closed;
  if (pastDeadlineLocked()) {  // timed out: the stream is over, later events are not sent
    closed_ = true;
    release(lock, /*notify=*/true);
    return Push::Closed;
  }
  if (queue_.size() - initialQueued_ >= maxBacklog_) {
    overflowLocked(revision);
    release(lock, /*notify=*/true);
    return Push::Overflowed;
  }
  const bool wasEmpty = queue_.empty();
  queue_.push_back(Item{WatchEvent{type, std::move(object)}, revision, false});
  lastQueued_ = revision;
  release(lock, wasEmpty);
  return Push::Queued;
}

void Watch::pushInitial(WatchEventType type, ObjectPtr object, std::int64_t revision) {
  std::unique_lock lock(mu_);
  if (closed_) return;
  const bool wasEmpty = queue_.empty();
  queue_.push_back(Item{WatchEvent{type, std::move(object)}, revision, false});
  ++initialQueued_;
  lastQueued_ = revision;
  release(lock, wasEmpty);
}

Watch::Push Watch::pushBookmark(ObjectPtr bookmark, std::int64_t revision) {
  std::unique_lock lock(mu_);
  if (closed_) return Push::Closed;
  // A bookmark behind what was queued would move the consumer's resume point backwards.
  if (revision < lastQueued_) return Push::Queued;
  // An untaken bookmark says nothing the newer one does not: replace it, so an idle consumer's
  // queue does not grow with bookmarks.
  if (!queue_.empty() && queue_.back().coalescable) {
    queue_.back().event.object = std::move(bookmark);
    queue_.back().revision = revision;
    lastQueued_ = revision;
    return Push::Queued;
  }
  if (queue_.size() - initialQueued_ >= maxBacklog_) {
    overflowLocked(revision);
    release(lock, /*notify=*/true);
    return Push::Overflowed;
  }
  const bool wasEmpty = queue_.empty();
  queue_.push_back(Item{WatchEvent{WatchEventType::Bookmark, std::move(bookmark)}, revision, true});
  lastQueued_ = revision;
  release(lock, wasEmpty);
  return Push::Queued;
}

void Watch::close(const Status* error) {
  std::unique_lock lock(mu_);
  if (closed_) return;
  if (error != nullptr) {
    queue_.clear();
    initialQueued_ = 0;
    queue_.push_back(
        Item{WatchEvent{WatchEventType::Error, std::make_shared<const Json>(error->toJson())},
             lastQueued_, false});
  }
  closed_ = true;
  release(lock, /*notify=*/true);
}

void Watch::overflowLocked(std::int64_t revision) {
  // What a client would have to resume from versus where the server is: the same shape as the
  // compaction error, and the same reaction (relist).
  const Status expired =
      Status::expired(fmt::format("too old resource version: {} ({})", lastTaken_, revision));
  queue_.clear();
  initialQueued_ = 0;
  queue_.push_back(
      Item{WatchEvent{WatchEventType::Error, std::make_shared<const Json>(expired.toJson())},
           lastQueued_, false});
  closed_ = true;
}

void Watch::release(std::unique_lock<std::mutex>& lock, bool notify) {
  std::shared_ptr<const std::function<void()>> callback;
  if (notify) callback = notify_;
  const bool waiting = waiters_ > 0;
  lock.unlock();
  if (waiting) cv_.notify_all();
  if (callback && *callback) (*callback)();
}

std::shared_ptr<Watch> WatchFeed::open(std::int64_t startRevision, std::function<void()> onStop,
                                       std::size_t maxBacklog) {
  std::shared_ptr<Watch> watch(new Watch(maxBacklog, startRevision));
  watch->onStop_ = std::move(onStop);
  return watch;
}

bool WatchFeed::push(Watch& watch, WatchEventType type, ObjectPtr object, std::int64_t revision) {
  if (type == WatchEventType::Bookmark) {
    return watch.pushBookmark(std::move(object), revision) == Watch::Push::Queued;
  }
  return watch.push(type, std::move(object), revision) == Watch::Push::Queued;
}

void WatchFeed::close(Watch& watch, const Status* error) { watch.close(error); }

}  // namespace fakekube
