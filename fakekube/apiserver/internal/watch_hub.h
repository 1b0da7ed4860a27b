// WatchHub: fans the store's committed events out to every open watch, as the API server's watch
// cache does.
//
// The store calls onEvent() after every write (Store::setObserver). The hub keeps the most recent
// `ringCapacity` events in memory, so a watch resumed from a recent resourceVersion replays from
// memory; an older one replays from the store's event log, and one older than the store's
// compaction mark gets the 410 Expired ERROR event that makes clients relist.
//
// Per watcher, an event is filtered by resource, namespace and selectors, and turned into what
// the watcher must see (Kubernetes' cacheWatcher rules): an object that starts matching a
// selector arrives as ADDED, one that stops matching as DELETED carrying its previous state.
// Fan-out shares the stored documents; the only copy made is that previous state, stamped with
// the event's resourceVersion, once per event whatever the number of watchers. A watcher of a kind
// served over another's storage (events.k8s.io/v1 Event) is registered with the stored kind's
// watchers, selects on the stored objects and is shown each one converted, once per event.
//
// Writers never wait for a watcher: each Watch is a bounded queue that ends with 410 Expired
// when its consumer falls more than `maxBacklog` events behind.
//
// Not thread-safe: the API server owns the hub and calls it under its mutex, in the same order as
// the store's writes. The Watch handles it returns are thread-safe and may outlive the hub.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/resource_registry.h"
#include "fakekube/api/status.h"
#include "fakekube/apiserver/watch.h"
#include "fakekube/store/internal/store.h"

namespace fakekube {

class WatchHub {
 public:
  // maxBacklog: untaken events a watcher may have before it is ended with 410 (the initial
  // state of an RV-0 or sendInitialEvents watch does not count). ringCapacity: how many recent
  // events are kept for resuming watches without reading the store (0 = always read the store).
  explicit WatchHub(std::size_t maxBacklog = 10000, std::size_t ringCapacity = 10000);
  ~WatchHub();
  WatchHub(const WatchHub&) = delete;
  WatchHub& operator=(const WatchHub&) = delete;

  // Starts a watch of `info`'s objects in namespace `ns` ("" = all namespaces; ignored for
  // cluster-scoped kinds), reading the initial state or the events to replay from `store`.
  //
  //   resourceVersion "" or "0"   ADDED for every current matching object (key order), then live
  //   resourceVersion N           every matching event after N, in revision order, exactly once;
  //                               N newer than the store: live events after N only
  //   sendInitialEvents=true      ADDED for every current matching object, a BOOKMARK annotated
  //                               k8s.io/initial-events-end at the current revision, then live
  //   sendInitialEvents=false     no initial state: live (or replayed after N) events only
  //
  // Errors: 400 for a bad selector, `field label not supported: <label>` or a malformed
  // resourceVersion; 422 (ListOptions.meta.k8s.io) for invalid combinations of
  // sendInitialEvents, resourceVersionMatch and allowWatchBookmarks; 504 for sendInitialEvents
  // with a resourceVersion newer than the store. A resourceVersion older than the compaction
  // mark is not an error: the watch starts with one ERROR event, 410 Expired
  // `too old resource version: N (M)`, and ends.
  //
  // `fromStorage`, when given, turns each object of the initial state into what the watcher is
  // shown (the API server decodes custom resources stored under an older schema).
  Result<std::shared_ptr<Watch>> watch(const ResourceInfo& info, std::string_view ns,
                                       const WatchOptions& options, const Store& store,
                                       const std::function<ObjectPtr(ObjectPtr)>& fromStorage = {});

  // Delivers one committed store event (wire Store::setObserver here). Never blocks.
  void onEvent(const StoredEvent& event);

  // Queues a BOOKMARK at `revision` (normally the store's current revision) for every watcher
  // that allowed bookmarks. An untaken bookmark is replaced rather than queued behind.
  void sendBookmarks(std::int64_t revision);

  // Ends every watch (server shutdown): consumers drain what is queued, then see ended().
  void closeAll();

  // Ends every open watch of `info`'s objects (of every view of their storage: closing the
  // events.k8s.io/v1 Event watches closes the core/v1 ones too), as a dropped connection or a
  // restarted API server would: without `error` the stream just ends (what was queued stays to be
  // taken); with one (410 Expired) the queue is replaced by that ERROR event. A test hook for watch
  // faults: an informer lists again either way. Answers how many watches it ended.
  std::size_t closeWatches(const ResourceInfo& info, const Status* error);

  // Open watchers (those whose consumer called Watch::stop() are not counted).
  std::size_t watcherCount() const;

 private:
  struct Watcher;
  struct SharedCopies;
  using Watchers = std::vector<std::unique_ptr<Watcher>>;

  void remember(const StoredEvent& event);
  bool ringCovers(std::int64_t after) const;
  // Queues the events after `after` for a new watcher: from the ring or from the store. False
  // when the watch ended on the way (compacted, overflowed).
  bool replay(Watcher& w, std::int64_t after, std::int64_t current, const Store& store);
  bool replayFromStore(Watcher& w, std::int64_t after, std::int64_t current, const Store& store);

  const std::size_t maxBacklog_;
  const std::size_t ringCapacity_;

  // Watchers by resource key prefix "<group>/<resource>/", so an event reaches only the watchers
  // of its resource.
  std::map<std::string, Watchers, std::less<>> watchers_;

  // The most recent events, oldest at ringHead_, as a circular buffer whose slots (and their key
  // strings) are reused.
  std::vector<StoredEvent> ring_;
  std::size_t ringHead_ = 0;
  std::size_t ringSize_ = 0;
  // The ring holds every event with a revision above this; -1 until the first event arrives.
  std::int64_t ringFloor_ = -1;
};

}  // namespace fakekube
