// FitError: why a pod fits on no node, and the message kube-scheduler writes for it
// (framework.FitError.Error plus the PostFilter plugins' message). Internal to the Scheduler.
//
//   0/3 nodes are available: <PreFilter's message, or the nodes' reasons counted>. preemption:
//   0/3 nodes are available: <preemption's reasons counted>.[, <a plugin's reason>.]
//
// Counts are sorted as strings ("<count> <reason>", sort.Strings). With no nodes at all the
// message is "no nodes available to schedule pods" (ErrNoNodesAvailable; no PostFilter runs).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fakekube::scheduling {

// Default preemption's verdict on a node that failed a filter: resolvable (Unschedulable) or not.
inline constexpr std::string_view kNoPreemptionVictims =
    "No preemption victims found for incoming pod";
inline constexpr std::string_view kPreemptionNotHelpful =
    "Preemption is not helpful for scheduling";

struct FitError {
  std::size_t numNodes = 0;
  // A PreFilter plugin's rejection (for every node at once); empty when Filter ran.
  std::string preFilterMessage;
  // Filter's reasons, counted over the nodes.
  std::map<std::string, int> reasons;
  // Preemption's verdicts, counted over the nodes.
  std::map<std::string, int> preemption;

  // The message; `postFilterReasons` are the other PostFilter plugins' reasons, after
  // preemption's, joined with ", " as RunPostFilterPlugins joins them.
  std::string message(const std::vector<std::string>& postFilterReasons = {}) const;
};

}  // namespace fakekube::scheduling
