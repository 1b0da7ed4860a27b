// scheduler-plugins' scheduling API, scheduling.x-k8s.io/v1alpha1 PodGroup (a gang for the
// coscheduling plugin), as a CustomResourceDefinition with the structural schema, the status
// subresource and the printer columns of scheduler-plugins' own file
// (config/crd/bases/scheduling.x-k8s.io_podgroups.yaml), and the names on pods that tie them
// to a group and to the scheduler.
//
// installCoschedulingApi() creates the definition when it is missing: scheduler-plugins' own file
// applied first (`kubectl apply --server-side`) takes over.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "fakekube/api/group_version.h"
#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {
class Client;
}

namespace fakekube::coscheduling {

inline const GroupVersionResource kPodGroups{"scheduling.x-k8s.io", "v1alpha1", "podgroups"};

// The spec.schedulerName of scheduler-plugins' scheduler as its Helm chart installs it (the name
// KubeRay's scheduler-plugins plug-in sets).
inline constexpr std::string_view kSchedulerName = "scheduler-plugins-scheduler";
// v1alpha1.PodGroupLabel: the pod's PodGroup, in the pod's namespace.
inline constexpr std::string_view kPodGroupLabel = "scheduling.x-k8s.io/pod-group";
// The plugin's name (coscheduling.Name), as messages name it.
inline constexpr std::string_view kPluginName = "Coscheduling";

// PodGroup status.phase (v1alpha1.PodGroupPhase).
inline constexpr std::string_view kPhasePending = "Pending";
inline constexpr std::string_view kPhaseScheduling = "Scheduling";
inline constexpr std::string_view kPhaseRunning = "Running";
inline constexpr std::string_view kPhaseFinished = "Finished";
inline constexpr std::string_view kPhaseFailed = "Failed";

// podgroups.scheduling.x-k8s.io as an apiextensions.k8s.io/v1 object.
Json podGroupCustomResourceDefinition();

// Creates the definition unless it exists.
Result<void> installCoschedulingApi(Client& client);

// The pod's PodGroup name (its label), empty for none (util.GetPodGroupLabel).
std::string podGroupLabel(const Json& pod);
// "namespace/group", empty for none (util.GetPodGroupFullName).
std::string podGroupFullName(const Json& pod);

}  // namespace fakekube::coscheduling
