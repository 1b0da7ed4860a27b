#include "controllers/ray/raycluster_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "controllers/ray/constants.h"
#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/naming.h"
#include "controllers/ray/pod_builder.h"
#include "controllers/ray/raycluster_status.h"
#include "controllers/ray/raycluster_types.h"
#include "controllers/ray/raycluster_validation.h"
#include "controllers/ray/redis_cleanup_job.h"
#include "controllers/ray/scale_expectations.h"
#include "controllers/ray/service_builder.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/runtime/builder.h"

namespace fakekube::ray {

namespace {

using Failure = std::optional<ReconcileFailure>;

const Json& memberOrNull(const Json& object, std::string_view key) {
  static const Json kNull;
  const Json* found = jsonFind(object, key);
  return found != nullptr ? *found : kNull;
}

// The member's text, or "" when it is absent or not a string: a reference into `object`, which
// must outlive it.
const std::string& stringMember(const Json& object, std::string_view key) {
  static const std::string kEmpty;
  const Json& v = memberOrNull(object, key);
  return v.is_string() ? v.get_ref<const std::string&>() : kEmpty;
}

// errors.Join(tag, err): the tag, a newline, the error.
ReconcileFailure tagged(std::string_view tag, const Status& error) {
  ReconcileFailure f{error, std::string(tag)};
  f.status.message = std::string(tag) + "\n" + error.message;
  return f;
}

ReconcileFailure plain(Status error) { return ReconcileFailure{std::move(error), ""}; }

ReconcileFailure plain(std::string message) {
  return ReconcileFailure{Status::internal(message), ""};
}

std::string selectorOf(std::initializer_list<std::pair<std::string_view, std::string>> labels) {
  std::string out;
  for (const auto& [k, v] : labels) {
    if (!out.empty()) out += ",";
    out += std::string(k) + "=" + v;
  }
  return out;
}

// getRayContainerStateTerminated: the Ray container's state.terminated, found by name
// (containerStatuses need not follow the order of the containers).
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

// The terminated state as the Event messages show it (JSON), or "nil".
std::string rayContainerTerminatedText(const Json& pod) {
  const Json* t = rayContainerStateTerminated(pod);
  return t ? t->dump() : "nil";
}

}  // namespace

namespace {

// shouldDeletePod's verdict alone, without the message it formats (every pod of every round asks).
bool podNeedsDeletion(const Json& pod) {
  const std::string& phase = stringMember(memberOrNull(pod, "status"), "phase");
  if (phase == "Failed" || phase == "Succeeded") return true;
  return phase == "Running" && rayContainerStateTerminated(pod) != nullptr &&
         stringMember(memberOrNull(pod, "spec"), "restartPolicy") == "Never";
}

}  // namespace

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

namespace {

class RayClusterReconciler : public std::enable_shared_from_this<RayClusterReconciler> {
 public:
  RayClusterReconciler(Manager& manager, OperatorOptions options)
      : manager_(manager),
        options_(std::move(options)),
        expectations_(manager.client(), manager.executor().clock(), kExpectationsTimeout),
        recorder_(manager.eventRecorder("raycluster-controller")) {}

  ReconcileOutcome reconcile(const ReconcileRequest& request);

 private:
  Client& client() { return manager_.client(); }
  TimePoint now() { return manager_.executor().clock().now(); }
  void event(const Json& instance, std::string_view type, std::string_view reason,
             const std::string& message) {
    (void)recorder_.event(instance, type, reason, message);
  }

