// The disruption controller of kube-controller-manager (pkg/controller/disruption), on a Manager:
// the status of every PodDisruptionBudget, which eviction reads to decide whether a pod may go.
//
//   pods            those of the PDB's namespace its spec.selector matches;
//   currentHealthy  of them, the Ready ones not being deleted;
//   expectedPods    with minAvailable a number: the number of pods; otherwise (maxUnavailable,
//                   or minAvailable a percentage) the sum of the scales of the pods' controllers
//                   (a ReplicaSet's Deployment, or the ReplicaSet, StatefulSet or
//                   ReplicationController itself: spec.replicas), each counted once;
//   desiredHealthy  minAvailable (a percentage of expectedPods, rounded up), or expectedPods less
//                   maxUnavailable (a percentage rounded up);
//   disruptionsAllowed  currentHealthy - desiredHealthy, not below 0 (0 when no pod is expected);
//   conditions      DisruptionAllowed True (SufficientPods) or False (InsufficientPods; SyncFailed
//                   when a pod's controller has no scale the controller knows);
//   observedGeneration.
//
// Left out: disruptedPods bookkeeping (eviction is not served), the unhealthyPodEvictionPolicy
// (nothing evicts), scales of custom resources through /scale.
#pragma once

#include "fakekube/api/status.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/manager.h"

namespace fakekube {

struct DisruptionControllerOptions {
  int workers = 1;
};

// Registers the controller on `manager`; its name is "disruption".
Result<Controller*> addDisruptionController(Manager& manager,
                                            DisruptionControllerOptions options = {});

}  // namespace fakekube
