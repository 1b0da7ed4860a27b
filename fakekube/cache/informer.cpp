#include "fakekube/cache/informer.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"

namespace fakekube {
namespace {

using namespace std::chrono_literals;

// A failed list or watch call is retried after this, doubling up to the maximum (client-go's
// reflector backs off the same way).
constexpr Duration kInitialRetry = 1s;
constexpr Duration kMaxRetry = 30s;

std::vector<std::string> namespaceIndexFunc(const Json& object) {
  std::string ns = meta::namespace_(object);
  if (ns.empty()) return {};
  return {std::move(ns)};
}

std::vector<std::string> ownerUidIndexFunc(const Json& object) {
  std::vector<std::string> uids;
  for (const auto& ref : meta::ownerReferenceViews(object)) {
    if (!ref.uid.empty()) uids.emplace_back(ref.uid);
  }
  return uids;
}

std::vector<std::string> labelIndexFunc(const Json& object) {
  std::vector<std::string> values;
  const Json& labels = meta::labels(object);
  if (!labels.is_object()) return values;
  for (const auto& [key, value] : labels.items()) {
    if (value.is_string()) values.push_back(key + "=" + value.get<std::string>());
  }
  return values;
}

// How many handler calls the current thread is inside (of any informer). A read from a handler
// does not catch up: applying later events in the middle of reporting one would hand the other
// handlers the changes out of order.
thread_local int handlerDepth = 0;

struct HandlerScope {
  HandlerScope() { ++handlerDepth; }
  ~HandlerScope() { --handlerDepth; }
  HandlerScope(const HandlerScope&) = delete;
  HandlerScope& operator=(const HandlerScope&) = delete;
};

}  // namespace

struct Informer::State : std::enable_shared_from_this<State> {
  State(Client& client, Executor& executor, GroupVersionResource gvr, InformerOptions options)
      : client(client),
        executor(executor),
        gvr(std::move(gvr)),
        options(std::move(options)),
        delay(this->options.deliveryDelay) {}

  Client& client;
  Executor& executor;
  const GroupVersionResource gvr;
  const InformerOptions options;

  // Held by every task that changes the store and calls handlers, so that changes are applied
  // and reported one at a time and in order. Recursive because a handler may make the informer
  // sync (a Cache reading through it) while a task holds it.
  std::recursive_mutex processMu;

  // Guards everything below. Never held while calling a handler or the client.
  mutable std::mutex mu;
  struct Index {
    IndexFunc fn;
    std::map<std::string, std::set<std::string>, std::less<>> keysByValue;
    // The metadata member the index's values are made from (built-in indexes only; "" for one
    // added through addIndexer): an update that leaves it equal leaves the values as they were,
    // so the index function need not run.
    std::string_view metadataMember;
    // The path of the one member the values are made from (addIndexer's `reads`), or empty.
    std::vector<std::string> reads;
  };
  std::map<std::string, ObjectPtr, std::less<>> items;
  std::map<std::string, Index, std::less<>> indexes;
  std::vector<std::shared_ptr<const ResourceEventHandler>> handlers;
  bool started = false;
  bool stopped = false;
  bool synced = false;
  std::string lastResourceVersion;
  std::string listKind;
  std::uint64_t lists = 0;
  Duration delay;

  // The watch and the events taken from it that wait for their delivery time. An entry without
  // an event stands for "the watch is over: list and watch again", queued behind the events that
  // came before it.
  std::shared_ptr<Watch> watch;
  // Set by the watch's notification, cleared when a drain starts taking its events: events are
  // signalled that the informer has not taken yet.
  std::atomic<bool> notified{false};
  bool restartQueued = false;
  struct Pending {
    TimePoint due;
    std::optional<WatchEvent> event;
  };
  std::deque<Pending> pending;
  std::optional<TimerId> deliveryTimer;
  std::optional<TimerId> retryTimer;
  Duration retryBackoff = kInitialRetry;

  // One change applied to the store, to report to the handlers.
  struct Change {
    enum class Type { Add, Update, Delete } type;
    ObjectPtr oldObject;
    ObjectPtr newObject;
  };

  // --- tasks (each posts itself through a weak pointer: the informer may be gone) ---

