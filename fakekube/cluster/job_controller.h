// The Job controller of kube-controller-manager (pkg/controller/job, as of Kubernetes 1.31), on a
// Manager. NonIndexed Jobs (completionMode Indexed, podFailurePolicy, successPolicy and
// backoffLimitPerIndex are not modelled: such a Job is treated as NonIndexed).
//
// Pods. The controller keeps min(parallelism, completions - succeeded) pods active (parallelism
// while nothing has succeeded, for a Job without completions), created from spec.template with
// generateName "<job>-", a controller reference and the batch.kubernetes.io/job-tracking
// finalizer. A pod that failed is replaced after a backoff: 10 s after the last failure,
// doubling with each failure since the last success, at most 6 minutes.
//
// Counting. A finished pod still carrying the tracking finalizer is first recorded by uid in
// status.uncountedTerminatedPods, then its finalizer is removed, then it moves to
// status.succeeded / status.failed: a pod is counted exactly once even if the controller crashes
// between the steps, and the pod can go away as soon as it is counted. A pod deleted before it
// finished counts as failed (podReplacementPolicy TerminatingOrFailed replaces it at once;
// Failed waits until it is gone). status.active, status.ready and status.terminating count the
// pods as they are now; status.startTime is set on the first sync of an unsuspended Job.
//
// Finishing, with the conditions of Kubernetes 1.31 (lastProbeTime = lastTransitionTime = the
// executor's clock):
//   success  succeeded >= completions (or, without completions, one success and nothing active):
//            SuccessCriteriaMet (reason CompletionsReached, "Reached expected number of succeeded
//            pods"), then once every pod is counted, Complete with the same reason and message
//            and status.completionTime. Event Completed "Job completed".
//   failure  more failures than spec.backoffLimit (or, with restartPolicy OnFailure, container
//            restarts reaching it): FailureTarget reason BackoffLimitExceeded, message "Job has
//            reached the specified backoff limit"; active pods are deleted (and counted as
//            failed); once every pod is counted and none is terminating, Failed with the same
//            reason and message. activeDeadlineSeconds past startTime: the same with reason
//            DeadlineExceeded, "Job was active longer than specified deadline". Event Warning
//            with the reason and message.
// A finished Job is left alone. spec.suspend deletes the active pods and sets Suspended
// (JobSuspended, "Job suspended"); resuming sets it False (JobResumed, "Job resumed") and
// restarts startTime.
//
// Pods whose Job is gone keep nothing: their tracking finalizer is removed.
#pragma once

#include "fakekube/api/status.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/clock.h"

namespace fakekube {

struct JobControllerOptions {
  // --concurrent-job-syncs.
  int workers = 5;
  Duration expectationsTimeout = std::chrono::minutes(5);
  // DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff.
  Duration podFailureBackoff = std::chrono::seconds(10);
  Duration maxPodFailureBackoff = std::chrono::minutes(6);
  // MaxPodCreateDeletePerSync and MaxUncountedPods.
  int maxPodCreateDeletePerSync = 500;
  int maxUncountedPods = 500;
  bool recordEvents = true;
};

// The finalizer the controller puts on its pods (batch.kubernetes.io/job-tracking).
inline constexpr const char* kJobTrackingFinalizer = "batch.kubernetes.io/job-tracking";

// Registers the controller on `manager` (it starts with the manager). Its name is "job".
Result<Controller*> addJobController(Manager& manager, JobControllerOptions options = {});

}  // namespace fakekube
