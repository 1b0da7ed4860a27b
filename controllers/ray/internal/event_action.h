// The action KubeRay records each of its events with (utils.K8sEventAction). Upstream's
// controllers record through controller-runtime's events.k8s.io/v1 recorder
// (mgr.GetEventRecorder), whose Eventf takes an action beside the reason, and KubeRay's shipped
// ClusterRole grants exactly that API (events.k8s.io events create and patch). The port passes
// each reason the action upstream passes with it: Create for what it created or failed to,
// Delete, Update likewise, Validate for the checks of a resource, Cleanup, Suspend, and
// Reconcile for the rest.
#pragma once

#include <initializer_list>
#include <string_view>

namespace fakekube::ray {

inline std::string_view eventActionOf(std::string_view reason) {
  auto any = [&](std::initializer_list<std::string_view> prefixes) {
    for (std::string_view prefix : prefixes) {
      if (reason.starts_with(prefix)) return true;
    }
    return false;
  };
  if (any({"ForceDeleted", "FailedToCleanup", "BatchSchedulerCleanedUp"})) return "Cleanup";
  if (any({"Created", "FailedToCreate", "FailedCreate"})) return "Create";
  if (any({"Deleted", "FailedToDelete", "FailedDelete"})) return "Delete";
  if (any({"Updated", "FailedToUpdate"})) return "Update";
  if (any({"Invalid", "RayClusterNotFound", "NetworkPolicyNameCollision"})) return "Validate";
  if (any({"Suspended"})) return "Suspend";
  return "Reconcile";
}

}  // namespace fakekube::ray
