// NodeLifecycleController: what kube-controller-manager's node lifecycle controller does to the
// pods of a node that stops being Ready, in one runtime controller over nodes.
//
// A real cluster, when a node's Ready condition turns False or Unknown:
//   1. at once, marks every pod on it not ready (nodeutil.MarkPodsNotReady: condition Ready
//      False), so Services stop sending it traffic;
//   2. taints the node NoExecute (node.kubernetes.io/not-ready or unreachable), and the taint
//      manager evicts each pod once its toleration of that taint runs out: the DefaultToleration
//      Seconds admission plugin gives every pod 300 s (tolerationSeconds of a pod's own
//      toleration for that key wins).
// Here step 2 ends the pod without deleting it: phase Failed, reason NodeLost, message "Node <node>
// which was running pod <pod> is unresponsive" (the reason and message the controller has for a
// pod whose node stopped answering, nodeutil.SetPodTerminationReason), so that a Job counts a
// failed pod and a ReplicaSet replaces it, as they do after an eviction. The eviction delay is
// counted from the Ready condition's lastTransitionTime.
//
// When the node is Ready again, pods not yet ended are reported by the kubelet again (Ready
// returns); ended pods stay ended.
#pragma once

#include <chrono>

#include "fakekube/api/status.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/clock.h"

namespace fakekube {

struct NodeLifecycleControllerOptions {
  // The not-ready / unreachable toleration every pod gets by default.
  Duration evictionDelay = std::chrono::seconds(300);
};

// Adds the controller (named "node-lifecycle") to the manager, which owns it.
Result<Controller*> addNodeLifecycleController(Manager& manager,
                                               NodeLifecycleControllerOptions options = {});

}  // namespace fakekube
