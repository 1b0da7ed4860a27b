// PodTopologySpread: spec.topologySpreadConstraints (kube-scheduler's podtopologyspread plugin).
//
// A constraint counts the pods its labelSelector matches (matchLabelKeys merged in as the pod's
// own values; a missing selector matches nothing) in the pod's namespace, not being deleted, per
// domain of its topologyKey. Which nodes count: those carrying every constraint's topologyKey,
// and, per constraint, matching the pod's required node affinity and nodeSelector
// (nodeAffinityPolicy Honor, the default) and, with nodeTaintsPolicy Honor (default Ignore),
// whose taints the pod tolerates.
//
// Filter (whenUnsatisfiable DoNotSchedule), per constraint:
//   the node lacks the topologyKey: "node(s) didn't match pod topology spread constraints
//   (missing required label)" (UnschedulableAndUnresolvable);
//   matching pods in the node's domain + 1 if the pod matches its own selector - the global
//   minimum over the domains (0 when there are fewer domains than minDomains, default 1)
//   > maxSkew: "node(s) didn't match pod topology spread constraints" (Unschedulable).
//
// Score (whenUnsatisfiable ScheduleAnyway; weight 2): per feasible node, the sum over the
// constraints of count * log(domains + 2) + (maxSkew - 1), rounded, where count is the matching
// pods in its domain (on the node itself for kubernetes.io/hostname) and domains the number of
// the feasible nodes' values of the key. Fewer is better: a node scores
// 100 * (max + min - score) / max, nodes lacking a key score 0.
//
// System defaults. A pod without constraints gets kube-scheduler's default ones for scoring,
// kubernetes.io/hostname maxSkew 3 and topology.kubernetes.io/zone maxSkew 5, ScheduleAnyway,
// with the selector of the Services, ReplicationControllers, ReplicaSets and StatefulSets that
// select it (SpreadDefaults); a node lacking a key is then not ignored.
#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/cluster/internal/scheduler_plugins.h"

namespace fakekube::scheduling {

namespace {

struct SpreadConstraint {
  std::int64_t maxSkew = 1;
  std::string topologyKey;
  LabelSelector selector;
  std::int64_t minDomains = 1;
  bool honorNodeAffinity = true;
  bool honorNodeTaints = false;
};

// The selector with matchLabelKeys' values from the pod's labels (mergeLabelSetWithSelector).
Result<LabelSelector> constraintSelector(const Json& constraint, const Json& podLabels) {
  const Json& selector = jsonAt(constraint, {"labelSelector"});
  if (selector.is_null()) return LabelSelector::nothing();
  Json merged = selector;
  for (const Json& key : jsonArrayAt(constraint, "matchLabelKeys")) {
    if (!key.is_string() || !podLabels.is_object()) continue;
    auto value = podLabels.find(key.get<std::string>());
    if (value == podLabels.end() || !value->is_string()) continue;
    merged["matchExpressions"].push_back(
        {{"key", key}, {"operator", "In"}, {"values", Json::array({*value})}});
  }
  return LabelSelector::fromJson(merged);
}

// filterTopologySpreadConstraints: the pod's constraints with this whenUnsatisfiable.
Result<std::vector<SpreadConstraint>> constraintsOf(const Json& pod, std::string_view action) {
  std::vector<SpreadConstraint> constraints;
  for (const Json& c : jsonArrayAt(jsonAt(pod, {"spec"}), "topologySpreadConstraints")) {
    if (!c.is_object() || c.value("whenUnsatisfiable", "") != action) continue;
    SpreadConstraint parsed;
    const Json& maxSkew = jsonAt(c, {"maxSkew"});
    if (maxSkew.is_number_integer()) parsed.maxSkew = maxSkew.get<std::int64_t>();
    parsed.topologyKey = c.value("topologyKey", "");
    auto selector = constraintSelector(c, meta::labels(pod));
    if (!selector) return tl::unexpected(selector.error());
    parsed.selector = std::move(*selector);
    const Json& minDomains = jsonAt(c, {"minDomains"});
    if (minDomains.is_number_integer()) parsed.minDomains = minDomains.get<std::int64_t>();
    parsed.honorNodeAffinity = c.value("nodeAffinityPolicy", "Honor") == "Honor";
    parsed.honorNodeTaints = c.value("nodeTaintsPolicy", "Ignore") == "Honor";
    constraints.push_back(std::move(parsed));
  }
  return constraints;
}

// The counts of one constraint: matching pods per domain, and per node.
struct DomainCounts {
  std::unordered_map<std::string, std::int64_t> byValue;  // every eligible domain, even at 0
  std::unordered_map<std::string, std::int64_t> byNode;   // matching pods per node
};

class PodTopologySpread final : public PlacementPlugin {
 public:
  PodTopologySpread(const Json& pod, const Snapshot& snapshot,
                    std::unique_ptr<PlacementPlugin> nodeAffinity,
                    std::vector<SpreadConstraint> hard, std::vector<SpreadConstraint> soft,
                    bool systemDefaulted)
      : pod_(pod),
        namespace_(meta::namespace_(pod)),
        snapshot_(snapshot),
        nodeAffinity_(std::move(nodeAffinity)),
        hard_(std::move(hard)),
        soft_(std::move(soft)),
        systemDefaulted_(systemDefaulted) {
    if (!hard_.empty()) countForFilter();
  }

