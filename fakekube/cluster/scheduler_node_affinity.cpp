// NodeAffinity: spec.nodeSelector and spec.affinity.nodeAffinity
// (k8s.io/component-helpers/scheduling/corev1/nodeaffinity and the scheduler plugin).
//
// Filter. The node must carry every spec.nodeSelector label, and match the required
// nodeSelectorTerms: terms ORed, each term's matchExpressions (labels: In, NotIn, Exists,
// DoesNotExist, Gt, Lt) and matchFields (metadata.name: In, NotIn, one value) ANDed. An empty
// term matches no node, and so does a required selector with no terms; a term that does not
// parse (an unknown operator, In without values, Gt with a non-integer) matches no node either,
// as kube-scheduler ignores its parse errors for backward compatibility.
//   "node(s) didn't match Pod's node affinity/selector"  (UnschedulableAndUnresolvable)
//
// PreFilter. When every term pins metadata.name (matchFields In), only those nodes are filtered;
// the others count as "node(s) didn't satisfy plugin(s) [NodeAffinity]". Terms that pin
// disjoint names reject every node: "pod affinity terms conflict".
//
// Score. The sum of the weights of the preferred terms the node matches, scaled so the best
// node has 100 (DefaultNormalizeScore); weight 2 in the default profile. A preferred term that
// does not parse fails the pod's scheduling (kube-scheduler's PreScore error).
#include <algorithm>
#include <charconv>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/validation.h"
#include "fakekube/cluster/internal/scheduler_plugins.h"

