// The StatefulSet controller of kube-controller-manager (pkg/controller/statefulset), on a
// Manager: pods with stable names and storage, made and removed in order.
//
//   identity   pod <set>-<ordinal> for ordinals 0 .. spec.replicas-1, labelled
//              statefulset.kubernetes.io/pod-name, apps.kubernetes.io/pod-index and
//              controller-revision-hash; spec.hostname is the pod's name and spec.subdomain the
//              set's spec.serviceName (the headless Service gives each pod a DNS name).
//   storage    for every spec.volumeClaimTemplates entry, the PVC <template>-<set>-<ordinal> is
//   made
//              before the pod (once: an existing claim is used as it is) and the pod's volume of
//              the template's name refers to it. Claims are kept when pods go (the Retain policy).
//   OrderedReady (the default) one step per sync: the lowest missing ordinal is made only when
//              every lower one is Running and Ready; scale-down deletes the highest ordinal, one
//              at a time, and only while the rest are Running and Ready. Parallel makes and
//              deletes all at once. A Failed or Succeeded pod is deleted and made again.
//   revisions  the template's hash names a ControllerRevision <set>-<hash> (revision numbers
//              counting up); updateRevision is the template's, currentRevision the one every pod
//              had before. RollingUpdate replaces pods at ordinals >= partition whose revision
//              differs, highest first, one at a time while all are Running and Ready; OnDelete
//              leaves that to the user.
//   status     replicas, readyReplicas, currentReplicas, updatedReplicas, availableReplicas
//              (ready longer than minReadySeconds), currentRevision, updateRevision,
//              collisionCount, observedGeneration.
//
// Orphan pods matching the selector are adopted, owned ones that stop matching released
// (controller_utils.h). Left out: maxUnavailable for rolling updates, spec.ordinals.start,
// the WhenDeleted/WhenScaled Delete retention policies, revision history pruning.
#pragma once

#include "fakekube/api/status.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/manager.h"

namespace fakekube {

struct StatefulSetControllerOptions {
  // --concurrent-statefulset-syncs.
  int workers = 5;
  bool recordEvents = true;
};

// Registers the controller on `manager`; its name is "statefulset".
Result<Controller*> addStatefulSetController(Manager& manager,
                                             StatefulSetControllerOptions options = {});

}  // namespace fakekube
