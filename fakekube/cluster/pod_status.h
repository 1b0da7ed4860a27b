// Small shared readings and writings of a Pod's and a Node's status, used by the scheduler, the
// kubelet simulation and the node lifecycle controller: conditions with Kubernetes'
// lastTransitionTime rule, terminal phases, readiness.
#pragma once

#include <string>
#include <string_view>

#include "fakekube/api/json.h"
#include "fakekube/sim/clock.h"

namespace fakekube::podstatus {

// status.conditions[type == `type`], or nullptr. `object` is the whole Pod or Node.
const Json* findCondition(const Json& object, std::string_view type);
// "True", "False", "Unknown", or "" when the condition is absent.
std::string conditionStatus(const Json& object, std::string_view type);

// Puts `condition` (with type, status, reason, message) into `status.conditions` (`status` is the
// status object). lastTransitionTime stays what it was when the status did not change, and is
// `now` otherwise; lastProbeTime is null, as the kubelet writes it. Answers whether anything
// changed. A new condition is appended.
bool setCondition(Json& status, Json condition, TimePoint now);

// spec.nodeName ("" when unbound).
std::string nodeName(const Json& pod);
// status.phase.
std::string phase(const Json& pod);
// Succeeded or Failed: the pod will never run again.
bool isTerminal(const Json& pod);
// The Ready condition is True.
bool isReady(const Json& pod);

// The node's Ready condition is True.
bool isNodeReady(const Json& node);

}  // namespace fakekube::podstatus
