// InterPodAffinity: spec.affinity.podAffinity and podAntiAffinity, and the existing pods'
// anti-affinity against the incoming pod (kube-scheduler's interpodaffinity plugin).
//
// A term selects pods by labelSelector (matchLabelKeys / mismatchLabelKeys merged in) in its
// namespaces (the pod's own when neither namespaces nor namespaceSelector is given; a
// namespaceSelector adds every namespace whose labels it matches, {} all of them). Two pods are
// co-located when their nodes carry the same value of the term's topologyKey.
//
// PreFilter counts, per (topologyKey, value):
//   affinity        existing pods matching ALL the incoming pod's required affinity terms
//   anti-affinity   existing pods matching each of its required anti-affinity terms
//   existing        existing pods whose required anti-affinity terms match the incoming pod
// using the snapshot's indexes (pods by label, pods with required anti-affinity) rather than a
// walk over every pod of every node.
//
// Filter, in this order:
//   a node lacking a required affinity term's topologyKey, or whose domain holds no matching
//   pod, fails "node(s) didn't match pod affinity rules" (UnschedulableAndUnresolvable) unless
//   no pod anywhere matches and the pod matches its own terms (the first of a group);
//   a node whose domain holds a pod matching an anti-affinity term fails "node(s) didn't match
//   pod anti-affinity rules" (Unschedulable);
//   a node in the domain of an existing pod whose anti-affinity matches the pod fails
//   "node(s) didn't satisfy existing pods anti-affinity rules" (Unschedulable).
//
// Score (weight 2): per (topologyKey, value), + the weight of each preferred affinity term of
// the pod an existing pod there matches, - for anti-affinity; + 1 (hardPodAffinityWeight) for
// each required affinity term of an existing pod that the pod matches, +/- the weights of the
// existing pods' preferred terms that match it. A node scores the sum over its labels, then
// min-max scaled to 0..100.
#include <algorithm>
#include <limits>
#include <unordered_map>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/cluster/internal/scheduler_plugins.h"

namespace fakekube::scheduling {

namespace {

constexpr std::int64_t kHardPodAffinityWeight = 1;

// A count per topology pair (key, value).
class TopologyCounts {
 public:
  void add(const std::string& key, const std::string& value, std::int64_t delta) {
    auto& count = counts_[pairKey(key, value)];
    count += delta;
    if (count == 0) counts_.erase(pairKey(key, value));
  }
  // Adds `delta` for the domain of `node` on `key`, if the node has the label.
  void addForNode(const NodeInfo& node, const std::string& key, std::int64_t delta) {
    if (const std::string* value = node.label(key)) add(key, *value, delta);
  }
  std::int64_t get(const std::string& key, const std::string& value) const {
    auto it = counts_.find(pairKey(key, value));
    return it == counts_.end() ? 0 : it->second;
  }
  bool empty() const { return counts_.empty(); }
  // The sum over the node's labels of the counts of (label, value).
  std::int64_t sumForNode(const NodeInfo& node) const {
    std::int64_t sum = 0;
    const Json& labels = node.labels();
    if (!labels.is_object()) return 0;
    for (const auto& [key, value] : labels.items()) {
      if (value.is_string()) sum += get(key, value.get_ref<const std::string&>());
    }
    return sum;
  }

 private:
  static std::string pairKey(std::string_view key, std::string_view value) {
    std::string joined(key);
    joined.push_back('\0');
    joined.append(value);
    return joined;
  }
  std::unordered_map<std::string, std::int64_t> counts_;
};

class InterPodAffinity final : public PlacementPlugin {
 public:
  InterPodAffinity(const Json& pod, const Snapshot& snapshot, PodAffinityTerms terms)
      : pod_(pod),
        namespace_(meta::namespace_(pod)),
        snapshot_(snapshot),
        terms_(std::move(terms)) {
    countExistingAntiAffinity();
    countIncomingAffinity();
    countIncomingAntiAffinity();
  }

  std::string_view name() const override { return "InterPodAffinity"; }

