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
#include "fakekube/api/resources.h"
#include "fakekube/cluster/nodes.h"
#include "fakekube/cluster/quantity.h"
#include "fakekube/runtime/builder.h"

namespace fakekube {

namespace {

constexpr std::string_view kNodeNameIndex = "spec.nodeName";

// schedutil.DefaultMilliCPURequest / DefaultMemoryRequest: what the scorer counts for a pod that
// requests nothing.
constexpr std::int64_t kDefaultMilliCpu = 100;
constexpr std::int64_t kDefaultMemory = 200LL * 1024 * 1024;

constexpr std::string_view kReasonUnschedulable = "node(s) were unschedulable";
constexpr std::string_view kReasonSelector = "node(s) didn't match Pod's node affinity/selector";
constexpr std::string_view kReasonTooManyPods = "Too many pods";
constexpr std::string_view kNoVictims = "No preemption victims found for incoming pod";
constexpr std::string_view kNotHelpful = "Preemption is not helpful for scheduling";

Result<void> addResources(ResourceList& into, const Json& list, bool max) {
  if (!list.is_object()) return {};
  for (const auto& [name, value] : list.items()) {
    std::string text = value.is_string()   ? value.get<std::string>()
                       : value.is_number() ? value.dump()
                                           : std::string();
    auto parsed = parseResourceQuantity(name, text);
    if (!parsed) return tl::unexpected(parsed.error());
    if (max) {
      into[name] = std::max(into[name], *parsed);
    } else {
      into[name] += *parsed;
    }
  }
  return {};
}

// A container's requests, with limits standing in for missing requests.
Result<ResourceList> containerRequests(const Json& container) {
  ResourceList requests;
  const Json& resources = jsonAt(container, {"resources"});
  if (!resources.is_object()) return requests;
  if (auto r = addResources(requests, resources.value("requests", Json::object()), false); !r) {
    return tl::unexpected(r.error());
  }
  ResourceList limits;
  if (auto r = addResources(limits, resources.value("limits", Json::object()), false); !r) {
    return tl::unexpected(r.error());
  }
  for (const auto& [name, value] : limits) requests.emplace(name, value);
  return requests;
}

// The node's taints that keep new pods off, including the one a node that is not Ready carries.
std::vector<Json> schedulingTaints(const Json& node) {
  std::vector<Json> taints;
  const Json& nodeTaints = jsonAt(node, {"spec", "taints"});
  if (nodeTaints.is_array()) {
    for (const auto& t : nodeTaints) {
      std::string effect = t.value("effect", "");
      if (effect == "NoSchedule" || effect == "NoExecute") taints.push_back(t);
    }
  }
  std::string ready = conditionStatus(node, "Ready");
  if (ready != "True") {
    std::string key =
        ready == "Unknown" ? "node.kubernetes.io/unreachable" : "node.kubernetes.io/not-ready";
    bool present = std::any_of(taints.begin(), taints.end(),
                               [&](const Json& t) { return t.value("key", "") == key; });
    if (!present) taints.push_back({{"key", key}, {"effect", "NoSchedule"}});
  }
  return taints;
}

// v1.Toleration.ToleratesTaint.
bool tolerates(const Json& pod, const Json& taint) {
  const Json& spec = pod["spec"];
  if (!spec.contains("tolerations") || !spec["tolerations"].is_array()) return false;
  for (const auto& t : spec["tolerations"]) {
    std::string effect = t.value("effect", "");
    if (!effect.empty() && effect != taint.value("effect", "")) continue;
    std::string key = t.value("key", "");
    std::string op = t.value("operator", "Equal");
    if (!key.empty() && key != taint.value("key", "")) continue;
    if (op == "Exists") return true;
    if (op == "Equal" && !key.empty() && t.value("value", "") == taint.value("value", "")) {
      return true;
    }
  }
  return false;
}

bool matchesNodeSelector(const Json& pod, const Json& node) {
  const Json& spec = pod["spec"];
  if (!spec.contains("nodeSelector") || !spec["nodeSelector"].is_object()) return true;
  const Json& labels = meta::labels(node);
  for (const auto& [key, value] : spec["nodeSelector"].items()) {
    if (!labels.is_object() || !labels.contains(key) || labels[key] != value) return false;
  }
  return true;
}

// What a node has used up.
struct NodeUsage {
  ResourceList requested;
  std::int64_t pods = 0;
  // For scoring, with the non-zero defaults.
  std::int64_t scoreCpu = 0;
  std::int64_t scoreMemory = 0;

