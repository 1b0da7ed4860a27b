#include "fakekube/cluster/deployment_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "fakekube/api/conditions.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/internal/controller_utils.h"
#include "fakekube/cluster/internal/deployment_util.h"
#include "fakekube/cluster/internal/pod_template_hash.h"
#include "fakekube/runtime/builder.h"

namespace fakekube {

namespace {

using namespace workload;  // NOLINT: the shared controller helpers

bool isDeploymentRef(const meta::OwnerReference& ref) {
  return ref.kind == "Deployment" && GroupVersion::parse(ref.apiVersion).group == "apps";
}

bool isReplicaSetRef(const meta::OwnerReferenceView& ref) {
  return ref.kind == "ReplicaSet" && meta::groupOf(ref.apiVersion) == "apps";
}

// The state of one sync of one Deployment.
struct Sync {
  Json d;                      // the Deployment, with the status it will be written with
  std::string storedRevision;  // its revision annotation as the server has it
  // The ReplicaSets it owns (a deque: pointers into it stay valid as the new one is added).
  std::deque<Json> replicaSets;
  // Its pods, by the uid of the ReplicaSet that controls them.
  std::map<std::string, std::vector<ObjectPtr>> podsByReplicaSet;
  std::optional<Duration> requeueAfter;
};

// The new ReplicaSet (if any) and the old ones, pointing into Sync::replicaSets.
struct Sets {
  Json* newRS = nullptr;
  std::vector<Json*> oldRSs;
  std::vector<const Json*> all() const {
    std::vector<const Json*> out(oldRSs.begin(), oldRSs.end());
    if (newRS) out.push_back(newRS);
    return out;
  }
};

std::vector<Json*> active(const std::vector<Json*>& replicaSets) {
  std::vector<Json*> out;
  for (Json* rs : replicaSets) {
    if (rs && specReplicas(*rs) > 0) out.push_back(rs);
  }
  return out;
}

// status.collisionCount, when set.
std::optional<std::int32_t> collisionCountOf(Json& d) {
  if (!d["status"].contains("collisionCount")) return std::nullopt;
  return d["status"]["collisionCount"].get<std::int32_t>();
}

class DeploymentController : public std::enable_shared_from_this<DeploymentController> {
 public:
  DeploymentController(Manager& manager, DeploymentControllerOptions options)
      : manager_(manager), options_(options) {}

  EventHandler replicaSetHandler();
  EventHandler podHandler();
  ReconcileOutcome reconcile(const ReconcileRequest& request);

 private:
  TimePoint now() { return manager_.executor().clock().now(); }
  void event(const Json& d, std::string_view type, std::string_view reason,
             const std::string& message) {
    if (!options_.recordEvents) return;
    (void)manager_.eventRecorder("deployment-controller").event(d, type, reason, message);
  }

  std::vector<ReconcileRequest> deploymentsSelecting(const Json& rs);
  std::optional<ReconcileRequest> controllingDeployment(const Json& rs);
  std::vector<ReconcileRequest> forReplicaSet(const ObjectPtr& rs);
  // A changed ReplicaSet reconciles the Deployments of its old and its new form.
  std::vector<ReconcileRequest> onReplicaSetUpdate(const ObjectPtr& oldRs, const ObjectPtr& newRs);
  std::vector<ReconcileRequest> onReplicaSetDelete(const ObjectPtr& rs);
  // The Deployment that owns the deleted pod's ReplicaSet.
  std::vector<ReconcileRequest> onPodDelete(const ObjectPtr& pod);

  Result<void> syncDeployment(Sync& s);
  Result<Sets> allReplicaSetsAndSyncRevision(Sync& s, bool createIfMissing);
  Result<Json*> newReplicaSet(Sync& s, const std::vector<Json*>& oldRSs, bool createIfMissing);
  // The new ReplicaSet exists: its annotations and minReadySeconds follow the Deployment's, or
  // the Deployment takes its revision (and a Progressing condition).
  Result<Json*> syncExistingNewReplicaSet(Sync& s, Json& existing, const std::string& newRevision);
  // The ReplicaSet of the current template: named by the template's hash, scaled as
  // newReplicaSetReplicas says.
  Json buildNewReplicaSet(Sync& s, const std::vector<Json*>& oldRSs,
                          const std::string& newRevision);
  // A conflict when the Deployment is gone from the server or replaced.
  Result<void> checkDeploymentLive(Sync& s);
  // Creates it; one that exists already is taken when it is ours with the same template, else a
  // hash collision raises status.collisionCount.
  Result<Json> createNewReplicaSet(Sync& s, Json rs, bool* alreadyExists);
  Result<bool> scaleReplicaSet(Sync& s, Json& rs, std::int64_t newScale);
  Result<bool> scaleReplicaSetAndRecordEvent(Sync& s, Json& rs, std::int64_t newScale);
  Result<void> scale(Sync& s, Sets& sets);
  Result<void> syncScaleOrPaused(Sync& s);
  Result<bool> isScalingEvent(Sync& s);
  Result<void> rolloutRolling(Sync& s);
  Result<void> rolloutRecreate(Sync& s);
  Result<bool> reconcileNewReplicaSet(Sync& s, Sets& sets);
  Result<bool> reconcileOldReplicaSets(Sync& s, Sets& sets);
  Result<void> cleanupDeployment(Sync& s, const std::vector<Json*>& oldRSs);
  Json calculateStatus(const Sync& s, const Sets& sets);
  Result<void> syncDeploymentStatus(Sync& s, Sets& sets);
  Result<void> syncRolloutStatus(Sync& s, Sets& sets);
  Result<void> checkPausedConditions(Sync& s);
  bool oldPodsRunning(const Sync& s, const Sets& sets);
  // Writes the revision annotation (if it changed) and the status of s.d.
  Result<void> writeDeployment(Sync& s);

