#include "fakekube/cluster/garbage_collector.h"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/cache/informer.h"
#include "fakekube/client/discovery.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/runtime/rate_limiter.h"

namespace fakekube {

namespace {

constexpr std::string_view kOrphan = "orphan";
constexpr std::string_view kForeground = "foregroundDeletion";
// The component name kube-controller-manager's collector records its events under, and the name
// of its controller.
constexpr std::string_view kComponent = "garbage-collector-controller";

bool isDefinitions(const GroupVersionResource& gvr) {
  return gvr.group == "apiextensions.k8s.io" && gvr.resource == "customresourcedefinitions";
}

// kube-controller-manager's default ignored resources: events are never owners worth a graph.
bool ignored(const GroupVersionResource& gvr) {
  return gvr.resource == "events" && (gvr.group.empty() || gvr.group == "events.k8s.io");
}

// What to do with a work item after an attempt.
enum class Outcome {
  Done,    // nothing left to do until the graph changes again
  Retry,   // try again after retryDelay (conflict, transient error)
  Parked,  // an owner kind is not served; try again when the set of kinds changes
};

// 404 means the world already moved on (a monitor will say how). 409 and server-side trouble
// are worth another try; any other client error would fail the same way again.
Outcome outcomeFor(const Status& error) {
  if (isNotFound(error)) return Outcome::Done;
  if (isConflict(error) || error.code == 429 || error.code >= 500) return Outcome::Retry;
  return Outcome::Done;
}

Outcome worst(Outcome a, Outcome b) {
  if (a == Outcome::Retry || b == Outcome::Retry) return Outcome::Retry;
  if (a == Outcome::Parked || b == Outcome::Parked) return Outcome::Parked;
  return Outcome::Done;
}

bool sameOwners(const std::vector<meta::OwnerReference>& a,
                const std::vector<meta::OwnerReference>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].uid != b[i].uid || a[i].name != b[i].name || a[i].kind != b[i].kind ||
        a[i].apiVersion != b[i].apiVersion || a[i].blockOwnerDeletion != b[i].blockOwnerDeletion) {
      return false;
    }
  }
  return true;
}

// "group/resource": a resource's key whatever version is preferred.
std::string keyOf(const GroupVersionResource& gvr) { return gvr.groupResource().str(); }

// "group/Kind": how an ownerReference names its owner's resource (any served version).
std::string kindKey(std::string_view group, std::string_view kind) {
  return fmt::format("{}/{}", group, kind);
}

// Whether a resource's discovery entry changed in a way that needs a new monitor.
bool sameShape(const ServedResource& a, const ServedResource& b) {
  return a.gvr == b.gvr && a.namespaced == b.namespaced && a.kind == b.kind;
}

}  // namespace

class GarbageCollector::Impl : public std::enable_shared_from_this<Impl> {
 public:
  Impl(Manager& manager, GarbageCollectorOptions options)
      : executor_(manager.executor()), manager_(&manager), options_(options) {}

  Result<void> start() {
    std::uint64_t generation;
    {
      std::lock_guard lock(mu_);
      if (running_) return {};
      client_ = &manager_->client().underlyingClient();
      running_ = true;
      generation = ++generation_;
      controller_ = &manager_->add(makeController(generation));
    }
    if (auto synced = syncMonitors(generation); !synced) {
      stop();
      return synced;
    }
    {
      std::lock_guard lock(mu_);
      schedulePeriodicDiscovery(generation);
    }
    return {};
  }

  void stop() {
    std::vector<std::shared_ptr<Informer>> stopped;
    Controller* controller = nullptr;
    {
      std::lock_guard lock(mu_);
      if (!running_) return;
      running_ = false;
      ++generation_;  // tasks and handlers already queued see a stale generation and do nothing
      for (auto& [key, monitor] : monitors_) stopped.push_back(std::move(monitor.informer));
      monitors_.clear();
      kinds_.clear();
      nodes_.clear();
      dependents_.clear();
      parked_.clear();
      warned_.clear();
      syncsPending_ = 0;
      kindsChanged_ = false;
      controller = std::exchange(controller_, nullptr);
    }
    // Outside the lock: a monitor's handler may be waiting for it on another thread.
    for (auto& informer : stopped) informer->stop();
    if (manager_->crashed()) {
      // The manager dropped the controller with everything else.
    } else if (controller != nullptr) {
      controller->shutDown();
    }
  }

