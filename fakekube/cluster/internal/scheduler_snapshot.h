// The scheduler's view of the cluster for its placement rules: the nodes, and the pods bound
// (or assumed) to them, indexed so that a scheduling decision reads what it needs without a
// scan of every pod (kube-scheduler's cache snapshot: NodeInfo with its pods, and the lists of
// pods with affinity and with required anti-affinity).
//
// Kept up to date incrementally by its owner (addPod / removePod as the pod informer reports
// changes, setNodes before each decision), and read by the placement plugins
// (scheduler_plugins.h), which take (pod, node, snapshot) and nothing else: any scheduler (the
// default one, a gang scheduler) can run them over a snapshot it maintains.
//
// Indexes:
//   pods by node                  NodeInfo's pods (the pods there, in no particular order)
//   pods by namespace, and by     forEachMatching: a selector with an exact requirement
//   (namespace, label key, value) (k=v, k in (v)) visits only the pods carrying that label
//   pods with any pod affinity    InterPodAffinity's score reads their terms
//   pods with required            InterPodAffinity's filter checks them against the incoming
//   anti-affinity                 pod (existing pods' anti-affinity)
//
// Pods that finished (Succeeded, Failed) are not in a snapshot: kube-scheduler's pod informer
// excludes them (status.phase!=Succeeded,status.phase!=Failed). Pods being deleted are, marked
// terminating (topology spread skips them, inter-pod affinity counts them).
//
// Not thread-safe: its owner serialises access.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/api/label_selector.h"
#include "fakekube/api/object.h"
#include "fakekube/api/status.h"

namespace fakekube::scheduling {

// kubernetes.io/hostname: the topology key whose domains are single nodes.
inline constexpr std::string_view kLabelHostname = "kubernetes.io/hostname";
inline constexpr std::string_view kLabelTopologyZone = "topology.kubernetes.io/zone";

// A v1.PodAffinityTerm, parsed (kube-scheduler's framework.AffinityTerm).
struct AffinityTerm {
  // spec namespaces; the pod's own namespace when neither namespaces nor a namespaceSelector
  // is given. Sorted.
  std::vector<std::string> namespaces;
  // namespaceSelector when given ({} selects every namespace); absent: selects none.
  std::optional<LabelSelector> namespaceSelector;
  // labelSelector, with matchLabelKeys (In the pod's value) and mismatchLabelKeys (NotIn) merged
  // in; a missing labelSelector selects nothing.
  LabelSelector selector;
  std::string topologyKey;

  bool selectsNamespace(std::string_view ns, const Json& namespaceLabels) const;
  // AffinityTerm.Matches: `pod` (namespace `ns`, metadata.labels `labels`) is selected.
  // `namespaceLabels` is the labels of `ns`, read only when the term has a namespaceSelector.
  bool matches(std::string_view ns, const Json& labels, const Json& namespaceLabels) const;
};

struct WeightedAffinityTerm {
  AffinityTerm term;
  std::int64_t weight = 0;
};

// The pod (anti-)affinity of a pod, parsed once.
struct PodAffinityTerms {
  std::vector<AffinityTerm> requiredAffinity;
  std::vector<AffinityTerm> requiredAntiAffinity;
  std::vector<WeightedAffinityTerm> preferredAffinity;
  std::vector<WeightedAffinityTerm> preferredAntiAffinity;

  bool empty() const {
    return requiredAffinity.empty() && requiredAntiAffinity.empty() && preferredAffinity.empty() &&
           preferredAntiAffinity.empty();
  }
  // spec.affinity.podAffinity / podAntiAffinity of `pod`. A selector that does not parse is a
  // 400 error, as LabelSelectorAsSelector's error fails kube-scheduler's PreFilter.
  static Result<PodAffinityTerms> of(const Json& pod);
};

// A pod as the placement plugins read it.
struct PodInfo {
  ObjectPtr object;
  std::string uid;
  std::string namespace_;
  std::string node;  // where it is bound, or assumed
  bool terminating = false;
  // Terms that do not parse are left out: an existing pod's broken rule constrains nothing.
  PodAffinityTerms affinity;

  const Json& labels() const;
};

using PodSet = std::unordered_set<const PodInfo*>;

// A node as the placement plugins read it.
struct NodeInfo {
  ObjectPtr object;
  std::string name;
  // The taints that keep new pods off (effect NoSchedule or NoExecute), including the one a node
  // that is not Ready carries (node.kubernetes.io/not-ready, or unreachable when its Ready
  // condition is Unknown).
  std::vector<Json> taints;
  bool unschedulable = false;

  const Json& labels() const;
  // The value of label `key`, or nullptr.
  const std::string* label(std::string_view key) const;
};

// The node's scheduling taints (NodeInfo::taints).
std::vector<Json> schedulingTaints(const Json& node);
// v1.Toleration.ToleratesTaint over the pod's spec.tolerations.
bool toleratesTaint(const Json& pod, const Json& taint);
// The first of `node`'s taints the pod does not tolerate, or nullptr.
const Json* untoleratedTaint(const Json& pod, const NodeInfo& node);

class Snapshot {
 public:
  Snapshot();
  ~Snapshot();
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

  // --- Nodes ---
  // The cluster's nodes, in the order decisions visit them. A node whose document is the one
  // already held is not parsed again.
  void setNodes(const std::vector<ObjectPtr>& nodes);
  const std::vector<const NodeInfo*>& nodes() const { return order_; }
  const NodeInfo* node(std::string_view name) const;

  // --- Pods ---
  // Adds `pod` on `node`, or updates the pod with its uid (labels, node, deletion). A pod
  // that finished is removed instead.
  void addPod(const ObjectPtr& pod, const std::string& node);
  void removePod(const std::string& uid);
  bool hasPod(const std::string& uid) const { return pods_.count(uid) != 0; }
  std::size_t podCount() const { return pods_.size(); }

  const PodSet& podsOn(std::string_view node) const;
  const PodSet& podsWithAffinity() const { return withAffinity_; }
  const PodSet& podsWithRequiredAntiAffinity() const { return withRequiredAntiAffinity_; }

  // Calls `visit` for each pod in namespace `ns` whose labels `selector` matches. A selector
  // pinning a label to one value visits only the pods with that label.
  void forEachMatching(std::string_view ns, const LabelSelector& selector,
                       const std::function<void(const PodInfo&)>& visit) const;
  // Every namespace holding a pod of the snapshot.
  std::vector<std::string> namespaces() const;

  // --- Namespaces ---
  // How the labels of a namespace are read (for namespaceSelector); without it, every
  // namespace has no labels.
  void setNamespaceLookup(std::function<Json(std::string_view)> lookup) {
    namespaceLookup_ = std::move(lookup);
  }
  Json namespaceLabels(std::string_view ns) const;

 private:
  void indexPod(const PodInfo* pod);
  void unindexPod(const PodInfo* pod);
  static std::string labelKey(std::string_view ns, std::string_view key, std::string_view value);

  std::unordered_map<std::string, NodeInfo> nodeInfos_;  // by name
  std::vector<const NodeInfo*> order_;
  std::unordered_map<std::string, std::unique_ptr<PodInfo>> pods_;  // by uid
  std::unordered_map<std::string, PodSet> byNode_;
  std::unordered_map<std::string, PodSet> byNamespace_;
  std::unordered_map<std::string, PodSet> byLabel_;  // labelKey(ns, key, value)
  PodSet withAffinity_;
  PodSet withRequiredAntiAffinity_;
  std::function<Json(std::string_view)> namespaceLookup_;
};

}  // namespace fakekube::scheduling
