// Scheduler: kube-scheduler's default profile, reduced to what decides where a pod runs in a
// simulated cluster. A runtime controller on pods; it sees the cluster only through its
// manager's client (cache reads, server writes), so it runs over HTTP as well.
//
// Which pods. Pods with no spec.nodeName, spec.schedulerName equal to
// SchedulerOptions::schedulerName
// ("default-scheduler"), not being deleted and not finished. Pods for another scheduler (e.g.
// "volcano") are left alone. An update of a pending pod brings it back only when it changed more
// than its status (the queue's isPodUpdated): the scheduler's own FailedScheduling write does not.
//
// Filter, per node, in the default plugin order; the first failing filter is the node's reason.
// The placement plugins (scheduler_plugins.h: NodeUnschedulable, TaintToleration, NodeAffinity,
// and after NodeResourcesFit, PodTopologySpread and InterPodAffinity) run over the scheduler's
// Snapshot (scheduler_snapshot.h) of the nodes and the pods bound or assumed to them:
//   NodeUnschedulable   "node(s) were unschedulable"
//   TaintToleration     "node(s) had untolerated taint {key: value}"
//   NodeAffinity        spec.nodeSelector and required node affinity
//                       "node(s) didn't match Pod's node affinity/selector"
//   NodeResourcesFit    allocatable minus the requests of the non-terminal pods bound to the node
//                       (and pods this scheduler bound that its cache has not seen bound yet: the
//                       scheduler cache's "assumed" pods) must hold the pod's requests; "Too many
//                       pods", "Insufficient cpu", "Insufficient memory", "Insufficient <name>"
//   PodTopologySpread, InterPodAffinity: see their files.
// A pod is assumed on its node before the binding is sent and forgotten when the informer
// delivers it bound (or deleted), or when the binding fails, as kube-scheduler's cache does: no
// polling of the cache.
//
// Which nodes. Below 100 nodes, every node is filtered. From 100 on, a decision stops once it has
// found numFeasibleNodesToFind feasible nodes (the default percentageOfNodesToScore: 50% less one
// point per 125 nodes, at least 5%, at least 100 nodes), and the next decision starts filtering
// where this one stopped (nextStartNodeIndex), so the nodes are visited in turn. A pod that fits
// nowhere has been filtered against every node.
// A pod's requests (podRequests) are the sum over its containers (requests, or limits where a
// request is missing, as API defaulting copies them), max'd per resource with its largest init
// container, plus spec.overhead; and one pod.
//
// Score. NodeResourcesFit's LeastAllocated over cpu and memory (equal weights, plugin weight 1),
// counting pods without requests as 100m cpu / 200Mi memory as the real scorer does, so replicas
// spread over empty nodes; plus the placement plugins' normalised scores times their weights
// (preferred node affinity, preferred pod (anti-)affinity, topology spread: 2 each). Ties go to
// the node whose name sorts first among the nodes scored (the real scheduler picks at random).
//
// Bind. POST pods/<name>/binding (the API server sets spec.nodeName and PodScheduled=True), and
// a Normal event Scheduled "Successfully assigned <ns>/<pod> to <node>".
//
// No fit. status condition PodScheduled=False, reason Unschedulable, with the real FitError
// message, written only when it changes:
//   0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No
//   preemption victims found for incoming pod.
// (every pod here has priority 0, so preemption never finds a victim; nodes that fail an
// unresolvable filter count as "Preemption is not helpful for scheduling"), and a Warning event
// FailedScheduling. The pod waits in an unschedulable set until something may make room: a node
// added or changed (Ready again, uncordoned, resized), or a bound pod deleted or finished; and at
// the latest after SchedulerOptions::unschedulableRetry (podMaxInUnschedulablePodsDuration, 5 min).
//
// A plugin. SchedulerOptions::plugin adds one plugin to the profile at PreFilter, PostFilter,
// Permit and Unreserve (scheduler_framework.h): how scheduler-plugins' coscheduling runs as a
// second scheduler (controllers/coscheduling/).
//
// Not modelled: ports, volumes, preemption, priority order of the queue (pods are taken in the
// order events enqueue them).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/clock.h"

namespace fakekube {

namespace scheduling {
class FrameworkPlugin;
}

// Canonical quantities by resource name (api/quantity.h): cpu in milli-units, the rest in units.
using ResourceList = std::map<std::string, std::int64_t>;

// The pod's effective requests (see the file comment), without the pod count. An unparsable
// quantity is a 400 error.
Result<ResourceList> podRequests(const Json& pod);

struct SchedulerOptions {
  // The spec.schedulerName this scheduler serves.
  std::string schedulerName = "default-scheduler";
  // The name of its controller (metrics, logs): a second scheduler beside the default one takes
  // another.
  std::string controllerName = "scheduler";
  // An unschedulable pod is tried again at least this often, even if nothing changed.
  Duration unschedulableRetry = std::chrono::minutes(5);
  // Record Scheduled / FailedScheduling events.
  bool recordEvents = true;
  // A plugin run beside the default ones (scheduler_framework.h); none: the default profile.
  std::shared_ptr<scheduling::FrameworkPlugin> plugin;
};

class Scheduler;

// Adds the scheduler (a controller named "scheduler", owned by the manager, and its watches) to
// the manager. The answer may be dropped: it only reads the scheduler's counters.
Result<std::unique_ptr<Scheduler>> addScheduler(Manager& manager, SchedulerOptions options = {});

// What addScheduler answers: the scheduler's counters.
class Scheduler {
 public:
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Successful bindings so far.
  std::uint64_t bindings() const;
  // Pods waiting in the unschedulable set now.
  std::size_t unschedulablePods() const;

 private:
  friend Result<std::unique_ptr<Scheduler>> addScheduler(Manager&, SchedulerOptions);
  Scheduler(Manager& manager, SchedulerOptions options);

  class Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace fakekube
