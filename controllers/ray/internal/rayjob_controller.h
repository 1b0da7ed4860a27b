// The KubeRay RayJob controller (ray-operator/controllers/ray/rayjob_controller.go) on fakekube's
// runtime: a RayCluster for one Ray job, the job submitted to it, and the cluster torn down after.
//
// Wiring (SetupWithManager): For RayJob (no predicate: its own status writes enqueue it again,
// as upstream), Owns RayCluster, Service and batch/v1 Job (a RayCluster turning ready, or the
// submitter Job completing, enqueues its RayJob through the controller owner reference); named
// "rayjob"; maxConcurrentReconciles = options.reconcileConcurrency; Events as
// "rayjob-controller". Reads go through the manager's cache, writes through its client, so the
// controller runs the same over a RestClient. The Ray dashboard is asked through the
// DashboardClientFactory (in process: the cluster's network; out of process: the API server's
// service proxy).
//
// A round (Reconcile), in KubeRay's order and with its step names:
//   1. Get; NotFound -> done. spec.managedBy another controller -> skip.
//   2. Being deleted: unless jobStatus is terminal (STOPPED, SUCCEEDED, FAILED; "" is not),
//      StopJob(status.jobId) on the cluster's dashboard (errors only logged); remove the
//      finalizer ray.io/rayjob-finalizer (Update), requeue 3 s. The garbage collector then
//      removes the RayCluster and the submitter Job through their owner references.
//   3. validateRayJob (rayjob_validation.h): failure -> Warning Event, ValidationFailed, no
//      requeue.
//   4. The state machine on status.jobDeploymentStatus:
//      New          add the finalizer (Update); initRayJobStatusIfNeed: jobId = spec.jobId or
//                   <name>-<rand5> (none in InteractiveMode), rayClusterName =
//                   clusterSelector[ray.io/cluster] or <name>-<rand5> (independent suffixes),
//                   startTime = now -> Initializing
//      Initializing suspend -> Suspending; activeDeadlineSeconds / preRunningDeadlineSeconds
//                   from status.startTime -> Failed/DeadlineExceeded,
//                   PreRunningDeadlineExceeded; getOrCreateRayClusterInstance; until the
//                   cluster's state is ready copy its status into status.rayClusterStatus;
//                   then dashboardURL = <head svc>.<ns>.svc.<domain>:<dashboard port>;
//                   InteractiveMode -> Waiting; K8sJobMode: createK8sJobIfNeed; -> Running
//      Waiting      pre-running deadline; spec.jobId set -> status.jobId, Running
//      Running      suspend; active deadline; checkTransitionGracePeriod (jobStatus terminal
//                   but still Running RAYJOB_DEPLOYMENT_STATUS_TRANSITION_GRACE_PERIOD after
//                   rayJobInfo.endTime); checkJobStatusCheckTimeout
//                   (RAYJOB_STATUS_CHECK_TIMEOUT_SECONDS after jobStatusCheckFailureStartTime);
//                   the cluster; reconcileServices (<rayjob>-head-svc, owned by the RayJob,
//                   selecting the current cluster's head); checkSubmitterAndUpdateStatusIfNeeded
//                   (Job Failed -> Failed/AppFailed or SubmissionFailed; its finish time) and
//                   the 30 s submitter-finished timeout; GetJobInfo: a 404 submits in HTTPMode,
//                   fails AppFailed once the submitter finished, else waits; another error
//                   starts the failure timer; an answer clears it and copies status, message,
//                   start and end times; terminal Ray status (and, with a submitter, the
//                   submitter finished) -> Complete, or Failed/AppFailed for FAILED
//      Suspending / Retrying
//                   delete the RayCluster (not with clusterSelector) and the submitter Job
//                   (Background); until both are gone requeue 3 s; reset the cluster and job
//                   fields and jobStatus; -> Suspended / New (whose new names are fresh)
//      Suspended    spec.suspend false -> New; else no requeue
//      Complete / Failed
//                   clusterSelector -> done; spec.deletionStrategy: deletionRules (each
//                   matching rule due at status.endTime + ttlSeconds, the most impactful overdue
//                   one of DeleteSelf > DeleteCluster > DeleteWorkers > DeleteNone runs) or
//                   onSuccess / onFailure with ttlSecondsAfterFinished; else
//                   shutdownAfterJobFinishes: at status.endTime + ttlSecondsAfterFinished delete
//                   the RayCluster (the submitter Job stays, with the driver's logs), or the
//                   RayJob itself with DELETE_RAYJOB_CR_AFTER_JOB_FINISHES; before it, requeue
//                   after the remaining time + 2 s. The deadline is read from the stored
//                   endTime, so an operator restarted mid-TTL keeps it.
//      other (ValidationFailed) requeue 3 s
//   5. checkBackoffLimitAndUpdateStatusIfNeeded: failed++ on Failed, succeeded++ on Complete
//      with SUCCEEDED; Failed with spec.backoffLimit and failed < backoffLimit + 1 (not for
//      DeadlineExceeded or JobStatusCheckTimeoutExceeded) -> Retrying.
//   6. updateRayJobStatus: a plain status Update only when jobStatus, jobDeploymentStatus,
//      rayClusterStatus or jobStatusCheckFailureStartTime changed; endTime = now when it becomes
//      Complete or Failed. Requeue 3 s (also with an error).
//
// Modes: K8sJobMode (default), HTTPMode (the controller submits through the dashboard),
// InteractiveMode (the user submits and sets spec.jobId), SidecarMode (the submitter container
// runs beside the Ray head in the head pod; the cluster gets
// ray.io/disable-provisioned-head-restart and a head restartPolicy Never; the submitter's
// terminated state on the head pod stands for the Job's conditions). The SidecarSubmitterRestart
// feature gate is off. In the simulation the sidecar's script reaches the head's dashboard on the
// pod's own 127.0.0.1 (the network resolves a pod's loopback to its own listeners), so
// SidecarMode runs to Complete / Failed as upstream (tests/controllers/ray/
// rayjob_sidecar_mode_test.cpp).
//
// Batch schedulers (options.batchScheduler, batchscheduler/batch_scheduler.h): in Initializing,
// DoBatchSchedulingOnSubmission before the RayCluster (the Volcano plug-in creates the RayJob's
// PodGroup); the RayCluster of a K8sJobMode RayJob and the submitter's pod template get the
// plug-in's metadata; Complete / Failed (after the round's deletion handling) and Suspending /
// Retrying call CleanupOnCompletion, with a Normal event BatchSchedulerCleanedUp or a Warning
// FailedToCleanupBatchScheduler. Unlike upstream, a failed cleanup in Complete / Failed requeues
// after 3 s when the round would otherwise not come back (a conflict with the scheduler's status
// write would leave the group holding its queue).
//
// Not modelled: Kueue's gang scheduling, metrics, token auth.
#pragma once

#include "controllers/ray/dashboard_client.h"
#include "controllers/ray/operator_options.h"
#include "fakekube/api/status.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/manager.h"

namespace fakekube::ray {

// Registers the controller on `manager` (it starts with the manager). Install the CRDs first.
// options.dashboardClients answers the client of a RayCluster's dashboard; unset, the API
// server's service proxy with options.useKubernetesProxy over a RestClient, else plain HTTP.
Result<Controller*> addRayJobController(Manager& manager, const OperatorOptions& options = {});

}  // namespace fakekube::ray
