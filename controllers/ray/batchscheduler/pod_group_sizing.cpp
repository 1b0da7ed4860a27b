#include "controllers/ray/batchscheduler/internal/pod_group_sizing.h"

#include <nlohmann/json.hpp>

#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/quantity.h"

namespace fakekube::ray::batchscheduler {
namespace {

void addQuantity(ResourceSums& into, const std::string& name, const Json& quantity,
                 std::int64_t times = 1) {
  const std::string text = quantity.is_string() ? quantity.get<std::string>() : quantity.dump();
  auto parsed = parseResourceQuantity(name, text);
  if (!parsed) return;  // the API server validates quantities; skip what it let through
  QuantitySum& sum = into[name];
  sum.value += *parsed * times;
  if (text.find('i') != std::string::npos) sum.binary = true;
}

// A RayCluster document around a spec, for the helpers of raycluster_types.h.
Json clusterOf(const Json& rayClusterSpec) { return Json{{"spec", rayClusterSpec}}; }

ResourceSums clusterResources(const Json& rayCluster, bool desired) {
  ResourceSums total = podResource(podSpecOf(headGroupSpec(rayCluster)));
  for (const WorkerGroupSpec& group : workerGroupSpecs(rayCluster)) {
    if (group.suspend) continue;
    const std::int64_t replicas =
        desired ? group.replicas.value_or(0) : group.minReplicas.value_or(0);
    addResources(total, podResource(podSpecOf(*group.raw)), replicas * group.numOfHosts);
  }
  return total;
}

}  // namespace

ResourceSums podResource(const Json& podSpec) {
  ResourceSums out;
  for (const Json& container : jsonArrayAt(podSpec, "containers")) {
    const Json& resources = jsonAt(container, {"resources"});
    const Json& requests = jsonAt(resources, {"requests"});
    const Json& limits = jsonAt(resources, {"limits"});
    if (requests.is_object()) {
      for (const auto& [name, q] : requests.items()) addQuantity(out, name, q);
    }
    if (limits.is_object()) {
      for (const auto& [name, q] : limits.items()) {
        if (!requests.is_object() || !requests.contains(name)) addQuantity(out, name, q);
      }
    }
  }
  return out;
}

void addResources(ResourceSums& total, const ResourceSums& more, std::int64_t times) {
  for (const auto& [name, q] : more) {
    QuantitySum& sum = total[name];
    sum.value += q.value * times;
    sum.binary = sum.binary || q.binary;
  }
}

std::string formatQuantity(const QuantitySum& sum, bool milli) {
  const std::int64_t v = sum.value;
  if (v == 0) return "0";
  if (milli) return v % 1000 == 0 ? std::to_string(v / 1000) : std::to_string(v) + "m";
  if (sum.binary) {
    static const char* kSuffixes[] = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
    for (int i = 0; i < 6; ++i) {
      const std::int64_t unit = std::int64_t{1} << (10 * (6 - i));
      if (v % unit == 0) return std::to_string(v / unit) + kSuffixes[i];
    }
    return std::to_string(v);
  }
  static const char* kSuffixes[] = {"E", "P", "T", "G", "M", "k"};
  std::int64_t unit = 1'000'000'000'000'000'000;
  for (int i = 0; i < 6; ++i, unit /= 1000) {
    if (v % unit == 0) return std::to_string(v / unit) + kSuffixes[i];
  }
  return std::to_string(v);
}

Json resourceListJson(const ResourceSums& resources) {
  Json out = Json::object();
  for (const auto& [name, sum] : resources) out[name] = formatQuantity(sum, isMilliResource(name));
  return out;
}

ResourceSums parseResourceList(const Json& list) {
  ResourceSums out;
  if (!list.is_object()) return out;
  for (const auto& [name, q] : list.items()) addQuantity(out, name, q);
  return out;
}

bool sameResources(const ResourceSums& a, const ResourceSums& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [name, sum] : a) {
    auto other = b.find(name);
    if (other == b.end() || other->second.value != sum.value) return false;
  }
  return true;
}

std::int32_t calculateDesiredReplicas(const Json& rayClusterSpec) {
  std::int32_t count = 0;
  for (const WorkerGroupSpec& group : workerGroupSpecs(clusterOf(rayClusterSpec))) {
    count += workerGroupDesiredReplicas(group);
  }
  return count;
}

std::int32_t calculateMinReplicas(const Json& rayClusterSpec) {
  std::int32_t count = 0;
  for (const WorkerGroupSpec& group : workerGroupSpecs(clusterOf(rayClusterSpec))) {
    if (group.suspend) continue;
    count += group.minReplicas.value_or(0) * group.numOfHosts;
  }
  return count;
}

ResourceSums calculateDesiredResources(const Json& rayClusterSpec) {
  return clusterResources(clusterOf(rayClusterSpec), true);
}

ResourceSums calculateMinResources(const Json& rayClusterSpec) {
  return clusterResources(clusterOf(rayClusterSpec), false);
}

ResourceSums calculateRayClusterDesiredResources(const Json& rayCluster) {
  return clusterResources(rayCluster, true);
}

}  // namespace fakekube::ray::batchscheduler
