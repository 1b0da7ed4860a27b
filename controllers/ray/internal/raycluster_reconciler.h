// The RayCluster controller's reconciler, shared by the files that define its steps:
//   raycluster_controller.cpp  the round (rayClusterReconcile), the Redis cleanup finalizer, the
//                              Services, the autoscaler's RBAC steps, the status write, wiring
//   raycluster_pods.cpp        reconcilePods: suspension, the Recreate upgrade, the head pod, the
//                              worker groups (single-host and multi-host replica groups)
// The public surface is raycluster_controller.h; this header is the controller's own.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "controllers/ray/batchscheduler/internal/batch_scheduler.h"
#include "controllers/ray/constants.h"
#include "controllers/ray/internal/event_action.h"
#include "controllers/ray/internal/json_members.h"
#include "controllers/ray/internal/naming.h"
#include "controllers/ray/internal/raycluster_status.h"
#include "controllers/ray/internal/scale_expectations.h"
#include "controllers/ray/operator_options.h"
#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/runtime/manager.h"

namespace fakekube::ray {

using Failure = std::optional<ReconcileFailure>;

// errors.Join(tag, err): the tag, a newline, the error.
inline ReconcileFailure tagged(std::string_view tag, const Status& error) {
  ReconcileFailure f{error, std::string(tag)};
  f.status.message = std::string(tag) + "\n" + error.message;
  return f;
}

inline ReconcileFailure plain(Status error) { return ReconcileFailure{std::move(error), ""}; }

inline ReconcileFailure plain(std::string message) {
  return ReconcileFailure{Status::internal(message), ""};
}

inline std::string selectorOf(
    std::initializer_list<std::pair<std::string_view, std::string>> labels) {
  std::string out;
  for (const auto& [k, v] : labels) {
    if (!out.empty()) out += ",";
    out += std::string(k) + "=" + v;
  }
  return out;
}

// The objects of `items` whose label `key` is `value`.
inline std::vector<ObjectPtr> withLabel(std::vector<ObjectPtr> items, std::string_view key,
                                        std::string_view value) {
  std::erase_if(items, [&](const ObjectPtr& o) { return meta::label(*o, key) != value; });
  return items;
}

// getRayContainerStateTerminated: the Ray container's state.terminated, found by name
// (containerStatuses need not follow the order of the containers).
const Json* rayContainerStateTerminated(const Json& pod);
// The terminated state as the Event messages show it (JSON), or "nil".
std::string rayContainerTerminatedText(const Json& pod);
// shouldDeletePod's verdict alone, without the message it formats (every pod of every round asks).
bool podNeedsDeletion(const Json& pod);

class RayClusterReconciler : public std::enable_shared_from_this<RayClusterReconciler> {
 public:
  RayClusterReconciler(Manager& manager, OperatorOptions options)
      : manager_(manager),
        options_(std::move(options)),
        expectations_(manager.client(), manager.executor().clock(), kExpectationsTimeout),
        recorder_(manager.eventsV1Recorder("raycluster-controller")),
        random_(options_.randomSeed ? *options_.randomSeed : std::random_device{}()) {}

  ReconcileOutcome reconcile(const ReconcileRequest& request);

 private:
  Client& client() { return manager_.client(); }
  TimePoint now() { return manager_.executor().clock().now(); }
  void event(const Json& instance, std::string_view type, std::string_view reason,
             const std::string& message) {
    (void)recorder_.event(instance, type, reason, eventActionOf(reason), message);
  }

  // The round on the cached RayCluster, shared rather than copied (a cached object is const):
  // only what the round writes back copies it.
  ReconcileOutcome rayClusterReconcile(ObjectPtr cached);
  // The GCS fault tolerance Redis cleanup finalizer; nullopt: carry on with the round.
  std::optional<ReconcileOutcome> reconcileRedisCleanupFinalizer(const Json& instance);
  // The RayCluster written back with the finalizer added or removed (the cached one is shared).
  Result<Json> writeRedisCleanupFinalizer(const Json& instance, bool add);
  // A RayCluster with the finalizer being deleted: its pods go, then the Redis cleanup Job runs
  // (or the deletion timeout passes), then the finalizer goes.
  ReconcileOutcome reconcileRedisCleanupOnDeletion(const Json& instance);
  // The Redis cleanup Job, once; the finalizer goes when it finished.
  ReconcileOutcome reconcileRedisCleanupJob(const Json& instance);
  // The autoscaler's ServiceAccount, Role and RoleBinding (autoscaler_rbac.h).
  Failure reconcileAutoscalerServiceAccount(const Json& instance);
  Failure reconcileAutoscalerRole(const Json& instance);
  Failure reconcileAutoscalerRoleBinding(const Json& instance);
  Failure reconcileHeadService(const Json& instance);
  Failure reconcileHeadlessService(const Json& instance);
  Failure reconcileServeService(const Json& instance);
  // createService: a controller owner reference, then CreatedService or FailedToCreateService.
  Failure createService(const Json& instance, Json service);