  template <class Fn>
  Task task(Fn fn) {
    return [weak = weak_from_this(), fn]() {
      if (auto self = weak.lock()) fn(*self);
    };
  }

  void initialSync() {
    std::lock_guard process(processMu);
    {
      std::lock_guard lock(mu);
      if (stopped || synced) return;
    }
    (void)relist();
  }

  // Lists, replaces the store with the answer and watches from its resourceVersion; answers the
  // list's error (a retry is then scheduled). The caller holds processMu.
  Result<void> relist() {
    {
      std::lock_guard lock(mu);
      if (stopped) return {};
      if (retryTimer) executor.cancel(*retryTimer);
      retryTimer.reset();
    }
    ListOptions listOptions;
    listOptions.labelSelector = options.labelSelector;
    listOptions.fieldSelector = options.fieldSelector;
    auto listed = client.listShared(gvr, options.namespace_, listOptions);
    if (!listed) {
      scheduleRetry();
      return tl::unexpected(std::move(listed.error()));
    }
    std::map<std::string, ObjectPtr, std::less<>> fresh;
    for (auto& item : listed->items) {
      std::string key = meta::namespacedName(*item);
      fresh.emplace_hint(fresh.end(), std::move(key), std::move(item));
    }

    std::vector<Change> changes;
    std::vector<std::shared_ptr<const ResourceEventHandler>> toNotify;
    {
      std::lock_guard lock(mu);
      if (stopped) return {};
      const bool report = !handlers.empty();
      // Adds and updates in list order, then deletions, as a reflector's Replace reports them.
      for (auto& [key, object] : fresh) {
        auto it = items.find(key);
        if (it == items.end()) {
          indexLocked(key, nullptr, object);
          if (report) changes.push_back({Change::Type::Add, nullptr, object});
        } else if (meta::resourceVersion(*it->second) != meta::resourceVersion(*object)) {
          indexLocked(key, it->second, object);
          if (report) changes.push_back({Change::Type::Update, it->second, object});
        } else {
          // Unchanged: keep the document already handed out so pointers stay stable.
          object = it->second;
        }
      }
      for (const auto& [key, object] : items) {
        if (fresh.count(key) != 0) continue;
        indexLocked(key, object, nullptr);
        if (report) changes.push_back({Change::Type::Delete, object, nullptr});
      }
      items = std::move(fresh);
      synced = true;
      ++lists;
      lastResourceVersion = listed->resourceVersion;
      listKind = listed->kind;
      retryBackoff = kInitialRetry;
      toNotify = handlers;
    }
    notify(toNotify, changes);
    openWatch(listed->resourceVersion);
    return {};
  }

  void openWatch(const std::string& resourceVersion) {
    WatchOptions watchOptions;
    watchOptions.labelSelector = options.labelSelector;
    watchOptions.fieldSelector = options.fieldSelector;
    watchOptions.resourceVersion = resourceVersion;
    watchOptions.allowWatchBookmarks = true;
    auto opened = client.watch(gvr, options.namespace_, watchOptions);
    if (!opened) {
      scheduleRetry();
      return;
    }
    std::shared_ptr<Watch> previous;
    {
      std::lock_guard lock(mu);
      if (stopped) {
        (*opened)->stop();
        return;
      }
      previous = std::exchange(watch, *opened);
      restartQueued = false;
    }
    if (previous) previous->stop();
    // Runs under the API server's mutex: it may only post.
    (*opened)->setNotify([weak = weak_from_this()]() {
      if (auto self = weak.lock()) {
        self->notified.store(true);
        self->executor.post(self->task([](State& s) { s.drain(); }));
      }
    });
  }

  void scheduleRetry() {
    std::lock_guard lock(mu);
    if (stopped || retryTimer) return;
    retryTimer = executor.postAfter(retryBackoff, task([](State& s) {
                                      std::lock_guard process(s.processMu);
                                      {
                                        std::lock_guard lock(s.mu);
                                        s.retryTimer.reset();
                                      }
                                      (void)s.relist();
                                    }));
    retryBackoff = std::min(retryBackoff * 2, kMaxRetry);
  }