  Manager& manager_;
  const DeploymentControllerOptions options_;
};

// --- event handlers ---

std::optional<ReconcileRequest> DeploymentController::controllingDeployment(const Json& rs) {
  auto ref = meta::controllerOf(rs);
  if (!ref || !isDeploymentRef(*ref)) return std::nullopt;
  auto d = manager_.cache().getShared(kDeployments, meta::namespace_(rs), ref->name);
  if (d && meta::uid(**d) != ref->uid) return std::nullopt;
  return ReconcileRequest{meta::namespace_(rs), ref->name};
}

std::vector<ReconcileRequest> DeploymentController::deploymentsSelecting(const Json& rs) {
  return ownersSelecting(manager_.cache(), kDeployments, rs);
}

std::vector<ReconcileRequest> DeploymentController::forReplicaSet(const ObjectPtr& rs) {
  if (auto owner = controllingDeployment(*rs)) return {*owner};
  if (meta::controllerOf(*rs) || meta::isDeleting(*rs)) return {};
  return deploymentsSelecting(*rs);
}

std::vector<ReconcileRequest> DeploymentController::onReplicaSetUpdate(const ObjectPtr& oldRs,
                                                                       const ObjectPtr& newRs) {
  if (meta::resourceVersion(*oldRs) == meta::resourceVersion(*newRs)) return {};
  auto out = forReplicaSet(newRs);
  for (const auto& r : forReplicaSet(oldRs)) {
    if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  }
  return out;
}

std::vector<ReconcileRequest> DeploymentController::onReplicaSetDelete(const ObjectPtr& rs) {
  auto owner = controllingDeployment(*rs);
  return owner ? std::vector<ReconcileRequest>{*owner} : std::vector<ReconcileRequest>{};
}

std::vector<ReconcileRequest> DeploymentController::onPodDelete(const ObjectPtr& pod) {
  auto ref = meta::controllerRefOf(*pod);
  if (!ref || !isReplicaSetRef(*ref)) return {};
  auto rs = manager_.cache().getShared(kReplicaSets, meta::namespace_(*pod), ref->name);
  if (!rs || meta::uid(**rs) != ref->uid) return {};
  auto owner = controllingDeployment(**rs);
  return owner ? std::vector<ReconcileRequest>{*owner} : std::vector<ReconcileRequest>{};
}

EventHandler DeploymentController::replicaSetHandler() {
  return workload::controllerEventHandler(weak_from_this(), &DeploymentController::forReplicaSet,
                                          &DeploymentController::onReplicaSetUpdate,
                                          &DeploymentController::onReplicaSetDelete);
}

EventHandler DeploymentController::podHandler() {
  // A Recreate rollout waits for the old pods to be gone: a pod's deletion reconciles the
  // Deployment that owns its ReplicaSet.
  return workload::controllerEventHandler<DeploymentController>(weak_from_this(), nullptr, nullptr,
                                                                &DeploymentController::onPodDelete);
}

// --- reconcile ---

ReconcileOutcome DeploymentController::reconcile(const ReconcileRequest& request) {
  auto read = manager_.cache().get(kDeployments, request.namespace_, request.name);
  if (!read) {
    if (isNotFound(read.error())) return ReconcileResult{};
    return reconcileError(read.error());
  }
  Sync s;
  s.d = std::move(*read);
  s.storedRevision = meta::annotation(s.d, kRevisionAnnotation);
  auto synced = syncDeployment(s);
  if (!synced) return reconcileError(synced.error());
  if (s.requeueAfter) return ReconcileResult{*s.requeueAfter};
  return ReconcileResult{};
}

Result<void> DeploymentController::syncDeployment(Sync& s) {
  if (selectsEverything(s.d)) {
    event(s.d, "Warning", "SelectingAll",
          "This deployment is selecting all pods. A non-empty selector is required.");
    if (statusCount(s.d, "observedGeneration") < meta::generation(s.d)) {
      s.d["status"]["observedGeneration"] = meta::generation(s.d);
      return writeDeployment(s);
    }
    return {};
  }
  auto selector = specSelector(s.d);
  if (!selector) return {};  // invalid: nothing to do until the user fixes it

  const std::string ns = meta::namespace_(s.d);
  auto claimed = claimFromCache(manager_, kDeployments, s.d, *selector, kReplicaSets);
  if (!claimed) return tl::unexpected(claimed.error());
  std::set<std::string> uids;
  for (const auto& rs : *claimed) {
    s.replicaSets.push_back(*rs);
    uids.insert(meta::uid(*rs));
  }
  for (const auto& pod : listInNamespace(manager_.cache(), kPods, ns)) {
    auto ref = meta::controllerOf(*pod);
    if (ref && uids.count(ref->uid)) s.podsByReplicaSet[ref->uid].push_back(pod);
  }

  if (meta::isDeleting(s.d)) {
    auto sets = allReplicaSetsAndSyncRevision(s, false);
    if (!sets) return tl::unexpected(sets.error());
    return syncDeploymentStatus(s, *sets);
  }
  if (auto paused = checkPausedConditions(s); !paused) return paused;
  const Json& spec = s.d["spec"];
  if (spec.value("paused", false)) return syncScaleOrPaused(s);
  auto scaling = isScalingEvent(s);
  if (!scaling) return tl::unexpected(scaling.error());
  if (*scaling) return syncScaleOrPaused(s);
  if (isRollingUpdate(s.d)) return rolloutRolling(s);
  return rolloutRecreate(s);
}

Result<void> DeploymentController::writeDeployment(Sync& s) {
  const std::string revision = meta::annotation(s.d, kRevisionAnnotation);
  Client& client = manager_.client();
  if (revision != s.storedRevision) {
    Json patch = {{"metadata",
                   {{"resourceVersion", meta::resourceVersion(s.d)},
                    {"annotations", {{std::string(kRevisionAnnotation), revision}}}}}};
    auto patched = client.patch(kDeployments, meta::namespace_(s.d), meta::name(s.d),
                                PatchType::Merge, patch.dump());
    if (!patched) return tl::unexpected(patched.error());
    s.storedRevision = revision;
    meta::setResourceVersion(s.d, meta::resourceVersion(*patched));
  }
  auto written = client.updateStatus(kDeployments, s.d);
  if (!written) return tl::unexpected(written.error());
  s.d = std::move(*written);
  return {};
}

Result<bool> DeploymentController::isScalingEvent(Sync& s) {
  auto sets = allReplicaSetsAndSyncRevision(s, false);
  if (!sets) return tl::unexpected(sets.error());
  std::vector<Json*> all = sets->oldRSs;
  if (sets->newRS) all.push_back(sets->newRS);
  for (Json* rs : active(all)) {
    auto desired = desiredReplicasAnnotation(*rs);
    if (desired && *desired != specReplicas(s.d)) return true;
  }
  return false;
}

Result<Sets> DeploymentController::allReplicaSetsAndSyncRevision(Sync& s, bool createIfMissing) {
  Sets sets;
  std::vector<Json*> all;
  for (auto& rs : s.replicaSets) all.push_back(&rs);
  sortByCreation(all);
  // FindNewReplicaSet: the oldest ReplicaSet with the Deployment's template.
  const Json& podTemplate = s.d["spec"]["template"];
  Json* existing = nullptr;
  for (Json* rs : all) {
    if (equalIgnoreHash((*rs)["spec"]["template"], podTemplate)) {
      existing = rs;
      break;
    }
  }
  for (Json* rs : all) {
    if (rs != existing) sets.oldRSs.push_back(rs);
  }
  auto newRS = newReplicaSet(s, sets.oldRSs, createIfMissing);
  if (!newRS) return tl::unexpected(newRS.error());
  sets.newRS = *newRS;
  return sets;
}

Result<Json*> DeploymentController::newReplicaSet(Sync& s, const std::vector<Json*>& oldRSs,
                                                  bool createIfMissing) {
  Json* existing = nullptr;
  for (auto& rs : s.replicaSets) {
    if (std::find(oldRSs.begin(), oldRSs.end(), &rs) == oldRSs.end()) existing = &rs;
  }
  std::int64_t maxOld = 0;
  for (const Json* rs : oldRSs) maxOld = std::max(maxOld, revisionOf(*rs));
  const std::string newRevision = std::to_string(maxOld + 1);
  if (existing) return syncExistingNewReplicaSet(s, *existing, newRevision);
  if (!createIfMissing) return nullptr;

  // A new ReplicaSet for the current template.
  Json rs = buildNewReplicaSet(s, oldRSs, newRevision);
  const std::string name = meta::name(rs);
  const std::int64_t replicas = rs["spec"]["replicas"].get<std::int64_t>();
  if (auto live = checkDeploymentLive(s); !live) return tl::unexpected(live.error());
  bool alreadyExists = false;
  auto stored = createNewReplicaSet(s, std::move(rs), &alreadyExists);
  if (!stored) return tl::unexpected(stored.error());
  if (!alreadyExists && replicas > 0) {
    event(s.d, "Normal", "ScalingReplicaSet",
          fmt::format("Scaled up replica set {} from 0 to {}", name, replicas));
  }
  bool needsUpdate = false;
  if (meta::annotation(s.d, kRevisionAnnotation) != newRevision) {
    meta::setAnnotation(s.d, kRevisionAnnotation, newRevision);
    needsUpdate = true;
  }
  if (!alreadyExists && hasProgressDeadline(s.d)) {
    setDeploymentCondition(
        s.d["status"],
        newDeploymentCondition("Progressing", "True", "NewReplicaSetCreated",
                               fmt::format("Created new replica set \"{}\"", name), now()));
    needsUpdate = true;
  }
  s.replicaSets.push_back(std::move(*stored));
  Json* added = &s.replicaSets.back();
  if (needsUpdate) {
    if (auto written = writeDeployment(s); !written) return tl::unexpected(written.error());
  }
  return added;
}

Result<Json*> DeploymentController::syncExistingNewReplicaSet(Sync& s, Json& existing,
                                                              const std::string& newRevision) {
  Json copy = existing;
  bool annotationsUpdated = setNewReplicaSetAnnotations(s.d, copy, newRevision, true);
  bool minReadyUpdate = minReadySeconds(copy) != minReadySeconds(s.d);
  if (annotationsUpdated || minReadyUpdate) {
    copy["spec"]["minReadySeconds"] = minReadySeconds(s.d);
    auto updated = manager_.client().update(kReplicaSets, copy);
    if (!updated) return tl::unexpected(updated.error());
    existing = std::move(*updated);
    return &existing;
  }
  bool needsUpdate = false;
  std::string rsRevision = meta::annotation(existing, kRevisionAnnotation);
  if (meta::annotation(s.d, kRevisionAnnotation) != rsRevision) {
    meta::setAnnotation(s.d, kRevisionAnnotation, rsRevision);
    needsUpdate = true;
  }
  if (hasProgressDeadline(s.d) && !deploymentCondition(s.d["status"], "Progressing")) {
    setDeploymentCondition(
        s.d["status"],
        newDeploymentCondition("Progressing", "True", "FoundNewReplicaSet",
                               fmt::format("Found new replica set \"{}\"", meta::name(existing)),
                               now()));
    needsUpdate = true;
  }
  if (needsUpdate) {
    if (auto written = writeDeployment(s); !written) return tl::unexpected(written.error());
  }
  return &existing;
}

Json DeploymentController::buildNewReplicaSet(Sync& s, const std::vector<Json*>& oldRSs,
                                              const std::string& newRevision) {
  Json newTemplate = s.d["spec"]["template"];
  const std::string hash = computePodTemplateHash(newTemplate, collisionCountOf(s.d));
  newTemplate["metadata"]["labels"][std::string(kPodTemplateHashLabel)] = hash;
  Json selector = s.d["spec"]["selector"];
  selector["matchLabels"][std::string(kPodTemplateHashLabel)] = hash;
  Json rs = {{"apiVersion", "apps/v1"},
             {"kind", "ReplicaSet"},
             {"metadata",
              {{"name", meta::name(s.d) + "-" + hash},
               {"namespace", meta::namespace_(s.d)},
               {"labels", newTemplate["metadata"]["labels"]},
               {"ownerReferences", Json::array({meta::toJson(meta::controllerRefTo(s.d))})}}},
             {"spec",
              {{"replicas", 0},
               {"minReadySeconds", minReadySeconds(s.d)},
               {"selector", selector},
               {"template", newTemplate}}}};
  std::vector<const Json*> all(oldRSs.begin(), oldRSs.end());
  rs["spec"]["replicas"] = newReplicaSetReplicas(s.d, sumSpecReplicas(all), 0);
  setNewReplicaSetAnnotations(s.d, rs, newRevision, false);
  return rs;
}

Result<void> DeploymentController::checkDeploymentLive(Sync& s) {
  // The cache may still show a Deployment the server has deleted (its DELETED event not yet
  // delivered) while it already reported the ReplicaSet's deletion by the garbage collector: a
  // fresh read keeps us from re-creating what the collector just removed (the window of
  // kubernetes/kubernetes#42639, which the real controller's cache lag also opens).
  auto live = manager_.apiReader().get(kDeployments, meta::namespace_(s.d), meta::name(s.d));
  if (!live) return tl::unexpected(live.error());
  if (meta::uid(*live) != meta::uid(s.d) || meta::isDeleting(*live)) {
    return tl::unexpected(Status::conflict(
        GroupResource{"apps", "deployments"}, meta::name(s.d),
        "the Deployment was deleted or replaced; not creating a ReplicaSet for it"));
  }
  return {};
}

Result<Json> DeploymentController::createNewReplicaSet(Sync& s, Json rs, bool* alreadyExists) {
  const std::string name = meta::name(rs);
  auto created = manager_.client().create(kReplicaSets, rs);
  if (created) return std::move(*created);
  if (isAlreadyExists(created.error())) {
    *alreadyExists = true;
    auto current = manager_.cache().get(kReplicaSets, meta::namespace_(s.d), name);
    if (!current) return tl::unexpected(current.error());
    if (isControlledBy(*current, meta::uid(s.d)) &&
        equalIgnoreHash((*current)["spec"]["template"], s.d["spec"]["template"])) {
      return std::move(*current);
    }
    // A hash collision: the next hash includes a higher collisionCount.
    s.d["status"]["collisionCount"] = collisionCountOf(s.d).value_or(0) + 1;
    (void)writeDeployment(s);
    return tl::unexpected(created.error());
  }
  const std::string message =
      fmt::format("Failed to create new replica set \"{}\": {}", name, created.error().message);
  if (hasProgressDeadline(s.d)) {
    setDeploymentCondition(
        s.d["status"],
        newDeploymentCondition("Progressing", "False", "ReplicaSetCreateError", message, now()));
    (void)writeDeployment(s);
  }
  event(s.d, "Warning", "ReplicaSetCreateError", message);
  return tl::unexpected(created.error());
}

Result<bool> DeploymentController::scaleReplicaSet(Sync& s, Json& rs, std::int64_t newScale) {
  const std::int64_t oldScale = specReplicas(rs);
  const std::int64_t desired = specReplicas(s.d);
  const std::int64_t max = desired + maxSurge(s.d);
  const bool sizeNeedsUpdate = oldScale != newScale;
  if (!sizeNeedsUpdate && !replicasAnnotationsNeedUpdate(rs, desired, max)) return false;
  Json copy = rs;
  copy["spec"]["replicas"] = newScale;
  setReplicasAnnotations(copy, desired, max);
  auto updated = manager_.client().update(kReplicaSets, std::move(copy));
  if (!updated) return tl::unexpected(updated.error());
  rs = std::move(*updated);
  if (!sizeNeedsUpdate) return false;
  event(s.d, "Normal", "ScalingReplicaSet",
        fmt::format("Scaled {} replica set {} from {} to {}", oldScale < newScale ? "up" : "down",
                    meta::name(rs), oldScale, newScale));
  return true;
}

Result<bool> DeploymentController::scaleReplicaSetAndRecordEvent(Sync& s, Json& rs,
                                                                 std::int64_t newScale) {
  if (specReplicas(rs) == newScale) return false;
  return scaleReplicaSet(s, rs, newScale);
}

Result<void> DeploymentController::scale(Sync& s, Sets& sets) {
  const std::int64_t replicas = specReplicas(s.d);
  // FindActiveOrLatest: with a single active ReplicaSet (or none), it takes the whole change.
  {
    std::vector<Json*> olds = sets.oldRSs;
    sortByCreation(olds);
    std::reverse(olds.begin(), olds.end());
    std::vector<Json*> all = olds;
    if (sets.newRS) all.push_back(sets.newRS);
    std::vector<Json*> live = active(all);
    Json* activeOrLatest = nullptr;
    if (live.empty()) {
      activeOrLatest = sets.newRS ? sets.newRS : (olds.empty() ? nullptr : olds.front());
    } else if (live.size() == 1) {
      activeOrLatest = live.front();
    }
    if (activeOrLatest || (sets.newRS == nullptr && sets.oldRSs.empty())) {
      if (!activeOrLatest || specReplicas(*activeOrLatest) == replicas) return {};
      auto scaled = scaleReplicaSetAndRecordEvent(s, *activeOrLatest, replicas);
      if (!scaled) return tl::unexpected(scaled.error());
      return {};
    }
  }
  if (isSaturated(s.d, sets.newRS)) {
    for (Json* old : active(sets.oldRSs)) {
      auto scaled = scaleReplicaSetAndRecordEvent(s, *old, 0);
      if (!scaled) return tl::unexpected(scaled.error());
    }
    return {};
  }
  if (!isRollingUpdate(s.d)) return {};
  std::vector<Json*> all = sets.oldRSs;
  if (sets.newRS) all.push_back(sets.newRS);
  all = active(all);
  std::vector<const Json*> allConst(all.begin(), all.end());
  const std::int64_t allowed = replicas > 0 ? replicas + maxSurge(s.d) : 0;
  const std::int64_t toAdd = allowed - sumSpecReplicas(allConst);
  // ReplicaSetsBySizeNewer for a scale up, BySizeOlder for a scale down: biggest first.
  std::stable_sort(all.begin(), all.end(), [toAdd](const Json* a, const Json* b) {
    if (specReplicas(*a) != specReplicas(*b)) return specReplicas(*a) > specReplicas(*b);
    auto ta = meta::creationTimestamp(*a), tb = meta::creationTimestamp(*b);
    if (ta == tb) return meta::name(*a) < meta::name(*b);
    return toAdd > 0 ? ta > tb : ta < tb;
  });
  std::int64_t added = 0;
  std::vector<std::int64_t> sizes;
  for (Json* rs : all) {
    std::int64_t part = toAdd != 0 ? proportion(*rs, s.d, toAdd, added) : 0;
    sizes.push_back(specReplicas(*rs) + part);
    added += part;
  }
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i == 0 && toAdd != 0) sizes[i] = std::max<std::int64_t>(0, sizes[i] + toAdd - added);
    auto scaled = scaleReplicaSet(s, *all[i], sizes[i]);
    if (!scaled) return tl::unexpected(scaled.error());
  }
  return {};
}

