#include "fakekube/cluster/internal/scheduler_fit_error.h"

#include <fmt/format.h>

#include <algorithm>

namespace fakekube::scheduling {
namespace {

std::string fitErrorHistogram(const std::map<std::string, int>& counts) {
  std::vector<std::string> parts;
  for (const auto& [reason, count] : counts) parts.push_back(fmt::format("{} {}", count, reason));
  std::sort(parts.begin(), parts.end());  // sort.Strings over "<count> <reason>"
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

std::string FitError::message(const std::vector<std::string>& postFilterReasons) const {
  if (numNodes == 0) return "no nodes available to schedule pods";
  std::string text = fmt::format("0/{} nodes are available:", numNodes);
  if (!preFilterMessage.empty()) {
    text += fmt::format(" {}.", preFilterMessage);
  } else if (!reasons.empty()) {
    text += fmt::format(" {}.", fitErrorHistogram(reasons));
  }
  text += fmt::format(" preemption: 0/{} nodes are available: {}.", numNodes,
                      fitErrorHistogram(preemption));
  for (const auto& reason : postFilterReasons) text += fmt::format(", {}", reason);
  return postFilterReasons.empty() ? text : text + ".";
}

}  // namespace fakekube::scheduling
