// The Redis cleanup Job of a RayCluster with GCS fault tolerance on Redis (KubeRay's
// buildRedisCleanupJob).
//
// With GCS fault tolerance the head's GCS keeps the cluster's metadata in an external Redis,
// under the cluster's storage namespace. Deleting the RayCluster would leave that namespace
// behind, so KubeRay puts the finalizer ray.io/gcs-ft-redis-cleanup-finalizer on such a
// cluster and, once it is being deleted and its head pod is gone, runs this Job to delete the
// namespace from Redis; the finalizer goes when the Job finished (Complete or Failed), or after
// the deletion timeout (ray.io/gcs-ft-deletion-timeout, else RAYCLUSTER_GCS_FT_DELETION_TIMEOUT,
// 300 s) when it is stuck.
//
// The Job is the head pod with only its Ray container, labelled ray.io/node-type=redis-cleanup,
// running a python one-liner (ray._private.gcs_utils.cleanup_redis_storage) instead of
// `ray start`, without probes, with 200m / 256Mi, restartPolicy Never; the Job is
// <cluster>-redis-cleanup (trimmed to 63 characters), backoffLimit 0, activeDeadlineSeconds
// 300, owned by the RayCluster.
#pragma once

#include "controllers/ray/operator_options.h"
#include "fakekube/api/group_version.h"
#include "fakekube/api/json.h"

namespace fakekube::ray {

Json buildRedisCleanupJob(const Json& rayCluster, const OperatorOptions& options);

}  // namespace fakekube::ray
