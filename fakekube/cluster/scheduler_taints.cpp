// NodeUnschedulable and TaintToleration: the filters that keep pods off cordoned and tainted
// nodes.
//
//   NodeUnschedulable  spec.unschedulable, unless the pod tolerates
//                      node.kubernetes.io/unschedulable:NoSchedule
//                      "node(s) were unschedulable"
//   TaintToleration    the first NoSchedule/NoExecute taint the pod does not tolerate (and the
//                      taint of a node that is not Ready)
//                      "node(s) had untolerated taint {key: value}"
// Both UnschedulableAndUnresolvable: preemption cannot help.
#include <fmt/format.h>

#include "fakekube/cluster/internal/scheduler_plugins.h"

namespace fakekube::scheduling {

namespace {

class NodeUnschedulable final : public PlacementPlugin {
 public:
  explicit NodeUnschedulable(const Json& pod)
      : tolerates_(toleratesTaint(
            pod, {{"key", "node.kubernetes.io/unschedulable"}, {"effect", "NoSchedule"}})) {}
  std::string_view name() const override { return "NodeUnschedulable"; }
  FilterStatus filter(const NodeInfo& node) const override {
    if (node.unschedulable && !tolerates_) {
      return FilterStatus::unresolvable("node(s) were unschedulable");
    }
    return {};
  }

 private:
  bool tolerates_;
};

class TaintToleration final : public PlacementPlugin {
 public:
  explicit TaintToleration(const Json& pod) : pod_(pod) {}
  std::string_view name() const override { return "TaintToleration"; }
  FilterStatus filter(const NodeInfo& node) const override {
    const Json* taint = untoleratedTaint(pod_, node);
    if (taint == nullptr) return {};
    return FilterStatus::unresolvable(fmt::format("node(s) had untolerated taint {{{}: {}}}",
                                                  taint->value("key", ""),
                                                  taint->value("value", "")));
  }

 private:
  const Json& pod_;
};

}  // namespace

Result<std::unique_ptr<PlacementPlugin>> nodeUnschedulablePlugin(const Json& pod) {
  return std::make_unique<NodeUnschedulable>(pod);
}

Result<std::unique_ptr<PlacementPlugin>> taintTolerationPlugin(const Json& pod) {
  return std::make_unique<TaintToleration>(pod);
}

}  // namespace fakekube::scheduling
