// The validation of the workload kinds (pkg/apis/apps/validation, pkg/apis/batch/validation),
// after defaults, with kube-apiserver's field paths and messages:
//
//   Deployment   replicas >= 0; selector Required, not empty ("empty selector is invalid for
//                deployment"), matching the template's labels; the pod template (ValidatePodSpec)
//                with restartPolicy Always; strategy.type Recreate | RollingUpdate (the whole
//                strategy is the value, as kube prints it), no rollingUpdate with Recreate;
//                minReadySeconds, revisionHistoryLimit >= 0; progressDeadlineSeconds greater
//                than minReadySeconds
//   ReplicaSet   replicas >= 0; selector Required and matching; the template with restartPolicy
//                Always and no activeDeadlineSeconds
//   StatefulSet  podManagementPolicy OrderedReady | Parallel ("must be 'OrderedReady' or
//                'Parallel'"); replicas, minReadySeconds >= 0; selector and template as a
//                ReplicaSet's ("empty selector is invalid for statefulset"), except that kube
//                leaves the template's pod spec unvalidated (its pods are, when created)
//   DaemonSet    selector and template as a ReplicaSet's ("... for daemonset");
//                minReadySeconds, revisionHistoryLimit >= 0
//   Job          parallelism, completions, activeDeadlineSeconds, backoffLimit,
//                ttlSecondsAfterFinished >= 0; completionMode NonIndexed | Indexed (Indexed
//                needs completions); selector Required and matching; the template with
//                restartPolicy OnFailure | Never
#pragma once

#include <string>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube::strategy {

void validateDeployment(FieldErrors& errors, const Json& deployment);
void validateReplicaSet(FieldErrors& errors, const Json& replicaSet);
void validateJob(FieldErrors& errors, const Json& job);
void validateStatefulSet(FieldErrors& errors, const Json& statefulSet);
void validateDaemonSet(FieldErrors& errors, const Json& daemonSet);

}  // namespace fakekube::strategy