  void add(const ResourceList& requests) {
    for (const auto& [name, value] : requests) requested[name] += value;
    ++pods;
    auto cpu = requests.find("cpu");
    auto memory = requests.find("memory");
    scoreCpu += cpu != requests.end() && cpu->second > 0 ? cpu->second : kDefaultMilliCpu;
    scoreMemory += memory != requests.end() && memory->second > 0 ? memory->second : kDefaultMemory;
  }
};

// One node's verdict.
struct Verdict {
  std::vector<std::string> reasons;  // empty: the pod fits
  bool resolvable = true;            // preemption could help (resource shortage)
};

}  // namespace

Result<ResourceList> podRequests(const Json& pod) {
  ResourceList total;
  const Json& spec = jsonAt(pod, {"spec"});
  if (!spec.is_object()) return total;
  if (spec.contains("containers") && spec["containers"].is_array()) {
    for (const auto& c : spec["containers"]) {
      auto requests = containerRequests(c);
      if (!requests) return tl::unexpected(requests.error());
      for (const auto& [name, value] : *requests) total[name] += value;
    }
  }
  if (spec.contains("initContainers") && spec["initContainers"].is_array()) {
    for (const auto& c : spec["initContainers"]) {
      auto requests = containerRequests(c);
      if (!requests) return tl::unexpected(requests.error());
      for (const auto& [name, value] : *requests) total[name] = std::max(total[name], value);
    }
  }
  if (spec.contains("overhead")) {
    if (auto r = addResources(total, spec["overhead"], false); !r) return tl::unexpected(r.error());
  }
  return total;
}

class Scheduler::Impl : public std::enable_shared_from_this<Impl> {
 public:
  Impl(Manager& manager, Options options) : manager_(manager), options_(std::move(options)) {}

  Result<void> start() {
    Informer& pods = manager_.cache().informerFor(kPods);
    pods.addIndexer(std::string(kNodeNameIndex), [](const Json& pod) {
      std::string node = podNodeName(pod);
      return node.empty() ? std::vector<std::string>{} : std::vector<std::string>{node};
    });
    std::weak_ptr<Impl> weak = weak_from_this();
    auto wakeAll = [weak](const ObjectPtr&) -> std::vector<ReconcileRequest> {
      auto self = weak.lock();
      return self ? self->unschedulableRequests() : std::vector<ReconcileRequest>{};
    };
    EventHandler nodeEvents;
    nodeEvents.create = wakeAll;
    nodeEvents.update = [wakeAll](const ObjectPtr&, const ObjectPtr& newObject) {
      return wakeAll(newObject);
    };
    EventHandler podEvents;
    // A bound pod that goes away or finishes frees its node's capacity.
    podEvents.update = [wakeAll](const ObjectPtr& oldObject, const ObjectPtr& newObject) {
      bool freed = !podNodeName(*newObject).empty() && isPodTerminal(*newObject) &&
                   !isPodTerminal(*oldObject);
      return freed ? wakeAll(newObject) : std::vector<ReconcileRequest>{};
    };
    podEvents.delete_ = [wakeAll](const ObjectPtr& object) {
      bool freed = !podNodeName(*object).empty() && !isPodTerminal(*object);
      return freed ? wakeAll(object) : std::vector<ReconcileRequest>{};
    };
    std::string schedulerName = options_.schedulerName;
    auto ours = predicate::fromFilter([schedulerName](const Json& pod) {
      const Json& spec = jsonAt(pod, {"spec"});
      return spec.is_object() && spec.value("schedulerName", "") == schedulerName &&
             podNodeName(pod).empty();
    });
    auto self = shared_from_this();
    auto controller =
        ControllerBuilder(manager_)
            .named("scheduler")
            .forResource(kPods, ours)
            .watches(kNodes, nodeEvents)
            .watches(kPods, podEvents)
            .complete([self](const ReconcileRequest& request) { return self->reconcile(request); });
    if (!controller) return tl::unexpected(controller.error());
    return {};
  }

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