  std::string_view name() const override { return "PodTopologySpread"; }

  FilterStatus filter(const NodeInfo& node) const override {
    const Json& podLabels = meta::labels(pod_);
    for (std::size_t i = 0; i < hard_.size(); ++i) {
      const SpreadConstraint& c = hard_[i];
      const std::string* value = node.label(c.topologyKey);
      if (value == nullptr) {
        return FilterStatus::unresolvable(
            "node(s) didn't match pod topology spread constraints (missing required label)");
      }
      const DomainCounts& counts = filterCounts_[i];
      std::int64_t minMatch = 0;
      if (static_cast<std::int64_t>(counts.byValue.size()) >= c.minDomains) {
        minMatch = std::numeric_limits<std::int64_t>::max();
        for (const auto& [domain, n] : counts.byValue) minMatch = std::min(minMatch, n);
      }
      auto it = counts.byValue.find(*value);
      const std::int64_t matchNum = it == counts.byValue.end() ? 0 : it->second;
      const std::int64_t self = c.selector.matches(podLabels) ? 1 : 0;
      if (matchNum + self - minMatch > c.maxSkew) {
        return FilterStatus::unschedulable("node(s) didn't match pod topology spread constraints");
      }
    }
    return {};
  }

  bool preScore(const std::vector<const NodeInfo*>& feasible) override {
    if (soft_.empty() || snapshot_.nodes().empty()) return false;
    const bool requireAllTopologies = !systemDefaulted_;
    ignored_.clear();
    scoreCounts_.assign(soft_.size(), {});
    weights_.assign(soft_.size(), 0.0);
    std::vector<std::size_t> domains(soft_.size(), 0);
    for (const NodeInfo* node : feasible) {
      if (requireAllTopologies && !hasAllKeys(*node, soft_)) {
        ignored_.insert(node->name);
        continue;
      }
      for (std::size_t i = 0; i < soft_.size(); ++i) {
        if (soft_[i].topologyKey == kLabelHostname) continue;
        const std::string* value = node->label(soft_[i].topologyKey);
        if (scoreCounts_[i].byValue.emplace(value ? *value : std::string(), 0).second) {
          ++domains[i];
        }
      }
    }
    for (std::size_t i = 0; i < soft_.size(); ++i) {
      const std::size_t size =
          soft_[i].topologyKey == kLabelHostname ? feasible.size() - ignored_.size() : domains[i];
      weights_[i] = std::log(static_cast<double>(size + 2));
      countMatching(soft_[i], requireAllTopologies ? &soft_ : nullptr, scoreCounts_[i],
                    /*onlyKnownDomains=*/true);
    }
    return true;
  }

  std::int64_t score(const NodeInfo& node) const override {
    if (ignored_.count(node.name)) return 0;
    double total = 0;
    for (std::size_t i = 0; i < soft_.size(); ++i) {
      const std::string* value = node.label(soft_[i].topologyKey);
      if (value == nullptr) continue;
      std::int64_t count = 0;
      const DomainCounts& counts = scoreCounts_[i];
      if (soft_[i].topologyKey == kLabelHostname) {
        auto it = counts.byNode.find(node.name);
        count = it == counts.byNode.end() ? 0 : it->second;
      } else {
        auto it = counts.byValue.find(*value);
        count = it == counts.byValue.end() ? 0 : it->second;
      }
      total += static_cast<double>(count) * weights_[i] + static_cast<double>(soft_[i].maxSkew - 1);
    }
    return static_cast<std::int64_t>(std::round(total));
  }

  void normalizeScores(const std::vector<const NodeInfo*>& nodes,
                       std::vector<std::int64_t>& scores) const override {
    std::int64_t min = std::numeric_limits<std::int64_t>::max();
    std::int64_t max = 0;
    for (std::size_t i = 0; i < scores.size(); ++i) {
      if (ignored_.count(nodes[i]->name)) continue;
      min = std::min(min, scores[i]);
      max = std::max(max, scores[i]);
    }
    for (std::size_t i = 0; i < scores.size(); ++i) {
      if (ignored_.count(nodes[i]->name)) {
        scores[i] = 0;
      } else if (max == 0) {
        scores[i] = kMaxNodeScore;
      } else {
        scores[i] = kMaxNodeScore * (max + min - scores[i]) / max;
      }
    }
  }

