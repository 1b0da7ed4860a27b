// The ReplicaSet controller of kube-controller-manager (pkg/controller/replicaset), on a Manager.
//
// For every ReplicaSet it keeps spec.replicas active pods that match spec.selector:
//
//   claim     pods whose controller reference names the ReplicaSet and that match are its pods;
//             orphans that match are adopted (ownerReferences patched), owned pods that stopped
//             matching are released. Pods that are terminating, Succeeded or Failed are not
//             active: they are neither counted nor claimed, so a Failed pod gets a replacement.
//   too few   create the missing pods from spec.template (at most burstReplicas per sync) in
//             slow-start batches 1, 2, 4, ... that stop at the first error;
//   too many  delete the surplus, worst pods first (workload::podsToDeleteFirst);
//   status    replicas, fullyLabeledReplicas, readyReplicas, availableReplicas (ready for longer
//             than spec.minReadySeconds on the executor's clock), observedGeneration, and the
//             ReplicaFailure condition (reason FailedCreate / FailedDelete, the server's message)
//             while creating or deleting fails.
//
// Expectations (workload::ControllerExpectations) keep a lagging cache from causing duplicate
// creates or deletes: after writing, the controller does not create or delete for that
// ReplicaSet again until its informer has seen the pods come (or go), or five minutes passed.
// Events (SuccessfulCreate, SuccessfulDelete, FailedCreate, FailedDelete) are recorded on the
// ReplicaSet as "replicaset-controller".
//
// Everything goes through the manager's client: cache reads, server writes.
#pragma once

#include "fakekube/api/status.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/clock.h"

namespace fakekube {

struct ReplicaSetControllerOptions {
  // --concurrent-replicaset-syncs.
  int workers = 5;
  // BurstReplicas: most pods created or deleted by one sync.
  int burstReplicas = 500;
  // How long unobserved expectations hold a ReplicaSet back (ExpectationsTimeout).
  Duration expectationsTimeout = std::chrono::minutes(5);
  // Record Events about pod creation and deletion.
  bool recordEvents = true;
};

// Registers the controller on `manager` (it starts with the manager). The controller's name is
// "replicaset".
Result<Controller*> addReplicaSetController(Manager& manager,
                                            ReplicaSetControllerOptions options = {});

}  // namespace fakekube