  bool idle() const {
    std::lock_guard lock(mu_);
    if (!running_ || manager_->crashed()) return true;
    if (syncsPending_ > 0 || kindsChanged_) return false;
    for (const auto& [key, monitor] : monitors_) {
      if (!monitor.informer->hasSynced() || monitor.informer->hasPendingEvents()) return false;
    }
    PriorityQueue& queue = controller_->queue();
    return queue.len() == 0 && queue.numProcessing() == 0 && queue.numWaiting() == 0;
  }

  ReconcileMetrics metrics() const {
    std::lock_guard lock(mu_);
    if (!running_ || manager_->crashed()) return ReconcileMetrics{};
    return controller_->metrics();
  }

  std::size_t graphSize() const {
    std::lock_guard lock(mu_);
    return nodes_.size();
  }

  std::size_t monitors() const {
    std::lock_guard lock(mu_);
    return monitors_.size();
  }

 private:
  // One observed object: what the collector needs to know about it without another GET.
  struct Node {
    std::string uid;
    const ServedResource* resource = nullptr;  // its monitor's (valid while the monitor is)
    std::string ns;
    std::string name;
    std::vector<meta::OwnerReference> owners;
    bool deleting = false;
    bool orphan = false;      // carries the `orphan` finalizer
    bool foreground = false;  // carries the `foregroundDeletion` finalizer
    bool deletingDependents() const { return deleting && foreground; }
  };

  // One monitored resource: its informer, and the id its handlers carry (a handler of a monitor
  // that was replaced meanwhile does nothing).
  struct Monitor {
    std::unique_ptr<ServedResource> resource;
    std::shared_ptr<Informer> informer;
    std::uint64_t id = 0;
  };

  bool current(std::uint64_t generation) const { return running_ && generation == generation_; }

  // --- monitors (the GraphBuilder's) ---

  // Asks discovery which resources are served, then starts monitors for new ones (each lists at
  // once) and drops those of resources that went away (their objects went with them) or changed
  // shape. Parked items (whose owner kind was unknown) get another chance. Discovery and the
  // lists run without the lock: the handlers take it, and over HTTP they are requests.
  Result<void> syncMonitors(std::uint64_t generation) {
    Reader* reader;
    {
      std::lock_guard lock(mu_);
      if (!current(generation)) return {};
      kindsChanged_ = false;
      reader = client_;
    }
    auto served = servedResources(*reader);
    std::vector<std::shared_ptr<Informer>> dropped, started;
    {
      std::lock_guard lock(mu_);
      if (!current(generation)) return {};
      if (!served) {
        kindsChanged_ = true;  // look again
        return tl::unexpected(served.error());
      }
      std::map<std::string, const ServedResource*> wanted;
      kinds_.clear();
      for (const auto& resource : *served) {
        kinds_[kindKey(resource.gvr.group, resource.kind)] = resource;
        if (ignored(resource.gvr) || !resource.supports({"list", "watch", "delete"})) continue;
        wanted[keyOf(resource.gvr)] = &resource;
      }
      for (auto it = monitors_.begin(); it != monitors_.end();) {
        auto w = wanted.find(it->first);
        if (w != wanted.end() && sameShape(*it->second.resource, *w->second)) {
          ++it;
          continue;
        }
        // Gone (its definition was deleted, and its objects with it) or redefined: forget what
        // was known of it; a redefined resource is monitored again below and its objects come
        // back with the new monitor's list.
        forgetResource(it->first);
        dropped.push_back(std::move(it->second.informer));
        it = monitors_.erase(it);
      }
      for (const auto& [key, resource] : wanted) {
        if (monitors_.count(key) != 0) continue;
        Monitor monitor;
        monitor.resource = std::make_unique<ServedResource>(*resource);
        monitor.id = ++monitorIds_;
        // The graph is built from the handlers; nothing reads a monitor's store by index.
        InformerOptions monitorOptions;
        monitorOptions.defaultIndexes = false;
        monitor.informer =
            std::make_shared<Informer>(*client_, executor_, resource->gvr, monitorOptions);
        monitor.informer->addEventHandler(handlerFor(generation, key, monitor.id));
        started.push_back(monitor.informer);
        monitors_.emplace(key, std::move(monitor));
      }
      for (const auto& uid : parked_) enqueue(uid);
      parked_.clear();
    }
    for (auto& informer : dropped) informer->stop();
    // The first list now, so that the graph knows every object before any item is judged (a
    // list that fails is retried by the informer; until it succeeds, items wait).
    for (auto& informer : started) (void)informer->syncNow();
    return {};
  }

