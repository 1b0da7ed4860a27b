// Informer: a local, watch-fed copy of one resource's objects (client-go's SharedIndexInformer).
//
// start() lists the resource and watches from the list's resourceVersion; every watch event is
// applied to the store (a map "ns/name" -> shared immutable document) and then handed to the
// event handlers, in the order the server produced the events. When the watch reports 410 Gone /
// Expired, or ends, the informer lists again and watches again from the new list, replacing its
// store the way a reflector's Replace does: handlers see an add, update or delete for each
// difference, so they converge on the server's state without having seen the events they missed.
//
// Everything happens on the Executor: the watch's notify callback only posts work, and handlers
// run inside executor tasks. On a SimExecutor nothing moves until the test runs the executor.
//
// Delivery lag. InformerOptions::deliveryDelay holds each watch event back for that long on the
// executor's clock before it reaches the store and the handlers. It reproduces the gap every
// controller has to live with: a write succeeded, but the cache has not seen it yet. Events keep
// their order whatever the delay (the informer queues them itself rather than trusting the
// executor's order of same-instant timers, which a seeded SimExecutor shuffles).
//
// Restriction. A namespace, a label selector and a field selector restrict what the informer
// lists and watches (as KubeRay restricts its Pod and Job informers to the objects it created).
// The server turns an object that starts matching into ADDED and one that stops into DELETED.
//
// Thread-safety: the readers (get, list, byIndex, hasSynced) may be called from any thread. The
// processing of events is serialised, so handlers never run concurrently for one informer, even
// on a ThreadPoolExecutor. Handlers may read this informer (or a Cache holding it). With
// InformerOptions::catchUpOnRead a read may run the handlers in the reader's thread: the reader
// must not hold a lock the handlers take.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/group_version.h"
#include "fakekube/api/json.h"
#include "fakekube/api/object.h"
#include "fakekube/api/status.h"
#include "fakekube/client/client.h"
#include "fakekube/sim/executor.h"

namespace fakekube {

struct InformerOptions {
  // "" watches every namespace.
  std::string namespace_;
  // Only objects matching these are listed, watched and cached.
  std::string labelSelector;
  std::string fieldSelector;
  // How long each watch event waits before it reaches the store and the handlers.
  Duration deliveryDelay{0};
  // Whether a read first applies the watch events that are due (what deliverQueuedEvents does).
  // Without it an event reaches the store only when the executor runs the informer's delivery
  // task: a task never sees the echo of a write it made, however long it runs. A real informer
  // receives that echo while the controller makes its next API calls, so a reconcile that
  // creates an object and lists it a few calls later usually finds it; with this option it
  // always does once the event is due (deliveryDelay still holds it back). Reads made from a
  // handler never catch up: changes reach the handlers one at a time, in order.
  bool catchUpOnRead = false;
  // Whether the store keeps the three indexes below (kNamespaceIndex, kOwnerUidIndex,
  // kLabelIndex). An informer only its handlers read, as the garbage collector's monitors, skips
  // the upkeep on every event; byIndex() of an index it does not keep answers nothing.
  bool defaultIndexes = true;
};

// Callbacks for the changes the informer applies (client-go's ResourceEventHandlerFuncs). Any may
// be empty. For a delete the object is its last known state.
struct ResourceEventHandler {
  std::function<void(const ObjectPtr& object)> onAdd;
  std::function<void(const ObjectPtr& oldObject, const ObjectPtr& newObject)> onUpdate;
  std::function<void(const ObjectPtr& object)> onDelete;
};

// Maps an object to the index values it is filed under (client-go's IndexFunc).
using IndexFunc = std::function<std::vector<std::string>(const Json& object)>;

// The indexers every informer has (unless InformerOptions::defaultIndexes is false).
inline constexpr std::string_view kNamespaceIndex = "namespace";  // metadata.namespace
inline constexpr std::string_view kOwnerUidIndex = "ownerUid";    // each ownerReferences[].uid
inline constexpr std::string_view kLabelIndex = "label";          // "key=value" per label

class Informer {
 public:
  // `client` and `executor` must outlive the informer.
  Informer(Client& client, Executor& executor, GroupVersionResource gvr,
           InformerOptions options = {});
  // Stops the informer; work it already posted finds it gone and does nothing.
  ~Informer();
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Posts the initial list and watch to the executor. Idempotent.
  void start();
  // Does the initial list and opens the watch now, in the calling task, unless that already
  // happened; answers the list's error if it failed. controller-runtime blocks a read until an
  // informer created on demand has synced; a Cache calls this instead, which gives the same answer
  // without blocking the executor.
  Result<void> syncNow();
  // Stops watching and processing. The store keeps its last state. Idempotent.
  void stop();

  // True once the first list reached the store (it stays true across relists).
  bool hasSynced() const;

  // Applies now, in the calling task, what the watch has queued and is due (what the watch's
  // notification does from a posted task). For a controller that must decide on everything the
  // server has said so far: the garbage collector, before it judges an owner by its dependents.
  // The caller must not hold a lock that this informer's handlers take.
  void deliverQueuedEvents();
  // Whether events exist that the store and the handlers have not seen yet: the watch signalled
  // some and their delivery task has not run, or they wait for their delivery time.
  bool hasPendingEvents() const;

  // Handlers added after the store has objects get an onAdd for each of them first, from an
  // executor task (client-go replays the store to late handlers the same way).
  void addEventHandler(ResourceEventHandler handler);

  // Adds an index. Items already cached are indexed at once. Replaces an index of the same name.
  void addIndexer(std::string name, IndexFunc fn);
  // The same, for an index whose values are made from the member at `reads` alone (object keys
  // from the top: {"spec", "nodeName"}): an update that leaves that member equal leaves the
  // values as they were, and `fn` does not run for it (most updates of a pod are status writes).
  void addIndexer(std::string name, IndexFunc fn, std::vector<std::string> reads);
  // The cached objects filed under `value` in index `name`, ordered by key ("ns/name"). Empty
  // for an unknown index.
  std::vector<ObjectPtr> byIndex(std::string_view name, std::string_view value) const;
  // How many cached objects byIndex(name, value) answers, without building the answer.
  std::size_t countByIndex(std::string_view name, std::string_view value) const;
  // The values of index `name` that some cached object is filed under and that start with
  // `prefix`, in order. For an index whose values are few and whose objects are looked up by a
  // value built from another object: a Service's selector key set, say, which names the labels a
  // pod's value for the selector index is built from.
  std::vector<std::string> indexValues(std::string_view name, std::string_view prefix = {}) const;

  // The cached object with key "ns/name" (or "name" when cluster-scoped), or nullptr.
  ObjectPtr get(std::string_view key) const;
  // Every cached object, ordered by key.
  std::vector<ObjectPtr> list() const;
  std::size_t size() const;
  // The resourceVersion of the newest list or event applied to the store.
  std::string lastSyncResourceVersion() const;
  // The list kind the server named in its last list answer ("PodList"); "" before the first.
  std::string listKind() const;

  const GroupVersionResource& gvr() const { return gvr_; }
  const InformerOptions& options() const { return options_; }
  // Changes the delivery delay of events that arrive from now on (a fault to inject mid-run).
  // Events never overtake each other when the delay shrinks.
  void setDeliveryDelay(Duration delay);

  // How many times the informer listed (1 after the initial sync; each relist adds one).
  std::uint64_t listCount() const;

 private:
  struct State;
  const GroupVersionResource gvr_;
  const InformerOptions options_;
  std::shared_ptr<State> state_;
};

}  // namespace fakekube
