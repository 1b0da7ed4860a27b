// The DaemonSet controller of kube-controller-manager (pkg/controller/daemon), on a Manager: one
// pod of the template on every node that should run it.
//
//   which nodes  those whose labels match the template's spec.nodeSelector and whose NoSchedule
//                and NoExecute taints the pod tolerates — its own tolerations plus the ones every
//                daemon pod gets (not-ready and unreachable NoExecute; disk-, memory- and
//                pid-pressure and unschedulable NoSchedule), so a cordoned node keeps its daemon.
//   pods         made bound (spec.nodeName set at creation; upstream sets a required node
//                affinity for the scheduler, which fakekube's scheduler does not read),
//                generateName
//                "<set>-", labelled controller-revision-hash with the template's hash. A node with
//                more than one keeps the oldest; a Failed pod is deleted and made again; pods on
//                nodes that should not run one, or on nodes that are gone, are deleted.
//   status       desiredNumberScheduled, currentNumberScheduled, numberMisscheduled, numberReady,
//                numberAvailable (ready longer than minReadySeconds), numberUnavailable,
//                updatedNumberScheduled, observedGeneration.
//
// Left out: required node affinity and the other scheduler predicates (resources, ports), the
// RollingUpdate strategy (pods of an older template are counted, not replaced: delete them and
// the controller makes them anew), ControllerRevision history, failed-pod backoff.
#pragma once

#include "fakekube/api/status.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/manager.h"

namespace fakekube {

struct DaemonSetControllerOptions {
  // --concurrent-daemonset-syncs.
  int workers = 2;
  bool recordEvents = true;
};

// Registers the controller on `manager`; its name is "daemonset".
Result<Controller*> addDaemonSetController(Manager& manager,
                                           DaemonSetControllerOptions options = {});

}  // namespace fakekube
