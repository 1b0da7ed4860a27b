#include "controllers/ray/internal/raycluster_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "controllers/ray/constants.h"
#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/internal/autoscaler_rbac.h"
#include "controllers/ray/internal/naming.h"
#include "controllers/ray/internal/pod_builder.h"
#include "controllers/ray/internal/raycluster_reconciler.h"
#include "controllers/ray/internal/raycluster_status.h"
#include "controllers/ray/internal/raycluster_validation.h"
#include "controllers/ray/internal/redis_cleanup_job.h"
#include "controllers/ray/internal/scale_expectations.h"
#include "controllers/ray/internal/service_builder.h"
#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/runtime/builder.h"

namespace fakekube::ray {

// getRayContainerStateTerminated: found by name (containerStatuses need not follow the order of
// the containers).
const Json* rayContainerStateTerminated(const Json& pod) {
  const Json& containers = memberOrNull(memberOrNull(pod, "spec"), "containers");
  if (!containers.is_array() || containers.empty()) return nullptr;
  const std::string& rayContainer = stringMember(containers[kRayContainerIndex], "name");
  const Json& statuses = memberOrNull(memberOrNull(pod, "status"), "containerStatuses");
  if (!statuses.is_array()) return nullptr;
  for (const Json& s : statuses) {
    if (stringMember(s, "name") != rayContainer) continue;
    const Json& terminated = memberOrNull(memberOrNull(s, "state"), "terminated");
    return terminated.is_object() ? &terminated : nullptr;
  }
  return nullptr;
}

std::string rayContainerTerminatedText(const Json& pod) {
  const Json* t = rayContainerStateTerminated(pod);
  return t ? t->dump() : "nil";
}

bool podNeedsDeletion(const Json& pod) {
  const std::string& phase = stringMember(memberOrNull(pod, "status"), "phase");
  if (phase == "Failed" || phase == "Succeeded") return true;
  return phase == "Running" && rayContainerStateTerminated(pod) != nullptr &&
         stringMember(memberOrNull(pod, "spec"), "restartPolicy") == "Never";
}

std::pair<bool, std::string> shouldDeletePod(const Json& pod, std::string_view nodeType) {
  const std::string name = meta::name(pod);
  const std::string& phase = stringMember(memberOrNull(pod, "status"), "phase");
  if (phase == "Failed" || phase == "Succeeded") {
    return {true, fmt::format("The {} Pod {} status is {} which is a terminal state. KubeRay will "
                              "delete the Pod and create new Pods in the next reconciliation if "
                              "necessary.",
                              nodeType, name, phase)};
  }
  const Json* terminated = rayContainerStateTerminated(pod);
  const std::string& restartPolicy = stringMember(memberOrNull(pod, "spec"), "restartPolicy");
  if (phase == "Running" && terminated) {
    if (restartPolicy == "Never") {
      return {true, fmt::format("The Pod status of the {} Pod {} is {}, and the Ray container "
                                "terminated status is {}. The container is unable to restart due "
                                "to its restart policy {}, so KubeRay will delete it.",
                                nodeType, name, phase, terminated->dump(), restartPolicy)};
    }
    return {false, fmt::format("The Pod status of the {} Pod {} is {}, and the Ray container "
                               "terminated status is {}. However, KubeRay will not delete the Pod "
                               "because its restartPolicy is set to {} and it should be able to "
                               "restart automatically.",
                               nodeType, name, phase, terminated->dump(), restartPolicy)};
  }
  return {false, fmt::format("KubeRay does not need to delete the {} Pod {}. The Pod status is "
                             "{}, and the Ray container terminated status is {}.",
                             nodeType, name, phase, terminated ? terminated->dump() : "nil")};
}

std::vector<ObjectPtr> RayClusterReconciler::clusterObjects(const GroupVersionResource& gvr,
                                                            const std::string& ns,
                                                            const std::string& name) {
  std::vector<ObjectPtr> items = manager_.cache().informerFor(gvr).byIndex(
      kLabelIndex, std::string(kRayClusterLabelKey) + "=" + name);
  std::erase_if(items, [&ns](const ObjectPtr& o) { return meta::namespace_(*o) != ns; });
  return items;
}

ReconcileOutcome RayClusterReconciler::reconcile(const ReconcileRequest& request) {
  auto instance = client().getShared(kRayClusters, request.namespace_, request.name);
  if (instance) return rayClusterReconcile(std::move(*instance));
  if (isNotFound(instance.error())) {
    expectations_.deleteCluster(request.name, request.namespace_);
    return ReconcileResult{};
  }
  return reconcileError(instance.error());
}

namespace {

// setDefaults: nil rayStartParams -> {} (on a copy: the cache's object is shared).
ObjectPtr withDefaults(ObjectPtr cached) {
  auto missingParams = [](const Json& group) {
    return group.is_object() && memberOrNull(group, "rayStartParams").is_null();
  };
  const Json& spec = memberOrNull(*cached, "spec");
  const Json& head = memberOrNull(spec, "headGroupSpec");
  const Json& workers = memberOrNull(spec, "workerGroupSpecs");
  const bool headMissing = head.is_object() && missingParams(head);
  const bool workerMissing =
      workers.is_array() && std::any_of(workers.begin(), workers.end(), missingParams);
  if (!headMissing && !workerMissing) return cached;
  Json instance = *cached;
  Json& mutableSpec = instance["spec"];
  if (headMissing) mutableSpec["headGroupSpec"]["rayStartParams"] = Json::object();
  if (workerMissing) {
    for (Json& group : mutableSpec["workerGroupSpecs"]) {
      if (missingParams(group)) group["rayStartParams"] = Json::object();
    }
  }
  return std::make_shared<const Json>(std::move(instance));
}

}  // namespace

ReconcileOutcome RayClusterReconciler::rayClusterReconcile(ObjectPtr cached) {
  if (managedByExternalController(*cached)) return ReconcileResult{};
  const ObjectPtr defaulted = withDefaults(std::move(cached));
  const Json& instance = *defaulted;

  const std::string ns = meta::namespace_(instance);
  const std::string name = meta::name(instance);
  if (auto e = validateRayClusterMetadata(instance)) {
    event(instance, "Warning", "InvalidRayClusterMetadata",
          fmt::format("The RayCluster metadata is invalid {}/{}: {}", ns, name, *e));
    return ReconcileResult{};
  }
  if (auto e = validateRayClusterSpec(instance)) {
    event(instance, "Warning", "InvalidRayClusterSpec",
          fmt::format("The RayCluster spec is invalid {}/{}: {}", ns, name, *e));
    return ReconcileResult{};
  }
  if (auto e = validateRayClusterUpgradeOptions(instance)) {
    event(instance, "Warning", "InvalidRayClusterSpec",
          fmt::format("The RayCluster UpgradeStrategy is invalid {}/{}: {}", ns, name, *e));
    return ReconcileResult{};
  }
  if (auto e = validateRayClusterStatus(instance)) {
    event(instance, "Warning", "InvalidRayClusterStatus",
          fmt::format("The RayCluster status is invalid {}/{}, {}", ns, name, *e));
    return reconcileError(Status::badRequest(*e),
                          ReconcileResult{.requeueAfter = kRayClusterDefaultRequeueDuration});
  }

  // Only the status of the object as read is compared with the next one (updateRayClusterStatus).
  const Json& originalStatus = memberOrNull(instance, "status");
  if (auto finalizerOutcome = reconcileRedisCleanupFinalizer(instance)) return *finalizerOutcome;
  if (meta::isDeleting(instance)) return ReconcileResult{};

  Failure reconcileErr = reconcileAutoscalerServiceAccount(instance);
  if (!reconcileErr) reconcileErr = reconcileAutoscalerRole(instance);
  if (!reconcileErr) reconcileErr = reconcileAutoscalerRoleBinding(instance);
  if (!reconcileErr) reconcileErr = reconcileHeadService(instance);
  if (!reconcileErr) reconcileErr = reconcileHeadlessService(instance);
  if (!reconcileErr) reconcileErr = reconcileServeService(instance);
  if (!reconcileErr) reconcileErr = reconcilePods(instance);

  auto next = calculateStatus(instance, reconcileErr ? &*reconcileErr : nullptr,
                              clusterObjects(kPods, ns, name), headServices(ns, name), now());
  bool inconsistent = false;
  std::optional<Status> updateErr;
  if (next) {
    auto updated = updateRayClusterStatus(originalStatus, std::move(*next));
    if (updated) {
      inconsistent = *updated;
    } else {
      updateErr = updated.error();
    }
  }

  std::optional<Status> err;
  if (reconcileErr) {
    err = reconcileErr->status;
  } else if (!next) {
    err = next.error();
  } else {
    err = updateErr;
  }
  const ReconcileResult requeueSoon{.requeueAfter = kRayClusterDefaultRequeueDuration};
  if (err) return reconcileError(*err, requeueSoon);
  if (inconsistent) return requeueSoon;
  return ReconcileResult{.requeueAfter = options_.rayClusterDefaultRequeue};
}

std::optional<ReconcileOutcome> RayClusterReconciler::reconcileRedisCleanupFinalizer(
    const Json& instance) {
  const ReconcileResult requeueSoon{.requeueAfter = kRayClusterDefaultRequeueDuration};
  const Json& spec = memberOrNull(instance, "spec");
  const bool embedded =
      stringMember(memberOrNull(spec, "gcsFaultToleranceOptions"), "backend") == "rocksdb";
  const std::string finalizer(kGCSFaultToleranceRedisCleanupFinalizer);
  // A cluster that moved to the embedded backend keeps a stale finalizer: drop it on deletion.
  if (meta::isDeleting(instance) && embedded && meta::hasFinalizer(instance, finalizer)) {
    if (auto updated = writeRedisCleanupFinalizer(instance, false); !updated) {
      return reconcileError(updated.error(), requeueSoon);
    }
    return ReconcileResult{};
  }
  if (!options_.enableGcsFtRedisCleanup || !isGcsFaultToleranceEnabled(instance) || embedded) {
    return std::nullopt;
  }
  if (meta::isDeleting(instance)) return reconcileRedisCleanupOnDeletion(instance);
  if (meta::hasFinalizer(instance, finalizer)) return std::nullopt;
  if (auto updated = writeRedisCleanupFinalizer(instance, true); !updated) {
    Status error = updated.error();
    error.message = fmt::format("failed to add the finalizer {} to the RayCluster: {}", finalizer,
                                error.message);
    return reconcileError(error, requeueSoon);
  }
  // Only start reconciling the cluster once the finalizer is on it.
  return requeueSoon;
}

Result<Json> RayClusterReconciler::writeRedisCleanupFinalizer(const Json& instance, bool add) {
  const std::string finalizer(kGCSFaultToleranceRedisCleanupFinalizer);
  Json written = instance;
  if (add) {
    meta::addFinalizer(written, finalizer);
  } else {
    meta::removeFinalizer(written, finalizer);
  }
  return client().update(kRayClusters, std::move(written));
}

ReconcileOutcome RayClusterReconciler::reconcileRedisCleanupOnDeletion(const Json& instance) {
  const ReconcileResult requeueSoon{.requeueAfter = kRayClusterDefaultRequeueDuration};
  const std::string ns = meta::namespace_(instance);
  const std::string name = meta::name(instance);
  // The head pod first (its GCS must stop writing to Redis), the workers too.
  const std::vector<ObjectPtr> pods = clusterObjects(kPods, ns, name);
  const std::vector<ObjectPtr> headPods = withLabel(pods, kRayNodeTypeLabelKey, kHeadNode);
  for (std::string_view nodeType : {kHeadNode, kWorkerNode}) {
    const auto selector =
        selectorOf({{kRayClusterLabelKey, name}, {kRayNodeTypeLabelKey, std::string(nodeType)}});
    auto deleted = deleteAllPods(ns, selector, withLabel(pods, kRayNodeTypeLabelKey, nodeType));
    if (!deleted) return reconcileError(deleted.error(), requeueSoon);
  }
  if (!headPods.empty()) {
    // Terminating a head takes much longer than 2 s.
    return ReconcileResult{.requeueAfter = std::chrono::seconds(10)};
  }

  // A cleanup stuck past the deletion timeout: force the finalizer off.
  Duration timeout = options_.gcsFtDeletionTimeout;
  const std::string annotation =
      meta::annotation(instance, kGCSFaultToleranceDeletionTimeoutAnnotation);
  try {
    std::size_t used = 0;
    const long seconds = annotation.empty() ? 0 : std::stol(annotation, &used);
    if (seconds > 0 && used == annotation.size()) timeout = std::chrono::seconds(seconds);
  } catch (...) {
  }
  TimePoint deletedAt;
  if (parseRfc3339(meta::deletionTimestamp(instance), &deletedAt) && now() - deletedAt >= timeout) {
    if (auto updated = writeRedisCleanupFinalizer(instance, false); !updated) {
      return reconcileError(updated.error(), requeueSoon);
    }
    event(instance, "Warning", "ForceDeletedStuckCluster",
          fmt::format("Force-removed GCS FT finalizer after {}s due to Redis cleanup timeout; "
                      "Redis storage namespace \"{}\" may need manual cleanup",
                      std::chrono::duration_cast<std::chrono::seconds>(now() - deletedAt).count(),
                      meta::annotation(instance, kRayExternalStorageNSAnnotationKey)));
    return ReconcileResult{};
  }
  return reconcileRedisCleanupJob(instance);
}

ReconcileOutcome RayClusterReconciler::reconcileRedisCleanupJob(const Json& instance) {
  const ReconcileResult requeueSoon{.requeueAfter = kRayClusterDefaultRequeueDuration};
  const std::string ns = meta::namespace_(instance);
  std::vector<ObjectPtr> jobs = withLabel(clusterObjects(kJobs, ns, meta::name(instance)),
                                          kRayNodeTypeLabelKey, kRedisCleanupNode);
  if (!jobs.empty()) {
    const Json& conditions = memberOrNull(memberOrNull(*jobs.front(), "status"), "conditions");
    bool finished = false;
    if (conditions.is_array()) {
      for (const Json& c : conditions) {
        const std::string type = stringMember(c, "type");
        if ((type == "Complete" || type == "Failed" || type == "FailureTarget") &&
            stringMember(c, "status") == "True") {
          finished = true;
        }
      }
    }
    if (!finished) return requeueSoon;  // the Job is still running
    if (auto updated = writeRedisCleanupFinalizer(instance, false); !updated) {
      return reconcileError(updated.error(), requeueSoon);
    }
    return ReconcileResult{};
  }
  Json job = buildRedisCleanupJob(instance, options_);
  const std::string jobName = meta::name(job);
  auto created = client().create(kJobs, std::move(job));
  if (!created) {
    if (isAlreadyExists(created.error())) return requeueSoon;
    event(instance, "Warning", "FailedToCreateRedisCleanupJob",
          fmt::format("Failed to create Redis cleanup Job {}/{}, {}", ns, jobName,
                      created.error().message));
    return reconcileError(created.error(), requeueSoon);
  }
  event(instance, "Normal", "CreatedRedisCleanupJob",
        fmt::format("Created Redis cleanup Job {}/{}", ns, jobName));
  return requeueSoon;
}

Failure RayClusterReconciler::reconcileAutoscalerServiceAccount(const Json& instance) {
  auto reconciled = ray::reconcileAutoscalerServiceAccount(client(), recorder_, instance);
  return reconciled ? Failure() : plain(reconciled.error());
}

Failure RayClusterReconciler::reconcileAutoscalerRole(const Json& instance) {
  auto reconciled = ray::reconcileAutoscalerRole(client(), recorder_, instance);
  return reconciled ? Failure() : plain(reconciled.error());
}

Failure RayClusterReconciler::reconcileAutoscalerRoleBinding(const Json& instance) {
  auto reconciled = ray::reconcileAutoscalerRoleBinding(client(), recorder_, instance);
  return reconciled ? Failure() : plain(reconciled.error());
}

Failure RayClusterReconciler::reconcileHeadService(const Json& instance) {
  const std::string ns = meta::namespace_(instance);
  const std::string name = meta::name(instance);
  const std::vector<ObjectPtr> items = headServices(ns, name);
  if (items.size() == 1) return std::nullopt;
  if (items.size() > 1) {
    std::string names;
    for (const ObjectPtr& s : items) names += (names.empty() ? "" : " ") + meta::name(*s);
    return plain(fmt::format("{} head service found [{}]", items.size(), names));
  }
  auto service = buildHeadService(instance, options_);
  if (!service) return plain(service.error());
  return createService(instance, std::move(*service));
}

Failure RayClusterReconciler::createService(const Json& instance, Json service) {
  const std::string ns = meta::namespace_(instance);
  meta::addOwnerReference(service, meta::controllerRefTo(instance));
  const std::string serviceName = meta::name(service);
  auto created = client().createShared(kServices, std::move(service));
  if (!created) {
    event(
        instance, "Warning", "FailedToCreateService",
        fmt::format("Failed creating service {}/{}, {}", ns, serviceName, created.error().message));
    return plain(created.error());
  }
  event(instance, "Normal", "CreatedService",
        fmt::format("Created service {}/{}", ns, meta::name(**created)));
  return std::nullopt;
}

Failure RayClusterReconciler::reconcileServeService(const Json& instance) {
  if (meta::annotation(instance, kEnableServeServiceKey) != "true") return std::nullopt;
  const std::string ns = meta::namespace_(instance);
  auto existing =
      client().get(kServices, ns, meta::name(instance) + "-" + std::string(kServeServiceSuffix));
  if (existing) return std::nullopt;
  if (!isNotFound(existing.error())) return plain(existing.error());
  auto service = buildServeService(instance);
  if (!service) return plain(service.error());
  meta::addOwnerReference(*service, meta::controllerRefTo(instance));
  // KubeRay creates this one without an Event.
  if (auto created = client().createShared(kServices, std::move(*service)); !created) {
    return plain(created.error());
  }
  return std::nullopt;
}

Failure RayClusterReconciler::reconcileHeadlessService(const Json& instance) {
  bool multiHost = false;
  for (const WorkerGroupSpec& group : workerGroupSpecs(instance)) {
    if (group.numOfHosts > 1) multiHost = true;
  }
  if (!multiHost) return std::nullopt;
  const std::string ns = meta::namespace_(instance);
  std::vector<ObjectPtr> existing = manager_.cache().informerFor(kServices).byIndex(
      kLabelIndex, std::string(kRayClusterHeadlessServiceLabelKey) + "=" + meta::name(instance));
  std::erase_if(existing, [&ns](const ObjectPtr& o) { return meta::namespace_(*o) != ns; });
  if (!existing.empty()) return std::nullopt;
  return createService(instance, buildHeadlessService(instance));
}

tl::expected<bool, Status> RayClusterReconciler::updateRayClusterStatus(const Json& oldStatus,
                                                                        Json next) {
  const Json& newStatus = memberOrNull(next, "status");
  if (!inconsistentRayClusterStatus(oldStatus, newStatus)) return false;
  auto written = client().updateStatusShared(kRayClusters, std::move(next));
  if (!written) return tl::unexpected(written.error());
  return true;
}

Result<Controller*> addRayClusterController(Manager& manager, const OperatorOptions& options) {
  auto reconciler = std::make_shared<RayClusterReconciler>(manager, options);
  // The Redis cleanup Jobs are read from the cache: its informer syncs with the others.
  if (options.enableGcsFtRedisCleanup) manager.cache().informerFor(kJobs);
  ControllerOptions controllerOptions;
  controllerOptions.maxConcurrentReconciles = std::max(1, options.reconcileConcurrency);
  ControllerBuilder builder(manager);
  builder.named("raycluster")
      .forResource(kRayClusters,
                   predicate::or_({predicate::generationChanged(), predicate::labelChanged(),
                                   predicate::annotationChanged()}))
      .forKind(std::string(kRayClusterKind))
      .owns(kPods)
      .owns(kServices)
      .withOptions(std::move(controllerOptions));
  // ConfigureReconciler: the batch scheduler's group kind (Volcano's PodGroup).
  auto scheduler =
      batchscheduler::newBatchScheduler(options.batchScheduler, options.enableBatchScheduler);
  if (!scheduler) return tl::unexpected(scheduler.error());
  if (*scheduler && (*scheduler)->ownedResource()) builder.owns(*(*scheduler)->ownedResource());
  return builder.complete(
      [reconciler](const ReconcileRequest& request) { return reconciler->reconcile(request); });
}

}  // namespace fakekube::ray