Result<void> DeploymentController::syncScaleOrPaused(Sync& s) {
  auto sets = allReplicaSetsAndSyncRevision(s, false);
  if (!sets) return tl::unexpected(sets.error());
  if (auto scaled = scale(s, *sets); !scaled) return scaled;
  if (s.d["spec"].value("paused", false)) {
    if (auto cleaned = cleanupDeployment(s, sets->oldRSs); !cleaned) return cleaned;
  }
  return syncDeploymentStatus(s, *sets);
}

Result<void> DeploymentController::rolloutRolling(Sync& s) {
  auto sets = allReplicaSetsAndSyncRevision(s, true);
  if (!sets) return tl::unexpected(sets.error());
  auto scaledUp = reconcileNewReplicaSet(s, *sets);
  if (!scaledUp) return tl::unexpected(scaledUp.error());
  if (*scaledUp) return syncRolloutStatus(s, *sets);
  auto scaledDown = reconcileOldReplicaSets(s, *sets);
  if (!scaledDown) return tl::unexpected(scaledDown.error());
  if (*scaledDown) return syncRolloutStatus(s, *sets);
  if (deploymentComplete(s.d, s.d["status"])) {
    if (auto cleaned = cleanupDeployment(s, sets->oldRSs); !cleaned) return cleaned;
  }
  return syncRolloutStatus(s, *sets);
}

