#include "fakekube/cluster/garbage_collector.h"

#include <fmt/format.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fakekube/api/object_meta.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/cluster/kind_watch.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/rate_limiter.h"

namespace fakekube {

namespace {

constexpr std::string_view kOrphan = "orphan";
constexpr std::string_view kForeground = "foregroundDeletion";
// The component name kube-controller-manager's collector records its events under.
constexpr std::string_view kComponent = "garbage-collector-controller";

bool isCrdKind(const ResourceInfo& info) {
  return info.group == "apiextensions.k8s.io" && info.resource == "customresourcedefinitions";
}

// What to do with a work item after an attempt.
enum class Outcome {
  Done,    // nothing left to do until the graph changes again
  Retry,   // try again after retryDelay (conflict, transient error)
  Parked,  // an owner kind is not served; try again when the set of kinds changes
};

// 404 means the world already moved on (the watch will say how). 409 and server-side trouble
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

// Whether a kind's registry entry changed in a way that needs a new watch.
bool sameKindShape(const ResourceInfo& a, const ResourceInfo& b) {
  return a.versions == b.versions && a.namespaced == b.namespaced && a.kind == b.kind;
}

}  // namespace

class GarbageCollector::Impl : public std::enable_shared_from_this<Impl> {
 public:
  Impl(Executor& executor, ApiServer& server, Options options)
      : ex_(executor), server_(server), options_(options) {}

  void start() {
    std::lock_guard lock(mu_);
    if (running_) return;
    running_ = true;
    controller_ = makeController();
    syncKinds();
    controller_->start();
  }

  void stop() {
    std::lock_guard lock(mu_);
    stopLocked();
  }

  bool idle() const {
    std::lock_guard lock(mu_);
    if (pumpsPending_.load() != 0 || kindSyncPending_) return false;
    if (controller_ == nullptr) return true;
    PriorityQueue& queue = controller_->queue();
    return queue.len() == 0 && queue.numProcessing() == 0 && queue.numWaiting() == 0;
  }

  ReconcileMetrics metrics() const {
    std::lock_guard lock(mu_);
    return controller_ != nullptr ? controller_->metrics() : ReconcileMetrics{};
  }

  std::size_t graphSize() const {
    std::lock_guard lock(mu_);
    return nodes_.size();
  }

 private:
  // One observed object: what the collector needs to know about it without another GET.
  struct Node {
    std::string uid;
    ResourceInfoPtr info;
    std::string ns;
    std::string name;
    std::vector<meta::OwnerReference> owners;
    bool deleting = false;
    bool orphan = false;      // carries the `orphan` finalizer
    bool foreground = false;  // carries the `foregroundDeletion` finalizer
    bool deletingDependents() const { return deleting && foreground; }
  };

  // --- watches ---

  // The set of served kinds may have changed: watch new kinds, drop gone ones, and give parked
  // items (whose owner kind was unknown) another chance.
  void syncKinds() {
    std::map<std::string, ResourceInfoPtr> served;
    for (const auto& info : server_.registry().all()) served[info->groupResource().str()] = info;

    for (auto it = watches_.begin(); it != watches_.end();) {
      auto s = served.find(it->first);
      if (s != served.end() && sameKindShape(*it->second->info(), *s->second)) {
        ++it;
        continue;
      }
      // Gone (its definition was deleted, and its objects with it) or redefined: forget what was
      // known of the kind; a redefined kind is watched again below and its objects come back as
      // the new watch's initial state.
      forgetKind(it->first);
      it = watches_.erase(it);
    }
    for (const auto& [key, info] : served) {
      if (watches_.count(key)) continue;
      auto watch = std::make_unique<KindWatch>(server_, info, makeWake());
      if (!watch->open()) continue;  // removed in the meantime; a later sync sees it gone
      watches_.emplace(key, std::move(watch));
    }
    for (const auto& uid : parked_) enqueue(uid);
    parked_.clear();
  }

  // The callback a watch runs on the server's writer thread: it only schedules a drain.
  std::function<void()> makeWake() {
    std::weak_ptr<Impl> weak = weak_from_this();
    Executor* ex = &ex_;
    return [weak, ex] {
      auto self = weak.lock();
      if (!self) return;
      self->pumpsPending_.fetch_add(1);
      ex->post([weak] {
        if (auto s = weak.lock()) s->pump();
      });
    };
  }

  // A watch has events. Every watch is drained, not only that one: see drainAll().
  void pump() {
    std::lock_guard lock(mu_);
    pumpsPending_.fetch_sub(1);
    if (!running_) return;
    drainAll();
  }

