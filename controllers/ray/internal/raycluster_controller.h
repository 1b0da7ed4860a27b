// The KubeRay RayCluster controller (ray-operator/controllers/ray/raycluster_controller.go) on
// fakekube's runtime.
//
// Wiring (SetupWithManager): For RayCluster with or_(generationChanged, labelChanged,
// annotationChanged), so its own status writes do not trigger it; Owns Pods and Services (a
// worker's Ready change enqueues its RayCluster through the controller owner reference); named
// "raycluster"; maxConcurrentReconciles = options.reconcileConcurrency; Events as
// "raycluster-controller". Reads come from the manager's cache: gets through manager.client(),
// the lists of a cluster's pods and Services through the cache's label index on
// ray.io/cluster (the answer of a List with that selector, without scanning every cached pod).
// Every write goes through the Client interface, so the controller runs the same over
// RestClient (the For kind is named with forKind, which such a manager cannot look up).
//
// A round (Reconcile -> rayClusterReconcile):
//   1. Get; NotFound -> drop the cluster's scale expectations, done.
//   2. spec.managedBy names another controller -> skip.
//   3. validate metadata, spec, upgrade strategy (Warning Event, no requeue) and status (Warning
//      Event, error, 2 s).
//   3a. GCS fault tolerance on Redis (ray.io/ft-enabled or spec.gcsFaultToleranceOptions, unless
//      ENABLE_GCS_FT_REDIS_CLEANUP=false): add the finalizer ray.io/gcs-ft-redis-cleanup-finalizer
//      and requeue; once deleted, delete the head and workers, wait (10 s) for the head to go,
//      run the Redis cleanup Job (redis_cleanup_job.h) and remove the finalizer when it finished,
//      or force it off after the deletion timeout (Warning ForceDeletedStuckCluster).
//      Being deleted -> done.
//   4. reconcileAutoscalerServiceAccount, reconcileAutoscalerRole, reconcileAutoscalerRoleBinding
//      (only with in-tree autoscaling, autoscaler_rbac.h), reconcileHeadService,
//      reconcileHeadlessService (<cluster>-headless, only when a group has
//      numOfHosts > 1), reconcileServeService (<cluster>-serve-svc, only with
//      ray.io/enable-serve-service=true), then reconcilePods; the first error ends the steps.
//   5. calculateStatus on a copy; updateRayClusterStatus writes status only when
//      inconsistentRayClusterStatus says it changed (a plain status Update: a concurrent spec
//      change is a 409, returned as the round's error).
//   6. requeue after 2 s on any error or a status write, else after
//      options.rayClusterDefaultRequeue (RAYCLUSTER_DEFAULT_REQUEUE_SECONDS_ENV, 300 s). An error
//      goes back to the queue rate limited, as controller-runtime does with any error.
//
// reconcilePods, for the pods labelled ray.io/cluster=<name> in the cache:
//   suspend      RayClusterSuspending True -> delete every pod (DeleteAllOf, only while one is
//                not already terminating), done; Suspended, or spec.suspend -> done
//   Recreate     the head pod's recreate hash differs from the spec's -> delete every pod and
//                the cluster's expectations, done
//   head         only once the head group's expectations are satisfied: one head pod that
//                shouldDeletePod -> delete it (Delete expectation), the reason is the error;
//                none -> create it (Create expectation; not when RayClusterProvisioned is True
//                and ray.io/disable-provisioned-head-restart=true); several -> error
//   each group   skipped while its expectations are unsatisfied; a suspended group has all its
//                pods deleted; unhealthy pods (shouldDeletePod) are deleted and the round ends
//                with "delete N unhealthy worker Pods"; every pod in workersToDelete is deleted;
//                then diff = desired - remaining: create one by one (each a Create expectation,
//                the lowest free ray.io/worker-group-replica-index), or delete the first -diff
//                pods when the autoscaler is off or ENABLE_RANDOM_POD_DELETE=true
//   multi-host   a group with numOfHosts > 1 (reconcileMultiHostWorkerGroup, the
//                RayMultiHostIndexing gate being on by default) goes by replica group (the pods
//                sharing ray.io/worker-group-replica-name): a group missing a host is deleted
//                whole and the round ends ("cleaned up incomplete replica group X,
//                requeueing"); a group with an unhealthy host is deleted whole; a pod in
//                workersToDelete takes its whole group (the round ends); then whole groups are
//                created (a new replica name, the lowest free replica index, host indices
//                0..numOfHosts-1) or, without the autoscaler, deleted
//   shouldDeletePod: Failed or Succeeded -> delete; Running with the Ray container terminated ->
//                delete only under restartPolicy Never; else keep
// Errors of pod writes are tagged for the ReplicaFailure condition (FailedDeleteAllPods,
// FailedDeleteHeadPod, FailedCreateHeadPod, FailedDeleteWorkerPod, FailedCreateWorkerPod) and
// recorded as Warning Events; successful writes as Normal Events (CreatedService,
// CreatedHeadPod, CreatedWorkerPod, DeletedHeadPod, DeletedWorkerPod, DeletedPod).
//
// Not modelled: the GCS fault tolerance settings of the pods (Redis address, external storage
// namespace), Ingress and Route, the auth Secret, the GCS storage PVC, mTLS, metrics, and the
// RayMultiHostIndexing gate turned off. Batch schedulers (options.batchScheduler): before the
// head pod DoBatchSchedulingOnSubmission (the group is created or resized), each pod gets the
// plug-in's metadata, and the controller owns the plug-in's group kind (docs/gang-scheduling.md).
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "controllers/ray/operator_options.h"
#include "fakekube/api/json.h"
#include "fakekube/api/status.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/manager.h"

namespace fakekube::ray {

// Registers the controller on `manager` (it starts with the manager). Install the CRDs first
// (installCustomResourceDefinitions): the cache lists RayClusters when the manager starts.
Result<Controller*> addRayClusterController(Manager& manager, const OperatorOptions& options = {});

// shouldDeletePod: whether a head ("head") or worker ("worker") pod must be replaced, and why
// (KubeRay's log line, which for the head is also the round's error).
std::pair<bool, std::string> shouldDeletePod(const Json& pod, std::string_view nodeType);

}  // namespace fakekube::ray