  // A definition changed: look at the kinds again now, and once more shortly after (the server
  // registers a definition's kind right after storing it; on a thread pool the first look can
  // win that race).
  void kindsMayHaveChanged() {
    kindsChanged_ = true;
    if (syncsPending_ > 0) return;  // the pending look covers this change too
    scheduleMonitorSync(Duration::zero());
    scheduleMonitorSync(options_.retryDelay);
  }

  void scheduleMonitorSync(Duration delay) {
    ++syncsPending_;
    std::weak_ptr<Impl> weak = weak_from_this();
    const std::uint64_t generation = generation_;
    auto task = [weak, generation] {
      auto self = weak.lock();
      if (!self) return;
      auto synced = self->syncMonitors(generation);
      std::lock_guard lock(self->mu_);
      if (!self->current(generation)) return;
      --self->syncsPending_;
      if (!synced && self->syncsPending_ == 0) self->scheduleMonitorSync(self->options_.retryDelay);
    };
    if (delay == Duration::zero()) {
      executor_.post(std::move(task));
    } else {
      executor_.postAfter(delay, std::move(task));
    }
  }

  // GarbageCollector.Sync's period: discovery again, monitors started and dropped as the served
  // kinds changed, parked items another chance. Not pending work for idle(): it is a timer that
  // always exists while the collector runs. Called with the lock held.
  void schedulePeriodicDiscovery(std::uint64_t generation) {
    if (options_.discoveryResyncPeriod <= Duration::zero()) return;
    std::weak_ptr<Impl> weak = weak_from_this();
    executor_.postAfter(options_.discoveryResyncPeriod, [weak, generation] {
      auto self = weak.lock();
      if (!self) return;
      {
        std::lock_guard lock(self->mu_);
        if (!self->current(generation)) return;
      }
      // A failed look is the next period's to repeat.
      (void)self->syncMonitors(generation);
      std::lock_guard lock(self->mu_);
      if (self->current(generation)) self->schedulePeriodicDiscovery(generation);
    });
  }

  ResourceEventHandler handlerFor(std::uint64_t generation, const std::string& key,
                                  std::uint64_t id) {
    std::weak_ptr<Impl> weak = weak_from_this();
    ResourceEventHandler handler;
    handler.onAdd = [weak, generation, key, id](const ObjectPtr& object) {
      if (auto self = weak.lock()) self->onEvent(generation, key, id, nullptr, object);
    };
    handler.onUpdate = [weak, generation, key, id](const ObjectPtr& before,
                                                   const ObjectPtr& after) {
      if (auto self = weak.lock()) self->onEvent(generation, key, id, before, after);
    };
    handler.onDelete = [weak, generation, key, id](const ObjectPtr& object) {
      if (auto self = weak.lock()) self->onEvent(generation, key, id, object, nullptr);
    };
    return handler;
  }

  // A monitor's change: `before` null is an add, `after` null a delete.
  void onEvent(std::uint64_t generation, const std::string& key, std::uint64_t id,
               const ObjectPtr& before, const ObjectPtr& after) {
    std::lock_guard lock(mu_);
    if (!current(generation)) return;
    auto monitor = monitors_.find(key);
    if (monitor == monitors_.end() || monitor->second.id != id) return;
    // Most updates (every status write) touch nothing the graph holds.
    if (!(before && after && sameForGraph(*before, *after))) {
      if (before && (!after || meta::uid(*before) != meta::uid(*after))) {
        // Deleted, or replaced by an object of the same name (a relist after missed events).
        forget(meta::uid(*before));
      }
      if (after) observe(*monitor->second.resource, *after);
    }
    if (isDefinitions(monitor->second.resource->gvr) && definitionChanged(before, after)) {
      kindsMayHaveChanged();
    }
  }

