// What the workload controllers (ReplicaSet, Deployment, Job) share, after
// kube-controller-manager's pkg/controller/controller_utils.go and pkg/api/v1/pod:
//
//   pod readings     which pods count (active, ready, available after minReadySeconds on the
//                    executor's clock), their restarts and ready times;
//   controller refs  claiming the pods a selector picks: adopting orphans by patching their
//                    ownerReferences (with uid and resourceVersion preconditions: a pod replaced
//                    or changed meanwhile is not adopted by mistake), releasing owned pods that
//                    no longer match;
//   pod creation     a pod from a controller's template: its labels, annotations and finalizers,
//                    generateName "<owner>-", and an ownerReference with controller and
//                    blockOwnerDeletion true;
//   scale-down       the order in which a controller deletes surplus pods (ActivePodsWithRanks);
//   slow start       creating many pods in batches 1, 2, 4, ... that stop at the first failure, so
//                    a quota or admission error costs one request, not a thousand.
//
// The controllers read through a Manager's cache and write through its client; nothing here
// touches an ApiServer directly, so it all works over HTTP too.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/group_version.h"
#include "fakekube/api/json.h"
#include "fakekube/api/label_selector.h"
#include "fakekube/api/object.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/status.h"
#include "fakekube/cache/cache.h"
#include "fakekube/client/client.h"
#include "fakekube/runtime/handler.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/clock.h"