  // Brings the graph up to everything the server has sent so far, on every kind.
  //
  // Work items call this before deciding anything. Each kind has its own stream, so without it an
  // owner's item could run while the stream of another kind still holds the creation of one of its
  // dependents (an executor may run same-instant work in any order): an Orphan owner would then
  // lose its `orphan` finalizer before that dependent was stripped, and a Foreground owner would
  // go before a blocking dependent. The server queues an event before a write returns, so after
  // this the graph has seen every write that completed before it.
  void drainAll() {
    bool kindsChanged = false;
    std::vector<std::string> keys;
    keys.reserve(watches_.size());
    for (const auto& entry : watches_) keys.push_back(entry.first);
    for (const auto& key : keys) {
      auto it = watches_.find(key);
      if (it == watches_.end()) continue;
      ResourceInfoPtr info = it->second->info();
      auto onEvent = [&](WatchEventType type, const ObjectPtr& object) {
        if (type == WatchEventType::Deleted) {
          forget(meta::uid(*object));
        } else {
          observe(info, *object);
        }
        if (isCrdKind(*info)) kindsChanged = true;
      };
      auto onSync = [&](const std::unordered_set<std::string>& uids) {
        // Objects of this kind the graph knew but the fresh initial state lacks were deleted
        // while the stream was down.
        std::vector<std::string> gone;
        for (const auto& [uid, node] : nodes_) {
          if (node.info->groupResource().str() == key && !uids.count(uid)) gone.push_back(uid);
        }
        for (const auto& uid : gone) forget(uid);
      };
      if (!it->second->drain(onEvent, onSync)) {
        forgetKind(key);
        watches_.erase(key);
      }
    }
    if (kindsChanged) {
      syncKinds();
      // The server registers a definition's kind right after storing it; on a real thread pool
      // this drain can win that race. Look again shortly so a new kind is never missed.
      scheduleKindSync();
    }
  }

  void scheduleKindSync() {
    if (kindSyncPending_) return;
    kindSyncPending_ = true;
    std::weak_ptr<Impl> weak = weak_from_this();
    const std::uint64_t generation = generation_;
    ex_.postAfter(options_.retryDelay, [weak, generation] {
      auto self = weak.lock();
      if (!self) return;
      std::lock_guard lock(self->mu_);
      if (generation != self->generation_) return;
      self->kindSyncPending_ = false;
      if (!self->running_) return;
      self->syncKinds();
    });
  }

  // --- the graph ---