  // --- raycluster_pods.cpp ---
  Failure reconcilePods(const Json& instance);
  // The head pod of reconcilePods: delete it when shouldDeletePod, create it when missing.
  Failure reconcileHeadPod(const Json& instance, const std::vector<ObjectPtr>& headPods);
  // One worker group of reconcilePods (its expectations are satisfied).
  Failure reconcileWorkerGroup(const Json& instance, const WorkerGroupSpec& group,
                               const std::vector<ObjectPtr>& clusterPods);
  // The steps of a single-host group: unhealthy pods (the round ends when there were any), the
  // pods of workersToDelete (both add what they deleted to `deletedWorkers`), then creating or
  // deleting pods to the desired number.
  Failure deleteUnhealthyWorkerPods(const Json& instance, const WorkerGroupSpec& group,
                                    const std::vector<ObjectPtr>& workerPods,
                                    std::set<std::string>& deletedWorkers);
  Failure deleteWorkersToDelete(const Json& instance, const WorkerGroupSpec& group,
                                std::set<std::string>& deletedWorkers);
  Failure scaleWorkerGroup(const Json& instance, const WorkerGroupSpec& group,
                           const std::vector<ObjectPtr>& running);
  // reconcileMultiHostWorkerGroup: a group with numOfHosts > 1, replica group by replica group.
  Failure reconcileMultiHostWorkerGroup(const Json& instance, const WorkerGroupSpec& group,
                                        const std::vector<ObjectPtr>& workerPods);
  // Steps 4 and 5 of reconcileMultiHostWorkerGroup: the replica groups of workersToDelete, then
  // creating or (without the autoscaler) deleting whole replica groups.
  Failure deleteMultiHostWorkersToDelete(
      const Json& instance, const WorkerGroupSpec& group, const std::vector<ObjectPtr>& workerPods,
      const std::map<std::string, std::vector<ObjectPtr>>& replicaMap);
  Failure scaleMultiHostWorkerGroup(const Json& instance, const WorkerGroupSpec& group,
                                    const std::map<std::string, std::vector<ObjectPtr>>& replicaMap,
                                    const std::vector<std::string>& validReplicaGroups);
  // deletePods: deletes the pods (NotFound is fine), each with a Delete expectation and an Event
  // giving `reason`.
  Failure deletePods(const Json& instance, const std::vector<ObjectPtr>& podsToDelete,
                     const std::string& groupName, const std::string& reason);
  Failure createHeadPod(const Json& instance, const std::string& clusterHash);
  Failure createWorkerPodWithIndex(const Json& instance, const WorkerGroupSpec& group,
                                   const std::string& replicaGroupName, int replicaIndex,
                                   int hostIndex);
  bool shouldRecreatePodsForUpgrade(const Json& instance);
  // deleteAllPods: DeleteAllOf the selected pods, only if one of them is not terminating yet.
  Result<void> deleteAllPods(const std::string& ns, const std::string& selector,
                             const std::vector<ObjectPtr>& selected);
  // GenerateRayWorkerReplicaGroupName, from the reconciler's seeded source.
  std::string generateReplicaGroupName(const std::string& groupName) {
    std::lock_guard lock(randomMutex_);
    return generateRayWorkerReplicaGroupName(groupName, random_);
  }

  // The cached objects labelled ray.io/cluster=<name> in `ns`, through the cache's label index
  // (what a List with that label selector answers, without scanning every pod of the cache).
  std::vector<ObjectPtr> clusterObjects(const GroupVersionResource& gvr, const std::string& ns,
                                        const std::string& name);
  // RayClusterHeadServiceListOptions: cluster, node-type=head, identifier.
  std::vector<ObjectPtr> headServices(const std::string& ns, const std::string& name) {
    std::vector<ObjectPtr> services = clusterObjects(kServices, ns, name);
    const std::string identifier = checkLabel(generateIdentifier(name, kHeadNode));
    std::erase_if(services, [&](const ObjectPtr& s) {
      return meta::label(*s, kRayNodeTypeLabelKey) != kHeadNode ||
             meta::label(*s, kRayIdLabelKey) != identifier;
    });
    return services;
  }
  // updateRayClusterStatus: whether the status was inconsistent, or the write's error.
  // `oldStatus` is the status the round started from (null for none).
  tl::expected<bool, Status> updateRayClusterStatus(const Json& oldStatus, Json next);

  Manager& manager_;
  const OperatorOptions options_;
  // The batch scheduler's plug-in (options_.batchScheduler), or nullptr.
  const std::shared_ptr<batchscheduler::BatchScheduler> batchScheduler_ =
      batchscheduler::newBatchScheduler(options_.batchScheduler, options_.enableBatchScheduler)
          .value_or(nullptr);
  ScaleExpectations expectations_;
  EventRecorder& recorder_;
  std::mutex randomMutex_;
  std::mt19937_64 random_;
};

}  // namespace fakekube::ray
