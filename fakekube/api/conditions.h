// Reading and writing `status.conditions`, the list of {type, status, reason, message,
// lastTransitionTime} entries every Kubernetes kind reports its state in (a Pod's Ready, a Node's
// Ready, a Job's Complete, a RayCluster's HeadPodReady).
//
// The readers take the whole object and tolerate any shape: a missing status, a conditions field
// that is not a list, an entry that is not an object or whose fields are not strings all read as
// "no such condition", so a controller fed a hostile object never throws.
//
// setCondition is the kubelet's and the node lifecycle controller's rule for writing one (the
// transition time moves only when the status does). Kinds whose controllers follow other rules
// keep their own writers next to them: the Deployment's lastUpdateTime (deployment_util.h), the
// Job controller's ensureCondition, metav1's SetStatusCondition for the Ray custom resources
// (controllers/ray/internal/raycluster_status.h).
#pragma once

#include <string>
#include <string_view>

#include "fakekube/api/json.h"
#include "fakekube/sim/clock.h"

namespace fakekube {

// status.conditions[type == `type`] of `object`, or nullptr.
const Json* findCondition(const Json& object, std::string_view type);
Json* findCondition(Json& object, std::string_view type);
// Its status: "True", "False", "Unknown", or "" when the condition is absent.
std::string conditionStatus(const Json& object, std::string_view type);
// The condition is there with status "True".
bool isConditionTrue(const Json& object, std::string_view type);

// Puts `condition` (with type, status, reason, message) into `status.conditions` (`status` is the
// status object). lastTransitionTime stays what it was when the status did not change, and is
// `now` otherwise; lastProbeTime is null, as the kubelet writes it. Answers whether anything
// changed. A new condition is appended.
bool setCondition(Json& status, Json condition, TimePoint now);

}  // namespace fakekube
