#include "controllers/ray/internal/rayservice_controller.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "controllers/ray/constants.h"
#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/internal/naming.h"
#include "controllers/ray/internal/pod_builder.h"
#include "controllers/ray/internal/ray_clients.h"
#include "controllers/ray/internal/rayservice_cluster.h"
#include "controllers/ray/internal/rayservice_incremental_upgrade.h"
#include "controllers/ray/internal/rayservice_reconciler.h"
#include "controllers/ray/internal/rayservice_types.h"
#include "controllers/ray/internal/rayservice_validation.h"
#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/runtime/builder.h"

namespace fakekube::ray {

namespace {

const ReconcileResult kRequeue{.requeueAfter = kRayServiceDefaultRequeueDuration};

// Go's `return ctrl.Result{RequeueAfter: 2s}, err`: the error wins (controller-runtime ignores
// the result and requeues through the rate limiter).
tl::unexpected<ReconcileError> requeueError(Status status) {
  return reconcileError(std::move(status), kRequeue);
}

// RayServiceRayClustersAssociationOptions: what the RayService created, by its labels.
ListOptions associationOptions(const Json& rayService) {
  ListOptions options;
  options.labelSelector =
      fmt::format("{}={},{}={}", kRayOriginatedFromCRNameLabelKey, meta::name(rayService),
                  kRayOriginatedFromCRDLabelKey, kRayServiceKind);
  return options;
}

// suspendIsOperative: Suspending or Suspended is True; the suspend state machine owns the round.
bool suspendIsOperative(const Json& rayService) {
  return isRayServiceConditionTrue(rayService, kRayServiceSuspending) ||
         isRayServiceConditionTrue(rayService, kRayServiceSuspended);
}

// isInitializingTimeout: Ready is False with reason InitializingTimeout (a terminal failure).
bool isInitializingTimeout(const Json& rayService) {
  const Json* ready = findRayServiceCondition(rayService, kRayServiceReady);
  return ready != nullptr && stringField(*ready, "status") == "False" &&
         stringField(*ready, "reason") == kRayServiceInitializingTimeout;
}

// As Go's Update decodes the answer into the object: the stored metadata, our status.
void adoptMetadata(Json& rayService, const Json& answer) {
  if (const Json* metadata = jsonFind(answer, "metadata")) rayService["metadata"] = *metadata;
}

}  // namespace

RayServiceReconciler::RayServiceReconciler(Manager& manager, OperatorOptions options,
                                           DashboardClientFactory dashboards,
                                           HttpProxyClientFactory proxies)
    : manager_(manager),
      options_(std::move(options)),
      dashboards_(std::move(dashboards)),
      proxies_(std::move(proxies)),
      recorder_(manager.eventsV1Recorder("rayservice-controller")),
      random_(options_.randomSeed ? *options_.randomSeed ^ 0x9e3779b97f4a7c15ULL
                                  : std::random_device{}()) {}

std::string RayServiceReconciler::generateRayClusterName(const std::string& rayServiceName) {
  std::lock_guard lock(randomMutex_);
  return rayServiceName + "-" + randomString(random_, 5);
}

ReconcileOutcome RayServiceReconciler::reconcile(const ReconcileRequest& request) {
  auto got = client().get(kRayServices, request.namespace_, request.name);
  if (!got) {
    if (isNotFound(got.error())) return ReconcileResult{};
    return reconcileError(got.error());
  }
  Json rayService = std::move(*got);
  const Json original = rayService;
  if (!rayService["status"].is_object()) rayService["status"] = Json::object();

  // ManagedByExternalController: anything but KubeRay's own name.
  if (const Json& managedBy = jsonAt(rayService, {"spec", "managedBy"});
      managedBy.is_string() && managedBy.get<std::string>() != "ray.io/kuberay-operator") {
    return ReconcileResult{};
  }

  cleanUpServeConfigCache(rayService);
  auto hasRayClustersToClean = cleanUpRayClusterInstance(rayService);
  if (!hasRayClustersToClean) return reconcileError(hasRayClustersToClean.error());

  if (meta::isDeleting(rayService)) return handleDeletion(rayService, *hasRayClustersToClean);

  if (!meta::hasFinalizer(rayService, kRayServiceFinalizer)) {
    meta::addFinalizer(rayService, kRayServiceFinalizer);
    if (auto updated = client().update(kRayServices, rayService); !updated) {
      return requeueError(updated.error());
    }
    return kRequeue;
  }

  // validateRayService: the metadata, then the spec.
  if (auto invalid = validateRayServiceMetadata(rayService)) {
    return failValidation(rayService, "InvalidRayServiceMetadata", *invalid);
  }
  if (auto invalid = validateRayServiceSpec(rayService, options_.rayServiceIncrementalUpgrade)) {
    return failValidation(rayService, "InvalidRayServiceSpec", *invalid);
  }

  std::optional<Status> error;
  ReconcileResult result = handleSuspend(rayService, &error);
  if (auto written = updateStatusIfChanged(original, rayService); !written && !error) {
    error = written.error();
    if (result.isZero()) result = kRequeue;
  }
  if (error) return reconcileError(*error, result);
  if (suspendIsOperative(rayService)) return result;

  // A RayService that timed out while initializing is a terminal failure: only the cleanup
  // above runs (the user deletes and recreates it).
  if (isInitializingTimeout(rayService)) {
    if (*hasRayClustersToClean) return kRequeue;
    return ReconcileResult{};
  }
  return reconcileRound(rayService, original);
}

ReconcileOutcome RayServiceReconciler::reconcileRound(Json& rayService, const Json& original) {
  // The active and pending clusters the status names (creating the pending one, updating either
  // in place when only appended worker groups or the KubeRay version differ).
  auto clusters = reconcileRayCluster(rayService);
  if (!clusters) {
    // client.IgnoreNotFound: a NotFound is only a requeue.
    if (isNotFound(clusters.error())) return kRequeue;
    return requeueError(clusters.error());
  }
  const Json& active = clusters->first;
  const Json& pending = clusters->second;

  // The rollback state is decided before anything serves.
  if (incrementalUpgrade(rayService) && isRayServiceConditionTrue(rayService, kUpgradeInProgress)) {
    if (active.is_null()) {
      event(rayService, "Warning", "RollbackImpossible",
            "Active cluster not found, rollback cannot be initiated");
    } else if (!pending.is_null()) {
      reconcileRollbackState(rayService, active, pending, now());
    }
  }

  // The head's serve label by its proxy's health, on both clusters (the head has no readiness
  // probe for Serve).
  for (const Json* cluster : {&active, &pending}) {
    if (cluster->is_null()) continue;
    if (auto labelled = updateHeadPodServeLabel(rayService, *cluster); !labelled) {
      return requeueError(labelled.error());
    }
  }

  auto serve = reconcileServeApplications(rayService, active, pending);
  if (!serve) return requeueError(serve.error());
  const ServeOutcome& activeServe = serve->first;
  const ServeOutcome& pendingServe = serve->second;

  // NewClusterWithIncrementalUpgrade: the per-cluster serve Services, the Gateway, the HTTPRoute.
  Json httpRoute;
  if (incrementalUpgrade(rayService)) {
    auto routed =
        reconcileIncrementalUpgradeRouting(rayService, active, pending, pendingServe.ready);
    if (!routed) {
      if (isNotFound(routed.error())) return kRequeue;
      return requeueError(routed.error());
    }
    httpRoute = std::move(*routed);
  }

  // The head and serve Services follow the cluster that is ready: the pending one as soon as
  // its applications all run (the switch), else the active one. An incremental upgrade keeps
  // them on the active cluster: the HTTPRoute moves the traffic.
  Json headService;
  Json serveService;
  if (pendingServe.ready || activeServe.ready) {
    const bool incrementalInProgress =
        incrementalUpgrade(rayService) && isRayServiceConditionTrue(rayService, kUpgradeInProgress);
    const Json& target = pendingServe.ready && !incrementalInProgress ? pending : active;
    auto services = reconcileServicesToReadyCluster(rayService, target);
    if (!services) return requeueError(services.error());
    headService = std::move(services->first);
    serveService = std::move(services->second);
  }

  if (auto calculated =
          calculateStatus(rayService, headService, serveService, active, pending,
                          activeServe.applications, pendingServe.applications, httpRoute);
      !calculated) {
    return requeueError(calculated.error());
  }

  if (inconsistentRayServiceStatuses(jsonObjectAt(original, "status"),
                                     jsonObjectAt(rayService, "status"))) {
    rayService["status"]["lastUpdateTime"] = formatRfc3339(now());
    if (auto written = client().updateStatus(kRayServices, rayService); !written) {
      return requeueError(written.error());
    }
  }
  return kRequeue;
}

Result<std::pair<ServeOutcome, ServeOutcome>> RayServiceReconciler::reconcileServeApplications(
    Json& rayService, const Json& active, const Json& pending) {
  // Serve applications: on the pending cluster when there is one, else on the active one unless
  // a new cluster is about to be prepared (no in-place update during an upgrade). During an
  // incremental upgrade both (reconcileServe decides what each gets).
  std::pair<ServeOutcome, ServeOutcome> outcome;
  if (!pending.is_null()) {
    auto serve = reconcileServe(rayService, pending);
    if (!serve) return tl::unexpected(serve.error());
    outcome.second = std::move(*serve);
  }
  const bool activeAlone =
      pending.is_null() &&
      !shouldPrepareNewCluster(rayService, active, Json(), false, options_.enableZeroDowntime,
                               options_.rayServiceIncrementalUpgrade);
  if (!active.is_null() &&
      (activeAlone || (!pending.is_null() && incrementalUpgrade(rayService)))) {
    auto serve = reconcileServe(rayService, active);
    if (!serve) return tl::unexpected(serve.error());
    outcome.first = std::move(*serve);
  }
  return outcome;
}

ReconcileOutcome RayServiceReconciler::handleDeletion(Json& rayService,
                                                      bool hasRayClustersToClean) {
  if (hasRayClustersToClean) return kRequeue;  // waiting for the RayClusters to go
  meta::removeFinalizer(rayService, kRayServiceFinalizer);
  if (auto updated = client().update(kRayServices, rayService); !updated) {
    return requeueError(updated.error());
  }
  return ReconcileResult{};
}

ReconcileOutcome RayServiceReconciler::failValidation(Json& rayService, std::string_view errType,
                                                      const std::string& message) {
  event(rayService, "Warning", errType,
        fmt::format("{}/{}: {}", meta::namespace_(rayService), meta::name(rayService), message));
  setRayServiceCondition(rayService, kRayServiceReady, "False", kRayServiceValidationFailed,
                         message, now());
  rayService["status"]["lastUpdateTime"] = formatRfc3339(now());
  if (auto written = client().updateStatus(kRayServices, rayService); !written) {
    return requeueError(written.error());
  }
  return ReconcileResult{};
}

ReconcileResult RayServiceReconciler::handleSuspend(Json& rayService,
                                                    std::optional<Status>* error) {
  const bool suspending = isRayServiceConditionTrue(rayService, kRayServiceSuspending);
  const bool suspended = isRayServiceConditionTrue(rayService, kRayServiceSuspended);
  const bool requested = isRayServiceSuspendRequested(rayService);
  Json& status = rayService["status"];
  const TimePoint t = now();

  if (suspended) {
    if (requested) return ReconcileResult{};  // stays suspended
    status["observedGeneration"] = meta::generation(rayService);
    setRayServiceCondition(rayService, kRayServiceSuspended, "False", kRayServiceResumed,
                           "Spec.Suspend is false; RayService has resumed.", t);
    // Re-arm the initializing timeout: a fresh lastTransitionTime for the resumed attempt.
    removeRayServiceCondition(rayService, kRayServiceReady);
    setRayServiceCondition(rayService, kRayServiceReady, "False", kRayServiceInitializing,
                           "RayService is initializing after resuming from suspend.", t);
    removeRayServiceCondition(rayService, kUpgradeInProgress);
    setRayServiceCondition(rayService, kUpgradeInProgress, "False", kRayServiceInitializing,
                           "RayService is initializing after resuming from suspend.", t);
    return ReconcileResult{};
  }

  if (!suspending) {
    if (!requested) return ReconcileResult{};
    // Only the transition is staged (and written by the caller); the deletion runs once
    // Suspending is stored.
    status["observedGeneration"] = meta::generation(rayService);
    setRayServiceCondition(
        rayService, kRayServiceSuspending, "True", kSuspendRequested,
        "Spec.Suspend is true; will delete all Kubernetes resources owned by this RayService.", t);
    setRayServiceCondition(rayService, kRayServiceReady, "False", kSuspendInProgress,
                           "RayService is suspending.", t);
    setRayServiceCondition(rayService, kUpgradeInProgress, "False", kSuspendInProgress,
                           "No upgrade in progress.", t);
    setRayServiceCondition(rayService, kRollbackInProgress, "False", kSuspendInProgress,
                           "No rollback in progress.", t);
    status["activeServiceStatus"] = Json::object();
    status["pendingServiceStatus"] = Json::object();
    status["numServeEndpoints"] = 0;
    status.erase("serviceStatus");
    return kRequeue;
  }

  // Suspending is stored: the deletion runs to its end whatever spec.suspend says now.
  auto allDeleted = deleteRayServiceOwnedResources(rayService);
  if (!allDeleted) {
    *error = allDeleted.error();
    return kRequeue;
  }
  if (!*allDeleted) {
    setRayServiceCondition(rayService, kRayServiceSuspending, "True", kSuspendInProgress,
                           "Waiting for all Kubernetes resources owned by this RayService to be "
                           "deleted.",
                           t);
    return kRequeue;
  }
  setRayServiceCondition(rayService, kRayServiceSuspending, "False", kSuspendComplete,
                         "All owned resources have been deleted.", t);
  setRayServiceCondition(rayService, kRayServiceSuspended, "True", kSuspendComplete,
                         "All owned resources have been deleted.", t);
  setRayServiceCondition(rayService, kRayServiceReady, "False", kSuspendComplete,
                         "RayService is suspended.", t);
  setRayServiceCondition(rayService, kUpgradeInProgress, "False", kSuspendComplete,
                         "No upgrade in progress.", t);
  setRayServiceCondition(rayService, kRollbackInProgress, "False", kSuspendComplete,
                         "No rollback in progress.", t);
  return kRequeue;
}

Result<bool> RayServiceReconciler::deleteRayServiceOwnedResources(const Json& rayService) {
  const std::string ns = meta::namespace_(rayService);
  bool allDeleted = true;
  DeleteOptions background;
  background.propagationPolicy = "Background";
  struct Kind {
    const GroupVersionResource& gvr;
    const char* name;
    const char* failedReason;
    const char* deletedReason;
  };
  for (const Kind& kind :
       {Kind{kRayClusters, "RayCluster", "FailedToDeleteRayCluster", "DeletedRayCluster"},
        Kind{kServices, "Service", "FailedToDeleteService", "DeletedService"}}) {
    auto listed = client().list(kind.gvr, ns, associationOptions(rayService));
    if (!listed) return tl::unexpected(listed.error());
    for (const Json& object : jsonArrayAt(*listed, "items")) {
      allDeleted = false;
      if (meta::isDeleting(object)) continue;
      const std::string name = meta::name(object);
      auto deleted = client().deleteObject(kind.gvr, ns, name, background);
      if (!deleted && !isNotFound(deleted.error())) {
        event(rayService, "Warning", kind.failedReason,
              fmt::format("Failed to delete the {} {}/{} during suspend: {}", kind.name, ns, name,
                          deleted.error().message));
        return tl::unexpected(deleted.error());
      }
      event(rayService, "Normal", kind.deletedReason,
            fmt::format("Deleted the {} {}/{} during suspend", kind.name, ns, name));
    }
  }
  return allDeleted;
}

Result<void> RayServiceReconciler::updateStatusIfChanged(const Json& original, Json& rayService) {
  if (!inconsistentRayServiceStatuses(jsonObjectAt(original, "status"),
                                      jsonObjectAt(rayService, "status"))) {
    return {};
  }
  rayService["status"]["lastUpdateTime"] = formatRfc3339(now());
  auto written = client().updateStatus(kRayServices, rayService);
  if (!written) return tl::unexpected(written.error());
  adoptMetadata(rayService, *written);
  return {};
}

Result<bool> RayServiceReconciler::cleanUpRayClusterInstance(const Json& rayService) {
  const std::string ns = meta::namespace_(rayService);
  auto listed = client().list(kRayClusters, ns, associationOptions(rayService));
  if (!listed) return tl::unexpected(listed.error());
  const bool rayServiceIsDeleted = meta::isDeleting(rayService);
  Duration deletionDelay = kRayClusterDeletionDelayDuration;
  if (auto seconds = rayClusterDeletionDelaySeconds(rayService)) {
    deletionDelay = std::chrono::seconds(*seconds);
  }
  if (rayServiceIsDeleted) deletionDelay = Duration{0};
  const std::string active = activeClusterName(rayService);
  const std::string pending = pendingClusterName(rayService);

  bool hasRayClustersToClean = false;
  for (const Json& cluster : jsonArrayAt(*listed, "items")) {
    const std::string name = meta::name(cluster);
    if (!rayServiceIsDeleted && (name == active || name == pending)) continue;
    hasRayClustersToClean = true;
    const std::string key = ns + "/" + name;
    std::optional<TimePoint> scheduled;
    {
      std::lock_guard lock(cacheMutex_);
      if (auto it = deletionTimestamps_.find(key); it != deletionTimestamps_.end()) {
        scheduled = it->second;
      }
      if (!scheduled && !rayServiceIsDeleted) {
        // Scheduled for deletion after the delay (in memory only, as upstream).
        deletionTimestamps_[key] = now() + deletionDelay;
        continue;
      }
    }
    if (!rayServiceIsDeleted && !(now() > *scheduled)) continue;
    DeleteOptions background;
    background.propagationPolicy = "Background";
    if (auto deleted = client().deleteObject(kRayClusters, ns, name, background); !deleted) {
      event(rayService, "Warning", "FailedToDeleteRayCluster",
            fmt::format("Failed to delete the RayCluster {}/{}: {}", ns, name,
                        deleted.error().message));
      return tl::unexpected(deleted.error());
    }
    event(rayService, "Normal", "DeletedRayCluster",
          fmt::format("Deleted the RayCluster {}/{}", ns, name));
  }
  return hasRayClustersToClean;
}

void RayServiceReconciler::cleanUpServeConfigCache(const Json& rayService) {
  const std::string key = meta::namespace_(rayService) + "/" + meta::name(rayService);
  const std::string active = activeClusterName(rayService);
  const std::string pending = pendingClusterName(rayService);
  std::lock_guard lock(cacheMutex_);
  auto it = serveConfigs_.find(key);
  if (it == serveConfigs_.end()) return;
  std::erase_if(it->second,
                [&](const auto& entry) { return entry.first != active && entry.first != pending; });
}

Result<Json> RayServiceReconciler::getRayClusterByName(const Json& rayService,
                                                       const std::string& name) {
  if (name.empty()) return Json();
  auto got = client().get(kRayClusters, meta::namespace_(rayService), name);
  if (!got) {
    if (isNotFound(got.error())) return Json();
    return tl::unexpected(got.error());
  }
  return std::move(*got);
}

Result<std::pair<Json, Json>> RayServiceReconciler::reconcileRayCluster(const Json& rayService) {
  auto active = getRayClusterByName(rayService, activeClusterName(rayService));
  if (!active) return tl::unexpected(active.error());
  auto pending = getRayClusterByName(rayService, pendingClusterName(rayService));
  if (!pending) return tl::unexpected(pending.error());

  if (!pendingClusterName(rayService).empty() && pending->is_null()) {
    auto created = createRayClusterInstance(rayService);
    if (!created) return tl::unexpected(created.error());
    return std::make_pair(std::move(*active), std::move(*created));
  }
  if (shouldUpdateCluster(rayService, *active, true)) {
    if (auto updated = updateRayClusterInstance(rayService, *active, "active"); !updated) {
      return tl::unexpected(updated.error());
    }
  }
  if (shouldUpdateCluster(rayService, *pending, false)) {
    if (auto updated = updateRayClusterInstance(rayService, *pending, "pending"); !updated) {
      return tl::unexpected(updated.error());
    }
  }
  return std::make_pair(std::move(*active), std::move(*pending));
}

Result<void> RayServiceReconciler::updateRayClusterInstance(const Json& rayService, Json& cluster,
                                                            std::string_view which) {
  const std::string ns = meta::namespace_(cluster);
  const std::string name = meta::name(cluster);
  auto goal = constructRayClusterForRayService(rayService, name);
  if (!goal) return tl::unexpected(goal.error());
  modifyRayCluster(cluster, *goal);
  auto updated = client().update(kRayClusters, cluster);
  if (!updated) {
    event(rayService, "Warning", "FailedToUpdateRayCluster",
          fmt::format("Failed to update the {} RayCluster {}/{}: {}", which, ns, name,
                      updated.error().message));
    return tl::unexpected(updated.error());
  }
  event(rayService, "Normal", "UpdatedRayCluster",
        fmt::format("Updated the {} RayCluster {}/{}", which, ns, name));
  cluster = std::move(*updated);
  return {};
}

Result<Json> RayServiceReconciler::createRayClusterInstance(const Json& rayService) {
  const std::string ns = meta::namespace_(rayService);
  const std::string name = pendingClusterName(rayService);
  auto cluster = constructRayClusterForRayService(rayService, name);
  if (!cluster) return tl::unexpected(cluster.error());
  auto created = client().create(kRayClusters, std::move(*cluster));
  if (!created) {
    event(rayService, "Warning", "FailedToCreateRayCluster",
          fmt::format("Failed to create the RayCluster {}/{}: {}", ns, name,
                      created.error().message));
    return tl::unexpected(created.error());
  }
  event(rayService, "Normal", "CreatedRayCluster",
        fmt::format("Created the RayCluster {}/{}", ns, name));
  return std::move(*created);
}

Result<Controller*> addRayServiceController(Manager& manager, const OperatorOptions& options) {
  auto reconciler = std::make_shared<RayServiceReconciler>(manager, options,
                                                           dashboardClientsFor(manager, options),
                                                           httpProxyClientsFor(manager, options));
  ControllerOptions controllerOptions;
  controllerOptions.maxConcurrentReconciles = std::max(1, options.reconcileConcurrency);
  return ControllerBuilder(manager)
      .named("rayservice")
      .forResource(kRayServices,
                   predicate::or_({predicate::generationChanged(), predicate::labelChanged(),
                                   predicate::annotationChanged()}))
      .forKind(std::string(kRayServiceKind))
      .owns(kRayClusters)
      .owns(kServices)
      .withOptions(std::move(controllerOptions))
      .complete(
          [reconciler](const ReconcileRequest& request) { return reconciler->reconcile(request); });
}

}  // namespace fakekube::ray