  // Whether an update leaves the object's node as it was: same uid (so the same node), same
  // owner references, deletion state and finalizers, and the node is in the graph.
  bool sameForGraph(const Json& before, const Json& after) const {
    const Json& was = jsonAt(before, {"metadata"});
    const Json& is = jsonAt(after, {"metadata"});
    for (std::string_view member : {"uid", "ownerReferences", "deletionTimestamp", "finalizers"}) {
      if (jsonAt(was, {member}) != jsonAt(is, {member})) return false;
    }
    const Json& uid = jsonAt(is, {"uid"});
    return uid.is_string() && nodes_.count(uid.get_ref<const std::string&>()) != 0;
  }

  // Whether a CustomResourceDefinition's change may change the served kinds: a definition of a
  // kind discovery did not name, one deleted, or a changed spec (a status update does not).
  bool definitionChanged(const ObjectPtr& before, const ObjectPtr& after) const {
    if (!before) {
      auto spec = after->find("spec");
      if (spec == after->end() || !spec->is_object()) return true;
      auto names = spec->find("names");
      if (names == spec->end() || !names->is_object()) return true;
      return kinds_.count(kindKey(spec->value("group", ""), names->value("kind", ""))) == 0;
    }
    if (!after) return true;
    return jsonObjectAt(*before, "spec") != jsonObjectAt(*after, "spec");
  }

  // --- the graph ---

  // An added or updated object: update its node and the reverse index, and queue whatever the
  // change may have made actionable.
  void observe(const ServedResource& resource, const Json& object) {
    Node node;
    node.uid = meta::uid(object);
    if (node.uid.empty()) return;
    node.resource = &resource;
    node.ns = resource.namespaced ? meta::namespace_(object) : "";
    node.name = meta::name(object);
    node.owners = meta::ownerReferences(object);
    node.deleting = meta::isDeleting(object);
    node.orphan = meta::hasFinalizer(object, kOrphan);
    node.foreground = meta::hasFinalizer(object, kForeground);

    auto it = nodes_.find(node.uid);
    const bool isNew = it == nodes_.end();
    const Node old = isNew ? Node{} : it->second;
    const bool ownersChanged = isNew || !sameOwners(old.owners, node.owners);
    if (ownersChanged) {
      // Every owner on either side may care: a foreground owner waits for fewer dependents
      // when a reference goes away or stops blocking.
      for (const auto& ref : old.owners) {
        unindex(ref.uid, node.uid);
        enqueue(ref.uid);
      }
      for (const auto& ref : node.owners) {
        dependents_[ref.uid].insert(node.uid);
        enqueue(ref.uid);
      }
      // New references may be dangling.
      if (!node.owners.empty()) enqueue(node.uid);
    }
    // Deletion started, or its propagation finalizers changed: the owner side of the work.
    const bool deletionChanged = isNew || old.deleting != node.deleting ||
                                 old.orphan != node.orphan || old.foreground != node.foreground;
    if (node.deleting && (node.orphan || node.foreground) && deletionChanged) enqueue(node.uid);
    nodes_[node.uid] = std::move(node);
  }

  // A deleted object: its dependents may now be dangling, and owners waiting for it may go on.
  void forget(const std::string& uid) {
    auto it = nodes_.find(uid);
    if (it == nodes_.end()) return;
    for (const auto& ref : it->second.owners) {
      unindex(ref.uid, uid);
      enqueue(ref.uid);
    }
    nodes_.erase(it);
    warned_.erase(uid);
    // The index entry stays while dependents still name this uid: they are queued to be
    // collected (or to lose the reference), which removes them from it.
    auto deps = dependents_.find(uid);
    if (deps != dependents_.end()) {
      for (const auto& dep : deps->second) enqueue(dep);
    }
  }

  void forgetResource(const std::string& key) {
    std::vector<std::string> gone;
    for (const auto& [uid, node] : nodes_) {
      if (keyOf(node.resource->gvr) == key) gone.push_back(uid);
    }
    for (const auto& uid : gone) forget(uid);
  }

  void unindex(const std::string& ownerUid, const std::string& dependentUid) {
    auto deps = dependents_.find(ownerUid);
    if (deps == dependents_.end()) return;
    deps->second.erase(dependentUid);
    if (deps->second.empty()) dependents_.erase(deps);
  }