namespace fakekube::scheduling {

namespace {

using Requirement = LabelSelector::Requirement;
using Operator = LabelSelector::Operator;

constexpr std::string_view kRequiredField = "requiredDuringSchedulingIgnoredDuringExecution";
constexpr std::string_view kPreferredField = "preferredDuringSchedulingIgnoredDuringExecution";

std::optional<std::int64_t> parseInteger(std::string_view text) {
  std::int64_t value = 0;
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

// labels.NewRequirement for one NodeSelectorRequirement of matchExpressions; nullopt when it
// does not parse.
std::optional<Requirement> labelRequirement(const Json& expression) {
  if (!expression.is_object()) return std::nullopt;
  Requirement requirement;
  requirement.key = expression.value("key", "");
  if (!isQualifiedName(requirement.key).empty()) return std::nullopt;
  for (const Json& value : jsonArrayAt(expression, "values")) {
    if (!value.is_string() || !isValidLabelValue(value.get<std::string>()).empty()) {
      return std::nullopt;
    }
    requirement.values.push_back(value.get<std::string>());
  }
  const std::string op = expression.value("operator", "");
  const std::size_t count = requirement.values.size();
  if (op == "In" || op == "NotIn") {
    if (count == 0) return std::nullopt;
    requirement.op = op == "In" ? Operator::In : Operator::NotIn;
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (count != 0) return std::nullopt;
    requirement.op = op == "Exists" ? Operator::Exists : Operator::DoesNotExist;
  } else if (op == "Gt" || op == "Lt") {
    if (count != 1) return std::nullopt;
    auto number = parseInteger(requirement.values[0]);
    if (!number) return std::nullopt;
    requirement.number = *number;
    requirement.op = op == "Gt" ? Operator::GreaterThan : Operator::LessThan;
  } else {
    return std::nullopt;
  }
  std::sort(requirement.values.begin(), requirement.values.end());
  requirement.values.erase(std::unique(requirement.values.begin(), requirement.values.end()),
                           requirement.values.end());
  return requirement;
}

// One v1.NodeSelectorTerm.
struct NodeSelectorTerm {
  struct FieldRequirement {
    std::string key;
    bool equal = true;  // In; false: NotIn
    std::string value;
  };
  bool parsed = true;  // false: matches no node
  std::vector<Requirement> expressions;
  std::vector<FieldRequirement> fields;

  static bool isEmpty(const Json& term) {
    return jsonArrayAt(term, "matchExpressions").empty() &&
           jsonArrayAt(term, "matchFields").empty();
  }

  static NodeSelectorTerm parse(const Json& term) {
    NodeSelectorTerm parsedTerm;
    for (const Json& expression : jsonArrayAt(term, "matchExpressions")) {
      auto requirement = labelRequirement(expression);
      if (!requirement) {
        parsedTerm.parsed = false;
        continue;
      }
      parsedTerm.expressions.push_back(std::move(*requirement));
    }
    for (const Json& expression : jsonArrayAt(term, "matchFields")) {
      const std::string op = expression.is_object() ? expression.value("operator", "") : "";
      const Json& values = jsonArrayAt(expression, "values");
      if ((op != "In" && op != "NotIn") || values.size() != 1 || !values[0].is_string()) {
        parsedTerm.parsed = false;
        continue;
      }
      parsedTerm.fields.push_back(
          {expression.value("key", ""), op == "In", values[0].get<std::string>()});
    }
    return parsedTerm;
  }

  bool matches(const NodeInfo& node) const {
    if (!parsed) return false;
    const Json& labels = node.labels();
    for (const auto& requirement : expressions) {
      if (!requirement.matches(labels)) return false;
    }
    for (const auto& field : fields) {
      // Nodes have one field, metadata.name; any other key reads as empty.
      const std::string& value = field.key == "metadata.name" ? node.name : std::string();
      if ((value == field.value) != field.equal) return false;
    }
    return true;
  }
};

class NodeAffinity final : public PlacementPlugin {
 public:
  std::string_view name() const override { return "NodeAffinity"; }

  static Result<std::unique_ptr<NodeAffinity>> forPod(const Json& pod) {
    auto plugin = std::make_unique<NodeAffinity>();
    const Json& nodeSelector = jsonAt(pod, {"spec", "nodeSelector"});
    if (nodeSelector.is_object() && !nodeSelector.empty()) plugin->nodeSelector_ = &nodeSelector;
    const Json& nodeAffinity = jsonAt(pod, {"spec", "affinity", "nodeAffinity"});
    const Json& required = jsonObjectAt(nodeAffinity, kRequiredField);
    if (jsonAt(nodeAffinity, {kRequiredField}).is_object()) {
      plugin->required_ = true;
      plugin->requiredTerms_ = &jsonArrayAt(required, "nodeSelectorTerms");
      for (const Json& term : *plugin->requiredTerms_) {
        if (!NodeSelectorTerm::isEmpty(term)) {
          plugin->terms_.push_back(NodeSelectorTerm::parse(term));
        }
      }
    }
    for (const Json& preferred : jsonArrayAt(nodeAffinity, kPreferredField)) {
      const Json& weight = jsonAt(preferred, {"weight"});
      const Json& preference = jsonAt(preferred, {"preference"});
      const std::int64_t w = weight.is_number_integer() ? weight.get<std::int64_t>() : 0;
      if (w == 0 || NodeSelectorTerm::isEmpty(preference)) continue;
      NodeSelectorTerm term = NodeSelectorTerm::parse(preference);
      if (!term.parsed) {
        return Error(Status::badRequest(
            "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution: a "
            "preference does not parse"));
      }
      plugin->preferred_.push_back({std::move(term), w});
    }
    return plugin;
  }

  PreFilterResult preFilter() const override {
    PreFilterResult result;
    if (!required_ || requiredTerms_->empty()) return result;
    std::set<std::string> names;
    for (const Json& term : *requiredTerms_) {
      std::optional<std::set<std::string>> termNames;
      for (const Json& field : jsonArrayAt(term, "matchFields")) {
        if (!field.is_object() || field.value("key", "") != "metadata.name" ||
            field.value("operator", "") != "In") {
          continue;
        }
        std::set<std::string> values;
        for (const Json& v : jsonArrayAt(field, "values")) {
          if (v.is_string()) values.insert(v.get<std::string>());
        }
        if (!termNames) {
          termNames = std::move(values);
        } else {
          std::erase_if(*termNames, [&](const std::string& n) { return !values.count(n); });
        }
      }
      if (!termNames) return result;  // this term allows any node: terms are ORed
      names.insert(termNames->begin(), termNames->end());
    }
    if (names.empty()) {
      result.status = FilterStatus::unresolvable("pod affinity terms conflict");
      return result;
    }
    result.nodeNames = std::move(names);
    result.narrowedBy = {"NodeAffinity"};
    return result;
  }

  FilterStatus filter(const NodeInfo& node) const override {
    if (matchesRequired(node)) return {};
    return FilterStatus::unresolvable("node(s) didn't match Pod's node affinity/selector");
  }

  bool preScore(const std::vector<const NodeInfo*>&) override { return !preferred_.empty(); }

  std::int64_t score(const NodeInfo& node) const override {
    std::int64_t total = 0;
    for (const auto& [term, weight] : preferred_) {
      if (term.matches(node)) total += weight;
    }
    return total;
  }

  void normalizeScores(const std::vector<const NodeInfo*>&,
                       std::vector<std::int64_t>& scores) const override {
    defaultNormalizeScores(scores);
  }

  std::int64_t weight() const override { return 2; }

 private:
  // RequiredNodeAffinity.Match.
  bool matchesRequired(const NodeInfo& node) const {
    if (nodeSelector_ != nullptr) {
      const Json& labels = node.labels();
      for (const auto& [key, value] : nodeSelector_->items()) {
        if (!labels.is_object()) return false;
        auto it = labels.find(key);
        if (it == labels.end() || *it != value) return false;
      }
    }
    if (!required_) return true;
    return std::any_of(terms_.begin(), terms_.end(),
                       [&](const NodeSelectorTerm& term) { return term.matches(node); });
  }

  const Json* nodeSelector_ = nullptr;
  bool required_ = false;  // requiredDuringSchedulingIgnoredDuringExecution is set
  const Json* requiredTerms_ = nullptr;
  std::vector<NodeSelectorTerm> terms_;  // the non-empty required terms
  std::vector<std::pair<NodeSelectorTerm, std::int64_t>> preferred_;
};

}  // namespace

Result<std::unique_ptr<PlacementPlugin>> nodeAffinityPlugin(const Json& pod) {
  auto plugin = NodeAffinity::forPod(pod);
  if (!plugin) return tl::unexpected(plugin.error());
  return std::unique_ptr<PlacementPlugin>(std::move(*plugin));
}

void defaultNormalizeScores(std::vector<std::int64_t>& scores) {
  std::int64_t highest = 0;
  for (std::int64_t s : scores) highest = std::max(highest, s);
  if (highest == 0) return;
  for (std::int64_t& s : scores) s = kMaxNodeScore * s / highest;
}

}  // namespace fakekube::scheduling
