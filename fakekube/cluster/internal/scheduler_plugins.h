// The placement plugins of kube-scheduler's default profile, as functions of (pod, node,
// snapshot): NodeUnschedulable, TaintToleration, NodeAffinity, PodTopologySpread and
// InterPodAffinity. The Scheduler runs them around its own NodeResourcesFit; a gang scheduler
// runs them over its own snapshot the same way.
//
// One scheduling cycle of one pod (PlacementCycle::start) builds each plugin for the pod:
// what kube-scheduler's PreFilter computes once per pod (the pod's parsed rules, the counts of
// matching pods per topology domain) is computed there, once, from the snapshot. Then:
//
//   preFilter()        a rejection for every node ("pod affinity terms conflict"), or the only
//                      nodes worth filtering (required matchFields metadata.name In [...]); the
//                      others fail with "node(s) didn't satisfy plugin(s) [NodeAffinity]"
//   filter(node, stage) the first failing plugin's status, in the default profile's order:
//                      BeforeResources: NodeUnschedulable, TaintToleration, NodeAffinity;
//                      (the caller's NodeResourcesFit goes between);
//                      AfterResources: PodTopologySpread, InterPodAffinity
//   scores(feasible)   per feasible node, the sum over the scoring plugins of its normalised
//                      score (0..100) times the plugin's weight in the default profile
//                      (NodeAffinity 2, PodTopologySpread 2, InterPodAffinity 2); plugins with
//                      nothing to score (no preferences) add 0
//
// The exact reasons, kube-scheduler's, are in each plugin's file (scheduler_node_affinity.cpp,
// scheduler_inter_pod_affinity.cpp, scheduler_pod_topology_spread.cpp, scheduler_taints.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"
#include "fakekube/cluster/internal/scheduler_snapshot.h"

namespace fakekube::scheduling {

// A plugin's verdict on one node (framework.Status of a filter).
struct FilterStatus {
  enum class Code { Success, Unschedulable, UnschedulableAndUnresolvable };
  Code code = Code::Success;
  std::vector<std::string> reasons;

  bool ok() const { return code == Code::Success; }
  // Preemption could make room (it evicts lower-priority pods); false: it cannot help.
  bool resolvable() const { return code != Code::UnschedulableAndUnresolvable; }
  static FilterStatus unschedulable(std::string reason) {
    return {Code::Unschedulable, {std::move(reason)}};
  }
  static FilterStatus unresolvable(std::string reason) {
    return {Code::UnschedulableAndUnresolvable, {std::move(reason)}};
  }
};

// PreFilter's answer for one pod.
struct PreFilterResult {
  // The only nodes worth filtering; absent: every node.
  std::optional<std::set<std::string>> nodeNames;
  // The plugins that narrowed nodeNames, sorted (for the reason of the nodes left out).
  std::vector<std::string> narrowedBy;
  // Not ok: the pod fits no node, for this reason.
  FilterStatus status;
};

// What PodTopologySpread's system default constraints need beyond the snapshot: the selector
// kube-scheduler's helper.DefaultSelector builds for the pod, from the Services,
// ReplicationControllers, ReplicaSets and StatefulSets that select it. Absent or empty: the pod
// is selected by none of them, and no default constraint applies.
struct SpreadDefaults {
  std::optional<LabelSelector> selector;
};

// One plugin for one pod's cycle.
class PlacementPlugin {
 public:
  virtual ~PlacementPlugin() = default;
  virtual std::string_view name() const = 0;
  virtual PreFilterResult preFilter() const { return {}; }
  virtual FilterStatus filter(const NodeInfo& node) const = 0;
  // Prepares scoring over the feasible nodes; false: nothing to score (framework Skip).
  virtual bool preScore(const std::vector<const NodeInfo*>& feasible) { return false; }
  virtual std::int64_t score(const NodeInfo& node) const { return 0; }
  // Brings the raw scores of `nodes` (same order) to 0..100.
  virtual void normalizeScores(const std::vector<const NodeInfo*>& nodes,
                               std::vector<std::int64_t>& scores) const {}
  // The plugin's weight in the default profile's score.
  virtual std::int64_t weight() const { return 0; }
};

// The plugins, each built for `pod` over `snapshot` (PreFilter's work). A malformed rule of the
// pod (a selector that does not parse) is a 400 error.
Result<std::unique_ptr<PlacementPlugin>> nodeUnschedulablePlugin(const Json& pod);
Result<std::unique_ptr<PlacementPlugin>> taintTolerationPlugin(const Json& pod);
Result<std::unique_ptr<PlacementPlugin>> nodeAffinityPlugin(const Json& pod);
Result<std::unique_ptr<PlacementPlugin>> podTopologySpreadPlugin(const Json& pod,
                                                                 const Snapshot& snapshot,
                                                                 const SpreadDefaults& defaults);
Result<std::unique_ptr<PlacementPlugin>> interPodAffinityPlugin(const Json& pod,
                                                                const Snapshot& snapshot);

class PlacementCycle {
 public:
  enum class Stage { BeforeResources, AfterResources };

  static Result<PlacementCycle> start(const Json& pod, const Snapshot& snapshot,
                                      const SpreadDefaults& defaults = {});

  PreFilterResult preFilter() const;
  FilterStatus filter(const NodeInfo& node, Stage stage) const;
  // The weighted, normalised placement score of each of `feasible` (same order).
  std::vector<std::int64_t> scores(const std::vector<const NodeInfo*>& feasible);

 private:
  std::vector<std::unique_ptr<PlacementPlugin>> before_;
  std::vector<std::unique_ptr<PlacementPlugin>> after_;
};

// framework.MaxNodeScore.
inline constexpr std::int64_t kMaxNodeScore = 100;

// helper.DefaultNormalizeScore(MaxNodeScore, reverse = false): scores scaled so the highest is
// 100; all zero stays zero.
void defaultNormalizeScores(std::vector<std::int64_t>& scores);

}  // namespace fakekube::scheduling