  ReconcileOutcome reconcile(const ReconcileRequest& request) {
    const std::string key = request.key();
    auto got = manager_.cache().getShared(kPods, request.namespace_, request.name);
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

    // The nodes as the cache holds them (shared, not copied into a list), in name order.
    Informer& nodeInformer = manager_.cache().informerFor(kNodes);
    if (!nodeInformer.hasSynced()) {
      if (auto synced = manager_.cache().list(kNodes, ""); !synced) {
        return reconcileError(synced.error());
      }
    }
    const std::vector<ObjectPtr> nodes = nodeInformer.list();
    std::vector<std::pair<std::string, const Json*>> named;
    named.reserve(nodes.size());
    for (const auto& node : nodes) named.emplace_back(meta::name(*node), node.get());
    std::sort(named.begin(), named.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<const Json*> nodeList;
    nodeList.reserve(named.size());
    for (const auto& [name, node] : named) nodeList.push_back(node);

    std::map<std::string, NodeUsage> usage = nodeUsage(nodeList);

    std::map<std::string, int> reasonCounts;
    std::map<std::string, int> preemptionCounts;
    const Json* best = nullptr;
    std::int64_t bestScore = -1;
    for (const Json* node : nodeList) {
      const NodeUsage& used = usage[meta::name(*node)];
      ResourceList allocatable = allocatableOf(*node);
      Verdict verdict = filter(pod, *requests, *node, allocatable, used);
      if (!verdict.reasons.empty()) {
        for (const auto& r : verdict.reasons) ++reasonCounts[r];
        ++preemptionCounts[std::string(verdict.resolvable ? kNoVictims : kNotHelpful)];
        continue;
      }
      std::int64_t s = score(*requests, allocatable, used);
      if (s > bestScore) {
        bestScore = s;
        best = node;
      }
    }
    if (best != nullptr) return bind(pod, key, *requests, meta::name(*best));
    return markUnschedulable(pod, key, fitError(nodeList.size(), reasonCounts, preemptionCounts));
  }

  // What each node has used up: the non-terminal pods bound to it, and the pods this scheduler
  // bound that the cache does not show bound yet.
  std::map<std::string, NodeUsage> nodeUsage(const std::vector<const Json*>& nodes) {
    std::map<std::string, NodeUsage> usage;
    Informer& informer = manager_.cache().informerFor(kPods);
    // Uids as views into the bound pods, which `bound` keeps alive until the end: this runs for
    // every scheduling decision over every bound pod, so nothing is copied per pod.
    std::vector<ObjectPtr> bound;
    std::unordered_set<std::string_view> seenBound;
    for (const Json* node : nodes) {
      const std::string name = meta::name(*node);
      NodeUsage& used = usage[name];
      for (auto& pod : informer.byIndex(kNodeNameIndex, name)) {
        const Json& uidField = jsonAt(*pod, {"metadata", "uid"});
        std::string_view uid =
            uidField.is_string() ? std::string_view(uidField.get_ref<const std::string&>()) : "";
        seenBound.insert(uid);
        if (!isPodTerminal(*pod)) used.add(boundRequests(uid, *pod));
        bound.push_back(std::move(pod));
      }
    }
    std::lock_guard lock(mu_);
    // Forget the requests of pods no longer bound anywhere (deleted), so the memo stays as large
    // as the set of bound pods.
    std::erase_if(requestsByUid_,
                  [&](const auto& entry) { return seenBound.count(entry.first) == 0; });
    for (auto it = assumed_.begin(); it != assumed_.end();) {
      bool stillInCache = informer.get(it->second.key) != nullptr &&
                          meta::uid(*informer.get(it->second.key)) == it->first;
      if (seenBound.count(it->first) || !stillInCache) {
        it = assumed_.erase(it);  // the cache caught up (or the pod is gone)
        continue;
      }
      usage[it->second.node].add(it->second.requests);
      ++it;
    }
    return usage;
  }

  // The requests of a bound pod. A pod's requests cannot change once it exists (its containers'
  // resources are immutable), so they are parsed once per pod rather than once per pod for every
  // scheduling decision, which made scheduling N pods cost N^2 quantity parses.
  ResourceList boundRequests(std::string_view uid, const Json& pod) {
    {
      std::lock_guard lock(mu_);
      if (auto it = requestsByUid_.find(uid); it != requestsByUid_.end()) return it->second;
    }
    auto requests = podRequests(pod);
    ResourceList parsed = requests ? std::move(*requests) : ResourceList{};
    std::lock_guard lock(mu_);
    requestsByUid_.emplace(std::string(uid), parsed);
    return parsed;
  }

  // A node's allocatable resources, parsed (once per node per decision: filter and score share
  // them).
  static ResourceList allocatableOf(const Json& node) {
    ResourceList allocatable;
    const Json& declared = jsonAt(node, {"status", "allocatable"});
    if (declared.is_object()) (void)addResources(allocatable, declared, false);
    return allocatable;
  }

  static Verdict filter(const Json& pod, const ResourceList& requests, const Json& node,
                        ResourceList& allocatable, const NodeUsage& used) {
    Verdict verdict;
    const Json& spec = jsonAt(node, {"spec"});
    if (spec.is_object() && spec.value("unschedulable", false) &&
        !tolerates(pod, {{"key", "node.kubernetes.io/unschedulable"}, {"effect", "NoSchedule"}})) {
      verdict.reasons.emplace_back(kReasonUnschedulable);
      verdict.resolvable = false;
      return verdict;
    }
    for (const auto& taint : schedulingTaints(node)) {
      if (tolerates(pod, taint)) continue;
      verdict.reasons.push_back(fmt::format("node(s) had untolerated taint {{{}: {}}}",
                                            taint.value("key", ""), taint.value("value", "")));
      verdict.resolvable = false;
      return verdict;
    }
    if (!matchesNodeSelector(pod, node)) {
      verdict.reasons.emplace_back(kReasonSelector);
      verdict.resolvable = false;
      return verdict;
    }
    if (used.pods + 1 > allocatable["pods"]) verdict.reasons.emplace_back(kReasonTooManyPods);
    // cpu and memory first, then the other resources by name (the plugin's order).
    std::vector<std::string> names;
    for (const char* first : {"cpu", "memory"}) {
      if (requests.count(first)) names.emplace_back(first);
    }
    for (const auto& [name, value] : requests) {
      if (name != "cpu" && name != "memory") names.push_back(name);
    }
    for (const auto& name : names) {
      std::int64_t want = requests.at(name);
      if (want <= 0) continue;
      auto usedIt = used.requested.find(name);
      std::int64_t already = usedIt == used.requested.end() ? 0 : usedIt->second;
      if (want > allocatable[name] - already) {
        verdict.reasons.push_back("Insufficient " + name);
      }
    }
    return verdict;
  }

  // LeastAllocated: the mean over cpu and memory of the share left free once the pod is placed,
  // 0..100.
  static std::int64_t score(const ResourceList& requests, ResourceList& allocatable,
                            const NodeUsage& used) {
    NodeUsage after = used;
    after.add(requests);
    auto free = [](std::int64_t capacity, std::int64_t requested) -> std::int64_t {
      if (capacity <= 0 || requested > capacity) return 0;
      return (capacity - requested) * 100 / capacity;
    };
    return (free(allocatable["cpu"], after.scoreCpu) +
            free(allocatable["memory"], after.scoreMemory)) /
           2;
  }

  static std::string histogram(const std::map<std::string, int>& counts) {
    std::vector<std::string> parts;
    for (const auto& [reason, count] : counts) parts.push_back(fmt::format("{} {}", count, reason));
    std::sort(parts.begin(), parts.end());  // sort.Strings over "<count> <reason>"
    return fmt::format("{}", fmt::join(parts, ", "));
  }

  static std::string fitError(std::size_t numNodes, const std::map<std::string, int>& reasons,
                              const std::map<std::string, int>& preemption) {
    if (numNodes == 0) return "no nodes available to schedule pods";
    return fmt::format("0/{} nodes are available: {}. preemption: 0/{} nodes are available: {}.",
                       numNodes, histogram(reasons), numNodes, histogram(preemption));
  }

  ReconcileOutcome bind(const Json& pod, const std::string& key, const ResourceList& requests,
                        const std::string& node) {
    Json binding = {{"apiVersion", "v1"},
                    {"kind", "Binding"},
                    {"metadata", {{"name", meta::name(pod)}, {"namespace", meta::namespace_(pod)}}},
                    {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
    auto bound = manager_.client().createSubresource(kPods, meta::namespace_(pod), meta::name(pod),
                                                     "binding", std::move(binding));
    if (!bound) {
      // 409: bound by someone else or being deleted; 404: gone. The watch tells what happened.
      if (isConflict(bound.error()) || isNotFound(bound.error())) return ReconcileResult{};
      return reconcileError(bound.error());
    }
    {
      std::lock_guard lock(mu_);
      assumed_[meta::uid(pod)] = Assumed{key, node, requests};
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
      auto written = manager_.client().updateStatus(kPods, std::move(updated));
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
    std::string key;
    std::string node;
    ResourceList requests;
  };

  Manager& manager_;
  const Options options_;
  mutable std::mutex mu_;
  // Looks strings up by string_view without building a std::string.
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // Parsed requests of bound pods, by uid (see boundRequests).
  std::unordered_map<std::string, ResourceList, StringHash, std::equal_to<>> requestsByUid_;
  std::set<std::string> unschedulable_;               // pod keys
  std::unordered_map<std::string, Assumed> assumed_;  // by pod uid
  std::uint64_t bindings_ = 0;
};

Scheduler::Scheduler(Manager& manager) : Scheduler(manager, Options{}) {}
Scheduler::Scheduler(Manager& manager, Options options)
    : impl_(std::make_shared<Impl>(manager, std::move(options))) {}
Scheduler::~Scheduler() = default;

Result<void> Scheduler::start() { return impl_->start(); }
std::uint64_t Scheduler::bindings() const { return impl_->bindings(); }
std::size_t Scheduler::unschedulablePods() const { return impl_->unschedulablePods(); }

}  // namespace fakekube
