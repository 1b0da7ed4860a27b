// How big a Ray cluster's gang is: KubeRay's utils.CalculateDesiredReplicas / MinReplicas and
// CalculateDesiredResources / MinResources / CalculatePodResource / SumResourceList, which the
// batch-scheduler plug-ins size their PodGroups with.
//
// Quantities are summed as resource.Quantity.Add sums them and printed as Quantity.String prints
// the sum: cpu in milli-units ("768m", "2"), others with the binary suffix when a term had one
// ("768Mi") and the decimal one otherwise ("2", "3G").
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "fakekube/api/json.h"

namespace fakekube::ray::batchscheduler {

struct QuantitySum {
  std::int64_t value = 0;  // milli-units for cpu, units otherwise
  bool binary = false;
};
// Quantity.String of the sum: milli-units ("768m", "2") when `milli` (cpu), otherwise with the
// largest binary suffix that divides it when a term had one ("768Mi"), else the decimal one.
std::string formatQuantity(const QuantitySum& sum, bool milli);
// resource name -> sum (corev1.ResourceList).
using ResourceSums = std::map<std::string, QuantitySum>;

// CalculatePodResource: per resource, the sum over the containers of its request, or its limit
// where it has no request.
ResourceSums podResource(const Json& podSpec);
// SumResourceList over two lists.
void addResources(ResourceSums& total, const ResourceSums& more, std::int64_t times = 1);
// The list as a ResourceList document: {"cpu": "768m", "memory": "768Mi"}.
Json resourceListJson(const ResourceSums& resources);
// Parses a ResourceList document (what a PodGroup's minResources holds). Unparsable quantities
// are left out.
ResourceSums parseResourceList(const Json& list);
// quotav1.Equals: the same resources with the same amounts.
bool sameResources(const ResourceSums& a, const ResourceSums& b);

// Of a RayCluster's spec (a RayCluster's, or a RayJob's rayClusterSpec):
// CalculateDesiredReplicas: the desired workers of the groups not suspended, times numOfHosts.
std::int32_t calculateDesiredReplicas(const Json& rayClusterSpec);
// CalculateMinReplicas: minReplicas x numOfHosts over the groups not suspended.
std::int32_t calculateMinReplicas(const Json& rayClusterSpec);
// CalculateDesiredResources: the head pod's, plus each group's pod x replicas x numOfHosts.
ResourceSums calculateDesiredResources(const Json& rayClusterSpec);
// CalculateMinResources: the head pod's, plus each group's pod x minReplicas x numOfHosts.
ResourceSums calculateMinResources(const Json& rayClusterSpec);
// CalculateDesiredResources of a RayCluster document itself (no copy of its spec): what the
// RayCluster's status reports as desiredCPU, desiredMemory, ...
ResourceSums calculateRayClusterDesiredResources(const Json& rayCluster);

}  // namespace fakekube::ray::batchscheduler
