// NodeResourcesFit: what a pod asks for, what a node has and has used up, and the filter and
// the LeastAllocated score over them (kube-scheduler's noderesources plugin, reduced to requests
// and the pod count).
//
// A pod's requests (podRequests, scheduler.h) are the sum over its containers (requests, or
// limits where a request is missing, as API defaulting copies them), max'd per resource with its
// largest init container, plus spec.overhead; and one pod. The scorer counts a pod without cpu or
// memory requests as 100m cpu / 200Mi memory (schedutil's non-zero defaults), so replicas spread
// over empty nodes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fakekube/api/object.h"
#include "fakekube/cluster/internal/scheduler_plugins.h"
#include "fakekube/cluster/scheduler.h"

namespace fakekube::scheduling {

// schedutil.DefaultMilliCPURequest / DefaultMemoryRequest: what the scorer counts for a pod that
// requests nothing.
constexpr std::int64_t kDefaultMilliCpu = 100;
constexpr std::int64_t kDefaultMemory = 200LL * 1024 * 1024;

// What a node has used up.
struct NodeUsage {
  ResourceList requested;
  std::int64_t pods = 0;
  // requested["cpu"] and ["memory"], which every decision reads of every node it filters.
  std::int64_t requestedCpu = 0;
  std::int64_t requestedMemory = 0;
  // For scoring, with the non-zero defaults.
  std::int64_t scoreCpu = 0;
  std::int64_t scoreMemory = 0;

  static std::int64_t scoreCpuOf(const ResourceList& requests) {
    auto cpu = requests.find("cpu");
    return cpu != requests.end() && cpu->second > 0 ? cpu->second : kDefaultMilliCpu;
  }
  static std::int64_t scoreMemoryOf(const ResourceList& requests) {
    auto memory = requests.find("memory");
    return memory != requests.end() && memory->second > 0 ? memory->second : kDefaultMemory;
  }
  void add(const ResourceList& requests) {
    for (const auto& [name, value] : requests) requested[name] += value;
    ++pods;
    scoreCpu += scoreCpuOf(requests);
    scoreMemory += scoreMemoryOf(requests);
    refreshCpuAndMemory();
  }
  void remove(const ResourceList& requests) {
    for (const auto& [name, value] : requests) {
      auto it = requested.find(name);
      if (it == requested.end()) continue;
      it->second -= value;
      if (it->second == 0) requested.erase(it);
    }
    --pods;
    scoreCpu -= scoreCpuOf(requests);
    scoreMemory -= scoreMemoryOf(requests);
    refreshCpuAndMemory();
  }
  std::int64_t requestedOf(const std::string& name) const {
    auto it = requested.find(name);
    return it == requested.end() ? 0 : it->second;
  }
  void refreshCpuAndMemory() {
    requestedCpu = requestedOf("cpu");
    requestedMemory = requestedOf("memory");
  }
};

// What a pod asks for, resolved once per decision for the filter and the scorer of every node:
// its requests in NodeResourcesFit's order (cpu and memory first, then the others by name), and
// what LeastAllocated counts for it.
struct Demand {
  enum class Kind { Cpu, Memory, Other };
  struct Resource {
    Kind kind;
    std::string name;
    std::int64_t amount;
  };
  std::vector<Resource> resources;  // the positive requests only
  std::int64_t scoreCpu = 0;
  std::int64_t scoreMemory = 0;

  explicit Demand(const ResourceList& requests)
      : scoreCpu(NodeUsage::scoreCpuOf(requests)), scoreMemory(NodeUsage::scoreMemoryOf(requests)) {
    for (const auto& [kind, first] : {std::pair{Kind::Cpu, "cpu"}, {Kind::Memory, "memory"}}) {
      auto it = requests.find(first);
      if (it != requests.end() && it->second > 0) resources.push_back({kind, first, it->second});
    }
    for (const auto& [name, amount] : requests) {
      if (name != "cpu" && name != "memory" && amount > 0) {
        resources.push_back({Kind::Other, name, amount});
      }
    }
  }
};

// A node's resources as NodeResourcesFit and its scorer read them, parsed once per version of the
// node (the informer hands out a new document for every change) rather than once per scheduling
// decision.
struct NodeCapacity {
  // status.allocatable of `node`, parsed.
  static NodeCapacity parse(const ObjectPtr& node);

  ObjectPtr object;
  std::string name;
  ResourceList allocatable;
  // allocatableOf("cpu"), ("memory") and ("pods"), which every decision reads of every node.
  std::int64_t allocatableCpu = 0;
  std::int64_t allocatableMemory = 0;
  std::int64_t allocatablePods = 0;

  std::int64_t allocatableOf(const std::string& resource) const {
    auto it = allocatable.find(resource);
    return it == allocatable.end() ? 0 : it->second;
  }
  std::int64_t allocatableOf(const Demand::Resource& resource) const {
    switch (resource.kind) {
      case Demand::Kind::Cpu:
        return allocatableCpu;
      case Demand::Kind::Memory:
        return allocatableMemory;
      case Demand::Kind::Other:
        break;
    }
    return allocatableOf(resource.name);
  }
};

// What a node has used up as a decision sees it: its bound pods' usage, plus that of the pods
// assumed onto it (bound by this scheduler, not yet seen bound in the cache), if any.
struct UsedOnNode {
  const NodeUsage& bound;
  const NodeUsage* assumed;

  std::int64_t pods() const { return bound.pods + (assumed ? assumed->pods : 0); }
  std::int64_t scoreCpu() const { return bound.scoreCpu + (assumed ? assumed->scoreCpu : 0); }
  std::int64_t scoreMemory() const {
    return bound.scoreMemory + (assumed ? assumed->scoreMemory : 0);
  }
  std::int64_t requestedOf(const Demand::Resource& resource) const {
    return requestedOf(bound, resource) + (assumed ? requestedOf(*assumed, resource) : 0);
  }
  static std::int64_t requestedOf(const NodeUsage& usage, const Demand::Resource& resource) {
    switch (resource.kind) {
      case Demand::Kind::Cpu:
        return usage.requestedCpu;
      case Demand::Kind::Memory:
        return usage.requestedMemory;
      case Demand::Kind::Other:
        break;
    }
    return usage.requestedOf(resource.name);
  }
};

// NodeResourcesFit's filter: "Too many pods" and "Insufficient <resource>" for every shortage
// (Unschedulable: preemption could make room).
FilterStatus fitResources(const Demand& demand, const NodeCapacity& node, const UsedOnNode& used);

// LeastAllocated: the mean over cpu and memory of the share left free once the pod is placed,
// 0..100.
std::int64_t leastAllocatedScore(const Demand& demand, const NodeCapacity& node,
                                 const UsedOnNode& used);

}  // namespace fakekube::scheduling
