#include "fakekube/cluster/internal/scheduler_resources.h"

#include <algorithm>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/quantity.h"

namespace fakekube {

namespace scheduling {

namespace {

constexpr std::string_view kReasonTooManyPods = "Too many pods";

Result<void> addResources(ResourceList& into, const Json& list, bool max) {
  if (!list.is_object()) return {};
  for (const auto& [name, value] : list.items()) {
    std::string text = value.is_string()   ? value.get<std::string>()
                       : value.is_number() ? value.dump()
                                           : std::string();
    auto parsed = parseResourceQuantity(name, text);
    if (!parsed) return tl::unexpected(parsed.error());
    if (max) {
      into[name] = std::max(into[name], *parsed);
    } else {
      into[name] += *parsed;
    }
  }
  return {};
}

// A container's requests, with limits standing in for missing requests.
Result<ResourceList> containerRequests(const Json& container) {
  ResourceList requests;
  const Json& resources = jsonAt(container, {"resources"});
  if (!resources.is_object()) return requests;
  if (auto r = addResources(requests, jsonObjectAt(resources, "requests"), false); !r) {
    return tl::unexpected(r.error());
  }
  ResourceList limits;
  if (auto r = addResources(limits, jsonObjectAt(resources, "limits"), false); !r) {
    return tl::unexpected(r.error());
  }
  for (const auto& [name, value] : limits) requests.emplace(name, value);
  return requests;
}

}  // namespace

NodeCapacity NodeCapacity::parse(const ObjectPtr& node) {
  NodeCapacity info;
  info.object = node;
  info.name = meta::name(*node);
  const Json& declared = jsonAt(*node, {"status", "allocatable"});
  if (declared.is_object()) (void)addResources(info.allocatable, declared, false);
  info.allocatableCpu = info.allocatableOf("cpu");
  info.allocatableMemory = info.allocatableOf("memory");
  info.allocatablePods = info.allocatableOf("pods");
  return info;
}

FilterStatus fitResources(const Demand& demand, const NodeCapacity& node, const UsedOnNode& used) {
  FilterStatus status;
  if (used.pods() + 1 > node.allocatablePods) {
    status.reasons.emplace_back(kReasonTooManyPods);
  }
  for (const auto& resource : demand.resources) {
    if (resource.amount > node.allocatableOf(resource) - used.requestedOf(resource)) {
      status.reasons.push_back("Insufficient " + resource.name);
    }
  }
  if (!status.reasons.empty()) status.code = FilterStatus::Code::Unschedulable;
  return status;
}

std::int64_t leastAllocatedScore(const Demand& demand, const NodeCapacity& node,
                                 const UsedOnNode& used) {
  const std::int64_t cpu = used.scoreCpu() + demand.scoreCpu;
  const std::int64_t memory = used.scoreMemory() + demand.scoreMemory;
  auto free = [](std::int64_t capacity, std::int64_t requested) -> std::int64_t {
    if (capacity <= 0 || requested > capacity) return 0;
    return (capacity - requested) * 100 / capacity;
  };
  return (free(node.allocatableCpu, cpu) + free(node.allocatableMemory, memory)) / 2;
}

}  // namespace scheduling

Result<ResourceList> podRequests(const Json& pod) {
  ResourceList total;
  const Json& spec = jsonAt(pod, {"spec"});
  if (!spec.is_object()) return total;
  if (spec.contains("containers") && spec["containers"].is_array()) {
    for (const auto& c : spec["containers"]) {
      auto requests = scheduling::containerRequests(c);
      if (!requests) return tl::unexpected(requests.error());
      for (const auto& [name, value] : *requests) total[name] += value;
    }
  }
  if (spec.contains("initContainers") && spec["initContainers"].is_array()) {
    for (const auto& c : spec["initContainers"]) {
      auto requests = scheduling::containerRequests(c);
      if (!requests) return tl::unexpected(requests.error());
      for (const auto& [name, value] : *requests) total[name] = std::max(total[name], value);
    }
  }
  if (spec.contains("overhead")) {
    if (auto r = scheduling::addResources(total, spec["overhead"], false); !r)
      return tl::unexpected(r.error());
  }
  return total;
}

}  // namespace fakekube