  // Observed dependents of `uid` (the index only ever holds observed objects).
  std::vector<std::string> dependentsOf(const std::string& uid) const {
    auto deps = dependents_.find(uid);
    if (deps == dependents_.end()) return {};
    return {deps->second.begin(), deps->second.end()};
  }

  // --- the work queue: a runtime Controller keyed by uid ---

  // Its rate limiter retries an item after a conflict or a transient error: retryDelay, doubling
  // per further failure of the same item, as controller-runtime's default does from 5 ms.
  std::unique_ptr<Controller> makeController(std::uint64_t generation) {
    std::vector<std::unique_ptr<RateLimiter>> limiters;
    limiters.push_back(std::make_unique<ItemExponentialFailureRateLimiter>(options_.retryDelay,
                                                                           options_.maxRetryDelay));
    limiters.push_back(std::make_unique<BucketRateLimiter>(executor_.clock()));
    ControllerOptions controllerOptions;
    controllerOptions.name = std::string(kComponent);
    controllerOptions.rateLimiter = std::make_unique<MaxOfRateLimiter>(std::move(limiters));
    std::weak_ptr<Impl> weak = weak_from_this();
    return std::make_unique<Controller>(
        executor_, std::move(controllerOptions),
        [weak, generation](const ReconcileRequest& request) -> ReconcileOutcome {
          auto self = weak.lock();
          if (!self) return ReconcileResult{};
          return self->reconcile(generation, request.name);
        });
  }

  void enqueue(const std::string& uid) {
    if (uid.empty() || controller_ == nullptr || manager_->crashed()) return;
    controller_->enqueue(ReconcileRequest{"", uid});
  }

  // One item per reconcile, so that the executor interleaves the collector's work with
  // everything else, as a real controller's worker does.
  ReconcileOutcome reconcile(std::uint64_t generation, const std::string& uid) {
    // First the graph catches up with everything the server has sent so far, on every resource.
    // Each resource has its own watch, so without this an owner's item could run while another
    // resource's watch still holds the creation of one of its dependents (an executor may run
    // same-instant work in any order): an Orphan owner would then lose its `orphan` finalizer
    // before that dependent was stripped, and a Foreground owner would go before a blocking
    // dependent. In process the server queues a watch event before the write returns, so after
    // this the graph has seen every write that completed before it. Without the lock: the
    // handlers take it.
    std::vector<std::shared_ptr<Informer>> informers;
    bool kindsChanged;
    {
      std::lock_guard lock(mu_);
      if (!current(generation)) return ReconcileResult{};
      kindsChanged = kindsChanged_;
      informers.reserve(monitors_.size());
      for (const auto& [key, monitor] : monitors_) informers.push_back(monitor.informer);
    }
    for (const auto& informer : informers) informer->deliverQueuedEvents();
    // A definition changed since the monitors were set up: set them up again first (a new
    // kind's monitor then still has to list, so the item waits below).
    if (kindsChanged) (void)syncMonitors(generation);

    std::lock_guard lock(mu_);
    if (!current(generation)) return ReconcileResult{};
    for (const auto& [key, monitor] : monitors_) {
      if (!monitor.informer->hasSynced()) {
        return ReconcileResult{.requeueAfter = options_.retryDelay};
      }
    }
    switch (process(uid)) {
      case Outcome::Done:
        break;
      case Outcome::Retry:
        return reconcileError(lastError_);
      case Outcome::Parked:
        parked_.insert(uid);
        break;
    }
    return ReconcileResult{};
  }

  // outcomeFor, remembering the error a retry reports.
  Outcome outcomeOf(const Status& error) {
    lastError_ = error;
    return outcomeFor(error);
  }

  Outcome process(const std::string& uid) {
    auto it = nodes_.find(uid);
    if (it == nodes_.end()) return Outcome::Done;  // an owner never observed, or gone
    const Node node = it->second;
    if (node.deleting) {
      if (node.orphan) return orphanDependents(node);
      if (node.foreground) return deleteBlockingDependents(node);
      return Outcome::Done;  // being deleted already; nothing for the collector to add
    }
    if (node.owners.empty()) return Outcome::Done;
    return attemptToDelete(node);
  }