  FilterStatus filter(const NodeInfo& node) const override {
    if (!satisfiesAffinity(node)) {
      return FilterStatus::unresolvable("node(s) didn't match pod affinity rules");
    }
    for (const AffinityTerm& term : terms_.requiredAntiAffinity) {
      const std::string* value = node.label(term.topologyKey);
      if (value != nullptr && antiAffinityCounts_.get(term.topologyKey, *value) > 0) {
        return FilterStatus::unschedulable("node(s) didn't match pod anti-affinity rules");
      }
    }
    if (!existingAntiAffinityCounts_.empty() && existingAntiAffinityCounts_.sumForNode(node) > 0) {
      return FilterStatus::unschedulable(
          "node(s) didn't satisfy existing pods anti-affinity rules");
    }
    return {};
  }

  bool preScore(const std::vector<const NodeInfo*>&) override {
    scored_ = false;
    for (const auto& [terms, sign] :
         {std::pair{&terms_.preferredAffinity, 1}, {&terms_.preferredAntiAffinity, -1}}) {
      const int termSign = sign;  // a lambda cannot capture a structured binding before clang 16
      for (const WeightedAffinityTerm& weighted : *terms) {
        forEachPodMatching(weighted.term, [&](const PodInfo& existing, const NodeInfo& node) {
          scoreForNode(node, weighted.term.topologyKey, weighted.weight * termSign);
        });
      }
    }
    for (const PodInfo* existing : snapshot_.podsWithAffinity()) scoreExistingTerms(*existing);
    return scored_;
  }

  std::int64_t score(const NodeInfo& node) const override {
    return topologyScore_.sumForNode(node);
  }

  void normalizeScores(const std::vector<const NodeInfo*>&,
                       std::vector<std::int64_t>& scores) const override {
    if (scores.empty()) return;
    const auto [lowest, highest] = std::minmax_element(scores.begin(), scores.end());
    const std::int64_t min = *lowest;
    const std::int64_t spread = *highest - min;
    for (std::int64_t& s : scores) {
      s = spread > 0 ? static_cast<std::int64_t>(
                           static_cast<double>(kMaxNodeScore) *
                           (static_cast<double>(s - min) / static_cast<double>(spread)))
                     : 0;
    }
  }

  std::int64_t weight() const override { return 2; }

 private:
  // The labels of `ns`, read once per namespace in this cycle.
  const Json& labelsOfNamespace(const std::string& ns) const {
    auto it = namespaceLabelCache_.find(ns);
    if (it == namespaceLabelCache_.end()) {
      it = namespaceLabelCache_.emplace(ns, snapshot_.namespaceLabels(ns)).first;
    }
    return it->second;
  }

  // Calls `visit` for each existing pod the term selects, with its node (pods on nodes the
  // snapshot does not hold are left out, as kube-scheduler walks the nodes).
  template <typename Visit>
  void forEachPodMatching(const AffinityTerm& term, Visit&& visit) const {
    std::vector<std::string> namespaces = term.namespaces;
    if (term.namespaceSelector) {
      for (const std::string& ns : snapshot_.namespaces()) {
        if (!std::binary_search(term.namespaces.begin(), term.namespaces.end(), ns) &&
            term.namespaceSelector->matches(labelsOfNamespace(ns))) {
          namespaces.push_back(ns);
        }
      }
    }
    for (const std::string& ns : namespaces) {
      snapshot_.forEachMatching(ns, term.selector, [&](const PodInfo& existing) {
        if (const NodeInfo* node = snapshot_.node(existing.node)) visit(existing, *node);
      });
    }
  }

  // AffinityTerm.Matches, reading the namespace's labels only for a namespaceSelector.
  bool termMatches(const AffinityTerm& term, const std::string& ns, const Json& labels) const {
    static const Json kNoLabels = Json::object();
    return term.matches(ns, labels, term.namespaceSelector ? labelsOfNamespace(ns) : kNoLabels);
  }
  bool matchesIncoming(const AffinityTerm& term) const {
    return termMatches(term, namespace_, meta::labels(pod_));
  }