  // The round on the cached RayCluster, shared rather than copied (a cached object is const):
  // only what the round writes back copies it.
  ReconcileOutcome rayClusterReconcile(ObjectPtr cached);
  // The GCS fault tolerance Redis cleanup finalizer; nullopt: carry on with the round.
  std::optional<ReconcileOutcome> reconcileRedisCleanupFinalizer(const Json& instance);
  Failure reconcileHeadService(const Json& instance);
  Failure reconcileHeadlessService(const Json& instance);
  Failure reconcileServeService(const Json& instance);
  // createService: a controller owner reference, then CreatedService or FailedToCreateService.
  Failure createService(const Json& instance, Json service);
  Failure reconcilePods(const Json& instance);
  Failure createHeadPod(const Json& instance, const std::string& clusterHash);
  Failure createWorkerPod(const Json& instance, const WorkerGroupSpec& group, int replicaIndex);
  bool shouldRecreatePodsForUpgrade(const Json& instance);
  // deleteAllPods: DeleteAllOf the selected pods, only if one of them is not terminating yet.
  Result<void> deleteAllPods(const std::string& ns, const std::string& selector,
                             const std::vector<ObjectPtr>& selected);
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
  ScaleExpectations expectations_;
  EventRecorder& recorder_;
};

std::vector<ObjectPtr> RayClusterReconciler::clusterObjects(const GroupVersionResource& gvr,
                                                            const std::string& ns,
                                                            const std::string& name) {
  std::vector<ObjectPtr> items = manager_.cache().informerFor(gvr).byIndex(
      kLabelIndex, std::string(kRayClusterLabelKey) + "=" + name);
  std::erase_if(items, [&ns](const ObjectPtr& o) { return meta::namespace_(*o) != ns; });
  return items;
}

// The objects of `items` whose label `key` is `value`.
std::vector<ObjectPtr> withLabel(std::vector<ObjectPtr> items, std::string_view key,
                                 std::string_view value) {
  std::erase_if(items, [&](const ObjectPtr& o) { return meta::label(*o, key) != value; });
  return items;
}

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

ReconcileOutcome RayClusterReconciler::reconcile(const ReconcileRequest& request) {
  auto instance = client().getShared(kRayClusters, request.namespace_, request.name);
  if (instance) return rayClusterReconcile(std::move(*instance));
  if (isNotFound(instance.error())) {
    expectations_.deleteCluster(request.name, request.namespace_);
    return ReconcileResult{};
  }
  return reconcileError(instance.error());
}

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

  Failure reconcileErr = reconcileHeadService(instance);
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
  // The RayCluster written back with the finalizer added or removed (the cached one is shared).
  auto writeFinalizer = [&](bool add) {
    Json written = instance;
    if (add) {
      meta::addFinalizer(written, finalizer);
    } else {
      meta::removeFinalizer(written, finalizer);
    }
    return client().update(kRayClusters, std::move(written));
  };
  // A cluster that moved to the embedded backend keeps a stale finalizer: drop it on deletion.
  if (meta::isDeleting(instance) && embedded && meta::hasFinalizer(instance, finalizer)) {
    if (auto updated = writeFinalizer(false); !updated) {
      return reconcileError(updated.error(), requeueSoon);
    }
    return ReconcileResult{};
  }
  if (!options_.enableGcsFtRedisCleanup || !isGcsFaultToleranceEnabled(instance) || embedded) {
    return std::nullopt;
  }
  const std::string ns = meta::namespace_(instance);
  const std::string name = meta::name(instance);
  if (!meta::isDeleting(instance)) {
    if (meta::hasFinalizer(instance, finalizer)) return std::nullopt;
    if (auto updated = writeFinalizer(true); !updated) {
      Status error = updated.error();
      error.message = fmt::format("failed to add the finalizer {} to the RayCluster: {}", finalizer,
                                  error.message);
      return reconcileError(error, requeueSoon);
    }
    // Only start reconciling the cluster once the finalizer is on it.
    return requeueSoon;
  }