  // Takes every queued event of the current watch into the delivery queue.
  void drain() {
    std::lock_guard process(processMu);
    bool deliverNow = false;
    {
      std::lock_guard lock(mu);
      notified.store(false);
      if (stopped || !watch) return;
      const TimePoint now = executor.now();
      auto enqueue = [&](std::optional<WatchEvent> event) {
        TimePoint due = now + delay;
        if (!pending.empty()) due = std::max(due, pending.back().due);
        pending.push_back({due, std::move(event)});
      };
      while (auto event = watch->tryNext()) {
        if (event->type == WatchEventType::Error) {
          // 410 Expired/Gone (or any other error): the stream is over; start again from a list.
          if (!restartQueued) enqueue(std::nullopt);
          restartQueued = true;
          continue;
        }
        if (restartQueued) continue;  // nothing after the end counts
        enqueue(std::move(event));
      }
      if (watch->ended() && !restartQueued) {
        restartQueued = true;
        enqueue(std::nullopt);
      }
      if (pending.empty()) return;
      if (pending.front().due <= now) {
        deliverNow = true;
      } else if (!deliveryTimer) {
        scheduleDeliveryLocked(now);
      }
    }
    if (deliverNow) deliverDue();
  }

  // catchUpOnRead: before a read, applies the events that are due, unless called from a handler.
  void catchUp() {
    if (!options.catchUpOnRead || handlerDepth > 0) return;
    if (!notified.load()) {
      std::lock_guard lock(mu);
      if (pending.empty() || pending.front().due > executor.now()) return;
    }
    drain();
  }

  void scheduleDeliveryLocked(TimePoint now) {
    deliveryTimer = executor.postAfter(pending.front().due - now, task([](State& s) {
                                         {
                                           std::lock_guard lock(s.mu);
                                           s.deliveryTimer.reset();
                                         }
                                         s.deliverDue();
                                       }));
  }

  // Applies every queued event whose delivery time has come, in order.
  void deliverDue() {
    std::lock_guard process(processMu);
    for (;;) {
      std::optional<WatchEvent> event;
      {
        std::lock_guard lock(mu);
        if (stopped || pending.empty()) return;
        const TimePoint now = executor.now();
        if (pending.front().due > now) {
          if (!deliveryTimer) scheduleDeliveryLocked(now);
          return;
        }
        event = std::move(pending.front().event);
        pending.pop_front();
      }
      if (event) {
        apply(*event);
      } else {
        (void)relist();
      }
    }
  }

  void apply(const WatchEvent& event) {
    if (!event.object) return;
    const Json& object = *event.object;
    std::vector<Change> changes;
    std::vector<std::shared_ptr<const ResourceEventHandler>> toNotify;
    {
      std::lock_guard lock(mu);
      if (stopped) return;
      std::string rv = meta::resourceVersion(object);
      if (!rv.empty()) lastResourceVersion = std::move(rv);
      if (event.type == WatchEventType::Bookmark) return;
      std::string key = meta::namespacedName(object);
      auto it = items.find(key);
      if (event.type == WatchEventType::Deleted) {
        if (it == items.end()) return;
        indexLocked(key, it->second, nullptr);
        items.erase(it);
        changes.push_back({Change::Type::Delete, nullptr, event.object});
      } else if (it == items.end()) {
        indexLocked(key, nullptr, event.object);
        items.emplace(std::move(key), event.object);
        changes.push_back({Change::Type::Add, nullptr, event.object});
      } else {
        ObjectPtr old = std::exchange(it->second, event.object);
        indexLocked(key, old, event.object);
        changes.push_back({Change::Type::Update, std::move(old), event.object});
      }
      toNotify = handlers;
    }
    notify(toNotify, changes);
  }

  static void notify(const std::vector<std::shared_ptr<const ResourceEventHandler>>& handlers,
                     const std::vector<Change>& changes) {
    const HandlerScope inHandlers;
    for (const auto& change : changes) {
      for (const auto& h : handlers) {
        switch (change.type) {
          case Change::Type::Add:
            if (h->onAdd) h->onAdd(change.newObject);
            break;
          case Change::Type::Update:
            if (h->onUpdate) h->onUpdate(change.oldObject, change.newObject);
            break;
          case Change::Type::Delete:
            if (h->onDelete) h->onDelete(change.newObject ? change.newObject : change.oldObject);
            break;
        }
      }
    }
  }