Result<bool> DeploymentController::reconcileNewReplicaSet(Sync& s, Sets& sets) {
  Json* newRS = sets.newRS;
  const std::int64_t replicas = specReplicas(s.d);
  if (newRS == nullptr || specReplicas(*newRS) == replicas) return false;
  if (specReplicas(*newRS) > replicas) return scaleReplicaSetAndRecordEvent(s, *newRS, replicas);
  const std::int64_t count =
      newReplicaSetReplicas(s.d, sumSpecReplicas(sets.all()), specReplicas(*newRS));
  return scaleReplicaSetAndRecordEvent(s, *newRS, count);
}

Result<bool> DeploymentController::reconcileOldReplicaSets(Sync& s, Sets& sets) {
  std::vector<Json*> oldActive = active(sets.oldRSs);
  std::vector<const Json*> oldConst(sets.oldRSs.begin(), sets.oldRSs.end());
  if (sumSpecReplicas(oldConst) == 0) return false;
  const std::int64_t allPods = sumSpecReplicas(sets.all());
  const std::int64_t minAvailable = specReplicas(s.d) - maxUnavailable(s.d);
  const std::int64_t newUnavailable =
      sets.newRS ? specReplicas(*sets.newRS) - statusCount(*sets.newRS, "availableReplicas") : 0;
  const std::int64_t maxScaledDown = allPods - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return false;

  // cleanupUnhealthyReplicas: first take away old pods that are not available anyway.
  sortByCreation(oldActive);
  std::int64_t cleaned = 0;
  for (Json* rs : oldActive) {
    if (cleaned >= maxScaledDown) break;
    const std::int64_t size = specReplicas(*rs);
    const std::int64_t availableCount = statusCount(*rs, "availableReplicas");
    if (size == 0 || size == availableCount) continue;
    const std::int64_t down = std::min(maxScaledDown - cleaned, size - availableCount);
    auto scaled = scaleReplicaSetAndRecordEvent(s, *rs, size - down);
    if (!scaled) return tl::unexpected(scaled.error());
    cleaned += down;
  }

  // scaleDownOldReplicaSetsForRollingUpdate: then available ones, down to minAvailable.
  std::int64_t scaledDown = 0;
  const std::int64_t availablePods = sumStatus(sets.all(), "availableReplicas");
  if (availablePods > minAvailable) {
    const std::int64_t total = availablePods - minAvailable;
    for (Json* rs : oldActive) {
      if (scaledDown >= total) break;
      const std::int64_t size = specReplicas(*rs);
      if (size == 0) continue;
      const std::int64_t down = std::min(size, total - scaledDown);
      auto scaled = scaleReplicaSetAndRecordEvent(s, *rs, size - down);
      if (!scaled) return tl::unexpected(scaled.error());
      scaledDown += down;
    }
  }
  return cleaned + scaledDown > 0;
}

