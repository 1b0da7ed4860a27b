// The scheduling framework's extension points around placement, for one plugin a Scheduler runs
// in its profile beside the default ones (kube-scheduler's framework: PreFilter, PostFilter,
// Permit, Unreserve), and the handle through which that plugin sees the scheduler: the pods
// waiting at Permit, the nodes with the pods bound or assumed on them, and the queue.
//
//   SchedulerOptions options;
//   options.schedulerName = "scheduler-plugins-scheduler";
//   options.plugin = std::make_shared<MyPlugin>(...);   // e.g. coscheduling::Coscheduling
//   addScheduler(manager, options);
//
// A scheduling cycle with a plugin (docs/scheduler.md has the default one):
//
//   PreFilter   the default plugins first; if they pass, plugin->preFilter. A rejection is the
//               whole pod's: "0/N nodes are available: <message>." (and no Filter).
//   Filter, Score as without the plugin.
//   PostFilter  when no node fits (PreFilter's rejection included), after default preemption:
//               the plugin's message joins the preemption message, as RunPostFilterPlugins
//               joins its plugins' reasons with ", ".
//   Reserve     the pod is assumed on the chosen node.
//   Permit      plugin->permit: Success binds the pod; a rejection runs plugin->unreserve,
//               forgets the pod and tells it the message (PodScheduled=False, Unschedulable);
//               Wait keeps the pod assumed, holding its node, and parks it as a WaitingPod for
//               at most the timeout (capped at 15 minutes, the framework's maxTimeout).
//   Binding     a waiting pod is bound once allowed; if rejected, or when its wait times out
//               ("rejected due to timeout after waiting 1m0s at plugin Coscheduling"), or when
//               the pod is deleted ("removed"), the binding cycle fails: plugin->unreserve, the
//               pod is forgotten and, if it still exists, told the message.
//
// The wait runs on the executor's clock: a waiting pod is a requeue of its key at its deadline,
// and allow() and reject() enqueue it at once; its own reconcile then binds it or fails it, as a
// binding goroutine returns from WaitOnPermit.
//
// Threading: the Scheduler calls the plugin from its reconciles, never while it holds its own
// lock, so the plugin may call the handle from any hook.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/group_version.h"
#include "fakekube/api/json.h"
#include "fakekube/api/object.h"
#include "fakekube/cluster/scheduler.h"
#include "fakekube/sim/clock.h"

namespace fakekube::scheduling {

// What a plugin answers at an extension point (framework.Status, reduced to what these points
// use).
struct PluginStatus {
  enum class Code { Success, Unschedulable, UnschedulableAndUnresolvable, Wait };
  Code code = Code::Success;
  // The status's reasons, joined; empty: none.
  std::string message;
  // Wait: how long the pod may wait at Permit.
  Duration timeout{};

  bool success() const { return code == Code::Success; }
  bool rejected() const {
    return code == Code::Unschedulable || code == Code::UnschedulableAndUnresolvable;
  }
  static PluginStatus unschedulable(std::string message = {}) {
    return {Code::Unschedulable, std::move(message), {}};
  }
  static PluginStatus unresolvable(std::string message) {
    return {Code::UnschedulableAndUnresolvable, std::move(message), {}};
  }
  static PluginStatus wait(Duration timeout) { return {Code::Wait, {}, timeout}; }
};

// A pod parked at Permit (framework.WaitingPod): assumed on its node, its binding held back
// until every plugin that made it wait allows it, or one rejects it. The first verdict stands,
// as the first status sent on the waiting pod's channel does.
class WaitingPod {
 public:
  virtual ~WaitingPod() = default;
  virtual const Json& pod() const = 0;
  virtual const std::string& node() const = 0;
  virtual void allow(std::string_view plugin) = 0;
  virtual void reject(std::string_view plugin, std::string message) = 0;
};

// A pod as the nodes' view lists it: bound to the node or assumed there, not finished.
struct NodePod {
  ObjectPtr pod;
  ResourceList requests;  // podRequests(pod)
};

// A node with what is on it (framework.NodeInfo: Node(), GetPods(), GetAllocatable()).
struct NodeResources {
  std::string name;
  ResourceList allocatable;  // status.allocatable, parsed; "pods" is the pod capacity
  std::vector<NodePod> pods;
};

// What the plugin may ask of the scheduler (framework.Handle, reduced).
class FrameworkHandle {
 public:
  virtual ~FrameworkHandle() = default;
  // Calls `visit` for each pod waiting at Permit now.
  virtual void iterateOverWaitingPods(const std::function<void(WaitingPod&)>& visit) = 0;
  // Moves these pods ("namespace/name") to be scheduled now (the PodsToActivate cycle state).
  virtual void activate(const std::vector<std::string>& podKeys) = 0;
  // Every node of the cluster, in name order, with the pods bound or assumed on it.
  virtual std::vector<NodeResources> nodeInfos() = 0;
  virtual TimePoint now() = 0;
};

// A resource whose add or update events move the unschedulable pods back to scheduling
// (EnqueueExtensions.EventsToRegister; a node's and a bound pod's going away always do).
struct ClusterEvent {
  GroupVersionResource resource;
  bool add = false;
  bool update = false;
};

// A plugin of the profile (each hook's default is the framework's answer without it).
class FrameworkPlugin {
 public:
  virtual ~FrameworkPlugin() = default;
  virtual std::string name() const = 0;
  virtual std::vector<ClusterEvent> eventsToRegister() const { return {}; }
  // Called once, before the scheduler's controller starts: what the plugin's handlers watch.
  virtual void setHandle(FrameworkHandle* handle) = 0;

  virtual PluginStatus preFilter(const Json& pod) { return {}; }
  // The pod fits on no node. Unschedulable, with the plugin's reason or none.
  virtual PluginStatus postFilter(const Json& pod) { return PluginStatus::unschedulable(); }
  virtual PluginStatus permit(const Json& pod, const std::string& node) { return {}; }
  // Reserve failed later on (Permit rejected, the wait failed, the binding failed).
  virtual void unreserve(const Json& pod, const std::string& node) {}
};

}  // namespace fakekube::scheduling
