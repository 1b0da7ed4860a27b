// The RayCluster a RayService runs on, and when a change of the RayService's rayClusterConfig
// updates that cluster in place and when it prepares a new one (KubeRay's
// constructRayClusterForRayService, isClusterSpecHashEqual, shouldUpdateCluster,
// shouldPrepareNewCluster, modifyRayCluster, isZeroDowntimeUpgradeEnabled).
//
// The cluster: named <rayservice>-<5 random characters>, owned by the RayService (controller
// reference), its spec the rayClusterConfig; labels the RayService's plus
// ray.io/originated-from-cr-name=<rayservice>, ray.io/originated-from-crd=RayService; annotations
// the RayService's plus
//   ray.io/hash-without-replicas-and-workers-to-delete   the spec's hash without replicas,
//                                                        min/max, workersToDelete, tolerations,
//                                                        scheduling gates, upgradeStrategy and
//                                                        suspend (clusterHash, pod_builder.h)
//   ray.io/num-worker-groups                             the number of worker groups
//   ray.io/kuberay-version                               the operator's version
// so that scaling by the autoscaler is never mistaken for a change of the RayService.
//
// A change of the rayClusterConfig:
//   same hash                            nothing
//   only worker groups appended          the cluster is updated in place (its spec replaced,
//                                        spec.suspend kept): the active one only when no upgrade
//                                        is in progress, the pending one always
//   anything else                        a new pending cluster (zero-downtime upgrade, blue/green
//                                        or incremental), unless upgradeStrategy.type is None
//                                        (or ENABLE_ZERO_DOWNTIME is false and no type is set):
//                                        then nothing happens
// A different ray.io/kuberay-version on the active cluster also updates it in place.
#pragma once

#include <string>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube::ray {

// rayClusterSpecForHashing: spec.rayClusterConfig without suspend (propagated only at creation).
Json rayClusterSpecForHashing(const Json& rayService);
// The hash annotation's value for the RayService's rayClusterConfig.
std::string rayServiceClusterHash(const Json& rayService);

Result<Json> constructRayClusterForRayService(const Json& rayService, const std::string& name);

// `partial`: compare only the cluster's first ray.io/num-worker-groups groups (true when the
// annotation is unreadable, as upstream).
bool isClusterSpecHashEqual(const Json& rayService, const Json& cluster, bool partial);
// `cluster` null: false.
bool shouldUpdateCluster(const Json& rayService, const Json& cluster, bool isActiveCluster);
// `enableZeroDowntime` is ENABLE_ZERO_DOWNTIME, `incrementalUpgradeGate` the
// RayServiceIncrementalUpgrade feature gate (OperatorOptions): with the gate on,
// NewClusterWithIncrementalUpgrade prepares a new cluster too.
bool isZeroDowntimeUpgradeEnabled(const Json& rayService, bool enableZeroDowntime,
                                  bool incrementalUpgradeGate = true);
bool shouldPrepareNewCluster(const Json& rayService, const Json& activeCluster,
                             const Json& pendingCluster, bool isPendingClusterServing,
                             bool enableZeroDowntime = true, bool incrementalUpgradeGate = true);
// The current cluster (as read) takes the goal's spec (keeping its spec.suspend), labels and
// annotations.
void modifyRayCluster(Json& currentCluster, const Json& goalCluster);

}  // namespace fakekube::ray
