// Readings of a Pod's and a Node's status that the scheduler, the kubelet simulation, the node
// lifecycle controller, the workload controllers and the network share (Kubernetes'
// pkg/api/v1/pod helpers): phase, node, terminal, ready. Any shape reads safely: a missing or
// mistyped field reads as "" or false. Conditions in general are in fakekube/api/conditions.h.
#pragma once

#include <string>

#include "fakekube/api/conditions.h"
#include "fakekube/api/json.h"

namespace fakekube {

// status.phase ("" when unset).
std::string podPhase(const Json& pod);
// spec.nodeName ("" when unbound).
std::string podNodeName(const Json& pod);
// Succeeded or Failed: the pod will never run again.
bool isPodTerminal(const Json& pod);
// The Ready condition is True (podutil.IsPodReady).
bool isPodReady(const Json& pod);

// The node's Ready condition is True.
bool isNodeReady(const Json& node);

}  // namespace fakekube
