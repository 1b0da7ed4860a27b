// One scheduling session of the simulated Volcano scheduler: a pure function from what the
// cache holds (nodes, pods, PodGroups, Queues, PriorityClasses) to what the session decides
// (bindings, PodGroup and Queue status, PodGroup events), as Volcano's OpenSession, actions and
// CloseSession compute it. VolcanoScheduler (volcano_scheduler.h) runs one every schedulePeriod
// and writes the decisions; tests run it directly on documents.
//
// Jobs. A PodGroup is a job; its tasks are the pods with spec.schedulerName "volcano" and the
// annotation scheduling.k8s.io/group-name naming it. A task's status follows the pod as
// Volcano's getTaskStatus reads it: Pending (no node), Binding (bound by this scheduler, the cache
// not showing it yet), Bound (a node, phase Pending), Running, Releasing (being deleted),
// Succeeded, Failed.
//
// The actions, in Volcano's default order (enqueue, allocate):
//   enqueue   Pending PodGroups, queue by queue in turn and by job order within a queue, move to
//             Inqueue when every JobEnqueueable plugin permits: overcommit (the job's
//             minResources fit in allocatable x overcommitFactor (1.2) - used - what Inqueue and
//             under-allocated Running jobs hold) and proportion (the queue is Open and the job's
//             minResources plus the queue's allocated and inqueue fit its capability). A job
//             without minResources is permitted. A rejection is a Normal event Unschedulable
//             "resource in cluster is overused: overused cpu" or "queue resource quota
//             insufficient: insufficient cpu".
//   allocate  jobs that are not Pending and have at least minMember valid tasks, queue by queue
//             (skipping a queue that holds its whole deserved share), in job order; a job's
//             Pending tasks in task order each get the best node passing the predicates (the
//             default scheduler's placement plugins over a Snapshot, and NodeResourcesFit against
//             what the session has placed so far; from 100 nodes on, filtering stops after
//             numFeasibleNodesToFind and the next task starts where it stopped) while their queue
//             stays within its deserved share (proportion: the cluster divided by weight, capped
//             by capability and request; a task that would exceed it is skipped); the first task
//             that fits on no node ends the job's turn.
//             gang: the placements are committed (bound) only when the job is then ready (ready
//             tasks + placements >= minMember); otherwise all of them are discarded.
// Orders. Jobs: the priority plugin (the PriorityClass value of spec.priorityClassName, higher
// first), gang (unready before ready), then creation time and uid. Tasks: pod priority (spec.
// priority, else its PriorityClass), then creation time and name. Queues: proportion's share
// (allocated / deserved, lower first), then name. Nodes: LeastAllocated plus the placement
// plugins' scores, ties to the name that sorts first.
//
// Close. gang writes, for every job with tasks, the condition Unschedulable=True, reason
// NotEnoughResources, "<n>/<tasks> tasks in gang unschedulable: pod group is not ready, <task
// status histogram>, <minMember> minAvailable; Pending: <reasons>. Origin reason is <task>:
// 0/<nodes> nodes are unavailable: <node reasons>." when the job is not ready, else
// Scheduled=True "tasks in gang are ready to be scheduled". The phase (session.go's
// getPodGroupPhase): scheduled tasks >= minMember: Completed when all of them finished, else
// Running; otherwise Inqueue stays Inqueue and anything else is Pending; Running tasks in a job
// found unschedulable in this session: Unknown. status.running, succeeded and failed count the
// tasks. A status is reported only when it changed (conditions compared without their times).
// Events: Warning Unschedulable "<pending>/<tasks> tasks in gang unschedulable: ..." while the
// group is Pending, Inqueue or Unknown, Normal Scheduled "pod group is ready" when it changes to
// another phase. The group's Pending pods (TaskSchedulingReason): a pod placed and undone with
// its gang gets PodScheduled=False reason Schedulable "Pod <ns>/<name> can possibly be assigned
// to <node>, once minAvailable is satisfied"; any other, reason Unschedulable with its own fit
// error, else the group's "<pending>/<tasks> tasks in gang unschedulable" message's fit error.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/api/object.h"
#include "fakekube/sim/clock.h"

namespace fakekube::volcano {

struct SessionInput {
  std::vector<ObjectPtr> nodes;
  // Every pod: the bound ones (of any scheduler) use their nodes' resources.
  std::vector<ObjectPtr> pods;
  std::vector<ObjectPtr> podGroups;
  std::vector<ObjectPtr> queues;
  std::vector<ObjectPtr> priorityClasses;
  // Pods this scheduler bound that the input does not show bound yet: uid -> node.
  std::map<std::string, std::string> assumed;
};

struct SessionOptions {
  // overcommit-factor of the overcommit plugin (below 1: the default).
  double overcommitFactor = 1.2;
  std::string schedulerName = "volcano";
};

struct SessionBinding {
  ObjectPtr pod;
  std::string node;
};

struct SessionEvent {
  ObjectPtr podGroup;
  std::string type;
  std::string reason;
  std::string message;
};

struct StatusUpdate {
  ObjectPtr object;  // the PodGroup or Queue as read
  Json status;       // its new status
};

// A pod left Pending and why (taskUnschedulable): the condition PodScheduled=False with this
// reason and message, and a Warning event FailedScheduling with the message.
struct PodUnschedulable {
  ObjectPtr pod;
  std::string reason;
  std::string message;
};

struct SessionResult {
  std::vector<SessionBinding> bindings;
  // Only the pods whose PodScheduled condition differs (status, reason, message).
  std::vector<PodUnschedulable> unschedulablePods;
  std::vector<StatusUpdate> podGroupUpdates;
  std::vector<StatusUpdate> queueUpdates;
  std::vector<SessionEvent> events;
};

// `sessionId` is the session's UID (the conditions' transitionID).
SessionResult runSession(const SessionInput& input, const SessionOptions& options, TimePoint now,
                         const std::string& sessionId);

}  // namespace fakekube::volcano
