#include "fakekube/apiserver/internal/watch_hub.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>
#include <utility>

#include "fakekube/api/field_selector.h"
#include "fakekube/api/label_selector.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/apiserver/internal/selection.h"

namespace fakekube {

namespace {

WatchEventType watchTypeOf(EventType type) {
  switch (type) {
    case EventType::Added:
      return WatchEventType::Added;
    case EventType::Modified:
      return WatchEventType::Modified;
    case EventType::Deleted:
      return WatchEventType::Deleted;
  }
  return WatchEventType::Modified;
}

Status invalidWatchOptions(FieldErrors errors) {
  return Status::invalid("meta.k8s.io", "ListOptions", "", errors);
}

// validateWatchOptions (apimachinery's internalversion validation), plus the spec's requirement
// that sendInitialEvents=true comes with allowWatchBookmarks: the initial-events-end marker is a
// bookmark, and a client that cannot receive it would wait forever.
std::optional<Status> validateWatchOptions(const WatchOptions& options) {
  FieldErrors errors;
  const std::string& match = options.resourceVersionMatch;
  if (options.sendInitialEvents.has_value() && match != "NotOlderThan") {
    errors.push_back(FieldError::forbidden(
        "resourceVersionMatch",
        "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
  }
  if (options.sendInitialEvents.value_or(false) && !options.allowWatchBookmarks) {
    errors.push_back(FieldError::forbidden(
        "allowWatchBookmarks", "sendInitialEvents requires setting allowWatchBookmarks to true"));
  }
  if (!match.empty()) {
    if (!options.sendInitialEvents.has_value()) {
      errors.push_back(FieldError::forbidden(
          "resourceVersionMatch",
          "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
    }
    if (match != "NotOlderThan") {
      errors.push_back(FieldError::notSupported("resourceVersionMatch", goQuote(match),
                                                "supported values: \"NotOlderThan\""));
    }
  }
  if (errors.empty()) return std::nullopt;
  return invalidWatchOptions(std::move(errors));
}

// The object stored under `key` at `revision`, or null if there was none.
Result<ObjectPtr> objectAt(const Store& store, const std::string& key, std::int64_t revision) {
  ObjectPtr found;
  // The scan visits keys starting with `key` in order, so the key itself, if present, comes
  // first.
  auto scanned = store.scanAt(key, revision, [&](const std::string& k, const ObjectPtr& object) {
    if (k == key) found = object;
    return false;
  });
  if (!scanned) return tl::unexpected(scanned.error());
  return found;
}

}  // namespace

// What the watchers of one event share, made once whatever their number: the previous state
// stamped with the event's revision, and the documents a converted view (events.k8s.io/v1 over
// the core/v1 Events) shows of the event's object and of that stamped state.
struct WatchHub::SharedCopies {
  ObjectPtr stamped;
  const StorageConversion* convertedBy = nullptr;
  ObjectPtr converted;
  ObjectPtr convertedStamped;

  ObjectPtr served(const StorageConversion* conversion, ObjectPtr object) {
    if (conversion == nullptr) return object;
    if (convertedBy != conversion) {  // another view of the same storage: start over
      convertedBy = conversion;
      converted = nullptr;
      convertedStamped = nullptr;
    }
    ObjectPtr& cached = object == stamped ? convertedStamped : converted;
    if (!cached) cached = std::make_shared<const Json>(conversion->fromStorage(*object));
    return cached;
  }
};

// One registered watcher: its queue and what it asked to see.
struct WatchHub::Watcher {
  std::shared_ptr<Watch> watch;
  // "<group>/<resource>/", plus "<ns>/" for a watch of one namespace: a key filter that needs no
  // look at the object.
  std::string prefix;
  Selection selection;
  bool selective = false;  // labels or fields restrict anything
  bool bookmarks = false;
  // Events at or below this revision were part of the initial state or the replay (or predate a
  // resourceVersion newer than the store).
  std::int64_t after = 0;
  std::string kind;
  std::string apiVersion;
  // A kind served over another's storage: what it shows of each stored object.
  const StorageConversion* conversion = nullptr;
  // The watch ended on the hub's side (overflow); dropped at the next prune.
  bool gone = false;

  bool matches(const Json& object) const { return selection.matches(object); }

  // What this watcher sees of `e`, if anything (the cacheWatcher rules). `stamped` caches, across
  // the watchers of one event, the previous state stamped with the event's revision.
  std::optional<WatchEvent> see(const StoredEvent& e, ObjectPtr& stamped) const {
    if (!std::string_view(e.key).starts_with(prefix)) return std::nullopt;
    if (!selective) return WatchEvent{watchTypeOf(e.type), e.object};
    switch (e.type) {
      case EventType::Added:
        if (matches(*e.object)) return WatchEvent{WatchEventType::Added, e.object};
        return std::nullopt;
      case EventType::Modified: {
        const bool now = matches(*e.object);
        // An unknown previous state (which replay avoids) is taken as unchanged.
        const bool before = e.previous ? matches(*e.previous) : now;
        if (now && before) return WatchEvent{WatchEventType::Modified, e.object};
        if (now) return WatchEvent{WatchEventType::Added, e.object};
        if (!before) return std::nullopt;
        // The watcher last saw the previous state: that is what it is told went away, at this
        // event's resourceVersion. Shared documents are immutable, so stamp a copy.
        if (!stamped) {
          Json copy = *e.previous;
          meta::setResourceVersion(copy, std::to_string(e.revision));
          stamped = std::make_shared<const Json>(std::move(copy));
        }
        return WatchEvent{WatchEventType::Deleted, stamped};
      }
      case EventType::Deleted: {
        // The watcher knows the object if its state before the deletion matched.
        const Json& last = e.previous ? *e.previous : *e.object;
        if (matches(last)) return WatchEvent{WatchEventType::Deleted, e.object};
        return std::nullopt;
      }
    }
    return std::nullopt;
  }

  // Queues what this watcher sees of `e`. False when the watch has ended.
  bool deliver(const StoredEvent& e, SharedCopies& copies) {
    auto seen = see(e, copies.stamped);
    if (!seen) return true;
    ObjectPtr object = copies.served(conversion, std::move(seen->object));
    if (watch->push(seen->type, std::move(object), e.revision) == Watch::Push::Queued) {
      return true;
    }
    gone = true;
    return false;
  }

  ObjectPtr bookmark(std::int64_t revision, bool initialEventsEnd) const {
    Json b = {{"kind", kind},
              {"apiVersion", apiVersion},
              {"metadata", {{"resourceVersion", std::to_string(revision)}}}};
    if (initialEventsEnd) {
      b["metadata"]["annotations"] = {{"k8s.io/initial-events-end", "true"}};
    }
    return std::make_shared<const Json>(std::move(b));
  }
};

WatchHub::WatchHub(std::size_t maxBacklog, std::size_t ringCapacity)
    : maxBacklog_(maxBacklog), ringCapacity_(ringCapacity) {}

WatchHub::~WatchHub() { closeAll(); }

Result<std::shared_ptr<Watch>> WatchHub::watch(
    const ResourceInfo& info, std::string_view ns, const WatchOptions& options, const Store& store,
    const std::function<ObjectPtr(ObjectPtr)>& fromStorage) {
  auto selection = Selection::parse(info, options.labelSelector, options.fieldSelector);
  if (!selection) return tl::unexpected(selection.error());
  if (auto invalid = validateWatchOptions(options)) return tl::unexpected(std::move(*invalid));

  const std::int64_t current = store.revision();
  const std::string& rv = options.resourceVersion;
  const bool fromNow = rv.empty() || rv == "0";
  std::int64_t requested = current;
  if (!fromNow) {
    auto parsed = parseResourceVersion(rv);
    if (!parsed) return tl::unexpected(parsed.error());
    requested = *parsed;
  }
  // Without sendInitialEvents, only a watch from "now" starts with the current state (the
  // legacy list-less watch); sendInitialEvents decides explicitly.
  const bool initialState = options.sendInitialEvents.value_or(fromNow);
  if (initialState && requested > current) {
    // NotOlderThan a revision the store has not reached: the state to send does not exist yet.
    Status s = Status::timeout(
        fmt::format("Too large resource version: {}, current: {}", requested, current), 1);
    s.details.causes.push_back({"ResourceVersionTooLarge", "Too large resource version", ""});
    return tl::unexpected(std::move(s));
  }

  auto w = std::make_unique<Watcher>();
  // A converted view watches the objects where they are stored.
  const std::string resourcePrefix = info.storedGroup() + "/" + info.storedResource() + "/";
  w->prefix = resourcePrefix;
  if (info.namespaced && !ns.empty()) w->prefix.append(ns).append("/");
  w->selection = std::move(*selection);
  w->selective = !w->selection.empty();
  w->bookmarks = options.allowWatchBookmarks;
  w->kind = info.kind;
  w->apiVersion = info.apiVersion();
  w->conversion = info.conversion;
  w->after = std::max(requested, current);
  const std::int64_t start = initialState ? current : requested;
  w->watch = std::shared_ptr<Watch>(new Watch(maxBacklog_, start));

  if (initialState) {
    store.scan(w->prefix, "", [&](const std::string&, const ObjectPtr& object) {
      if (!w->selective || w->matches(*object)) {
        w->watch->pushInitial(WatchEventType::Added, fromStorage ? fromStorage(object) : object,
                              current);
      }
      return true;
    });
    if (options.sendInitialEvents.value_or(false)) {
      w->watch->pushInitial(WatchEventType::Bookmark, w->bookmark(current, true), current);
    }
  } else if (!fromNow && requested < current) {
    if (!replay(*w, requested, current, store)) return w->watch;  // ended: ERROR queued
  }

  std::shared_ptr<Watch> handle = w->watch;
  watchers_[resourcePrefix].push_back(std::move(w));
  return handle;
}

bool WatchHub::replay(Watcher& w, std::int64_t after, std::int64_t current, const Store& store) {
  // Expiry follows the store's compaction mark, whatever the ring still holds, so that whether a
  // resourceVersion is too old does not depend on the hub's memory size.
  if (after < store.compactedRevision()) {
    const Status expired = Status::expired(
        fmt::format("too old resource version: {} ({})", after, store.compactedRevision()));
    w.watch->close(&expired);
    return false;
  }
  if (!ringCovers(after)) return replayFromStore(w, after, current, store);
  auto at = [this](std::size_t i) -> const StoredEvent& {
    return ring_[(ringHead_ + i) % ringCapacity_];
  };
  // Revisions increase along the ring: binary-search the first event after `after`.
  std::size_t lo = 0;
  std::size_t hi = ringSize_;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (at(mid).revision <= after) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  for (std::size_t i = lo; i < ringSize_; ++i) {
    SharedCopies copies;
    if (!w.deliver(at(i), copies)) return false;
  }
  return true;
}

bool WatchHub::replayFromStore(Watcher& w, std::int64_t after, std::int64_t current,
                               const Store& store) {
  // The log is read in batches so that a long replay never holds the whole history; the watch's
  // own backlog bound ends a replay that is too long to queue.
  constexpr std::size_t kBatch = 1024;
  // Events read back from the database carry no previous state, which the selector rules need:
  // track each replayed key's state, starting from its state at `after`.
  std::unordered_map<std::string, ObjectPtr> latest;
  std::int64_t cursor = after;
  while (cursor < current) {
    auto events = store.eventsSince(cursor, kBatch);
    if (!events) {
      // Compacted past `after`: the 410 Expired ERROR event, then the end.
      w.watch->close(&events.error());
      return false;
    }
    if (events->empty()) break;
    for (StoredEvent& e : *events) {
      cursor = e.revision;
      if (!std::string_view(e.key).starts_with(w.prefix)) continue;
      if (w.selective) {
        if (e.type != EventType::Added && !e.previous) {
          auto known = latest.find(e.key);
          if (known != latest.end()) {
            e.previous = known->second;
          } else {
            auto before = objectAt(store, e.key, after);
            if (!before) {
              w.watch->close(&before.error());
              return false;
            }
            e.previous = std::move(*before);
          }
        }
        latest[e.key] = e.type == EventType::Deleted ? nullptr : e.object;
      }
      SharedCopies copies;
      if (!w.deliver(e, copies)) return false;
    }
  }
  return true;
}

void WatchHub::onEvent(const StoredEvent& event) {
  remember(event);
  // The resource part of the key, "<group>/<resource>/".
  const std::size_t first = event.key.find('/');
  if (first == std::string::npos) return;
  const std::size_t second = event.key.find('/', first + 1);
  if (second == std::string::npos) return;
  auto it = watchers_.find(std::string_view(event.key).substr(0, second + 1));
  if (it == watchers_.end()) return;

  SharedCopies copies;
  bool prune = false;
  for (auto& w : it->second) {
    if (w->watch->stopped()) {
      prune = true;
      continue;
    }
    if (event.revision <= w->after) continue;
    if (!w->deliver(event, copies)) prune = true;
  }
  if (prune) {
    std::erase_if(it->second, [](const auto& w) { return w->gone || w->watch->stopped(); });
  }
}

void WatchHub::sendBookmarks(std::int64_t revision) {
  for (auto& [resource, watchers] : watchers_) {
    // Every watcher of a resource gets the same document, unless the kind's served version
    // changed between their starts.
    ObjectPtr bookmark;
    const Watcher* madeFor = nullptr;
    bool prune = false;
    for (auto& w : watchers) {
      if (w->watch->stopped()) {
        prune = true;
        continue;
      }
      if (!w->bookmarks || revision < w->after) continue;
      if (!bookmark || madeFor->kind != w->kind || madeFor->apiVersion != w->apiVersion) {
        bookmark = w->bookmark(revision, false);
        madeFor = w.get();
      }
      if (w->watch->pushBookmark(bookmark, revision) != Watch::Push::Queued) {
        w->gone = true;
        prune = true;
      }
    }
    if (prune) {
      std::erase_if(watchers, [](const auto& w) { return w->gone || w->watch->stopped(); });
    }
  }
}

void WatchHub::closeAll() {
  for (auto& [resource, watchers] : watchers_) {
    for (auto& w : watchers) w->watch->close(nullptr);
  }
  watchers_.clear();
}

std::size_t WatchHub::closeWatches(const ResourceInfo& info, const Status* error) {
  auto it = watchers_.find(info.storedGroup() + "/" + info.storedResource() + "/");
  if (it == watchers_.end()) return 0;
  std::size_t n = 0;
  for (auto& w : it->second) {
    if (w->gone || w->watch->stopped()) continue;
    w->watch->close(error);
    w->gone = true;
    ++n;
  }
  std::erase_if(it->second, [](const auto& w) { return w->gone || w->watch->stopped(); });
  return n;
}

std::size_t WatchHub::watcherCount() const {
  std::size_t n = 0;
  for (const auto& [resource, watchers] : watchers_) {
    for (const auto& w : watchers) {
      if (!w->gone && !w->watch->stopped()) ++n;
    }
  }
  return n;
}

void WatchHub::remember(const StoredEvent& event) {
  if (ringCapacity_ == 0) return;
  if (ringFloor_ < 0) ringFloor_ = event.revision - 1;
  StoredEvent* slot;
  if (ringSize_ == ringCapacity_) {
    // Full: the oldest event leaves, and with it the ability to replay from before it.
    slot = &ring_[ringHead_];
    ringFloor_ = slot->revision;
    ringHead_ = (ringHead_ + 1) % ringCapacity_;
  } else {
    // Still filling: the ring only grows until it is full, so the head is slot 0.
    slot = &ring_.emplace_back();
    ++ringSize_;
  }
  slot->revision = event.revision;
  slot->type = event.type;
  slot->key.assign(event.key);  // reuses the slot's buffer once the ring has wrapped
  slot->object = event.object;
  slot->previous = event.previous;
}

bool WatchHub::ringCovers(std::int64_t after) const {
  return ringFloor_ >= 0 && after >= ringFloor_;
}

}  // namespace fakekube
