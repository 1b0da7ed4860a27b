// reconcilePods and its helpers (KubeRay's raycluster_controller.go: reconcilePods,
// reconcileMultiHostWorkerGroup, deletePods, createHeadPod, createWorkerPodWithIndex,
// shouldRecreatePodsForUpgrade, deleteAllPods). The steps are listed in raycluster_controller.h.
#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "controllers/ray/constants.h"
#include "controllers/ray/internal/pod_builder.h"
#include "controllers/ray/internal/raycluster_controller.h"
#include "controllers/ray/internal/raycluster_reconciler.h"
#include "controllers/ray/internal/raycluster_status.h"
#include "controllers/ray/raycluster_types.h"

namespace fakekube::ray {

namespace {

// The label's value as an integer, when it is one (strconv.Atoi).
std::optional<int> integerLabel(const Json& pod, std::string_view key) {
  const std::string text = meta::label(pod, key);
  if (text.empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const int value = std::stoi(text, &used);
    if (used == text.size()) return value;
  } catch (...) {
  }
  return std::nullopt;
}

// The lowest index not in `used`, which it joins.
int takeLowestFreeIndex(std::set<int>& used) {
  int index = 0;
  while (used.count(index)) ++index;
  used.insert(index);
  return index;
}

}  // namespace

Result<void> RayClusterReconciler::deleteAllPods(const std::string& ns, const std::string& selector,
                                                 const std::vector<ObjectPtr>& selected) {
  std::size_t active = 0;
  for (const ObjectPtr& pod : selected) {
    if (!meta::isDeleting(*pod)) ++active;
  }
  if (active == 0) return {};
  ListOptions options;
  options.labelSelector = selector;
  return client().deleteAllOf(kPods, ns, options);
}

bool RayClusterReconciler::shouldRecreatePodsForUpgrade(const Json& instance) {
  auto type = upgradeStrategyType(instance);
  if (!type || *type != kUpgradeRecreate) return false;
  const std::string expected = clusterHash(instance);
  const std::vector<ObjectPtr> headPods =
      withLabel(clusterObjects(kPods, meta::namespace_(instance), meta::name(instance)),
                kRayNodeTypeLabelKey, kHeadNode);
  if (headPods.empty()) return false;
  const Json& headPod = *headPods.front();
  const std::string podVersion = meta::annotation(headPod, kKubeRayVersion);
  if (!podVersion.empty() && podVersion != kKubeRayVersionValue) {
    // Another operator version stamped the pod: adopt it with the new hash, do not recreate.
    Json updated = headPod;
    meta::setAnnotation(updated, kUpgradeStrategyRecreateHashKey, expected);
    meta::setAnnotation(updated, kKubeRayVersion, kKubeRayVersionValue);
    (void)client().update(kPods, std::move(updated));
    return false;
  }
  const std::string actual = meta::annotation(headPod, kUpgradeStrategyRecreateHashKey);
  return !actual.empty() && actual != expected;
}

Failure RayClusterReconciler::createHeadPod(const Json& instance, const std::string& hash) {
  const std::string ns = meta::namespace_(instance);
  Json pod = buildHeadPod(instance, options_, hash);
  if (batchScheduler_) {
    batchScheduler_->addMetadataToChildResource(instance, pod, batchscheduler::ChildKind::Pod,
                                                kHeadGroupName);
  }
  const std::string shownName = meta::name(pod).empty() ? meta::generateName(pod) : meta::name(pod);
  auto created = client().createShared(kPods, std::move(pod));
  if (!created) {
    event(
        instance, "Warning", "FailedToCreateHeadPod",
        fmt::format("Failed to create head Pod {}/{}, {}", ns, shownName, created.error().message));
    return tagged("FailedCreateHeadPod", created.error());
  }
  expectations_.expectScalePod(ns, meta::name(instance), kExpectationsHeadGroup,
                               meta::name(**created), ScaleAction::Create);
  event(instance, "Normal", "CreatedHeadPod",
        fmt::format("Created head Pod {}/{}", ns, meta::name(**created)));
  return std::nullopt;
}

Failure RayClusterReconciler::createWorkerPodWithIndex(const Json& instance,
                                                       const WorkerGroupSpec& group,
                                                       const std::string& replicaGroupName,
                                                       int replicaIndex, int hostIndex) {
  const std::string ns = meta::namespace_(instance);
  Json pod = buildWorkerPod(instance, group, options_, replicaGroupName, replicaIndex, hostIndex);
  if (batchScheduler_) {
    batchScheduler_->addMetadataToChildResource(instance, pod, batchscheduler::ChildKind::Pod,
                                                group.groupName);
  }
  auto created = client().createShared(kPods, std::move(pod));
  if (!created) {
    event(instance, "Warning", "FailedToCreateWorkerPod",
          fmt::format("Failed to create worker Pod for the cluster {}/{}, {}", ns,
                      meta::name(instance), created.error().message));
    return tagged("FailedCreateWorkerPod", created.error());
  }
  expectations_.expectScalePod(ns, meta::name(instance), group.groupName, meta::name(**created),
                               ScaleAction::Create);
  event(instance, "Normal", "CreatedWorkerPod",
        fmt::format("Created worker Pod {}/{}", ns, meta::name(**created)));
  return std::nullopt;
}

Failure RayClusterReconciler::reconcilePods(const Json& instance) {
  const std::string ns = meta::namespace_(instance);
  const std::string name = meta::name(instance);
  const std::string allPods = selectorOf({{kRayClusterLabelKey, name}});

  // Suspend (the RayClusterStatusConditions gate is on by default).
  const std::string suspendStatus = findRayClusterSuspendStatus(instance);
  if (suspendStatus == kRayClusterSuspending) {
    if (auto deleted = deleteAllPods(ns, allPods, clusterObjects(kPods, ns, name)); !deleted) {
      event(instance, "Warning", "FailedToDeletePodCollection",
            fmt::format("Failed deleting Pods due to suspension for RayCluster {}/{}, {}", ns, name,
                        deleted.error().message));
      return tagged("FailedDeleteAllPods", deleted.error());
    }
    event(instance, "Normal", "DeletedPod",
          fmt::format("Deleted Pods for RayCluster {}/{} due to suspension", ns, name));
    return std::nullopt;
  }
  if (suspendStatus == kRayClusterSuspended) return std::nullopt;
  if (isSuspendRequested(instance)) return std::nullopt;  // about to suspend

  if (shouldRecreatePodsForUpgrade(instance)) {
    if (auto deleted = deleteAllPods(ns, allPods, clusterObjects(kPods, ns, name)); !deleted) {
      event(instance, "Warning", "FailedToDeletePodCollection",
            fmt::format("Failed deleting Pods due to spec change with Recreate upgradeStrategy "
                        "for RayCluster {}/{}, {}",
                        ns, name, deleted.error().message));
      return tagged("FailedDeleteAllPods", deleted.error());
    }
    expectations_.deleteCluster(name, ns);
    event(instance, "Normal", "DeletedPod",
          fmt::format("Deleted all Pods for RayCluster {}/{} due to spec change with Recreate "
                      "upgradeStrategy",
                      ns, name));
    return std::nullopt;
  }

  const std::vector<ObjectPtr> clusterPods = clusterObjects(kPods, ns, name);
  // The batch scheduler's group exists (and is sized) before any pod of it is created.
  if (batchScheduler_) {
    if (auto submitted = batchScheduler_->doBatchSchedulingOnSubmission(client(), instance);
        !submitted) {
      return plain(submitted.error());
    }
  }
  if (!expectations_.isSatisfied(ns, name, kExpectationsHeadGroup)) {
    // Reconcile the head later.
  } else if (auto f = reconcileHeadPod(instance,
                                       withLabel(clusterPods, kRayNodeTypeLabelKey, kHeadNode))) {
    return f;
  }
  for (const WorkerGroupSpec& group : workerGroupSpecs(instance)) {
    if (!expectations_.isSatisfied(ns, name, group.groupName)) continue;
    if (auto f = reconcileWorkerGroup(instance, group, clusterPods)) return f;
  }
  return std::nullopt;
}

Failure RayClusterReconciler::reconcileHeadPod(const Json& instance,
                                               const std::vector<ObjectPtr>& headPods) {
  const std::string ns = meta::namespace_(instance);
  const std::string name = meta::name(instance);
  if (headPods.size() == 1) {
    const Json& headPod = *headPods.front();
    if (!podNeedsDeletion(headPod)) return std::nullopt;
    const std::string reason = shouldDeletePod(headPod, kHeadNode).second;
    const std::string podName = meta::name(headPod);
    const std::string phase = stringMember(memberOrNull(headPod, "status"), "phase");
    const std::string restartPolicy = stringMember(memberOrNull(headPod, "spec"), "restartPolicy");
    auto deleted = client().deleteObject(kPods, ns, podName);
    if (!deleted) {
      event(instance, "Warning", "FailedToDeleteHeadPod",
            fmt::format("Failed deleting head Pod {}/{}; Pod status: {}; Pod restart policy: "
                        "{}; Ray container terminated status: {}, {}",
                        ns, podName, phase, restartPolicy, rayContainerTerminatedText(headPod),
                        deleted.error().message));
      return tagged("FailedDeleteHeadPod", deleted.error());
    }
    expectations_.expectScalePod(ns, name, kExpectationsHeadGroup, podName, ScaleAction::Delete);
    event(instance, "Normal", "DeletedHeadPod",
          fmt::format("Deleted head Pod {}/{}; Pod status: {}; Pod restart policy: {}; Ray "
                      "container terminated status: {}",
                      ns, podName, phase, restartPolicy, rayContainerTerminatedText(headPod)));
    return plain(reason);
  }
  if (headPods.empty()) {
    const Json& conditions = memberOrNull(memberOrNull(instance, "status"), "conditions");
    if (isStatusConditionTrue(conditions, kRayClusterProvisioned) &&
        meta::annotation(instance, kDisableProvisionedHeadRestartAnnotationKey) == "true") {
      return std::nullopt;
    }
    // The hash of the spec the head pod is stamped with (computed only when one is created).
    return createHeadPod(instance, clusterHash(instance));
  }
  std::string names;
  for (const ObjectPtr& p : headPods) names += (names.empty() ? "" : " ") + meta::name(*p);
  return plain(fmt::format("{} head pods found [{}]. Please delete extra head pods",
                           headPods.size(), names));
}

Failure RayClusterReconciler::reconcileWorkerGroup(const Json& instance,
                                                   const WorkerGroupSpec& group,
                                                   const std::vector<ObjectPtr>& clusterPods) {
  const std::string ns = meta::namespace_(instance);
  const std::string name = meta::name(instance);
  const std::vector<ObjectPtr> workerPods =
      withLabel(clusterPods, kRayNodeGroupLabelKey, group.groupName);

  if (group.suspend) {
    const std::string groupSelector =
        selectorOf({{kRayClusterLabelKey, name}, {kRayNodeGroupLabelKey, group.groupName}});
    if (auto deleted = deleteAllPods(ns, groupSelector, workerPods); !deleted) {
      event(instance, "Warning", "FailedToDeleteWorkerPodCollection",
            fmt::format("Failed deleting worker Pods for suspended group {} in RayCluster "
                        "{}/{}, {}",
                        group.groupName, ns, name, deleted.error().message));
      return tagged("FailedDeleteWorkerPod", deleted.error());
    }
    event(instance, "Normal", "DeletedWorkerPod",
          fmt::format("Deleted all pods for suspended worker group {} in RayCluster {}/{}",
                      group.groupName, ns, name));
    return std::nullopt;
  }
  // RayMultiHostIndexing (on by default): multi-host groups go replica group by replica group.
  if (group.numOfHosts > 1) return reconcileMultiHostWorkerGroup(instance, group, workerPods);

  // Unhealthy workers: delete them, and create nothing this round.
  std::set<std::string> deletedWorkers;
  if (auto f = deleteUnhealthyWorkerPods(instance, group, workerPods, deletedWorkers)) return f;
  // Always remove the pods named in workersToDelete, whatever the replicas say.
  if (auto f = deleteWorkersToDelete(instance, group, deletedWorkers)) return f;
  std::vector<ObjectPtr> running;
  for (const ObjectPtr& pod : workerPods) {
    if (!deletedWorkers.count(meta::name(*pod))) running.push_back(pod);
  }
  return scaleWorkerGroup(instance, group, running);
}

Failure RayClusterReconciler::deleteUnhealthyWorkerPods(const Json& instance,
                                                        const WorkerGroupSpec& group,
                                                        const std::vector<ObjectPtr>& workerPods,
                                                        std::set<std::string>& deletedWorkers) {
  const std::string ns = meta::namespace_(instance);
  int deletedUnhealthy = 0;
  for (const ObjectPtr& podPtr : workerPods) {
    const Json& pod = *podPtr;
    // The reason (a log line) is only written for a pod that goes.
    if (!podNeedsDeletion(pod)) continue;
    ++deletedUnhealthy;
    const std::string podName = meta::name(pod);
    deletedWorkers.insert(podName);
    const std::string phase = stringMember(memberOrNull(pod, "status"), "phase");
    const std::string restartPolicy = stringMember(memberOrNull(pod, "spec"), "restartPolicy");
    auto deleted = client().deleteObject(kPods, ns, podName);
    if (!deleted) {
      event(instance, "Warning", "FailedToDeleteWorkerPod",
            fmt::format("Failed deleting worker Pod {}/{}; Pod status: {}; Pod restart policy: "
                        "{}; Ray container terminated status: {}, {}",
                        ns, podName, phase, restartPolicy, rayContainerTerminatedText(pod),
                        deleted.error().message));
      return tagged("FailedDeleteWorkerPod", deleted.error());
    }
    expectations_.expectScalePod(ns, meta::name(instance), group.groupName, podName,
                                 ScaleAction::Delete);
    event(instance, "Normal", "DeletedWorkerPod",
          fmt::format("Deleted worker Pod {}/{}; Pod status: {}; Pod restart policy: {}; Ray "
                      "container terminated status: {}",
                      ns, podName, phase, restartPolicy, rayContainerTerminatedText(pod)));
  }
  if (deletedUnhealthy > 0) {
    return plain(fmt::format("delete {} unhealthy worker Pods", deletedUnhealthy));
  }
  return std::nullopt;
}

Failure RayClusterReconciler::deleteWorkersToDelete(const Json& instance,
                                                    const WorkerGroupSpec& group,
                                                    std::set<std::string>& deletedWorkers) {
  const std::string ns = meta::namespace_(instance);
  for (const std::string& podName : group.workersToDelete) {
    auto deleted = client().deleteObject(kPods, ns, podName);
    if (!deleted) {
      if (isNotFound(deleted.error())) continue;
      event(instance, "Warning", "FailedToDeleteWorkerPod",
            fmt::format("Failed deleting pod {}/{}, {}", ns, podName, deleted.error().message));
      return tagged("FailedDeleteWorkerPod", deleted.error());
    }
    expectations_.expectScalePod(ns, meta::name(instance), group.groupName, podName,
                                 ScaleAction::Delete);
    deletedWorkers.insert(podName);
    event(instance, "Normal", "DeletedWorkerPod", fmt::format("Deleted pod {}/{}", ns, podName));
  }
  return std::nullopt;
}

Failure RayClusterReconciler::scaleWorkerGroup(const Json& instance, const WorkerGroupSpec& group,
                                               const std::vector<ObjectPtr>& running) {
  const std::string ns = meta::namespace_(instance);
  const int diff = workerGroupDesiredReplicas(group) - static_cast<int>(running.size());
  if (diff > 0) {
    // Each new pod takes the lowest free ray.io/worker-group-replica-index.
    std::set<int> usedIndices;
    for (const ObjectPtr& pod : running) {
      if (auto index = integerLabel(*pod, kRayWorkerReplicaIndexKey)) usedIndices.insert(*index);
    }
    for (int i = 0; i < diff; ++i) {
      const int index = takeLowestFreeIndex(usedIndices);
      if (auto f = createWorkerPodWithIndex(instance, group, "", index, 0)) return f;
    }
  } else if (diff < 0 && (!isAutoscalingEnabled(instance) || options_.enableRandomPodDelete)) {
    // With the autoscaler on, it alone picks the pods to delete (unless random deletion is
    // enabled).
    for (int i = 0; i < -diff; ++i) {
      const std::string podName = meta::name(*running[i]);
      auto deleted = client().deleteObject(kPods, ns, podName);
      if (!deleted && !isNotFound(deleted.error())) {
        event(instance, "Warning", "FailedToDeleteWorkerPod",
              fmt::format("Failed deleting Pod {}/{}, {}", ns, podName, deleted.error().message));
        return tagged("FailedDeleteWorkerPod", deleted.error());
      }
      expectations_.expectScalePod(ns, meta::name(instance), group.groupName, podName,
                                   ScaleAction::Delete);
      event(instance, "Normal", "DeletedWorkerPod", fmt::format("Deleted Pod {}/{}", ns, podName));
    }
  }
  return std::nullopt;
}

Failure RayClusterReconciler::deletePods(const Json& instance,
                                         const std::vector<ObjectPtr>& podsToDelete,
                                         const std::string& groupName, const std::string& reason) {
  const std::string ns = meta::namespace_(instance);
  for (const ObjectPtr& podPtr : podsToDelete) {
    const Json& pod = *podPtr;
    const std::string podName = meta::name(pod);
    auto deleted = client().deleteObject(kPods, ns, podName);
    if (!deleted) {
      if (isNotFound(deleted.error())) continue;
      event(instance, "Warning", "FailedToDeleteWorkerPod",
            fmt::format("Failed deleting worker Pod {}/{} for group {}; Pod status: {}; Pod "
                        "restart policy: {}; Ray container terminated status: {}, {}",
                        ns, podName, groupName, stringMember(memberOrNull(pod, "status"), "phase"),
                        stringMember(memberOrNull(pod, "spec"), "restartPolicy"),
                        rayContainerTerminatedText(pod), deleted.error().message));
      return tagged("FailedDeleteWorkerPod", deleted.error());
    }
    expectations_.expectScalePod(ns, meta::name(instance), groupName, podName, ScaleAction::Delete);
    event(instance, "Normal", "DeletedWorkerPod",
          fmt::format("Deleted worker Pod {}/{} for group {}: {}", ns, podName, groupName, reason));
  }
  return std::nullopt;
}

Failure RayClusterReconciler::reconcileMultiHostWorkerGroup(
    const Json& instance, const WorkerGroupSpec& group, const std::vector<ObjectPtr>& workerPods) {
  // 1. The pods by replica group (ray.io/worker-group-replica-name); ordered, so that a run
  // replays (Go ranges over a map in random order).
  std::map<std::string, std::vector<ObjectPtr>> replicaMap;
  for (const ObjectPtr& pod : workerPods) {
    const std::string replicaName = meta::label(*pod, kRayWorkerReplicaNameKey);
    if (!replicaName.empty()) replicaMap[replicaName].push_back(pod);
  }

  // 2. A replica group that lost a host (deleted from outside) goes as a whole; nothing is
  // created this round.
  for (const auto& [replicaName, pods] : replicaMap) {
    if (static_cast<int>(pods.size()) >= group.numOfHosts) continue;
    if (auto f =
            deletePods(instance, pods, group.groupName, "cleanup of incomplete multi-host group")) {
      return f;
    }
    return plain(fmt::format("cleaned up incomplete replica group {}, requeueing", replicaName));
  }

  // 3. A replica group with an unhealthy host goes as a whole.
  std::set<std::string> deletedPods;
  for (const ObjectPtr& pod : workerPods) {
    if (deletedPods.count(meta::name(*pod)) || !podNeedsDeletion(*pod)) continue;
    auto replica = replicaMap.find(meta::label(*pod, kRayWorkerReplicaNameKey));
    if (replica == replicaMap.end()) continue;
    const std::string reason = shouldDeletePod(*pod, kWorkerNode).second;
    if (auto f = deletePods(instance, replica->second, group.groupName, reason)) return f;
    for (const ObjectPtr& deleted : replica->second) deletedPods.insert(meta::name(*deleted));
  }

  // 4. The autoscaler's workersToDelete take their whole replica groups with them.
  if (auto f = deleteMultiHostWorkersToDelete(instance, group, workerPods, replicaMap)) return f;

  // 5. Scale by whole replica groups.
  std::vector<std::string> validReplicaGroups;
  for (const auto& [replicaName, pods] : replicaMap) {
    const bool intact = std::none_of(pods.begin(), pods.end(), [&](const ObjectPtr& p) {
      return deletedPods.count(meta::name(*p)) > 0;
    });
    if (intact) validReplicaGroups.push_back(replicaName);
  }
  return scaleMultiHostWorkerGroup(instance, group, replicaMap, validReplicaGroups);
}

Failure RayClusterReconciler::deleteMultiHostWorkersToDelete(
    const Json& instance, const WorkerGroupSpec& group, const std::vector<ObjectPtr>& workerPods,
    const std::map<std::string, std::vector<ObjectPtr>>& replicaMap) {
  std::map<std::string, ObjectPtr> podsToDelete;
  for (const std::string& podName : group.workersToDelete) {
    for (const ObjectPtr& pod : workerPods) {
      if (meta::name(*pod) != podName) continue;
      auto replica = replicaMap.find(meta::label(*pod, kRayWorkerReplicaNameKey));
      if (replica != replicaMap.end()) {
        for (const ObjectPtr& host : replica->second) podsToDelete[meta::name(*host)] = host;
      }
      break;
    }
  }
  if (podsToDelete.empty()) return std::nullopt;
  std::vector<ObjectPtr> pods;
  for (const auto& [podName, pod] : podsToDelete) pods.push_back(pod);
  if (auto f = deletePods(instance, pods, group.groupName, "autoscaler scale-down request")) {
    return f;
  }
  return plain(
      fmt::format("deleted {} worker Pods based on ScaleStrategy, requeueing", pods.size()));
}

Failure RayClusterReconciler::scaleMultiHostWorkerGroup(
    const Json& instance, const WorkerGroupSpec& group,
    const std::map<std::string, std::vector<ObjectPtr>>& replicaMap,
    const std::vector<std::string>& validReplicaGroups) {
  const int numExpectedWorkerPods = workerGroupDesiredReplicas(group);
  if (numExpectedWorkerPods % group.numOfHosts != 0) {
    return plain(
        fmt::format("desired worker pods ({}) is not a multiple of NumOfHosts ({}) for "
                    "group {}",
                    numExpectedWorkerPods, group.numOfHosts, group.groupName));
  }
  const int replicasToCreate =
      numExpectedWorkerPods / group.numOfHosts - static_cast<int>(validReplicaGroups.size());
  if (replicasToCreate > 0) {
    // Replica groups in use keep their indices; new ones take the lowest free.
    std::set<int> validReplicaIndices;
    for (const std::string& replicaName : validReplicaGroups) {
      const std::vector<ObjectPtr>& pods = replicaMap.at(replicaName);
      if (auto index = integerLabel(*pods.front(), kRayWorkerReplicaIndexKey)) {
        validReplicaIndices.insert(*index);
      }
    }
    for (int i = 0; i < replicasToCreate; ++i) {
      const int replicaIndex = takeLowestFreeIndex(validReplicaIndices);
      const std::string replicaName = generateReplicaGroupName(group.groupName);
      for (int host = 0; host < group.numOfHosts; ++host) {
        if (auto f = createWorkerPodWithIndex(instance, group, replicaName, replicaIndex, host)) {
          return f;
        }
      }
    }
  } else if (replicasToCreate < 0 &&
             (!isAutoscalingEnabled(instance) || options_.enableRandomPodDelete)) {
    // Scale down NumOfHosts workers per replica; with the autoscaler on, only it deletes.
    for (int i = 0; i < -replicasToCreate; ++i) {
      if (auto f = deletePods(instance, replicaMap.at(validReplicaGroups[i]), group.groupName,
                              "scaling down")) {
        return f;
      }
    }
  }
  return std::nullopt;
}

}  // namespace fakekube::ray
