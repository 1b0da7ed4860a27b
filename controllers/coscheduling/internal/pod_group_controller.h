// The PodGroup controller of scheduler-plugins' controller manager
// (pkg/controllers/podgroup_controller.go): it keeps a PodGroup's status.phase and pod counts
// from the pods that carry its label, one step a reconcile:
//
//   ""                       -> Pending
//   Pending                  -> Scheduling once the group has minMember pods (occupiedBy: the
//                               first pod's owners, "ns/owner" sorted and comma-joined)
//   Scheduling, Running ...  running, succeeded and failed counted from the pods' phases; then
//                               Pending     fewer than minMember pods
//                               Scheduling  running + succeeded < minMember
//                               Running     running + succeeded >= minMember
//                               Failed      a pod failed and failed + running + succeeded >=
//                                           minMember
//                               Finished    succeeded >= minMember
//   Finished, Failed         final: left alone
//
// A Pending or Scheduling group with no running pod whose status.scheduleStartTime is more than
// 48 hours after its creation is left alone too (its pods may be gone), with a Warning event
// Timeout "schedule time longer than 48 hours". (Nothing here sets scheduleStartTime.)
//
// The status is written through the status subresource, only when it changed. A pod's events
// reconcile the group its label names. Unlike upstream, whose list of the group's pods has no
// namespace, the pods are those of the group's namespace.
#pragma once

#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {
class Manager;
}

namespace fakekube::coscheduling {

// The status `podGroup` moves to in one reconcile, given the pods labelled with its name.
Json nextPodGroupStatus(const Json& podGroup, const std::vector<Json>& pods);
// Whether the group is past the 48 hours of scheduling the controller gives it.
bool scheduleTimedOut(const Json& podGroup);

// Adds the controller ("podgroup") to `manager`.
Result<void> addPodGroupController(Manager& manager);

}  // namespace fakekube::coscheduling