  // An ADDED or MODIFIED object: update its node and the reverse index, and queue whatever the
  // change may have made actionable.
  void observe(const ResourceInfoPtr& info, const Json& object) {
    Node node;
    node.uid = meta::uid(object);
    if (node.uid.empty()) return;
    node.info = info;
    node.ns = info->namespaced ? meta::namespace_(object) : "";
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

  // A DELETED object: its dependents may now be dangling, and owners waiting for it may go on.
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

  void forgetKind(const std::string& key) {
    std::vector<std::string> gone;
    for (const auto& [uid, node] : nodes_) {
      if (node.info->groupResource().str() == key) gone.push_back(uid);
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
  std::unique_ptr<Controller> makeController() {
    std::vector<std::unique_ptr<RateLimiter>> limiters;
    limiters.push_back(std::make_unique<ItemExponentialFailureRateLimiter>(options_.retryDelay,
                                                                           options_.maxRetryDelay));
    limiters.push_back(std::make_unique<BucketRateLimiter>(ex_.clock()));
    ControllerOptions controllerOptions;
    controllerOptions.name = std::string(kComponent);
    controllerOptions.rateLimiter = std::make_unique<MaxOfRateLimiter>(std::move(limiters));
    std::weak_ptr<Impl> weak = weak_from_this();
    const std::uint64_t generation = generation_;
    return std::make_unique<Controller>(
        ex_, std::move(controllerOptions),
        [weak, generation](const ReconcileRequest& request) -> ReconcileOutcome {
          auto self = weak.lock();
          if (!self) return ReconcileResult{};
          return self->reconcile(generation, request.name);
        });
  }

  void enqueue(const std::string& uid) {
    if (uid.empty() || controller_ == nullptr) return;
    controller_->enqueue(ReconcileRequest{"", uid});
  }

  // One item per reconcile, so that the executor interleaves the collector's work with
  // everything else, as a real controller's worker does.
  ReconcileOutcome reconcile(std::uint64_t generation, const std::string& uid) {
    std::lock_guard lock(mu_);
    if (generation != generation_ || !running_) return ReconcileResult{};
    drainAll();
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
    if (blocked) return Outcome::Done;  // its dependents' DELETED events queue it again
    return removeFinalizer(owner, kForeground);
  }

  // --- dependent side ---

  enum class OwnerState { Solid, Dangling, Waiting };

  Outcome attemptToDelete(const Node& node) {
    // The graph may lag: act on the live object only.
    auto latest = server_.get(node.info->gvr(), node.ns, node.name);
    if (!latest) return outcomeOf(latest.error());
    const Json& object = **latest;
    if (meta::uid(object) != node.uid) return Outcome::Done;  // replaced; its own events follow
    if (meta::isDeleting(object)) return Outcome::Done;       // its MODIFIED event follows
    const auto refs = meta::ownerReferences(object);
    if (refs.empty()) return Outcome::Done;

    std::vector<std::string> solid, dangling, waiting;  // owner uids
    bool blocking = false;                              // some waiting owner waits for this object
    for (const auto& ref : refs) {
      ResourceInfoPtr ownerInfo = server_.registry().findKind(ref.apiVersion, ref.kind);
      if (ownerInfo == nullptr) return Outcome::Parked;
      if (ownerInfo->namespaced && !node.info->namespaced) {
        // A cluster-scoped object cannot have a namespaced owner: never collect it, say so once.
        warnInvalidNamespace(node, object, ref);
        return Outcome::Done;
      }
      // A namespaced owner lives in the dependent's namespace or nowhere.
      const std::string ns = ownerInfo->namespaced ? node.ns : "";
      auto owner = server_.get(ownerInfo->gvr(), ns, ref.name);
      if (!owner) {
        if (!isNotFound(owner.error())) return outcomeOf(owner.error());
        dangling.push_back(ref.uid);
      } else if (meta::uid(**owner) != ref.uid) {
        dangling.push_back(ref.uid);
      } else if (meta::isDeleting(**owner) && meta::hasFinalizer(**owner, kForeground)) {
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
      // collected after its owner is gone, as dangling (the owner's DELETED event requeues it).
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
    auto deleted = server_.deleteObject(node.info->gvr(), node.ns, node.name, options);
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
    auto latest = server_.get(node.info->gvr(), node.ns, node.name);
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
        server_.patch(node.info->gvr(), node.ns, node.name, PatchType::Merge, patch.dump());
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
    auto latest = server_.get(node.info->gvr(), node.ns, node.name);
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
        server_.patch(node.info->gvr(), node.ns, node.name, PatchType::Merge, patch.dump());
    if (!patched) return outcomeOf(patched.error());
    return Outcome::Done;
  }

  // One Warning Event per invalid dependent, as the real graph builder records it.
  void warnInvalidNamespace(const Node& node, const Json& object, const meta::OwnerReference& ref) {
    if (!warned_.insert(node.uid).second) return;
    const TimePoint now = ex_.now();
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
    (void)server_.create({"", "v1", "events"}, eventNs, std::move(event));
  }

  void stopLocked() {
    if (!running_) return;
    running_ = false;
    ++generation_;  // tasks already queued see a stale generation and do nothing
    watches_.clear();
    nodes_.clear();
    dependents_.clear();
    controller_.reset();  // drops its queue; a reconcile in flight sees the stale generation
    parked_.clear();
    warned_.clear();
    kindSyncPending_ = false;
  }

  Executor& ex_;
  ApiServer& server_;
  const Options options_;

  mutable std::mutex mu_;
  bool running_ = false;
  std::uint64_t generation_ = 0;
  std::map<std::string, std::unique_ptr<KindWatch>> watches_;  // by GroupResource::str()
  std::unordered_map<std::string, Node> nodes_;                // by uid
  // owner uid -> uids of observed objects that name it (whether or not the owner was observed).
  std::unordered_map<std::string, std::unordered_set<std::string>> dependents_;
  std::unique_ptr<Controller> controller_;  // while running
  Status lastError_;                        // of the latest failed call, for a retry's error
  std::unordered_set<std::string> parked_;  // waiting for an owner kind to be served
  std::unordered_set<std::string> warned_;  // dependents that got their OwnerRefInvalidNamespace
  bool kindSyncPending_ = false;
  // Drains posted by watch callbacks and not run yet; atomic because the callbacks run on the
  // server's writer threads without mu_.
  std::atomic<std::size_t> pumpsPending_{0};
};

GarbageCollector::GarbageCollector(Executor& executor, ApiServer& server)
    : GarbageCollector(executor, server, Options{}) {}

GarbageCollector::GarbageCollector(Executor& executor, ApiServer& server, Options options)
    : impl_(std::make_shared<Impl>(executor, server, options)) {}

GarbageCollector::~GarbageCollector() { impl_->stop(); }

void GarbageCollector::start() { impl_->start(); }
void GarbageCollector::stop() { impl_->stop(); }
bool GarbageCollector::idle() const { return impl_->idle(); }
std::size_t GarbageCollector::graphSize() const { return impl_->graphSize(); }
ReconcileMetrics GarbageCollector::metrics() const { return impl_->metrics(); }

}  // namespace fakekube