  // --- owner side ---

  // Orphan: strip the owner's reference from every dependent, then drop `orphan`.
  Outcome orphanDependents(const Node& owner) {
    Outcome outcome = Outcome::Done;
    for (const auto& depUid : dependentsOf(owner.uid)) {
      auto dep = nodes_.find(depUid);
      if (dep == nodes_.end()) continue;
      outcome = worst(outcome, removeOwnerRefs(dep->second, {owner.uid}));
    }
    // Only once every dependent let go: the owner must not vanish while one still names it.
    if (outcome != Outcome::Done) return outcome;
    return removeFinalizer(owner, kOrphan);
  }

  // Foreground: delete the dependents that block the owner; when none is left, drop
  // `foregroundDeletion` and let the server remove the owner.
  Outcome deleteBlockingDependents(const Node& owner) {
    bool blocked = false;
    for (const auto& depUid : dependentsOf(owner.uid)) {
      auto dep = nodes_.find(depUid);
      if (dep == nodes_.end()) continue;
      for (const auto& ref : dep->second.owners) {
        if (ref.uid == owner.uid && ref.blockOwnerDeletion) {
          blocked = true;
          // Its own attempt sees this owner waiting and deletes it (Foreground when it has
          // dependents of its own). One already being deleted is simply waited for, e.g. while
          // its own finalizers hold it.
          if (!dep->second.deleting || dep->second.deletingDependents()) enqueue(depUid);
        }
      }
    }
    if (blocked) return Outcome::Done;  // its dependents' deletions queue it again
    return removeFinalizer(owner, kForeground);
  }

  // --- dependent side ---

  Outcome attemptToDelete(const Node& node) {
    // The graph may lag: act on the live object only.
    auto latest = client_->getShared(node.resource->gvr, node.ns, node.name);
    if (!latest) return outcomeOf(latest.error());
    const Json& object = **latest;
    if (meta::uid(object) != node.uid) return Outcome::Done;  // replaced; its own events follow
    if (meta::isDeleting(object)) return Outcome::Done;       // its update follows
    const auto refs = meta::ownerReferences(object);
    if (refs.empty()) return Outcome::Done;

    std::vector<std::string> solid, dangling, waiting;  // owner uids
    bool blocking = false;                              // some waiting owner waits for this object
    for (const auto& ref : refs) {
      auto kind = kinds_.find(kindKey(GroupVersion::parse(ref.apiVersion).group, ref.kind));
      if (kind == kinds_.end()) return Outcome::Parked;
      const ServedResource& owner = kind->second;
      if (owner.namespaced && !node.resource->namespaced) {
        // A cluster-scoped object cannot have a namespaced owner: never collect it, say so once.
        warnInvalidNamespace(node, object, ref);
        return Outcome::Done;
      }
      // A namespaced owner lives in the dependent's namespace or nowhere.
      const std::string ns = owner.namespaced ? node.ns : "";
      auto live = client_->getShared(owner.gvr, ns, ref.name);
      if (!live) {
        if (!isNotFound(live.error())) return outcomeOf(live.error());
        dangling.push_back(ref.uid);
      } else if (meta::uid(**live) != ref.uid) {
        dangling.push_back(ref.uid);
      } else if (meta::isDeleting(**live) && meta::hasFinalizer(**live, kForeground)) {
        waiting.push_back(ref.uid);
        if (ref.blockOwnerDeletion) blocking = true;
      } else {
        solid.push_back(ref.uid);
      }
    }

    if (!solid.empty()) {
      // Kept: only the references that no longer hold it go.
      std::unordered_set<std::string> drop(dangling.begin(), dangling.end());
      drop.insert(waiting.begin(), waiting.end());
      if (drop.empty()) return Outcome::Done;
      return removeOwnerRefs(node, drop);
    }
    if (!waiting.empty() && !blocking) {
      // Only owners that do not wait for it are being deleted: a non-blocking dependent is
      // collected after its owner is gone, as dangling (the owner's deletion requeues it).
      return Outcome::Done;
    }
    if (blocking && !dependentsOf(node.uid).empty()) {
      // A dependent that is itself waiting for its dependents could close a cycle of owners all
      // waiting on each other: stop this object's references from blocking first (as the real
      // collector does), then delete it in the foreground.
      for (const auto& depUid : dependentsOf(node.uid)) {
        auto dep = nodes_.find(depUid);
        if (dep != nodes_.end() && dep->second.deletingDependents()) {
          Outcome unblocked = unblockOwnerRefs(node);
          if (unblocked != Outcome::Done) return unblocked;
          break;
        }
      }
      return deleteObject(node, "Foreground");
    }
    // No solid owner: collect it, keeping the propagation its own finalizers ask for.
    if (meta::hasFinalizer(object, kOrphan)) return deleteObject(node, "Orphan");
    if (meta::hasFinalizer(object, kForeground)) return deleteObject(node, "Foreground");
    return deleteObject(node, "Background");
  }