bool DeploymentController::oldPodsRunning(const Sync& s, const Sets& sets) {
  std::vector<const Json*> olds(sets.oldRSs.begin(), sets.oldRSs.end());
  if (sumStatus(olds, "replicas") > 0) return true;
  const std::string newUid = sets.newRS ? meta::uid(*sets.newRS) : "";
  for (const auto& [uid, pods] : s.podsByReplicaSet) {
    if (uid == newUid) continue;
    for (const auto& pod : pods) {
      std::string phase = podPhase(*pod);
      if (phase != "Failed" && phase != "Succeeded") return true;
    }
  }
  return false;
}

Result<void> DeploymentController::rolloutRecreate(Sync& s) {
  auto sets = allReplicaSetsAndSyncRevision(s, false);
  if (!sets) return tl::unexpected(sets.error());
  bool scaledDown = false;
  for (Json* old : active(sets->oldRSs)) {
    auto scaled = scaleReplicaSetAndRecordEvent(s, *old, 0);
    if (!scaled) return tl::unexpected(scaled.error());
    scaledDown = scaledDown || *scaled;
  }
  if (scaledDown || oldPodsRunning(s, *sets)) return syncRolloutStatus(s, *sets);
  if (sets->newRS == nullptr) {
    sets = allReplicaSetsAndSyncRevision(s, true);
    if (!sets) return tl::unexpected(sets.error());
  }
  if (sets->newRS) {
    auto scaled = scaleReplicaSetAndRecordEvent(s, *sets->newRS, specReplicas(s.d));
    if (!scaled) return tl::unexpected(scaled.error());
  }
  if (deploymentComplete(s.d, s.d["status"])) {
    if (auto cleaned = cleanupDeployment(s, sets->oldRSs); !cleaned) return cleaned;
  }
  return syncRolloutStatus(s, *sets);
}

