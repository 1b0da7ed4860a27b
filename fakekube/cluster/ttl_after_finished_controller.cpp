#include "fakekube/cluster/ttl_after_finished_controller.h"

#include <nlohmann/json.hpp>
#include <optional>

#include "fakekube/api/conditions.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/internal/controller_utils.h"
#include "fakekube/runtime/builder.h"

namespace fakekube {

namespace {

// When the Job's TTL expires, if it has one and has finished (getFinishAndExpireTime).
std::optional<TimePoint> expiresAt(const Json& job) {
  if (meta::isDeleting(job)) return std::nullopt;
  auto spec = job.find("spec");
  if (spec == job.end() || !spec->is_object()) return std::nullopt;
  auto ttl = spec->find("ttlSecondsAfterFinished");
  if (ttl == spec->end() || !ttl->is_number_integer()) return std::nullopt;
  for (const char* type : {"Complete", "Failed"}) {
    const Json* condition = findCondition(job, type);
    if (condition == nullptr || condition->value("status", "") != "True") continue;
    auto finishedAt = workload::parseTime(condition->value("lastTransitionTime", Json()));
    if (!finishedAt) return std::nullopt;
    return *finishedAt + std::chrono::seconds(ttl->get<std::int64_t>());
  }
  return std::nullopt;
}

ReconcileOutcome reconcileJob(Manager& manager, const ReconcileRequest& request) {
  auto cached = manager.cache().getShared(kJobs, request.namespace_, request.name);
  if (!cached) {
    if (isNotFound(cached.error())) return ReconcileResult{};
    return reconcileError(cached.error());
  }
  const TimePoint now = manager.executor().clock().now();
  auto expiry = expiresAt(**cached);
  if (!expiry) return ReconcileResult{};
  if (*expiry > now) return ReconcileResult{*expiry - now};
  // The cache may be stale: decide again on the Job as the server has it now.
  auto fresh = manager.apiReader().get(kJobs, request.namespace_, request.name);
  if (!fresh) {
    if (isNotFound(fresh.error())) return ReconcileResult{};
    return reconcileError(fresh.error());
  }
  expiry = expiresAt(*fresh);
  if (!expiry) return ReconcileResult{};
  if (*expiry > now) return ReconcileResult{*expiry - now};
  DeleteOptions options;
  options.propagationPolicy = "Foreground";
  options.preconditions.uid = meta::uid(*fresh);
  auto deleted = manager.client().deleteObject(kJobs, request.namespace_, request.name, options);
  if (!deleted && !isNotFound(deleted.error())) return reconcileError(deleted.error());
  return ReconcileResult{};
}

}  // namespace

Result<Controller*> addTtlAfterFinishedController(Manager& manager,
                                                  TtlAfterFinishedControllerOptions options) {
  return ControllerBuilder(manager)
      .named("ttl-after-finished")
      .forResource(kJobs)
      .withOptions({.maxConcurrentReconciles = options.workers})
      .complete(
          [&manager](const ReconcileRequest& request) { return reconcileJob(manager, request); });
}

}  // namespace fakekube