  // Moves `key` from the index values of `before` to those of `after` (either may be null). An
  // update that leaves an index's values as they were (a status write: same labels, same owners)
  // touches nothing in it.
  void indexLocked(const std::string& key, const ObjectPtr& before, const ObjectPtr& after) {
    // An update's two metadata objects, found once for every index that reads only a member.
    const Json* beforeMetadata = before && after ? &jsonAt(*before, {"metadata"}) : nullptr;
    const Json* afterMetadata = before && after ? &jsonAt(*after, {"metadata"}) : nullptr;
    for (auto& [name, index] : indexes) {
      if (beforeMetadata != nullptr && !index.metadataMember.empty() &&
          jsonAt(*beforeMetadata, {index.metadataMember}) ==
              jsonAt(*afterMetadata, {index.metadataMember})) {
        continue;
      }
      if (before && after && !index.reads.empty() &&
          sameJson(jsonAt(*before, index.reads), jsonAt(*after, index.reads))) {
        continue;
      }
      std::vector<std::string> beforeValues;
      std::vector<std::string> afterValues;
      if (before) beforeValues = index.fn(*before);
      if (after) afterValues = index.fn(*after);
      if (before && after && beforeValues == afterValues) continue;
      for (const auto& value : beforeValues) {
        if (std::find(afterValues.begin(), afterValues.end(), value) != afterValues.end()) continue;
        auto it = index.keysByValue.find(value);
        if (it == index.keysByValue.end()) continue;
        it->second.erase(key);
        if (it->second.empty()) index.keysByValue.erase(it);
      }
      for (auto& value : afterValues) {
        if (std::find(beforeValues.begin(), beforeValues.end(), value) != beforeValues.end()) {
          continue;
        }
        // A relist files keys in key order: the end hint makes that a constant-time append.
        auto& keys = index.keysByValue[std::move(value)];
        keys.insert(keys.end(), key);
      }
    }
  }
};

Informer::Informer(Client& client, Executor& executor, GroupVersionResource gvr,
                   InformerOptions options)
    : gvr_(gvr),
      options_(options),
      state_(std::make_shared<State>(client, executor, gvr, options)) {
  if (!options_.defaultIndexes) return;
  addIndexer(std::string(kNamespaceIndex), namespaceIndexFunc);
  addIndexer(std::string(kOwnerUidIndex), ownerUidIndexFunc);
  addIndexer(std::string(kLabelIndex), labelIndexFunc);
  // Most updates (status writes) keep these members: their indexes are then left alone.
  state_->indexes.find(kNamespaceIndex)->second.metadataMember = "namespace";
  state_->indexes.find(kOwnerUidIndex)->second.metadataMember = "ownerReferences";
  state_->indexes.find(kLabelIndex)->second.metadataMember = "labels";
}

Informer::~Informer() { stop(); }

void Informer::start() {
  {
    std::lock_guard lock(state_->mu);
    if (state_->started || state_->stopped) return;
    state_->started = true;
  }
  state_->executor.post(state_->task([](State& s) { s.initialSync(); }));
}

Result<void> Informer::syncNow() {
  if (hasSynced()) return {};
  std::lock_guard process(state_->processMu);
  {
    std::lock_guard lock(state_->mu);
    if (state_->synced) return {};
    if (state_->stopped) {
      return tl::unexpected(Status::serviceUnavailable(
          "the informer for " + gvr_.groupResource().str() + " is stopped and never synced"));
    }
    state_->started = true;
  }
  return state_->relist();
}

void Informer::stop() {
  std::shared_ptr<Watch> watch;
  {
    std::lock_guard lock(state_->mu);
    if (state_->stopped) return;
    state_->stopped = true;
    watch = std::move(state_->watch);
    if (state_->deliveryTimer) state_->executor.cancel(*state_->deliveryTimer);
    if (state_->retryTimer) state_->executor.cancel(*state_->retryTimer);
    state_->deliveryTimer.reset();
    state_->retryTimer.reset();
    state_->pending.clear();
  }
  if (watch) watch->stop();
}

void Informer::deliverQueuedEvents() { state_->drain(); }

bool Informer::hasPendingEvents() const {
  std::lock_guard lock(state_->mu);
  if (state_->stopped) return false;
  return state_->notified.load() || !state_->pending.empty();
}

bool Informer::hasSynced() const {
  std::lock_guard lock(state_->mu);
  return state_->synced;
}

void Informer::addEventHandler(ResourceEventHandler handler) {
  auto shared = std::make_shared<const ResourceEventHandler>(std::move(handler));
  {
    std::lock_guard lock(state_->mu);
    if (!state_->started) {
      state_->handlers.push_back(std::move(shared));
      return;
    }
  }
  // Started: register it between two changes, and tell it about what is already cached.
  state_->executor.post(state_->task([shared](State& s) {
    std::lock_guard process(s.processMu);
    std::vector<ObjectPtr> existing;
    {
      std::lock_guard lock(s.mu);
      s.handlers.push_back(shared);
      existing.reserve(s.items.size());
      for (const auto& [key, object] : s.items) existing.push_back(object);
    }
    if (shared->onAdd) {
      const HandlerScope inHandlers;
      for (const auto& object : existing) shared->onAdd(object);
    }
  }));
}

void Informer::addIndexer(std::string name, IndexFunc fn) {
  addIndexer(std::move(name), std::move(fn), {});
}

void Informer::addIndexer(std::string name, IndexFunc fn, std::vector<std::string> reads) {
  std::lock_guard lock(state_->mu);
  State::Index index{std::move(fn), {}};
  index.reads = std::move(reads);
  for (const auto& [key, object] : state_->items) {
    for (auto& value : index.fn(*object)) index.keysByValue[std::move(value)].insert(key);
  }
  state_->indexes.insert_or_assign(std::move(name), std::move(index));
}

std::vector<ObjectPtr> Informer::byIndex(std::string_view name, std::string_view value) const {
  state_->catchUp();
  std::lock_guard lock(state_->mu);
  std::vector<ObjectPtr> out;
  auto index = state_->indexes.find(name);
  if (index == state_->indexes.end()) return out;
  auto keys = index->second.keysByValue.find(value);
  if (keys == index->second.keysByValue.end()) return out;
  out.reserve(keys->second.size());
  for (const auto& key : keys->second) {
    auto it = state_->items.find(key);
    if (it != state_->items.end()) out.push_back(it->second);
  }
  return out;
}

std::size_t Informer::countByIndex(std::string_view name, std::string_view value) const {
  state_->catchUp();
  std::lock_guard lock(state_->mu);
  auto index = state_->indexes.find(name);
  if (index == state_->indexes.end()) return 0;
  auto keys = index->second.keysByValue.find(value);
  return keys == index->second.keysByValue.end() ? 0 : keys->second.size();
}

std::vector<std::string> Informer::indexValues(std::string_view name,
                                               std::string_view prefix) const {
  state_->catchUp();
  std::lock_guard lock(state_->mu);
  std::vector<std::string> out;
  auto index = state_->indexes.find(name);
  if (index == state_->indexes.end()) return out;
  const auto& keysByValue = index->second.keysByValue;
  for (auto it = keysByValue.lower_bound(prefix);
       it != keysByValue.end() && std::string_view(it->first).substr(0, prefix.size()) == prefix;
       ++it) {
    out.push_back(it->first);
  }
  return out;
}

ObjectPtr Informer::get(std::string_view key) const {
  state_->catchUp();
  std::lock_guard lock(state_->mu);
  auto it = state_->items.find(key);
  return it == state_->items.end() ? nullptr : it->second;
}

std::vector<ObjectPtr> Informer::list() const {
  state_->catchUp();
  std::lock_guard lock(state_->mu);
  std::vector<ObjectPtr> out;
  out.reserve(state_->items.size());
  for (const auto& [key, object] : state_->items) out.push_back(object);
  return out;
}

std::size_t Informer::size() const {
  state_->catchUp();
  std::lock_guard lock(state_->mu);
  return state_->items.size();
}

std::string Informer::lastSyncResourceVersion() const {
  std::lock_guard lock(state_->mu);
  return state_->lastResourceVersion;
}

std::string Informer::listKind() const {
  std::lock_guard lock(state_->mu);
  return state_->listKind;
}

void Informer::setDeliveryDelay(Duration delay) {
  std::lock_guard lock(state_->mu);
  state_->delay = delay;
}

std::uint64_t Informer::listCount() const {
  std::lock_guard lock(state_->mu);
  return state_->lists;
}

}  // namespace fakekube