Result<void> DeploymentController::cleanupDeployment(Sync& s, const std::vector<Json*>& oldRSs) {
  const Json& limit = jsonAt(s.d, {"spec", "revisionHistoryLimit"});
  if (!limit.is_number_integer()) return {};
  std::vector<Json*> cleanable;
  for (Json* rs : oldRSs) {
    if (!meta::isDeleting(*rs)) cleanable.push_back(rs);
  }
  const std::int64_t diff = static_cast<std::int64_t>(cleanable.size()) - limit.get<std::int64_t>();
  if (diff <= 0) return {};
  // ReplicaSetsByRevision: lowest revision first.
  std::stable_sort(cleanable.begin(), cleanable.end(), [](const Json* a, const Json* b) {
    if (revisionOf(*a) != revisionOf(*b)) return revisionOf(*a) < revisionOf(*b);
    return meta::creationTimestamp(*a) < meta::creationTimestamp(*b);
  });
  for (std::int64_t i = 0; i < diff; ++i) {
    const Json& rs = *cleanable[static_cast<std::size_t>(i)];
    if (statusCount(rs, "replicas") != 0 || specReplicas(rs) != 0 ||
        meta::generation(rs) > statusCount(rs, "observedGeneration")) {
      continue;
    }
    DeleteOptions options;
    options.preconditions.uid = meta::uid(rs);
    auto deleted =
        manager_.client().deleteObject(kReplicaSets, meta::namespace_(rs), meta::name(rs), options);
    if (!deleted && !isNotFound(deleted.error())) return tl::unexpected(deleted.error());
  }
  return {};
}

