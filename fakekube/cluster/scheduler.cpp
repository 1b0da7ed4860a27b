#include "fakekube/cluster/scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fakekube/api/conditions.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/quantity.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/internal/controller_utils.h"
#include "fakekube/cluster/internal/scheduler_default_selector.h"
#include "fakekube/cluster/internal/scheduler_fit_error.h"
#include "fakekube/cluster/internal/scheduler_plugins.h"
#include "fakekube/cluster/internal/scheduler_resources.h"
#include "fakekube/cluster/internal/scheduler_waiting_pods.h"
#include "fakekube/cluster/nodes.h"
#include "fakekube/cluster/scheduler_framework.h"
#include "fakekube/runtime/builder.h"

namespace fakekube {

namespace {

constexpr std::string_view kNoVictims = scheduling::kNoPreemptionVictims;
constexpr std::string_view kNotHelpful = scheduling::kPreemptionNotHelpful;

using scheduling::Demand;
using scheduling::NodeCapacity;
using scheduling::NodeUsage;
using scheduling::UsedOnNode;

// isPodUpdated of kube-scheduler's queue: the pods differ once their resourceVersion,
// generation, status, managed fields and finalizers are left out.
bool podSchedulingInputChanged(const Json& oldPod, const Json& newPod) {
  auto stripped = [](const Json& pod) {
    Json copy = pod;
    if (copy.contains("metadata") && copy["metadata"].is_object()) {
      for (const char* field : {"resourceVersion", "generation", "managedFields", "finalizers"}) {
        copy["metadata"].erase(field);
      }
    }
    copy.erase("status");
    return copy;
  };
  return stripped(oldPod) != stripped(newPod);
}

}  // namespace

class Scheduler::Impl : public std::enable_shared_from_this<Impl>,
                        public scheduling::FrameworkHandle {
 public:
  using Stage = scheduling::PlacementCycle::Stage;
  using PluginStatus = scheduling::PluginStatus;

  Impl(Manager& manager, SchedulerOptions options)
      : manager_(manager),
        options_(std::move(options)),
        plugin_(options_.plugin.get()),
        waiting_([this](const std::string& key) { enqueue(key); }) {}

  // Requeues every pod that could not be placed (an event that may make room).
  using WakeAll = std::function<std::vector<ReconcileRequest>(const ObjectPtr&)>;

  Result<void> start() {
    trackClusterState();
    std::weak_ptr<Impl> weak = weak_from_this();
    WakeAll wakeAll = [weak](const ObjectPtr&) -> std::vector<ReconcileRequest> {
      auto self = weak.lock();
      return self ? self->unschedulableRequests() : std::vector<ReconcileRequest>{};
    };
    EventHandler nodeEvents;
    nodeEvents.create = wakeAll;
    nodeEvents.update = [wakeAll](const ObjectPtr&, const ObjectPtr& newObject) {
      return wakeAll(newObject);
    };
    auto self = shared_from_this();
    ControllerBuilder builder(manager_);
    builder.named(options_.controllerName)
        .forResource(kPods, podsToSchedule())
        .watches(kNodes, nodeEvents)
        .watches(kPods, capacityFreedEvents(wakeAll));
    if (plugin_ != nullptr) {
      plugin_->setHandle(this);
      for (const auto& event : plugin_->eventsToRegister()) {
        EventHandler wake;
        if (event.add) wake.create = wakeAll;
        if (event.update) wake.update = nodeEvents.update;
        builder.watches(event.resource, std::move(wake));
      }
    }
    auto controller = builder.complete(
        [self](const ReconcileRequest& request) { return self->reconcile(request); });
    if (!controller) return tl::unexpected(controller.error());
    controller_ = *controller;
    return {};
  }

  // start()'s steps. What every pod is judged against, kept current from the cache: the
  // namespaces' labels (namespaceSelector of pod (anti-)affinity terms), the Services' selectors
  // (the default topology spread constraints) and every node's usage (see NodeState).
  void trackClusterState() {
    Manager& manager = manager_;
    snapshot_.setNamespaceLookup([&manager](std::string_view ns) -> Json {
      auto got = manager.cache().getShared(kNamespaces, "", ns);
      return got ? meta::labels(**got) : Json::object();
    });
    std::weak_ptr<Impl> weak = weak_from_this();
    ResourceEventHandler serviceEvents;
    serviceEvents.onAdd = [weak](const ObjectPtr& service) {
      if (auto self = weak.lock()) self->observeService(service.get());
    };
    serviceEvents.onUpdate = [weak](const ObjectPtr&, const ObjectPtr& service) {
      if (auto self = weak.lock()) self->observeService(service.get());
    };
    serviceEvents.onDelete = [weak](const ObjectPtr& service) {
      if (auto self = weak.lock()) self->observeServiceDelete(*service);
    };
    manager_.cache().informerFor(kServices).addEventHandler(std::move(serviceEvents));
    Informer& pods = manager_.cache().informerFor(kPods);
    workload::addPodNodeNameIndex(pods);
    ResourceEventHandler usage;
    usage.onAdd = [weak](const ObjectPtr& pod) {
      if (auto self = weak.lock()) self->observe(nullptr, pod);
    };
    usage.onUpdate = [weak](const ObjectPtr& oldPod, const ObjectPtr& newPod) {
      if (auto self = weak.lock()) self->observe(oldPod.get(), newPod);
    };
    usage.onDelete = [weak](const ObjectPtr& pod) {
      if (auto self = weak.lock()) self->observeDelete(*pod);
    };
    pods.addEventHandler(std::move(usage));
  }

  // The pods this scheduler places: its schedulerName, no node yet. An update that changes only
  // what the scheduler itself writes (the status) does not bring a pod back, as the scheduling
  // queue's isPodUpdated decides: else a pod's own FailedScheduling write would reschedule it at
  // once.
  Predicate podsToSchedule() const {
    std::string schedulerName = options_.schedulerName;
    auto ours = predicate::fromFilter([schedulerName](const Json& pod) {
      const Json& spec = jsonAt(pod, {"spec"});
      return spec.is_object() && spec.value("schedulerName", "") == schedulerName &&
             podNodeName(pod).empty();
    });
    ours.update = [filter = ours.update](const ObjectPtr& oldPod, const ObjectPtr& newPod) {
      return filter(oldPod, newPod) && (!oldPod || podSchedulingInputChanged(*oldPod, *newPod));
    };
    return ours;
  }

  // Wakes the unschedulable pods when a bound pod goes away or finishes: it frees its node's
  // capacity.
  static EventHandler capacityFreedEvents(const WakeAll& wakeAll) {
    EventHandler podEvents;
    podEvents.update = [wakeAll](const ObjectPtr& oldObject, const ObjectPtr& newObject) {
      bool freed = !podNodeName(*newObject).empty() && isPodTerminal(*newObject) &&
                   !isPodTerminal(*oldObject);
      return freed ? wakeAll(newObject) : std::vector<ReconcileRequest>{};
    };
    podEvents.delete_ = [wakeAll](const ObjectPtr& object) {
      bool freed = !podNodeName(*object).empty() && !isPodTerminal(*object);
      return freed ? wakeAll(object) : std::vector<ReconcileRequest>{};
    };
    return podEvents;
  }

  // --- FrameworkHandle (scheduler_framework.h) ---
  void iterateOverWaitingPods(const std::function<void(scheduling::WaitingPod&)>& visit) override {
    waiting_.iterate(visit);
  }
  void activate(const std::vector<std::string>& podKeys) override {
    for (const auto& key : podKeys) enqueue(key);
  }
  std::vector<scheduling::NodeResources> nodeInfos() override;
  TimePoint now() override { return manager_.executor().now(); }

  std::uint64_t bindings() const {
    std::lock_guard lock(mu_);
    return bindings_;
  }
  std::size_t unschedulablePods() const {
    std::lock_guard lock(mu_);
    return unschedulable_.size();
  }

 private:
  std::vector<ReconcileRequest> unschedulableRequests() {
    std::lock_guard lock(mu_);
    std::vector<ReconcileRequest> requests;
    for (const auto& key : unschedulable_) requests.push_back(ReconcileRequest::fromKey(key));
    return requests;
  }

  void forget(const std::string& key) {
    std::lock_guard lock(mu_);
    unschedulable_.erase(key);
  }

  void enqueue(const std::string& key) {
    if (controller_ != nullptr) controller_->enqueue(ReconcileRequest::fromKey(key));
  }

  ReconcileOutcome reconcile(const ReconcileRequest& request) {
    const std::string key = request.key();
    auto got = manager_.cache().getShared(kPods, request.namespace_, request.name);
    if (plugin_ != nullptr && waiting_.contains(key)) {
      return continueWaiting(key, got ? *got : nullptr);
    }
    if (!got) {
      forget(key);
      return ReconcileResult{};
    }
    const Json& pod = **got;
    const Json& spec = pod["spec"];
    if (!podNodeName(pod).empty() || meta::isDeleting(pod) || isPodTerminal(pod) ||
        !spec.is_object() || spec.value("schedulerName", "") != options_.schedulerName) {
      forget(key);
      return ReconcileResult{};
    }
    {
      std::lock_guard lock(mu_);
      if (assumed_.count(meta::uid(pod))) return ReconcileResult{};  // bound; the cache lags
    }
    auto requests = podRequests(pod);
    if (!requests) return terminalError(requests.error());

    // The nodes as the cache holds them (shared, not copied into a list), in name order: the
    // informer orders by key, which is the name for a cluster-scoped object.
    Informer& nodeInformer = manager_.cache().informerFor(kNodes);
    if (!nodeInformer.hasSynced()) {
      if (auto synced = manager_.cache().list(kNodes, ""); !synced) {
        return reconcileError(synced.error());
      }
    }
    const std::vector<ObjectPtr> nodes = nodeInformer.list();
    const scheduling::SpreadDefaults defaults = spreadDefaults(pod);
    // The plugin's PreFilter runs after the default plugins' (decide), but outside the lock.
    const PluginStatus pluginPreFilter = plugin_ ? plugin_->preFilter(pod) : PluginStatus{};
    auto decision = decide(pod, Demand(*requests), nodes, defaults, pluginPreFilter);
    if (!decision) return terminalError(decision.error());
    if (!decision->node.empty()) {
      if (plugin_ == nullptr) return bind(*got, key, *requests, decision->node);
      return reserveAndPermit(*got, key, *requests, decision->node);
    }
    std::vector<std::string> postFilterReasons;
    if (plugin_ != nullptr && !nodes.empty()) {
      PluginStatus post = plugin_->postFilter(pod);
      if (!post.message.empty()) postFilterReasons.push_back(std::move(post.message));
    }
    return markUnschedulable(pod, key, decision->fitError.message(postFilterReasons));
  }

  // Reserve (the pod assumed on `node`) and Permit: bound now, parked as a waiting pod, or
  // unreserved and told why not.
  ReconcileOutcome reserveAndPermit(const ObjectPtr& podObject, const std::string& key,
                                    const ResourceList& requests, const std::string& node) {
    const Json& pod = *podObject;
    const std::string uid = meta::uid(pod);
    {
      std::lock_guard lock(mu_);
      assumeLocked(uid, Assumed{node, requests}, podObject);
    }
    PluginStatus permit = plugin_->permit(pod, node);
    if (permit.success()) return sendBinding(podObject, key, node);
    if (permit.code == PluginStatus::Code::Wait) {
      constexpr Duration kMaxPermitTimeout = std::chrono::minutes(15);
      const Duration waitTime = std::min(permit.timeout, kMaxPermitTimeout);
      const TimePoint deadline = now() + waitTime;
      waiting_.add({key, uid, podObject, node, requests, plugin_->name(), waitTime, deadline});
      return ReconcileResult{waitTime};
    }
    failBindingCycle(pod, node);
    return markUnschedulable(pod, key, permit.message);
  }

  // A waiting pod's reconcile: still waiting (requeued at its deadline), or its binding cycle
  // goes on with the verdict.
  ReconcileOutcome continueWaiting(const std::string& key, const ObjectPtr& current) {
    const bool present = current && !meta::isDeleting(*current);
    auto resolution = waiting_.resolve(key, present ? meta::uid(*current) : "", now());
    if (!resolution) return ReconcileResult{};
    if (resolution->waiting) {
      return ReconcileResult{std::max<Duration>(resolution->deadline - now(), Duration(1))};
    }
    const auto& entry = resolution->entry;
    if (resolution->status.success()) return sendBinding(entry.pod, key, entry.node);
    failBindingCycle(*entry.pod, entry.node);
    if (!present || meta::uid(*current) != entry.uid) return ReconcileResult{};
    return markUnschedulable(*current, key, resolution->status.message);
  }

  // handleBindingCycleError: Unreserve, then the assumed pod is forgotten.
  void failBindingCycle(const Json& pod, const std::string& node) {
    plugin_->unreserve(pod, node);
    std::lock_guard lock(mu_);
    eraseAssumedLocked(meta::uid(pod));
  }

  // What PodTopologySpread's system default constraints need: the selector of the Services and
  // the controller that select the pod (only for a pod without constraints of its own).
  scheduling::SpreadDefaults spreadDefaults(const Json& pod) {
    if (!jsonArrayAt(jsonAt(pod, {"spec"}), "topologySpreadConstraints").empty()) return {};
    Json serviceSelector;
    {
      std::lock_guard lock(mu_);
      serviceSelector = services_.mergedSelectorFor(meta::namespace_(pod), meta::labels(pod));
    }
    return {scheduling::defaultSpreadSelector(pod, std::move(serviceSelector), manager_.cache())};
  }

  struct Decision {
    std::string node;               // where the pod goes; empty: nowhere
    scheduling::FitError fitError;  // why not
  };

  // One scheduling cycle: PreFilter, Filter (the placement plugins around NodeResourcesFit) over
  // the nodes worth visiting, and Score of the feasible ones. The highest total wins; ties go to
  // the name that sorts first.
  Result<Decision> decide(const Json& pod, const Demand& demand,
                          const std::vector<ObjectPtr>& nodes,
                          const scheduling::SpreadDefaults& defaults,
                          const PluginStatus& pluginPreFilter) {
    std::lock_guard lock(mu_);
    const std::vector<const NodeCapacity*> capacities = nodeInfosLocked(nodes);
    snapshot_.setNodes(nodes);
    const std::vector<const scheduling::NodeInfo*>& infos = snapshot_.nodes();
    // The bound pods of every node as the informer holds them, before the plugins count them.
    Informer& podInformer = manager_.cache().informerFor(kPods);
    std::vector<const NodeUsage*> bound;
    bound.reserve(capacities.size());
    for (const NodeCapacity* node : capacities)
      bound.push_back(&usageLocked(podInformer, node->name));

    auto cycle = scheduling::PlacementCycle::start(pod, snapshot_, defaults);
    if (!cycle) return tl::unexpected(cycle.error());
    std::map<std::string, int> reasonCounts;
    std::map<std::string, int> preemptionCounts;
    const scheduling::PreFilterResult pre = cycle->preFilter();
    if (!pre.status.ok()) {
      const auto preemption = pre.status.resolvable() ? kNoVictims : kNotHelpful;
      preemptionCounts[std::string(preemption)] = static_cast<int>(nodes.size());
      return Decision{{}, {nodes.size(), pre.status.reasons.front(), {}, preemptionCounts}};
    }
    if (pluginPreFilter.rejected()) {
      const bool resolvable = pluginPreFilter.code == PluginStatus::Code::Unschedulable;
      preemptionCounts[std::string(resolvable ? kNoVictims : kNotHelpful)] =
          static_cast<int>(nodes.size());
      return Decision{{}, {nodes.size(), pluginPreFilter.message, {}, preemptionCounts}};
    }
    std::vector<std::size_t> candidates;  // indexes into `nodes`
    candidates.reserve(nodes.size());
    for (std::size_t i = 0; i < infos.size(); ++i) {
      if (!pre.nodeNames || pre.nodeNames->count(infos[i]->name)) candidates.push_back(i);
    }
    if (const int absent = static_cast<int>(nodes.size() - candidates.size()); absent > 0) {
      reasonCounts[fmt::format("node(s) didn't satisfy plugin(s) [{}]",
                               fmt::join(pre.narrowedBy, " "))] += absent;
      preemptionCounts[std::string(kNotHelpful)] += absent;
    }

    const std::size_t toFind = numFeasibleNodesToFind(candidates.size());
    const std::size_t start = candidates.empty() ? 0 : nextStartNodeIndex_ % candidates.size();
    std::vector<const scheduling::NodeInfo*> feasible;
    std::vector<std::int64_t> scores;  // NodeResourcesFit's, weight 1
    std::size_t processed = 0;
    for (std::size_t c = 0; c < candidates.size() && feasible.size() < toFind; ++c) {
      const std::size_t i = candidates[(start + c) % candidates.size()];
      ++processed;
      auto assumed = assumedByNode_.find(infos[i]->name);
      const UsedOnNode used{*bound[i],
                            assumed == assumedByNode_.end() ? nullptr : &assumed->second};
      scheduling::FilterStatus status = cycle->filter(*infos[i], Stage::BeforeResources);
      if (status.ok()) status = scheduling::fitResources(demand, *capacities[i], used);
      if (status.ok()) status = cycle->filter(*infos[i], Stage::AfterResources);
      if (!status.ok()) {
        for (const auto& r : status.reasons) ++reasonCounts[r];
        ++preemptionCounts[std::string(status.resolvable() ? kNoVictims : kNotHelpful)];
        continue;
      }
      feasible.push_back(infos[i]);
      scores.push_back(scheduling::leastAllocatedScore(demand, *capacities[i], used));
    }
    if (!candidates.empty()) nextStartNodeIndex_ = (start + processed) % candidates.size();
    if (feasible.empty()) return Decision{{}, {nodes.size(), {}, reasonCounts, preemptionCounts}};
    const std::vector<std::int64_t> placement = cycle->scores(feasible);
    std::size_t best = 0;
    for (std::size_t f = 1; f < feasible.size(); ++f) {
      const std::int64_t total = scores[f] + placement[f];
      const std::int64_t bestTotal = scores[best] + placement[best];
      if (total > bestTotal || (total == bestTotal && feasible[f]->name < feasible[best]->name)) {
        best = f;
      }
    }
    return Decision{feasible[best]->name, {}};
  }

  // --- The bound pods' usage, per node ---
  //
  // Recomputing what every node has used up from the informer for each scheduling decision cost
  // every bound pod per decision, so scheduling N pods cost N^2. Instead each bound pod is
  // counted once, when the informer reports it (added, bound, finished, deleted), into its
  // node's NodeState, as kube-scheduler's cache keeps a NodeInfo per node. A pod's requests cannot
  // change once it exists (its containers' resources are immutable), so they are parsed once.
  //
  // The informer's events are the source; a decision also compares each node's pod count with
  // the informer's spec.nodeName index (one lookup a node) and recounts a node that differs from
  // the informer, so a decision made before the handler caught up (a scheduler started on a
  // running informer, whose existing pods the handler is told about in a later task) counts what
  // the informer holds.

  // A bound pod as counted.
  struct BoundPod {
    std::string node;
    ResourceList requests;
    bool counted = false;  // non-terminal: its requests are in the node's usage
  };
  struct NodeState {
    NodeUsage usage;                       // the non-terminal pods bound to the node
    std::unordered_set<std::string> uids;  // every pod bound to the node, terminal ones too
  };

  void observe(const Json* oldPod, const ObjectPtr& pod) {
    std::lock_guard lock(mu_);
    if (oldPod != nullptr && meta::uid(*oldPod) != meta::uid(*pod)) {
      // Another pod took the name: the old one is gone, bound or assumed.
      forgetLocked(meta::uid(*oldPod));
      eraseAssumedLocked(meta::uid(*oldPod));
    }
    countLocked(pod);
  }
  void observeService(const Json* service) {
    std::lock_guard lock(mu_);
    services_.upsert(*service);
  }
  void observeServiceDelete(const Json& service) {
    std::lock_guard lock(mu_);
    services_.remove(service);
  }
  void observeDelete(const Json& pod) {
    std::lock_guard lock(mu_);
    const std::string uid = meta::uid(pod);
    forgetLocked(uid);
    eraseAssumedLocked(uid);  // gone: nothing to wait for
  }

  // Counts `pod` as it is now (idempotent: a pod seen twice in the same state counts once), in
  // its node's usage and in the placement plugins' snapshot.
  void countLocked(const ObjectPtr& pod) {
    countUsageLocked(*pod);
    const std::string node = podNodeName(*pod);
    if (!node.empty()) snapshot_.addPod(pod, node);
  }
  void countUsageLocked(const Json& pod) {
    const std::string uid = meta::uid(pod);
    std::string node = podNodeName(pod);
    if (node.empty()) {
      forgetLocked(uid);
      return;
    }
    eraseAssumedLocked(uid);  // the cache shows it bound
    const bool counted = !isPodTerminal(pod);
    auto it = boundPods_.find(uid);
    if (it != boundPods_.end() && it->second.node == node && it->second.counted == counted) return;
    ResourceList requests;
    if (it != boundPods_.end()) {
      requests = it->second.requests;
      forgetLocked(uid);
    } else {
      auto parsed = podRequests(pod);
      if (parsed) requests = std::move(*parsed);
    }
    NodeState& state = nodeStates_[node];
    state.uids.insert(uid);
    if (counted) state.usage.add(requests);
    boundPods_.emplace(uid, BoundPod{std::move(node), std::move(requests), counted});
  }

  void forgetLocked(const std::string& uid) {
    if (!assumed_.count(uid)) snapshot_.removePod(uid);
    auto it = boundPods_.find(uid);
    if (it == boundPods_.end()) return;
    auto state = nodeStates_.find(it->second.node);
    if (state != nodeStates_.end()) {
      if (it->second.counted) state->second.usage.remove(it->second.requests);
      state->second.uids.erase(uid);
      if (state->second.uids.empty()) nodeStates_.erase(state);
    }
    boundPods_.erase(it);
  }

  // The usage of the non-terminal pods bound to `node`, recounted from the informer when its
  // count of pods there differs from ours.
  const NodeUsage& usageLocked(Informer& informer, const std::string& node) {
    auto state = nodeStates_.find(node);
    const std::size_t ours = state == nodeStates_.end() ? 0 : state->second.uids.size();
    if (informer.countByIndex(workload::kPodNodeNameIndex, node) != ours) {
      std::vector<ObjectPtr> pods = informer.byIndex(workload::kPodNodeNameIndex, node);
      std::unordered_set<std::string> present;
      for (const auto& pod : pods) present.insert(meta::uid(*pod));
      if (state != nodeStates_.end()) {
        std::vector<std::string> gone;
        for (const auto& uid : state->second.uids) {
          if (!present.count(uid)) gone.push_back(uid);
        }
        for (const auto& uid : gone) forgetLocked(uid);
      }
      for (const auto& pod : pods) countLocked(pod);
      state = nodeStates_.find(node);
    }
    static const NodeUsage kNothing;
    return state == nodeStates_.end() ? kNothing : state->second.usage;
  }

  // How many feasible nodes a decision looks for before it stops filtering (kube-scheduler's
  // numFeasibleNodesToFind with the default percentageOfNodesToScore): every node below 100;
  // above, 50% less one point per 125 nodes, at least 5% and at least 100 nodes.
  static std::size_t numFeasibleNodesToFind(std::size_t numAllNodes) {
    constexpr std::size_t kMinFeasibleNodesToFind = 100;
    constexpr std::int64_t kMinFeasibleNodesPercentageToFind = 5;
    if (numAllNodes < kMinFeasibleNodesToFind) return numAllNodes;
    const std::int64_t percentage = std::max<std::int64_t>(
        kMinFeasibleNodesPercentageToFind, 50 - static_cast<std::int64_t>(numAllNodes) / 125);
    const std::size_t numNodes = numAllNodes * static_cast<std::size_t>(percentage) / 100;
    return std::max(numNodes, kMinFeasibleNodesToFind);
  }

  // The parsed form of each node, refreshed for a node whose cached document changed.
  std::vector<const NodeCapacity*> nodeInfosLocked(const std::vector<ObjectPtr>& nodes) {
    // No node changed since the last decision (the informer hands out the same documents): its
    // parsed nodes serve as they are, without a lookup a node. Each NodeCapacity holds its
    // document, so a pointer compared here cannot be a freed document's address reused.
    if (nodes.size() == lastInfos_.size() &&
        std::equal(
            nodes.begin(), nodes.end(), lastInfos_.begin(),
            [](const ObjectPtr& node, const NodeCapacity* info) { return info->object == node; })) {
      return lastInfos_;
    }
    std::vector<const NodeCapacity*> infos;
    infos.reserve(nodes.size());
    for (const auto& node : nodes) {
      const std::string& name = meta::name(*node);
      NodeCapacity& info = nodeInfos_[name];
      if (info.object != node) info = NodeCapacity::parse(node);
      infos.push_back(&info);
    }
    if (nodeInfos_.size() > nodes.size()) {  // deleted nodes
      std::unordered_set<std::string_view> names;
      for (const NodeCapacity* info : infos) names.insert(info->name);
      std::erase_if(nodeInfos_, [&](const auto& entry) { return !names.count(entry.first); });
    }
    lastInfos_ = infos;
    return infos;
  }

  ReconcileOutcome bind(const ObjectPtr& podObject, const std::string& key,
                        const ResourceList& requests, const std::string& node) {
    const Json& pod = *podObject;
    // Assumed before the binding is sent, as kube-scheduler's AssumePod: the informer's event
    // of the bound pod, whenever it comes, finds the assumption and forgets it.
    {
      std::lock_guard lock(mu_);
      assumeLocked(meta::uid(pod), Assumed{node, requests}, podObject);
    }
    return sendBinding(podObject, key, node);
  }

  // The binding of a pod already assumed on `node`.
  ReconcileOutcome sendBinding(const ObjectPtr& podObject, const std::string& key,
                               const std::string& node) {
    const Json& pod = *podObject;
    Json binding = {{"apiVersion", "v1"},
                    {"kind", "Binding"},
                    {"metadata", {{"name", meta::name(pod)}, {"namespace", meta::namespace_(pod)}}},
                    {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
    const std::string uid = meta::uid(pod);
    auto bound = manager_.client().createSubresource(kPods, meta::namespace_(pod), meta::name(pod),
                                                     "binding", std::move(binding));
    if (!bound) {
      if (plugin_ != nullptr) plugin_->unreserve(pod, node);
      {
        std::lock_guard lock(mu_);
        eraseAssumedLocked(uid);  // ForgetPod
      }
      // 409: bound by someone else or being deleted; 404: gone. The watch tells what happened.
      if (isConflict(bound.error()) || isNotFound(bound.error())) return ReconcileResult{};
      return reconcileError(bound.error());
    }
    {
      std::lock_guard lock(mu_);
      unschedulable_.erase(key);
      ++bindings_;
    }
    if (options_.recordEvents) {
      (void)manager_.eventRecorder(options_.schedulerName)
          .event(pod, "Normal", "Scheduled",
                 fmt::format("Successfully assigned {}/{} to {}", meta::namespace_(pod),
                             meta::name(pod), node));
    }
    return ReconcileResult{};
  }

  ReconcileOutcome markUnschedulable(const Json& pod, const std::string& key,
                                     const std::string& message) {
    {
      std::lock_guard lock(mu_);
      unschedulable_.insert(key);
    }
    const Json* current = findCondition(pod, "PodScheduled");
    bool same = current != nullptr && current->value("status", "") == "False" &&
                current->value("reason", "") == "Unschedulable" &&
                current->value("message", "") == message;
    if (!same) {
      Json updated = pod;
      setCondition(updated["status"],
                   {{"type", "PodScheduled"},
                    {"status", "False"},
                    {"reason", "Unschedulable"},
                    {"message", message}},
                   manager_.executor().now());
      auto written = manager_.client().updateStatusShared(kPods, std::move(updated));
      if (!written) {
        if (isNotFound(written.error())) return ReconcileResult{};
        return reconcileError(written.error());  // 409: try again on a fresher cache
      }
      if (options_.recordEvents) {
        (void)manager_.eventRecorder(options_.schedulerName)
            .event(pod, "Warning", "FailedScheduling", message);
      }
    }
    return ReconcileResult{options_.unschedulableRetry};
  }

  struct Assumed {
    std::string node;
    ResourceList requests;
  };

  // Forgets an assumed pod, and its requests on its node.
  std::unordered_map<std::string, Assumed>::iterator eraseAssumedLocked(
      std::unordered_map<std::string, Assumed>::iterator it) {
    if (!boundPods_.count(it->first)) snapshot_.removePod(it->first);
    auto node = assumedByNode_.find(it->second.node);
    if (node != assumedByNode_.end()) {
      node->second.remove(it->second.requests);
      if (node->second.pods == 0) assumedByNode_.erase(node);
    }
    return assumed_.erase(it);
  }
  void eraseAssumedLocked(const std::string& uid) {
    if (auto it = assumed_.find(uid); it != assumed_.end()) eraseAssumedLocked(it);
  }
  void assumeLocked(const std::string& uid, Assumed assumed, const ObjectPtr& pod) {
    eraseAssumedLocked(uid);
    assumedByNode_[assumed.node].add(assumed.requests);
    snapshot_.addPod(pod, assumed.node);
    assumed_.emplace(uid, std::move(assumed));
  }

  Manager& manager_;
  const SchedulerOptions options_;
  scheduling::FrameworkPlugin* const plugin_;  // options_.plugin's, or nullptr
  scheduling::WaitingPods waiting_;            // the pods waiting at Permit
  Controller* controller_ = nullptr;           // the manager owns it
  mutable std::mutex mu_;
  // The bound pods by uid, and what they use up per node (see NodeState).
  std::unordered_map<std::string, BoundPod> boundPods_;
  std::unordered_map<std::string, NodeState> nodeStates_;
  // The nodes and the pods bound or assumed to them, as the placement plugins read them.
  scheduling::Snapshot snapshot_;
  scheduling::ServiceSelectorIndex services_;
  std::unordered_map<std::string, NodeCapacity> nodeInfos_;  // by node name
  std::vector<const NodeCapacity*> lastInfos_;               // the last decision's, in its order
  std::set<std::string> unschedulable_;                      // pod keys
  std::unordered_map<std::string, Assumed> assumed_;         // by pod uid
  // What the assumed pods of each node use (node name -> their usage alone).
  std::unordered_map<std::string, NodeUsage> assumedByNode_;
  // Where the next decision starts filtering (kube-scheduler's nextStartNodeIndex): a decision
  // that stops after numFeasibleNodesToFind nodes leaves the rest for the next ones.
  std::size_t nextStartNodeIndex_ = 0;
  std::uint64_t bindings_ = 0;
};

std::vector<scheduling::NodeResources> Scheduler::Impl::nodeInfos() {
  const std::vector<ObjectPtr> nodes = manager_.cache().informerFor(kNodes).list();
  std::lock_guard lock(mu_);
  std::vector<scheduling::NodeResources> infos;
  infos.reserve(nodes.size());
  for (const auto& node : nodes) {
    scheduling::NodeResources info{meta::name(*node), NodeCapacity::parse(node).allocatable, {}};
    for (const scheduling::PodInfo* pod : snapshot_.podsOn(info.name)) {
      ResourceList requests;
      if (auto bound = boundPods_.find(pod->uid); bound != boundPods_.end()) {
        requests = bound->second.requests;
      } else if (auto assumed = assumed_.find(pod->uid); assumed != assumed_.end()) {
        requests = assumed->second.requests;
      }
      info.pods.push_back({pod->object, std::move(requests)});
    }
    infos.push_back(std::move(info));
  }
  return infos;
}

Scheduler::Scheduler(Manager& manager, SchedulerOptions options)
    : impl_(std::make_shared<Impl>(manager, std::move(options))) {}
Scheduler::~Scheduler() = default;

Result<std::unique_ptr<Scheduler>> addScheduler(Manager& manager, SchedulerOptions options) {
  std::unique_ptr<Scheduler> scheduler(new Scheduler(manager, std::move(options)));
  if (auto started = scheduler->impl_->start(); !started) return tl::unexpected(started.error());
  return scheduler;
}

std::uint64_t Scheduler::bindings() const { return impl_->bindings(); }
std::size_t Scheduler::unschedulablePods() const { return impl_->unschedulablePods(); }

}  // namespace fakekube