  // --- actions ---

  Outcome deleteObject(const Node& node, const std::string& policy) {
    DeleteOptions options;
    options.propagationPolicy = policy;
    // Never delete a newer object that took the name.
    options.preconditions.uid = node.uid;
    auto deleted = client_->deleteObject(node.resource->gvr, node.ns, node.name, options);
    if (!deleted) {
      // 409 here is the uid precondition: the object was replaced, and the new one is processed
      // on its own events.
      if (isConflict(deleted.error())) return Outcome::Done;
      return outcomeOf(deleted.error());
    }
    return Outcome::Done;
  }

  // Merge-patches `node`'s live object with new ownerReferences. The patch names the uid and
  // resourceVersion it was computed from, so a concurrent change answers 409 and is retried.
  template <class Edit>
  Outcome editOwnerRefs(const Node& node, Edit edit) {
    auto latest = client_->getShared(node.resource->gvr, node.ns, node.name);
    if (!latest) return outcomeOf(latest.error());
    const Json& object = **latest;
    if (meta::uid(object) != node.uid) return Outcome::Done;
    const Json& metadata = object["metadata"];
    Json refs = metadata.contains("ownerReferences") ? metadata["ownerReferences"] : Json::array();
    if (!refs.is_array()) return Outcome::Done;
    Json edited = edit(refs);
    if (edited == refs) return Outcome::Done;
    Json patch = {{"metadata",
                   {{"uid", node.uid},
                    {"resourceVersion", meta::resourceVersion(object)},
                    // An empty list is dropped, as a Go client's omitempty would.
                    {"ownerReferences", edited.empty() ? Json(nullptr) : edited}}}};
    auto patched =
        client_->patch(node.resource->gvr, node.ns, node.name, PatchType::Merge, patch.dump());
    if (!patched) return outcomeOf(patched.error());
    return Outcome::Done;
  }

  Outcome removeOwnerRefs(const Node& node, const std::unordered_set<std::string>& uids) {
    return editOwnerRefs(node, [&](const Json& refs) {
      Json kept = Json::array();
      for (const auto& ref : refs) {
        if (!ref.is_object() || !uids.count(ref.value("uid", ""))) kept.push_back(ref);
      }
      return kept;
    });
  }

  Outcome unblockOwnerRefs(const Node& node) {
    return editOwnerRefs(node, [](const Json& refs) {
      Json unblocked = refs;
      for (auto& ref : unblocked) {
        if (ref.is_object() && ref.value("blockOwnerDeletion", false)) {
          ref["blockOwnerDeletion"] = false;
        }
      }
      return unblocked;
    });
  }

  // Drops one finalizer from the live object, if it is still being deleted and carries it.
  Outcome removeFinalizer(const Node& node, std::string_view finalizer) {
    auto latest = client_->getShared(node.resource->gvr, node.ns, node.name);
    if (!latest) return outcomeOf(latest.error());
    const Json& object = **latest;
    if (meta::uid(object) != node.uid || !meta::isDeleting(object) ||
        !meta::hasFinalizer(object, finalizer)) {
      return Outcome::Done;
    }
    Json finalizers = Json::array();
    for (const auto& f : meta::finalizers(object)) {
      if (f != finalizer) finalizers.push_back(f);
    }
    Json patch = {{"metadata",
                   {{"uid", node.uid},
                    {"resourceVersion", meta::resourceVersion(object)},
                    {"finalizers", finalizers.empty() ? Json(nullptr) : finalizers}}}};
    auto patched =
        client_->patch(node.resource->gvr, node.ns, node.name, PatchType::Merge, patch.dump());
    if (!patched) return outcomeOf(patched.error());
    return Outcome::Done;
  }

