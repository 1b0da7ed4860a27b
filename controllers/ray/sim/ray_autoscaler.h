// RayAutoscaler: what the `autoscaler` container of a head pod does in the simulation — Ray's
// autoscaler with its KubeRay node provider (ray/autoscaler/_private/kuberay/node_provider.py),
// scaling the RayCluster's worker groups to the demand a test sets.
//
// The kubelet starts it for the container KubeRay injects with in-tree autoscaling (named
// `autoscaler`, or running `ray kuberay-autoscaler`). Every updateInterval (Ray's
// AUTOSCALER_UPDATE_INTERVAL_S, 5 s) one update, as the KubeRay node provider makes it:
//   1. get the RayCluster (its name from the pod's ray.io/cluster label, as RAY_CLUSTER_NAME),
//      list its pods (ignoring terminating ones);
//   2. safe_to_scale: while a pod named in a group's workersToDelete still exists, wait for the
//      operator ("Waiting for operator to remove worker X."); once all are gone, patch every
//      non-empty workersToDelete back to [];
//   3. per worker group, the workers its demand keeps busy are clamp(demand, minReplicas,
//      maxReplicas), the oldest first (by creationTimestamp, then name); the others are idle
//      from the update that first found them so;
//   4. scale up: busy > replicas -> replicas = busy (at most maxReplicas);
//      scale down: the workers idle for autoscalerOptions.idleTimeoutSeconds (default 60 s) go,
//      keeping minReplicas: replicas = workers - k and workersToDelete = their names;
//   5. the changes as one JSON patch (application/json-patch+json), each a "replace" of
//      /spec/workerGroupSpecs/<i>/replicas or /spec/workerGroupSpecs/<i>/scaleStrategy, which
//      the operator turns into pods (reconcilePods).
// It acts as its pod's ServiceAccount (spec.serviceAccountName, else "default"): before its
// calls it asks the RBAC objects whether a RoleBinding of the namespace binds that account to a
// Role allowing get and patch on ray.io rayclusters and list on pods (what KubeRay's
// reconcileAutoscalerRole grants), and answers itself as kube-apiserver's authorizer would:
//   rayclusters.ray.io "rc" is forbidden: User "system:serviceaccount:default:rc" cannot patch
//   resource "rayclusters" in API group "ray.io" in the namespace "default"
// (fakekube's API server stores RBAC objects without enforcing them). What it does goes to its
// container log, worded as Ray's autoscaler logs it.
//
// The demand: RayAutoscalerDemand, shared with the test (thread-safe): for each RayCluster and
// worker group, the number of workers the Ray workload needs (0 when unset: every worker idle).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

#include "fakekube/client/client.h"
#include "fakekube/cluster/container_behavior.h"
#include "fakekube/sim/clock.h"

namespace fakekube::ray {

class RayAutoscalerDemand {
 public:
  // The workers of `group` in RayCluster ns/cluster that the workload keeps busy.
  void set(const std::string& ns, const std::string& cluster, const std::string& group,
           int workers);
  int get(const std::string& ns, const std::string& cluster, const std::string& group) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::tuple<std::string, std::string, std::string>, int> workers_;
};

struct RayAutoscalerOptions {
  // The demand tests set; null: none (every worker is idle).
  std::shared_ptr<const RayAutoscalerDemand> demand;
  // How the container reaches the API server (the cluster's `kubernetes` Service); null: every
  // update fails to connect, as an autoscaler without a route to the API server.
  Client* client = nullptr;
  // AUTOSCALER_UPDATE_INTERVAL_S.
  Duration updateInterval = std::chrono::seconds(5);
};

// The autoscaler container's behaviour.
ProcessFactory rayAutoscaler(RayAutoscalerOptions options);

}  // namespace fakekube::ray
