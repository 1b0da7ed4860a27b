// The TTL-after-finished controller of kube-controller-manager (pkg/controller/ttlafterfinished),
// on a Manager.
//
// A Job with spec.ttlSecondsAfterFinished is deleted that long after it finished: after the
// lastTransitionTime of its Complete or Failed condition, on the executor's clock. Until then the
// Job is looked at again when its time is up. Before deleting, the Job is read again from the
// server (the TTL may have changed, or the Job been replaced), and the delete carries the Job's
// uid as a precondition and propagationPolicy Foreground, so the garbage collector removes its
// pods before the Job itself goes.
#pragma once

#include "fakekube/api/status.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/manager.h"

namespace fakekube {

struct TtlAfterFinishedControllerOptions {
  // --concurrent-ttl-after-finished-syncs.
  int workers = 5;
};

// Registers the controller on `manager` (it starts with the manager). Its name is
// "ttl-after-finished".
Result<Controller*> addTtlAfterFinishedController(Manager& manager,
                                                  TtlAfterFinishedControllerOptions options = {});

}  // namespace fakekube