Json DeploymentController::calculateStatus(const Sync& s, const Sets& sets) {
  const auto all = sets.all();
  const std::int64_t available = sumStatus(all, "availableReplicas");
  const std::int64_t total = sumSpecReplicas(all);
  Json status = Json::object();
  auto put = [&status](const char* key, std::int64_t value) {
    if (value != 0) status[key] = value;  // omitempty
  };
  put("observedGeneration", meta::generation(s.d));
  put("replicas", sumStatus(all, "replicas"));
  put("updatedReplicas", sets.newRS ? statusCount(*sets.newRS, "replicas") : 0);
  put("readyReplicas", sumStatus(all, "readyReplicas"));
  put("availableReplicas", available);
  put("unavailableReplicas", std::max<std::int64_t>(0, total - available));
  const Json& old = jsonAt(s.d, {"status"});
  if (old.is_object() && old.contains("conditions")) status["conditions"] = old["conditions"];
  if (old.is_object() && old.contains("collisionCount")) {
    status["collisionCount"] = old["collisionCount"];
  }
  if (available >= specReplicas(s.d) - maxUnavailable(s.d)) {
    setDeploymentCondition(status,
                           newDeploymentCondition("Available", "True", "MinimumReplicasAvailable",
                                                  "Deployment has minimum availability.",
                                                  manager_.executor().clock().now()));
  } else {
    setDeploymentCondition(
        status, newDeploymentCondition("Available", "False", "MinimumReplicasUnavailable",
                                       "Deployment does not have minimum availability.",
                                       manager_.executor().clock().now()));
  }
  return status;
}

Result<void> DeploymentController::syncDeploymentStatus(Sync& s, Sets& sets) {
  Json status = calculateStatus(s, sets);
  if (status == s.d["status"]) return {};
  s.d["status"] = std::move(status);
  return writeDeployment(s);
}

namespace {
// The condition a ReplicaSet reports (ReplicaFailure), if any.
const Json* replicaFailure(const Json& rs) { return findCondition(rs, "ReplicaFailure"); }
}  // namespace