  // Being deleted: the head pod first (its GCS must stop writing to Redis), the workers too.
  const std::vector<ObjectPtr> pods = clusterObjects(kPods, ns, name);
  const std::vector<ObjectPtr> headPods = withLabel(pods, kRayNodeTypeLabelKey, kHeadNode);
  if (auto deleted = deleteAllPods(
          ns,
          selectorOf({{kRayClusterLabelKey, name}, {kRayNodeTypeLabelKey, std::string(kHeadNode)}}),
          headPods);
      !deleted) {
    return reconcileError(deleted.error(), requeueSoon);
  }
  if (auto deleted = deleteAllPods(ns,
                                   selectorOf({{kRayClusterLabelKey, name},
                                               {kRayNodeTypeLabelKey, std::string(kWorkerNode)}}),
                                   withLabel(pods, kRayNodeTypeLabelKey, kWorkerNode));
      !deleted) {
    return reconcileError(deleted.error(), requeueSoon);
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
  TimePoint deletedAtTime;
  const bool hasDeletedAt = parseRfc3339(meta::deletionTimestamp(instance), &deletedAtTime);
  const TimePoint* deletedAt = hasDeletedAt ? &deletedAtTime : nullptr;
  if (deletedAt && now() - *deletedAt >= timeout) {
    if (auto updated = writeFinalizer(false); !updated) {
      return reconcileError(updated.error(), requeueSoon);
    }
    event(instance, "Warning", "ForceDeletedStuckCluster",
          fmt::format("Force-removed GCS FT finalizer after {}s due to Redis cleanup timeout; "
                      "Redis storage namespace \"{}\" may need manual cleanup",
                      std::chrono::duration_cast<std::chrono::seconds>(now() - *deletedAt).count(),
                      meta::annotation(instance, kRayExternalStorageNSAnnotationKey)));
    return ReconcileResult{};
  }

  std::vector<ObjectPtr> jobs =
      withLabel(clusterObjects(kJobs, ns, name), kRayNodeTypeLabelKey, kRedisCleanupNode);
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
    if (auto updated = writeFinalizer(false); !updated) {
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

Failure RayClusterReconciler::createWorkerPod(const Json& instance, const WorkerGroupSpec& group,
                                              int replicaIndex) {
  const std::string ns = meta::namespace_(instance);
  auto created =
      client().createShared(kPods, buildWorkerPod(instance, group, options_, replicaIndex));
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
  const std::vector<ObjectPtr> headPodList =
      withLabel(clusterPods, kRayNodeTypeLabelKey, kHeadNode);
  const std::vector<ObjectPtr>* headPods = &headPodList;

  if (!expectations_.isSatisfied(ns, name, kExpectationsHeadGroup)) {
    // Reconcile the head later.
  } else if (headPods->size() == 1) {
    const Json& headPod = *headPods->front();
    if (podNeedsDeletion(headPod)) {
      const std::string reason = shouldDeletePod(headPod, kHeadNode).second;
      const std::string podName = meta::name(headPod);
      const std::string phase = stringMember(memberOrNull(headPod, "status"), "phase");
      const std::string restartPolicy =
          stringMember(memberOrNull(headPod, "spec"), "restartPolicy");
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
  } else if (headPods->empty()) {
    const Json& conditions = memberOrNull(memberOrNull(instance, "status"), "conditions");
    if (isStatusConditionTrue(conditions, kRayClusterProvisioned) &&
        meta::annotation(instance, kDisableProvisionedHeadRestartAnnotationKey) == "true") {
      return std::nullopt;
    }
    // The hash of the spec the head pod is stamped with (computed only when one is created).
    if (auto f = createHeadPod(instance, clusterHash(instance))) return f;
  } else {
    std::string names;
    for (const ObjectPtr& p : *headPods) names += (names.empty() ? "" : " ") + meta::name(*p);
    return plain(fmt::format("{} head pods found [{}]. Please delete extra head pods",
                             headPods->size(), names));
  }

  const bool autoscaling = isAutoscalingEnabled(instance);
  for (const WorkerGroupSpec& group : workerGroupSpecs(instance)) {
    if (!expectations_.isSatisfied(ns, name, group.groupName)) continue;
    const int expected = workerGroupDesiredReplicas(group);
    const std::string groupSelector =
        selectorOf({{kRayClusterLabelKey, name}, {kRayNodeGroupLabelKey, group.groupName}});
    const std::vector<ObjectPtr> groupPods =
        withLabel(clusterPods, kRayNodeGroupLabelKey, group.groupName);
    const std::vector<ObjectPtr>* workerPods = &groupPods;

    if (group.suspend) {
      if (auto deleted = deleteAllPods(ns, groupSelector, groupPods); !deleted) {
        event(instance, "Warning", "FailedToDeleteWorkerPodCollection",
              fmt::format("Failed deleting worker Pods for suspended group {} in RayCluster "
                          "{}/{}, {}",
                          group.groupName, ns, name, deleted.error().message));
        return tagged("FailedDeleteWorkerPod", deleted.error());
      }
      event(instance, "Normal", "DeletedWorkerPod",
            fmt::format("Deleted all pods for suspended worker group {} in RayCluster {}/{}",
                        group.groupName, ns, name));
      continue;
    }

    // Unhealthy workers: delete them, and create nothing this round.
    std::set<std::string> deletedWorkers;
    int deletedUnhealthy = 0;
    for (const ObjectPtr& podPtr : *workerPods) {
      const Json& pod = *podPtr;
      // The reason (a log line) is only written for a pod that goes.
      if (!podNeedsDeletion(pod)) continue;
      const std::string reason = shouldDeletePod(pod, kWorkerNode).second;
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
      expectations_.expectScalePod(ns, name, group.groupName, podName, ScaleAction::Delete);
      event(instance, "Normal", "DeletedWorkerPod",
            fmt::format("Deleted worker Pod {}/{}; Pod status: {}; Pod restart policy: {}; Ray "
                        "container terminated status: {}",
                        ns, podName, phase, restartPolicy, rayContainerTerminatedText(pod)));
    }
    if (deletedUnhealthy > 0) {
      return plain(fmt::format("delete {} unhealthy worker Pods", deletedUnhealthy));
    }

    // Always remove the pods named in workersToDelete, whatever the replicas say.
    for (const std::string& podName : group.workersToDelete) {
      auto deleted = client().deleteObject(kPods, ns, podName);
      if (!deleted) {
        if (!isNotFound(deleted.error())) {
          event(instance, "Warning", "FailedToDeleteWorkerPod",
                fmt::format("Failed deleting pod {}/{}, {}", ns, podName, deleted.error().message));
          return tagged("FailedDeleteWorkerPod", deleted.error());
        }
      } else {
        expectations_.expectScalePod(ns, name, group.groupName, podName, ScaleAction::Delete);
        deletedWorkers.insert(podName);
        event(instance, "Normal", "DeletedWorkerPod",
              fmt::format("Deleted pod {}/{}", ns, podName));
      }
    }

    std::vector<const Json*> running;
    for (const ObjectPtr& pod : *workerPods) {
      if (!deletedWorkers.count(meta::name(*pod))) running.push_back(pod.get());
    }
    const int diff = expected - static_cast<int>(running.size());
    if (diff > 0) {
      // RayMultiHostIndexing: each new pod takes the lowest free replica index.
      std::set<int> usedIndices;
      for (const Json* pod : running) {
        const std::string index = meta::label(*pod, kRayWorkerReplicaIndexKey);
        try {
          std::size_t used = 0;
          int value = std::stoi(index, &used);
          if (used == index.size()) usedIndices.insert(value);
        } catch (...) {
        }
      }
      int nextIndex = 0;
      for (int i = 0; i < diff; ++i) {
        while (usedIndices.count(nextIndex)) ++nextIndex;
        usedIndices.insert(nextIndex);
        if (auto f = createWorkerPod(instance, group, nextIndex)) return f;
      }
    } else if (diff < 0) {
      // With the autoscaler on, it alone picks the pods to delete (unless random deletion is
      // enabled).
      if (!autoscaling || options_.enableRandomPodDelete) {
        for (int i = 0; i < -diff; ++i) {
          const Json& pod = *running[i];
          const std::string podName = meta::name(pod);
          auto deleted = client().deleteObject(kPods, ns, podName);
          if (!deleted && !isNotFound(deleted.error())) {
            event(
                instance, "Warning", "FailedToDeleteWorkerPod",
                fmt::format("Failed deleting Pod {}/{}, {}", ns, podName, deleted.error().message));
            return tagged("FailedDeleteWorkerPod", deleted.error());
          }
          expectations_.expectScalePod(ns, name, group.groupName, podName, ScaleAction::Delete);
          event(instance, "Normal", "DeletedWorkerPod",
                fmt::format("Deleted Pod {}/{}", ns, podName));
        }
      }
    }
  }
  return std::nullopt;
}

tl::expected<bool, Status> RayClusterReconciler::updateRayClusterStatus(const Json& oldStatus,
                                                                        Json next) {
  const Json& newStatus = memberOrNull(next, "status");
  if (!inconsistentRayClusterStatus(oldStatus, newStatus)) return false;
  auto written = client().updateStatusShared(kRayClusters, std::move(next));
  if (!written) return tl::unexpected(written.error());
  return true;
}

}  // namespace

Result<Controller*> addRayClusterController(Manager& manager, const OperatorOptions& options) {
  auto reconciler = std::make_shared<RayClusterReconciler>(manager, options);
  // The Redis cleanup Jobs are read from the cache: its informer syncs with the others.
  if (options.enableGcsFtRedisCleanup) manager.cache().informerFor(kJobs);
  ControllerOptions controllerOptions;
  controllerOptions.maxConcurrentReconciles = std::max(1, options.reconcileConcurrency);
  return ControllerBuilder(manager)
      .named("raycluster")
      .forResource(kRayClusters,
                   predicate::or_({predicate::generationChanged(), predicate::labelChanged(),
                                   predicate::annotationChanged()}))
      .forKind(std::string(kRayClusterKind))
      .owns(kPods)
      .owns(kServices)
      .withOptions(std::move(controllerOptions))
      .complete(
          [reconciler](const ReconcileRequest& request) { return reconciler->reconcile(request); });
}

}  // namespace fakekube::ray