namespace fakekube::workload {

// SlowStartInitialBatchSize.
inline constexpr int kSlowStartInitialBatchSize = 1;
// The annotation that lets users say which pods to delete first (controller.kubernetes.io).
inline constexpr std::string_view kPodDeletionCostAnnotation =
    "controller.kubernetes.io/pod-deletion-cost";

// --- pod readings ---
// podPhase, podNodeName and isPodReady are in pod_status.h.
// Not Succeeded, not Failed, not being deleted (controller.IsPodActive).
bool isPodActive(const Json& pod);
// Being deleted but not finished yet (controller.IsPodTerminating).
bool isPodTerminating(const Json& pod);
// When the Ready condition last changed, if it is True.
std::optional<TimePoint> podReadySince(const Json& pod);
// Ready for longer than minReadySeconds at `now` (podutil.IsPodAvailable: strictly longer).
bool isPodAvailable(const Json& pod, int minReadySeconds, TimePoint now);
// The highest restartCount of the pod's containers (init containers included).
int maxContainerRestarts(const Json& pod);
// The sum of the restartCounts of its containers and init containers.
int totalContainerRestarts(const Json& pod);
std::optional<TimePoint> parseTime(const Json& value);
// The pod informer's index of pods by spec.nodeName (a pod not bound yet is under no value): the
// scheduler, the kubelets and the node lifecycle controller read a node's pods through it. Adding
// it again (each of them does, on the same informer) rebuilds the same index.
inline constexpr std::string_view kPodNodeNameIndex = "spec.nodeName";
void addPodNodeNameIndex(Informer& pods);

// --- reading documents ---
// object[key] when it is an integer, else `fallback`; never throws, whatever `object` is. (An
// object member that may be absent is jsonObjectAt, api/json_lookup.h.)
std::int64_t integerMember(const Json& object, std::string_view key, std::int64_t fallback = 0);

// --- selectors ---
// The object's spec.selector; a missing selector selects nothing (LabelSelectorAsSelector).
Result<LabelSelector> specSelector(const Json& owner);
// A label selector that is {} selects everything: controllers refuse to act on it.
bool selectsEverything(const Json& owner);

// --- listing through a cache (shared documents, no copies) ---
std::vector<ObjectPtr> listInNamespace(Cache& cache, const GroupVersionResource& gvr,
                                       std::string_view ns);
// The objects of `owners` in the object's namespace whose spec.selector, not empty, matches its
// labels, as requests: who may adopt an orphan (getPodReplicaSets, getPodJobs,
// getDeploymentsForReplicaSet, getPodStatefulSets, getDaemonSetsForPod).
std::vector<ReconcileRequest> ownersSelecting(Cache& cache, const GroupVersionResource& owners,
                                              const Json& object);

// --- controller references ---
// What claiming needs to know about the controller (the owner).
struct ClaimContext {
  Client& client;    // writes (the patches)
  Reader& uncached;  // the fresh read of the owner before the first adoption
  GroupVersionResource ownerResource;
  const Json& owner;  // as read from the cache
  const LabelSelector& selector;
  // Adopted objects get this finalizer, released ones lose it (the Job controller's tracking
  // finalizer); none when empty.
  std::string trackingFinalizer;
};

// PodControllerRefManager.ClaimPods for any kind: of `candidates`, the objects the owner now
// controls, adopting orphans that match and releasing owned objects that no longer do. Objects
// controlled by someone else are left alone; so are orphans being deleted, and everything when
// the owner itself is being deleted. Before the first adoption the owner is read again from the
// server: an owner that was deleted or replaced (another uid) adopts nothing (the error is
// returned after the already-owned objects are claimed). An adopted or released object that is
// gone (404) is skipped.
Result<std::vector<ObjectPtr>> claimObjects(const ClaimContext& context,
                                            const GroupVersionResource& resource,
                                            const std::vector<ObjectPtr>& candidates);

// claimObjects over every object of `resource` in the owner's namespace, as the manager's cache
// shows them, writing through the manager's client and reading the owner again through its
// uncached reader.
Result<std::vector<ObjectPtr>> claimFromCache(Manager& manager,
                                              const GroupVersionResource& ownerResource,
                                              const Json& owner, const LabelSelector& selector,
                                              const GroupVersionResource& resource,
                                              std::string trackingFinalizer = "");

// The controller reference to an owner is meta::controllerRefTo (object_meta.h).
// Whether the object's controller reference names this uid.
bool isControlledBy(const Json& object, std::string_view ownerUid);

// --- pod creation ---
// The pod GetPodFromTemplate builds: template labels, annotations, finalizers and spec;
// generateName "<owner name>-" (shortened when the name is too long); the owner's namespace; the
// controller reference. `extraFinalizer` (if not empty) is added to the template's finalizers.
Json podFromTemplate(const Json& owner, const Json& podTemplate,
                     std::string_view extraFinalizer = "");

// --- scale-down order ---
// The pods to delete first, best candidate first (ActivePodsWithRanks.Less): unassigned before
// assigned; Pending < Unknown < Running; not ready before ready; lower pod-deletion-cost first;
// pods doubled up on a node (more related pods there) first; ready for less time first; more
// restarts first; newer first; name as the last tie-break so the order is deterministic.
// `related` are the pods counted for the node ranks (the controller's pods when empty).
std::vector<ObjectPtr> podsToDeleteFirst(std::vector<ObjectPtr> pods,
                                         const std::vector<ObjectPtr>& related, std::size_t count);

// --- event handlers ---
// The EventHandler of a controller's informer events on a kind it does not reconcile (its pods,
// its ReplicaSets), from the controller's members (handler.Funcs with methods): `onAdd`,
// `onUpdate` and `onDelete` map an event to the requests, while the controller lives. The
// handler holds the controller weakly: the informer keeps it after the manager dropped the
// controller (a crash), and then it maps nothing. A null member leaves that event unhandled.
template <class Controller>
EventHandler controllerEventHandler(
    std::weak_ptr<Controller> weak,
    std::vector<ReconcileRequest> (Controller::*onAdd)(const ObjectPtr&),
    std::vector<ReconcileRequest> (Controller::*onUpdate)(const ObjectPtr&, const ObjectPtr&),
    std::vector<ReconcileRequest> (Controller::*onDelete)(const ObjectPtr&)) {
  EventHandler handler;
  if (onAdd != nullptr) {
    handler.create = [weak, onAdd](const ObjectPtr& object) -> std::vector<ReconcileRequest> {
      auto self = weak.lock();
      return self && object ? ((*self).*onAdd)(object) : std::vector<ReconcileRequest>{};
    };
  }
  if (onUpdate != nullptr) {
    handler.update = [weak, onUpdate](const ObjectPtr& oldObject,
                                      const ObjectPtr& newObject) -> std::vector<ReconcileRequest> {
      auto self = weak.lock();
      return self && oldObject && newObject ? ((*self).*onUpdate)(oldObject, newObject)
                                            : std::vector<ReconcileRequest>{};
    };
  }
  if (onDelete != nullptr) {
    handler.delete_ = [weak, onDelete](const ObjectPtr& object) -> std::vector<ReconcileRequest> {
      auto self = weak.lock();
      return self && object ? ((*self).*onDelete)(object) : std::vector<ReconcileRequest>{};
    };
  }
  return handler;
}

// The Reconciler of a controller object: reconciler->reconcile(request), the object kept alive
// by the controller that calls it.
template <class Object>
Reconciler reconcileWith(std::shared_ptr<Object> reconciler) {
  return [reconciler](const ReconcileRequest& request) { return reconciler->reconcile(request); };
}

// --- slow start ---
// Calls `fn` `count` times in batches of 1, 2, 4, ... (controller.slowStartBatch); stops after a
// batch in which a call failed. Answers how many calls succeeded and the first error.
struct SlowStartResult {
  int successes = 0;
  std::optional<Status> error;
};
SlowStartResult slowStartBatch(int count, int initialBatchSize,
                               const std::function<Result<void>()>& fn);

}  // namespace fakekube::workload