  std::int64_t weight() const override { return 2; }

 private:
  static bool hasAllKeys(const NodeInfo& node, const std::vector<SpreadConstraint>& constraints) {
    return std::all_of(constraints.begin(), constraints.end(), [&](const SpreadConstraint& c) {
      return node.label(c.topologyKey) != nullptr;
    });
  }

  // matchNodeInclusionPolicies.
  bool includes(const SpreadConstraint& c, const NodeInfo& node) const {
    if (c.honorNodeAffinity && !nodeAffinity_->filter(node).ok()) return false;
    if (c.honorNodeTaints && untoleratedTaint(pod_, node) != nullptr) return false;
    return true;
  }

  // Counts the pods `c` matches on the nodes it counts. `allKeys`: a node must carry every key
  // of these constraints. `onlyKnownDomains`: only domains already in counts.byValue count (the
  // feasible nodes' domains, for scoring); otherwise every eligible node's domain is added.
  void countMatching(const SpreadConstraint& c, const std::vector<SpreadConstraint>* allKeys,
                     DomainCounts& counts, bool onlyKnownDomains) const {
    std::unordered_map<std::string_view, const std::string*> eligible;  // node -> domain
    for (const NodeInfo* node : snapshot_.nodes()) {
      if (allKeys != nullptr && !hasAllKeys(*node, *allKeys)) continue;
      if (!includes(c, *node)) continue;
      const std::string* value = node->label(c.topologyKey);
      static const std::string kNone;
      const std::string& domain = value ? *value : kNone;
      if (onlyKnownDomains) {
        if (c.topologyKey != kLabelHostname && !counts.byValue.count(domain)) continue;
      } else {
        counts.byValue.emplace(domain, 0);
      }
      eligible.emplace(node->name, value ? value : &kNone);
    }
    snapshot_.forEachMatching(namespace_, c.selector, [&](const PodInfo& existing) {
      if (existing.terminating) return;
      auto it = eligible.find(existing.node);
      if (it != eligible.end()) {
        ++counts.byValue[*it->second];
      }
      ++counts.byNode[existing.node];
    });
  }

  void countForFilter() {
    filterCounts_.resize(hard_.size());
    for (std::size_t i = 0; i < hard_.size(); ++i) {
      countMatching(hard_[i], &hard_, filterCounts_[i], /*onlyKnownDomains=*/false);
    }
  }

  const Json& pod_;
  const std::string namespace_;
  const Snapshot& snapshot_;
  std::unique_ptr<PlacementPlugin> nodeAffinity_;  // RequiredNodeAffinity, for the policies
  const std::vector<SpreadConstraint> hard_;       // DoNotSchedule
  const std::vector<SpreadConstraint> soft_;       // ScheduleAnyway (or the system defaults)
  const bool systemDefaulted_;
  std::vector<DomainCounts> filterCounts_;
  std::vector<DomainCounts> scoreCounts_;
  std::vector<double> weights_;
  std::unordered_set<std::string> ignored_;
};

}  // namespace

Result<std::unique_ptr<PlacementPlugin>> podTopologySpreadPlugin(const Json& pod,
                                                                 const Snapshot& snapshot,
                                                                 const SpreadDefaults& defaults) {
  auto hard = constraintsOf(pod, "DoNotSchedule");
  if (!hard) return tl::unexpected(hard.error());
  auto soft = constraintsOf(pod, "ScheduleAnyway");
  if (!soft) return tl::unexpected(soft.error());
  const bool hasConstraints =
      !jsonArrayAt(jsonAt(pod, {"spec"}), "topologySpreadConstraints").empty();
  bool systemDefaulted = false;
  if (!hasConstraints && defaults.selector && !defaults.selector->empty()) {
    // kube-scheduler's systemDefaultConstraints, ScheduleAnyway only.
    for (const auto& [key, maxSkew] :
         {std::pair{std::string(kLabelHostname), 3}, {std::string(kLabelTopologyZone), 5}}) {
      SpreadConstraint c;
      c.topologyKey = key;
      c.maxSkew = maxSkew;
      c.selector = *defaults.selector;
      soft->push_back(std::move(c));
    }
    systemDefaulted = true;
  }
  auto nodeAffinity = nodeAffinityPlugin(pod);
  if (!nodeAffinity) return tl::unexpected(nodeAffinity.error());
  return std::make_unique<PodTopologySpread>(pod, snapshot, std::move(*nodeAffinity),
                                             std::move(*hard), std::move(*soft), systemDefaulted);
}

}  // namespace fakekube::scheduling
