#include "fakekube/cluster/internal/scheduler_snapshot.h"

#include <algorithm>

#include "fakekube/api/conditions.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"

namespace fakekube::scheduling {

namespace {

// The term's labelSelector with matchLabelKeys / mismatchLabelKeys merged in as the API server
// merges them at pod creation (key In / NotIn the pod's own value). Merging again what the
// server merged already adds the same requirement twice, which selects the same pods.
Json mergedLabelSelector(const Json& term, const Json& podLabels) {
  const Json& selector = jsonAt(term, {"labelSelector"});
  if (!selector.is_object()) return selector;  // null: selects nothing, the keys are ignored
  Json merged = selector;
  auto merge = [&](std::string_view field, const char* op) {
    for (const Json& key : jsonArrayAt(term, field)) {
      if (!key.is_string() || !podLabels.is_object()) continue;
      auto value = podLabels.find(key.get<std::string>());
      if (value == podLabels.end() || !value->is_string()) continue;
      merged["matchExpressions"].push_back(
          {{"key", key}, {"operator", op}, {"values", Json::array({*value})}});
    }
  };
  merge("matchLabelKeys", "In");
  merge("mismatchLabelKeys", "NotIn");
  return merged;
}

Result<AffinityTerm> parseTerm(const Json& pod, const Json& term) {
  AffinityTerm parsed;
  if (!term.is_object()) return Error(Status::badRequest("pod affinity term must be an object"));
  const Json merged = mergedLabelSelector(term, meta::labels(pod));
  if (merged.is_null()) {
    parsed.selector = LabelSelector::nothing();
  } else {
    auto selector = LabelSelector::fromJson(merged);
    if (!selector) return tl::unexpected(selector.error());
    parsed.selector = std::move(*selector);
  }
  for (const Json& ns : jsonArrayAt(term, "namespaces")) {
    if (ns.is_string()) parsed.namespaces.push_back(ns.get<std::string>());
  }
  const Json& namespaceSelector = jsonAt(term, {"namespaceSelector"});
  if (!namespaceSelector.is_null()) {
    auto selector = LabelSelector::fromJson(namespaceSelector);
    if (!selector) return tl::unexpected(selector.error());
    parsed.namespaceSelector = std::move(*selector);
  }
  if (parsed.namespaces.empty() && !parsed.namespaceSelector) {
    parsed.namespaces.push_back(meta::namespace_(pod));
  }
  std::sort(parsed.namespaces.begin(), parsed.namespaces.end());
  const Json& topologyKey = jsonAt(term, {"topologyKey"});
  if (topologyKey.is_string()) parsed.topologyKey = topologyKey.get<std::string>();
  return parsed;
}

Result<void> parseTerms(const Json& pod, const Json& terms, std::vector<AffinityTerm>& into) {
  for (const Json& term : terms.is_array() ? terms : Json::array()) {
    auto parsed = parseTerm(pod, term);
    if (!parsed) return tl::unexpected(parsed.error());
    into.push_back(std::move(*parsed));
  }
  return {};
}

Result<void> parseWeightedTerms(const Json& pod, const Json& terms,
                                std::vector<WeightedAffinityTerm>& into) {
  for (const Json& weighted : terms.is_array() ? terms : Json::array()) {
    auto parsed = parseTerm(pod, jsonAt(weighted, {"podAffinityTerm"}));
    if (!parsed) return tl::unexpected(parsed.error());
    const Json& weight = jsonAt(weighted, {"weight"});
    into.push_back(
        {std::move(*parsed), weight.is_number_integer() ? weight.get<std::int64_t>() : 0});
  }
  return {};
}

const Json& emptyObject() {
  static const Json kEmpty = Json::object();
  return kEmpty;
}

}  // namespace

bool AffinityTerm::selectsNamespace(std::string_view ns, const Json& namespaceLabels) const {
  if (std::binary_search(namespaces.begin(), namespaces.end(), ns)) return true;
  return namespaceSelector && namespaceSelector->matches(namespaceLabels);
}

bool AffinityTerm::matches(std::string_view ns, const Json& labels,
                           const Json& namespaceLabels) const {
  return selectsNamespace(ns, namespaceLabels) && selector.matches(labels);
}

Result<PodAffinityTerms> PodAffinityTerms::of(const Json& pod) {
  PodAffinityTerms terms;
  const Json& affinity = jsonAt(pod, {"spec", "affinity"});
  if (!affinity.is_object()) return terms;
  const Json& podAffinity = jsonObjectAt(affinity, "podAffinity");
  const Json& antiAffinity = jsonObjectAt(affinity, "podAntiAffinity");
  constexpr std::string_view kRequired = "requiredDuringSchedulingIgnoredDuringExecution";
  constexpr std::string_view kPreferred = "preferredDuringSchedulingIgnoredDuringExecution";
  for (auto r :
       {parseTerms(pod, jsonArrayAt(podAffinity, kRequired), terms.requiredAffinity),
        parseTerms(pod, jsonArrayAt(antiAffinity, kRequired), terms.requiredAntiAffinity),
        parseWeightedTerms(pod, jsonArrayAt(podAffinity, kPreferred), terms.preferredAffinity),
        parseWeightedTerms(pod, jsonArrayAt(antiAffinity, kPreferred),
                           terms.preferredAntiAffinity)}) {
    if (!r) return tl::unexpected(r.error());
  }
  return terms;
}

const Json& PodInfo::labels() const { return meta::labels(*object); }

const Json& NodeInfo::labels() const { return meta::labels(*object); }

const std::string* NodeInfo::label(std::string_view key) const {
  const Json& all = labels();
  if (!all.is_object()) return nullptr;
  auto it = all.find(key);
  if (it == all.end() || !it->is_string()) return nullptr;
  return &it->get_ref<const std::string&>();
}

std::vector<Json> schedulingTaints(const Json& node) {
  std::vector<Json> taints;
  for (const Json& t : jsonArrayAt(jsonAt(node, {"spec"}), "taints")) {
    std::string effect = t.value("effect", "");
    if (effect == "NoSchedule" || effect == "NoExecute") taints.push_back(t);
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

bool toleratesTaint(const Json& pod, const Json& taint) {
  for (const auto& t : jsonArrayAt(jsonAt(pod, {"spec"}), "tolerations")) {
    if (!t.is_object()) continue;
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

const Json* untoleratedTaint(const Json& pod, const NodeInfo& node) {
  for (const Json& taint : node.taints) {
    if (!toleratesTaint(pod, taint)) return &taint;
  }
  return nullptr;
}

Snapshot::Snapshot() = default;
Snapshot::~Snapshot() = default;

void Snapshot::setNodes(const std::vector<ObjectPtr>& nodes) {
  if (nodes.size() == order_.size() && std::equal(nodes.begin(), nodes.end(), order_.begin(),
                                                  [](const ObjectPtr& node, const NodeInfo* info) {
                                                    return info->object == node;
                                                  })) {
    return;  // the informer hands out the same documents: nothing changed
  }
  order_.clear();
  order_.reserve(nodes.size());
  for (const auto& node : nodes) {
    const std::string& name = meta::name(*node);
    NodeInfo& info = nodeInfos_[name];
    if (info.object != node) {
      info.object = node;
      info.name = name;
      info.taints = schedulingTaints(*node);
      const Json& spec = jsonAt(*node, {"spec"});
      info.unschedulable = spec.is_object() && spec.value("unschedulable", false);
    }
    order_.push_back(&info);
  }
  if (nodeInfos_.size() > order_.size()) {  // deleted nodes
    std::unordered_set<std::string_view> names;
    for (const NodeInfo* info : order_) names.insert(info->name);
    std::erase_if(nodeInfos_, [&](const auto& entry) { return !names.count(entry.first); });
  }
}

const NodeInfo* Snapshot::node(std::string_view name) const {
  auto it = nodeInfos_.find(std::string(name));
  return it == nodeInfos_.end() ? nullptr : &it->second;
}

void Snapshot::addPod(const ObjectPtr& pod, const std::string& node) {
  const std::string& uid = meta::uid(*pod);
  if (isPodTerminal(*pod) || node.empty()) {
    removePod(uid);
    return;
  }
  auto existing = pods_.find(uid);
  if (existing != pods_.end()) {
    PodInfo& info = *existing->second;
    if (info.object == pod && info.node == node) return;
    // Most updates of a bound pod are status writes: same node, labels and deletion state, and
    // its affinity cannot change (spec.affinity is immutable), so the indexes stay as they are.
    if (info.node == node && info.terminating == meta::isDeleting(*pod) &&
        meta::labels(*info.object) == meta::labels(*pod)) {
      info.object = pod;
      return;
    }
    unindexPod(existing->second.get());
    pods_.erase(existing);
  }
  auto info = std::make_unique<PodInfo>();
  info->object = pod;
  info->uid = uid;
  info->namespace_ = meta::namespace_(*pod);
  info->node = node;
  info->terminating = meta::isDeleting(*pod);
  if (auto terms = PodAffinityTerms::of(*pod)) info->affinity = std::move(*terms);
  indexPod(info.get());
  pods_.emplace(uid, std::move(info));
}

void Snapshot::removePod(const std::string& uid) {
  auto it = pods_.find(uid);
  if (it == pods_.end()) return;
  unindexPod(it->second.get());
  pods_.erase(it);
}

std::string Snapshot::labelKey(std::string_view ns, std::string_view key, std::string_view value) {
  std::string joined;
  joined.reserve(ns.size() + key.size() + value.size() + 2);
  joined.append(ns).push_back('\0');
  joined.append(key).push_back('\0');
  joined.append(value);
  return joined;
}

void Snapshot::indexPod(const PodInfo* pod) {
  byNode_[pod->node].insert(pod);
  byNamespace_[pod->namespace_].insert(pod);
  const Json& labels = pod->labels();
  if (labels.is_object()) {
    for (const auto& [key, value] : labels.items()) {
      if (value.is_string())
        byLabel_[labelKey(pod->namespace_, key, value.get_ref<const std::string&>())].insert(pod);
    }
  }
  if (!pod->affinity.empty()) withAffinity_.insert(pod);
  if (!pod->affinity.requiredAntiAffinity.empty()) withRequiredAntiAffinity_.insert(pod);
}

void Snapshot::unindexPod(const PodInfo* pod) {
  auto erase = [pod](std::unordered_map<std::string, PodSet>& index, const std::string& key) {
    auto it = index.find(key);
    if (it == index.end()) return;
    it->second.erase(pod);
    if (it->second.empty()) index.erase(it);
  };
  erase(byNode_, pod->node);
  erase(byNamespace_, pod->namespace_);
  const Json& labels = pod->labels();
  if (labels.is_object()) {
    for (const auto& [key, value] : labels.items()) {
      if (value.is_string())
        erase(byLabel_, labelKey(pod->namespace_, key, value.get_ref<const std::string&>()));
    }
  }
  withAffinity_.erase(pod);
  withRequiredAntiAffinity_.erase(pod);
}

const PodSet& Snapshot::podsOn(std::string_view node) const {
  static const PodSet kNone;
  auto it = byNode_.find(std::string(node));
  return it == byNode_.end() ? kNone : it->second;
}

void Snapshot::forEachMatching(std::string_view ns, const LabelSelector& selector,
                               const std::function<void(const PodInfo&)>& visit) const {
  if (selector.matchesNothing()) return;
  // The narrowest index the selector allows: one (key, value) it pins, else the namespace.
  const PodSet* candidates = nullptr;
  for (const auto& requirement : selector.requirements()) {
    auto value = selector.requiresExactMatch(requirement.key);
    if (!value) continue;
    auto it = byLabel_.find(labelKey(ns, requirement.key, *value));
    if (it == byLabel_.end()) return;  // no pod carries the label
    if (candidates == nullptr || it->second.size() < candidates->size()) candidates = &it->second;
  }
  if (candidates == nullptr) {
    auto it = byNamespace_.find(std::string(ns));
    if (it == byNamespace_.end()) return;
    candidates = &it->second;
  }
  for (const PodInfo* pod : *candidates) {
    if (selector.matches(pod->labels())) visit(*pod);
  }
}

std::vector<std::string> Snapshot::namespaces() const {
  std::vector<std::string> names;
  names.reserve(byNamespace_.size());
  for (const auto& [ns, pods] : byNamespace_) names.push_back(ns);
  std::sort(names.begin(), names.end());
  return names;
}

Json Snapshot::namespaceLabels(std::string_view ns) const {
  if (!namespaceLookup_) return emptyObject();
  return namespaceLookup_(ns);
}

}  // namespace fakekube::scheduling