Result<void> DeploymentController::syncRolloutStatus(Sync& s, Sets& sets) {
  Json status = calculateStatus(s, sets);
  const TimePoint current = now();
  if (!hasProgressDeadline(s.d)) removeDeploymentCondition(status, "Progressing");
  const Json* currentCond = deploymentCondition(s.d["status"], "Progressing");
  const bool isComplete = statusCount(Json{{"status", status}}, "replicas") ==
                              statusCount(Json{{"status", status}}, "updatedReplicas") &&
                          currentCond &&
                          currentCond->value("reason", "") == "NewReplicaSetAvailable";
  if (hasProgressDeadline(s.d) && !isComplete) {
    const std::string newName = sets.newRS ? meta::name(*sets.newRS) : "";
    if (deploymentComplete(s.d, status)) {
      setDeploymentCondition(
          status,
          newDeploymentCondition(
              "Progressing", "True", "NewReplicaSetAvailable",
              fmt::format("ReplicaSet \"{}\" has successfully progressed.", newName), current));
    } else if (deploymentProgressing(s.d, status)) {
      std::string message = sets.newRS
                                ? fmt::format("ReplicaSet \"{}\" is progressing.", newName)
                                : fmt::format("Deployment \"{}\" is progressing.", meta::name(s.d));
      Json condition =
          newDeploymentCondition("Progressing", "True", "ReplicaSetUpdated", message, current);
      // Progress moves lastUpdateTime even when the reason stays the same.
      if (currentCond) {
        if (currentCond->value("status", "") == "True") {
          condition["lastTransitionTime"] = currentCond->value("lastTransitionTime", "");
        }
        removeDeploymentCondition(status, "Progressing");
      }
      setDeploymentCondition(status, std::move(condition));
    } else if (deploymentTimedOut(s.d, status, current)) {
      setDeploymentCondition(
          status,
          newDeploymentCondition(
              "Progressing", "False", "ProgressDeadlineExceeded",
              fmt::format("ReplicaSet \"{}\" has timed out progressing.", newName), current));
    }
  }
  // The failure condition of a ReplicaSet (the new one first) becomes the Deployment's.
  const Json* failure = nullptr;
  if (sets.newRS) failure = replicaFailure(*sets.newRS);
  for (const Json* rs : sets.oldRSs) {
    if (!failure) failure = replicaFailure(*rs);
  }
  if (failure) {
    setDeploymentCondition(
        status, newDeploymentCondition("ReplicaFailure", failure->value("status", ""),
                                       failure->value("reason", ""), failure->value("message", ""),
                                       current));
  } else {
    removeDeploymentCondition(status, "ReplicaFailure");
  }

  if (status == s.d["status"]) {
    // requeueStuckDeployment: look again when the progress deadline passes.
    const Json* cond = deploymentCondition(s.d["status"], "Progressing");
    if (hasProgressDeadline(s.d) && cond && !deploymentComplete(s.d, status) &&
        cond->value("reason", "") != "ProgressDeadlineExceeded") {
      if (auto from = parseTime(cond->value("lastUpdateTime", Json()))) {
        auto deadline = std::chrono::seconds(s.d["spec"]["progressDeadlineSeconds"].get<int>());
        Duration after = *from + deadline - current;
        s.requeueAfter = after < std::chrono::seconds(1) ? Duration(std::chrono::seconds(1))
                                                         : after + std::chrono::seconds(1);
      }
    }
    return {};
  }
  s.d["status"] = std::move(status);
  return writeDeployment(s);
}

Result<void> DeploymentController::checkPausedConditions(Sync& s) {
  if (!hasProgressDeadline(s.d)) return {};
  Json& status = s.d["status"];
  if (!status.is_object()) status = Json::object();
  const Json* cond = deploymentCondition(status, "Progressing");
  if (cond && cond->value("reason", "") == "ProgressDeadlineExceeded") return {};
  const bool pausedCondExists = cond && cond->value("reason", "") == "DeploymentPaused";
  const bool paused = s.d["spec"].value("paused", false);
  if (paused && !pausedCondExists) {
    setDeploymentCondition(status,
                           newDeploymentCondition("Progressing", "Unknown", "DeploymentPaused",
                                                  "Deployment is paused", now()));
  } else if (!paused && pausedCondExists) {
    setDeploymentCondition(status,
                           newDeploymentCondition("Progressing", "Unknown", "DeploymentResumed",
                                                  "Deployment is resumed", now()));
  } else {
    return {};
  }
  return writeDeployment(s);
}

}  // namespace

Result<Controller*> addDeploymentController(Manager& manager, DeploymentControllerOptions options) {
  auto controller = std::make_shared<DeploymentController>(manager, options);
  return ControllerBuilder(manager)
      .named("deployment")
      .forResource(kDeployments)
      .watches(kReplicaSets, controller->replicaSetHandler())
      .watches(kPods, controller->podHandler())
      .withOptions({.maxConcurrentReconciles = options.workers})
      .complete(workload::reconcileWith(controller));
}

}  // namespace fakekube
