// The Deployment controller of kube-controller-manager (pkg/controller/deployment), on a Manager.
//
// A Deployment owns one ReplicaSet per version of its pod template. The ReplicaSet of the current
// template (the "new" one) is named "<deployment>-<pod-template-hash>" and carries the
// pod-template-hash label in its selector and template (workload::computePodTemplateHash); the
// others are "old". Every ReplicaSet gets deployment.kubernetes.io/revision (the new one the
// highest), desired-replicas and max-replicas annotations. Per sync:
//
//   claim          ReplicaSets matching the selector are adopted, owned ones that stopped
//                  matching released (as the ReplicaSet controller does with pods);
//   paused or      spec.paused, or spec.replicas changed (a desired-replicas annotation differs):
//   scaling        scale without rolling out; a RollingUpdate spreads the change over the active
//                  ReplicaSets in proportion to their size (proportional scaling);
//   RollingUpdate  scale the new ReplicaSet up while all pods stay within replicas + maxSurge
//                  (a percentage rounded up), scale old ones down while at least replicas -
//                  maxUnavailable (rounded down) pods stay available, unhealthy old pods first;
//   Recreate       scale every old ReplicaSet to 0, wait until their pods are gone, then scale the
//                  new one to spec.replicas;
//   cleanup        once complete, delete the oldest ReplicaSets beyond revisionHistoryLimit that
//                  have no replicas;
//   status         replicas, updatedReplicas, readyReplicas, availableReplicas,
//                  unavailableReplicas, observedGeneration, collisionCount and the conditions
//                  Available (MinimumReplicasAvailable / MinimumReplicasUnavailable) and
//                  Progressing (NewReplicaSetCreated, FoundNewReplicaSet, ReplicaSetUpdated,
//                  NewReplicaSetAvailable, ProgressDeadlineExceeded, DeploymentPaused,
//                  DeploymentResumed), each with lastUpdateTime and lastTransitionTime from the
//                  executor's clock. A rollout that makes no progress for
//                  progressDeadlineSeconds is looked at again when the deadline passes.
//
// Events ScalingReplicaSet ("Scaled up replica set web-5d8f7 from 0 to 3") are recorded on the
// Deployment as "deployment-controller". The deprecated rollback annotation is not supported.
#pragma once

#include "fakekube/api/status.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/manager.h"

namespace fakekube {

struct DeploymentControllerOptions {
  // --concurrent-deployment-syncs.
  int workers = 5;
  bool recordEvents = true;
};

// Registers the controller on `manager` (it starts with the manager). Its name is "deployment".
// Deployments need the ReplicaSet controller (addReplicaSetController) to get pods.
Result<Controller*> addDeploymentController(Manager& manager,
                                            DeploymentControllerOptions options = {});

}  // namespace fakekube