  // The incoming pod matches every term (it may be the first of a self-affine group).
  bool matchesOwnAffinityTerms() const {
    return std::all_of(terms_.requiredAffinity.begin(), terms_.requiredAffinity.end(),
                       [&](const AffinityTerm& term) { return matchesIncoming(term); });
  }

  void countExistingAntiAffinity() {
    for (const PodInfo* existing : snapshot_.podsWithRequiredAntiAffinity()) {
      const NodeInfo* node = snapshot_.node(existing->node);
      if (node == nullptr) continue;
      for (const AffinityTerm& term : existing->affinity.requiredAntiAffinity) {
        if (matchesIncoming(term)) {
          existingAntiAffinityCounts_.addForNode(*node, term.topologyKey, 1);
        }
      }
    }
  }

  void countIncomingAffinity() {
    const auto& terms = terms_.requiredAffinity;
    if (terms.empty()) return;
    forEachPodMatching(terms.front(), [&](const PodInfo& existing, const NodeInfo& node) {
      const bool all = std::all_of(terms.begin() + 1, terms.end(), [&](const AffinityTerm& term) {
        return termMatches(term, existing.namespace_, existing.labels());
      });
      if (!all) return;
      for (const AffinityTerm& term : terms) affinityCounts_.addForNode(node, term.topologyKey, 1);
    });
  }

  void countIncomingAntiAffinity() {
    for (const AffinityTerm& term : terms_.requiredAntiAffinity) {
      forEachPodMatching(term, [&](const PodInfo&, const NodeInfo& node) {
        antiAffinityCounts_.addForNode(node, term.topologyKey, 1);
      });
    }
  }

  bool satisfiesAffinity(const NodeInfo& node) const {
    bool podsExist = true;
    for (const AffinityTerm& term : terms_.requiredAffinity) {
      const std::string* value = node.label(term.topologyKey);
      if (value == nullptr) return false;  // every topology label must be on the node
      if (affinityCounts_.get(term.topologyKey, *value) <= 0) podsExist = false;
    }
    if (podsExist) return true;
    return affinityCounts_.empty() && matchesOwnAffinityTerms();
  }

  void scoreForNode(const NodeInfo& node, const std::string& key, std::int64_t delta) {
    const std::string* value = node.label(key);
    if (value == nullptr) return;
    topologyScore_.add(key, *value, delta);
    scored_ = true;
  }

  // processExistingPod's half about the existing pod's own terms against the incoming pod.
  void scoreExistingTerms(const PodInfo& existing) {
    const NodeInfo* node = snapshot_.node(existing.node);
    if (node == nullptr || !node->labels().is_object() || node->labels().empty()) return;
    for (const AffinityTerm& term : existing.affinity.requiredAffinity) {
      if (matchesIncoming(term)) scoreForNode(*node, term.topologyKey, kHardPodAffinityWeight);
    }
    for (const WeightedAffinityTerm& weighted : existing.affinity.preferredAffinity) {
      if (matchesIncoming(weighted.term)) {
        scoreForNode(*node, weighted.term.topologyKey, weighted.weight);
      }
    }
    for (const WeightedAffinityTerm& weighted : existing.affinity.preferredAntiAffinity) {
      if (matchesIncoming(weighted.term)) {
        scoreForNode(*node, weighted.term.topologyKey, -weighted.weight);
      }
    }
  }

  const Json& pod_;
  const std::string namespace_;
  const Snapshot& snapshot_;
  const PodAffinityTerms terms_;
  mutable std::unordered_map<std::string, Json> namespaceLabelCache_;
  TopologyCounts existingAntiAffinityCounts_;
  TopologyCounts affinityCounts_;
  TopologyCounts antiAffinityCounts_;
  TopologyCounts topologyScore_;
  bool scored_ = false;
};

}  // namespace

Result<std::unique_ptr<PlacementPlugin>> interPodAffinityPlugin(const Json& pod,
                                                                const Snapshot& snapshot) {
  auto terms = PodAffinityTerms::of(pod);
  if (!terms) return tl::unexpected(terms.error());
  return std::make_unique<InterPodAffinity>(pod, snapshot, std::move(*terms));
}

}  // namespace fakekube::scheduling