  // One Warning Event per invalid dependent, as the real graph builder records it.
  void warnInvalidNamespace(const Node& node, const Json& object, const meta::OwnerReference& ref) {
    if (!warned_.insert(node.uid).second) return;
    const TimePoint now = executor_.now();
    const std::string stamp = formatRfc3339(now);
    const auto nanos = now.time_since_epoch().count();
    // Events about cluster-scoped objects go to the default namespace (client-go's recorder).
    const std::string eventNs = node.ns.empty() ? "default" : node.ns;
    Json event = {
        {"apiVersion", "v1"},
        {"kind", "Event"},
        {"metadata", {{"name", fmt::format("{}.{:x}", node.name, nanos)}, {"namespace", eventNs}}},
        {"involvedObject",
         {{"apiVersion", meta::apiVersion(object)},
          {"kind", meta::kind(object)},
          {"name", node.name},
          {"uid", node.uid},
          {"resourceVersion", meta::resourceVersion(object)}}},
        {"reason", "OwnerRefInvalidNamespace"},
        {"message", fmt::format("ownerRef [{}/{}, namespace: {}, name: {}, uid: {}] does not "
                                "exist in namespace \"{}\"",
                                ref.apiVersion, ref.kind, node.ns, ref.name, ref.uid, node.ns)},
        {"type", "Warning"},
        {"source", {{"component", kComponent}}},
        {"reportingComponent", kComponent},
        {"firstTimestamp", stamp},
        {"lastTimestamp", stamp},
        {"count", 1}};
    if (!node.ns.empty()) event["involvedObject"]["namespace"] = node.ns;
    // Best effort, like an event recorder: a failed event is not retried.
    (void)client_->create({"", "v1", "events"}, std::move(event));
  }

  Executor& executor_;
  Manager* manager_;
  const GarbageCollectorOptions options_;

  mutable std::mutex mu_;
  Client* client_ = nullptr;  // the manager's, uncached: what monitors list and watch through
  bool running_ = false;
  std::uint64_t generation_ = 0;
  std::uint64_t monitorIds_ = 0;
  std::map<std::string, Monitor> monitors_;      // by keyOf(gvr)
  std::map<std::string, ServedResource> kinds_;  // every served resource, by kindKey
  std::unordered_map<std::string, Node> nodes_;  // by uid
  // owner uid -> uids of observed objects that name it (whether or not the owner was observed).
  std::unordered_map<std::string, std::unordered_set<std::string>> dependents_;
  Controller* controller_ = nullptr;        // owned by the manager; while running
  Status lastError_;                        // of the latest failed call, for a retry's error
  std::unordered_set<std::string> parked_;  // waiting for an owner kind to be served
  std::unordered_set<std::string> warned_;  // dependents that got their OwnerRefInvalidNamespace
  int syncsPending_ = 0;                    // monitor syncs posted and not run yet
  bool kindsChanged_ = false;               // a definition changed since the last sync
};

GarbageCollector::GarbageCollector(Manager& manager, GarbageCollectorOptions options)
    : impl_(std::make_shared<Impl>(manager, options)) {}

Result<std::unique_ptr<GarbageCollector>> addGarbageCollector(Manager& manager,
                                                              GarbageCollectorOptions options) {
  std::unique_ptr<GarbageCollector> collector(new GarbageCollector(manager, options));
  if (auto started = collector->start(); !started) return tl::unexpected(started.error());
  return collector;
}

GarbageCollector::~GarbageCollector() { impl_->stop(); }

Result<void> GarbageCollector::start() { return impl_->start(); }
void GarbageCollector::stop() { impl_->stop(); }
bool GarbageCollector::idle() const { return impl_->idle(); }
std::size_t GarbageCollector::graphSize() const { return impl_->graphSize(); }
std::size_t GarbageCollector::monitors() const { return impl_->monitors(); }
ReconcileMetrics GarbageCollector::metrics() const { return impl_->metrics(); }

}  // namespace fakekube
