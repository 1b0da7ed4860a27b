// PlacementCycle: the placement plugins of one pod's scheduling cycle, run in the default
// profile's order (scheduler_plugins.h).
#include <algorithm>

#include "fakekube/cluster/internal/scheduler_plugins.h"

namespace fakekube::scheduling {

Result<PlacementCycle> PlacementCycle::start(const Json& pod, const Snapshot& snapshot,
                                             const SpreadDefaults& defaults) {
  PlacementCycle cycle;
  auto add = [](std::vector<std::unique_ptr<PlacementPlugin>>& into,
                Result<std::unique_ptr<PlacementPlugin>> plugin) -> Result<void> {
    if (!plugin) return tl::unexpected(plugin.error());
    into.push_back(std::move(*plugin));
    return {};
  };
  for (auto* make : {&nodeUnschedulablePlugin, &taintTolerationPlugin, &nodeAffinityPlugin}) {
    if (auto added = add(cycle.before_, (*make)(pod)); !added) return tl::unexpected(added.error());
  }
  if (auto added = add(cycle.after_, podTopologySpreadPlugin(pod, snapshot, defaults)); !added) {
    return tl::unexpected(added.error());
  }
  if (auto added = add(cycle.after_, interPodAffinityPlugin(pod, snapshot)); !added) {
    return tl::unexpected(added.error());
  }
  return cycle;
}

PreFilterResult PlacementCycle::preFilter() const {
  PreFilterResult merged;
  for (const auto* plugins : {&before_, &after_}) {
    for (const auto& plugin : *plugins) {
      PreFilterResult result = plugin->preFilter();
      if (!result.status.ok()) return result;
      if (!result.nodeNames) continue;
      if (!merged.nodeNames) {
        merged.nodeNames = std::move(result.nodeNames);
      } else {
        std::erase_if(*merged.nodeNames,
                      [&](const std::string& n) { return !result.nodeNames->count(n); });
      }
      merged.narrowedBy.insert(merged.narrowedBy.end(), result.narrowedBy.begin(),
                               result.narrowedBy.end());
    }
  }
  std::sort(merged.narrowedBy.begin(), merged.narrowedBy.end());
  return merged;
}

FilterStatus PlacementCycle::filter(const NodeInfo& node, Stage stage) const {
  for (const auto& plugin : stage == Stage::BeforeResources ? before_ : after_) {
    FilterStatus status = plugin->filter(node);
    if (!status.ok()) return status;
  }
  return {};
}

std::vector<std::int64_t> PlacementCycle::scores(const std::vector<const NodeInfo*>& feasible) {
  std::vector<std::int64_t> total(feasible.size(), 0);
  for (auto* plugins : {&before_, &after_}) {
    for (auto& plugin : *plugins) {
      if (plugin->weight() == 0 || !plugin->preScore(feasible)) continue;
      std::vector<std::int64_t> scores;
      scores.reserve(feasible.size());
      for (const NodeInfo* node : feasible) scores.push_back(plugin->score(*node));
      plugin->normalizeScores(feasible, scores);
      for (std::size_t i = 0; i < feasible.size(); ++i) total[i] += scores[i] * plugin->weight();
    }
  }
  return total;
}

}  // namespace fakekube::scheduling
