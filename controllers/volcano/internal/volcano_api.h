// Volcano's scheduling API, scheduling.volcano.sh/v1beta1: PodGroup (a gang: the pods that must
// start together) and Queue (a share of the cluster), as CustomResourceDefinitions with
// structural schemas, the status subresource and Volcano's printer columns, and the names
// Volcano and its clients put on pods.
//
// installVolcanoApi() creates the definitions (an existing definition is kept: Volcano's own CRD
// files, applied with `kubectl apply --server-side`, take over) and the `default` Queue, which
// Volcano's controllers create at start and every PodGroup without spec.queue lands in.
#pragma once

#include <string_view>

#include "fakekube/api/group_version.h"
#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {
class Client;
}

namespace fakekube::volcano {

inline const GroupVersionResource kPodGroups{"scheduling.volcano.sh", "v1beta1", "podgroups"};
inline const GroupVersionResource kQueues{"scheduling.volcano.sh", "v1beta1", "queues"};
inline const GroupVersionResource kPriorityClasses{"scheduling.k8s.io", "v1", "priorityclasses"};

// The spec.schedulerName of the pods Volcano schedules.
inline constexpr std::string_view kSchedulerName = "volcano";
// The Queue every PodGroup without spec.queue belongs to.
inline constexpr std::string_view kDefaultQueue = "default";
// scheduling.k8s.io/group-name (v1beta1.KubeGroupNameAnnotationKey): the PodGroup of a pod.
inline constexpr std::string_view kGroupNameAnnotation = "scheduling.k8s.io/group-name";
// volcano.sh/task-spec (batch v1alpha1.TaskSpecKey): the task (role) of a pod in its group.
inline constexpr std::string_view kTaskSpecAnnotation = "volcano.sh/task-spec";
// volcano.sh/queue-name: the label a client puts on its object to pick a Queue.
inline constexpr std::string_view kQueueNameLabel = "volcano.sh/queue-name";

// PodGroup status.phase.
inline constexpr std::string_view kPhasePending = "Pending";
inline constexpr std::string_view kPhaseInqueue = "Inqueue";
inline constexpr std::string_view kPhaseRunning = "Running";
inline constexpr std::string_view kPhaseUnknown = "Unknown";
inline constexpr std::string_view kPhaseCompleted = "Completed";

// PodGroup condition types and reasons (v1beta1).
inline constexpr std::string_view kConditionUnschedulable = "Unschedulable";
inline constexpr std::string_view kConditionScheduled = "Scheduled";
inline constexpr std::string_view kReasonNotEnoughResources = "NotEnoughResources";
inline constexpr std::string_view kReasonNotEnoughPods = "NotEnoughTasks";
inline constexpr std::string_view kPodGroupReady = "pod group is ready";
inline constexpr std::string_view kPodGroupNotReady = "pod group is not ready";

// podgroups.scheduling.volcano.sh and queues.scheduling.volcano.sh as apiextensions.k8s.io/v1
// objects.
Json podGroupCustomResourceDefinition();
Json queueCustomResourceDefinition();
// The `default` Queue as Volcano creates it: weight 1, reclaimable, state Open.
Json defaultQueue();

// Creates each definition that does not exist yet, then the default Queue if it does not exist.
// The API server must serve the definitions before the Queue can be created: on an in-process
// server that is immediate.
Result<void> installVolcanoApi(Client& client);

}  // namespace fakekube::volcano
