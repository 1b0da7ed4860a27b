#include "fakekube/cluster/replicaset_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/internal/controller_expectations.h"
#include "fakekube/cluster/internal/controller_utils.h"
#include "fakekube/runtime/builder.h"

namespace fakekube {

namespace {

using namespace workload;  // NOLINT: the shared controller helpers

const Json& spec(const Json& object) {
  static const Json kEmpty = Json::object();
  auto it = object.find("spec");
  return it != object.end() && it->is_object() ? *it : kEmpty;
}

const Json& status(const Json& object) {
  static const Json kEmpty = Json::object();
  auto it = object.find("status");
  return it != object.end() && it->is_object() ? *it : kEmpty;
}

std::string podKey(const Json& pod) { return meta::namespacedName(pod); }

bool isReplicaSetRef(const meta::OwnerReferenceView& ref) {
  return ref.kind == "ReplicaSet" && meta::groupOf(ref.apiVersion) == "apps";
}

class ReplicaSetController : public std::enable_shared_from_this<ReplicaSetController> {
 public:
  ReplicaSetController(Manager& manager, ReplicaSetControllerOptions options)
      : manager_(manager),
        options_(options),
        expectations_(manager.executor().clock(), options.expectationsTimeout) {}

  EventHandler podHandler();
  ReconcileOutcome reconcile(const ReconcileRequest& request);

 private:
  Clock& clock() { return manager_.executor().clock(); }

  // The ReplicaSets whose selector matches an orphan pod's labels (getPodReplicaSets).
  std::vector<ReconcileRequest> replicaSetsSelecting(const Json& pod);
  // The ReplicaSet that controls the pod, if any.
  std::optional<ReconcileRequest> controllingReplicaSet(const Json& pod);

  std::vector<ReconcileRequest> onPodAdd(const ObjectPtr& pod);
  std::vector<ReconcileRequest> onPodUpdate(const ObjectPtr& oldPod, const ObjectPtr& newPod);
  std::vector<ReconcileRequest> onPodDelete(const ObjectPtr& pod);

  // Creates or deletes pods towards spec.replicas; the error of the first failed write.
  std::optional<Status> manageReplicas(const Json& rs, const std::string& key,
                                       const std::vector<ObjectPtr>& pods);
  // The active pods of the other ReplicaSets of the same controller (and this one's).
  std::vector<ObjectPtr> relatedPods(const Json& rs, const std::vector<ObjectPtr>& allPods);
  Json calculateStatus(const Json& rs, const std::vector<ObjectPtr>& pods,
                       const std::optional<Status>& manageError, bool scalingUp);
  void event(const Json& rs, std::string_view type, std::string_view reason,
             const std::string& message);

  Manager& manager_;
  const ReplicaSetControllerOptions options_;
  ControllerExpectations expectations_;
};

std::optional<ReconcileRequest> ReplicaSetController::controllingReplicaSet(const Json& pod) {
  auto ref = meta::controllerRefOf(pod);
  if (!ref || !isReplicaSetRef(*ref)) return std::nullopt;
  // resolveControllerRef: the ReplicaSet of that name must be the one with that uid.
  auto rs = manager_.cache().getShared(kReplicaSets, meta::namespace_(pod), ref->name);
  if (rs && meta::uid(**rs) != ref->uid) return std::nullopt;
  return ReconcileRequest{meta::namespace_(pod), std::string(ref->name)};
}

std::vector<ReconcileRequest> ReplicaSetController::replicaSetsSelecting(const Json& pod) {
  return ownersSelecting(manager_.cache(), kReplicaSets, pod);
}

std::vector<ReconcileRequest> ReplicaSetController::onPodAdd(const ObjectPtr& pod) {
  if (meta::isDeleting(*pod)) return onPodDelete(pod);
  if (auto owner = controllingReplicaSet(*pod)) {
    expectations_.creationObserved(owner->key());
    return {*owner};
  }
  if (meta::controllerRefOf(*pod)) return {};
  return replicaSetsSelecting(*pod);
}

std::vector<ReconcileRequest> ReplicaSetController::onPodUpdate(const ObjectPtr& oldPod,
                                                                const ObjectPtr& newPod) {
  if (meta::resourceVersion(*oldPod) == meta::resourceVersion(*newPod)) return {};
  std::vector<ReconcileRequest> out;
  auto add = [&out](const ReconcileRequest& r) {
    if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  };
  auto labelsChanged = [&] { return meta::labels(*oldPod) != meta::labels(*newPod); };
  if (meta::isDeleting(*newPod)) {
    // A pod being deleted is as good as gone: observe it now so the replacement is not held up
    // for the whole grace period. A label change may also have moved it away from an owner.
    for (const auto& r : onPodDelete(newPod)) add(r);
    if (labelsChanged()) {
      for (const auto& r : onPodDelete(oldPod)) add(r);
    }
    return out;
  }
  auto oldOwner = controllingReplicaSet(*oldPod);
  auto newOwner = controllingReplicaSet(*newPod);
  if (oldOwner && oldOwner != newOwner) add(*oldOwner);
  if (newOwner) {
    add(*newOwner);
    return out;
  }
  if (!meta::controllerRefOf(*newPod) && (oldOwner || labelsChanged())) {
    for (const auto& r : replicaSetsSelecting(*newPod)) add(r);
  }
  return out;
}

std::vector<ReconcileRequest> ReplicaSetController::onPodDelete(const ObjectPtr& pod) {
  auto owner = controllingReplicaSet(*pod);
  if (!owner) return {};
  expectations_.deletionObserved(owner->key(), podKey(*pod));
  return {*owner};
}

EventHandler ReplicaSetController::podHandler() {
  return workload::controllerEventHandler(weak_from_this(), &ReplicaSetController::onPodAdd,
                                          &ReplicaSetController::onPodUpdate,
                                          &ReplicaSetController::onPodDelete);
}

void ReplicaSetController::event(const Json& rs, std::string_view type, std::string_view reason,
                                 const std::string& message) {
  if (!options_.recordEvents) return;
  (void)manager_.eventRecorder("replicaset-controller").event(rs, type, reason, message);
}

std::vector<ObjectPtr> ReplicaSetController::relatedPods(const Json& rs,
                                                         const std::vector<ObjectPtr>& allPods) {
  auto owner = meta::controllerOf(rs);
  std::set<std::string> siblings = {meta::uid(rs)};
  if (owner) {
    for (const auto& other :
         listInNamespace(manager_.cache(), kReplicaSets, meta::namespace_(rs))) {
      if (isControlledBy(*other, owner->uid)) siblings.insert(meta::uid(*other));
    }
  }
  std::vector<ObjectPtr> related;
  for (const auto& pod : allPods) {
    auto ref = meta::controllerOf(*pod);
    if (ref && siblings.count(ref->uid) && isPodActive(*pod)) related.push_back(pod);
  }
  return related;
}

std::optional<Status> ReplicaSetController::manageReplicas(const Json& rs, const std::string& key,
                                                           const std::vector<ObjectPtr>& pods) {
  const auto replicas = integerMember(spec(rs), "replicas", 1);
  auto diff = static_cast<std::int64_t>(pods.size()) - replicas;
  Client& client = manager_.client();
  if (diff < 0) {
    // The cache may still show a ReplicaSet the server has deleted (the garbage collector removes
    // it, then its pods, and the pods' DELETED events can arrive first): a fresh read keeps us
    // from creating pods for an owner that is gone, which the collector would only delete again.
    auto live = manager_.apiReader().get(kReplicaSets, meta::namespace_(rs), meta::name(rs));
    if (!live) return isNotFound(live.error()) ? std::nullopt : std::optional(live.error());
    if (meta::uid(*live) != meta::uid(rs) || meta::isDeleting(*live)) return std::nullopt;
    int toCreate = static_cast<int>(std::min<std::int64_t>(-diff, options_.burstReplicas));
    expectations_.expectCreations(key, toCreate);
    const Json podTemplate = spec(rs).value("template", Json::object());
    auto result = slowStartBatch(toCreate, kSlowStartInitialBatchSize, [&]() -> Result<void> {
      auto created = client.create(kPods, podFromTemplate(rs, podTemplate));
      if (!created) {
        event(rs, "Warning", "FailedCreate", "Error creating: " + created.error().message);
        return tl::unexpected(created.error());
      }
      event(rs, "Normal", "SuccessfulCreate", "Created pod: " + meta::name(*created));
      return {};
    });
    // Pods never created will never be observed.
    if (int skipped = toCreate - result.successes; skipped > 0) {
      expectations_.lowerExpectations(key, skipped, 0);
    }
    return result.error;
  }
  if (diff > 0) {
    auto toDelete = static_cast<std::size_t>(std::min<std::int64_t>(diff, options_.burstReplicas));
    auto victims = podsToDeleteFirst(
        pods, relatedPods(rs, listInNamespace(manager_.cache(), kPods, meta::namespace_(rs))),
        toDelete);
    std::vector<std::string> keys;
    for (const auto& pod : victims) keys.push_back(podKey(*pod));
    expectations_.expectDeletions(key, keys);
    std::optional<Status> firstError;
    for (const auto& pod : victims) {
      auto deleted = client.deleteObject(kPods, meta::namespace_(*pod), meta::name(*pod));
      if (!deleted) {
        expectations_.deletionObserved(key, podKey(*pod));
        if (!isNotFound(deleted.error())) {
          event(rs, "Warning", "FailedDelete", "Error deleting: " + deleted.error().message);
          if (!firstError) firstError = deleted.error();
        }
        continue;
      }
      event(rs, "Normal", "SuccessfulDelete", "Deleted pod: " + meta::name(*pod));
    }
    return firstError;
  }
  return std::nullopt;
}

Json ReplicaSetController::calculateStatus(const Json& rs, const std::vector<ObjectPtr>& pods,
                                           const std::optional<Status>& manageError,
                                           bool scalingUp) {
  const Json& rsSpec = spec(rs);
  const int minReadySeconds = static_cast<int>(integerMember(rsSpec, "minReadySeconds"));
  Json templateLabels = Json::object();
  if (rsSpec.contains("template") && rsSpec["template"].is_object() &&
      rsSpec["template"].contains("metadata") && rsSpec["template"]["metadata"].is_object()) {
    templateLabels = rsSpec["template"]["metadata"].value("labels", Json::object());
  }
  const TimePoint now = clock().now();
  std::int64_t fullyLabeled = 0, ready = 0, available = 0;
  for (const auto& pod : pods) {
    const Json& labels = meta::labels(*pod);
    bool all = true;
    for (const auto& [k, v] : templateLabels.items()) {
      if (!labels.is_object() || !labels.contains(k) || labels[k] != v) all = false;
    }
    if (all) ++fullyLabeled;
    if (isPodReady(*pod)) {
      ++ready;
      if (isPodAvailable(*pod, minReadySeconds, now)) ++available;
    }
  }
  Json newStatus = status(rs);
  newStatus["replicas"] = static_cast<std::int64_t>(pods.size());
  auto setCount = [&newStatus](const char* key, std::int64_t value) {
    if (value == 0) {
      newStatus.erase(key);  // omitempty
    } else {
      newStatus[key] = value;
    }
  };
  setCount("fullyLabeledReplicas", fullyLabeled);
  setCount("readyReplicas", ready);
  setCount("availableReplicas", available);

  // The ReplicaFailure condition: set while creating or deleting fails, removed once it works.
  Json conditions = newStatus.value("conditions", Json::array());
  auto existing = std::find_if(conditions.begin(), conditions.end(), [](const Json& c) {
    return c.is_object() && c.value("type", "") == "ReplicaFailure";
  });
  if (manageError && existing == conditions.end()) {
    conditions.push_back({{"type", "ReplicaFailure"},
                          {"status", "True"},
                          {"lastTransitionTime", formatRfc3339(now)},
                          {"reason", scalingUp ? "FailedCreate" : "FailedDelete"},
                          {"message", manageError->message}});
  } else if (!manageError && existing != conditions.end()) {
    conditions.erase(existing);
  }
  if (conditions.empty()) {
    newStatus.erase("conditions");
  } else {
    newStatus["conditions"] = std::move(conditions);
  }
  return newStatus;
}

ReconcileOutcome ReplicaSetController::reconcile(const ReconcileRequest& request) {
  const std::string key = request.key();
  auto read = manager_.cache().getShared(kReplicaSets, request.namespace_, request.name);
  if (!read) {
    if (isNotFound(read.error())) {
      expectations_.deleteExpectations(key);
      return ReconcileResult{};
    }
    return reconcileError(read.error());
  }
  const Json& rs = **read;
  const bool needsSync = expectations_.satisfied(key) && !meta::isDeleting(rs);
  auto selector = specSelector(rs);
  if (!selector) return ReconcileResult{};  // an invalid selector is not retried

  std::vector<ObjectPtr> active;
  for (const auto& pod : listInNamespace(manager_.cache(), kPods, request.namespace_)) {
    if (isPodActive(*pod)) active.push_back(pod);
  }
  ClaimContext claim{manager_.client(), manager_.apiReader(), kReplicaSets, rs, *selector, ""};
  auto claimed = claimObjects(claim, kPods, active);
  if (!claimed) return reconcileError(claimed.error());

  std::optional<Status> manageError;
  const auto replicas = integerMember(spec(rs), "replicas", 1);
  const bool scalingUp = static_cast<std::int64_t>(claimed->size()) < replicas;
  if (needsSync) manageError = manageReplicas(rs, key, *claimed);

  Json newStatus = calculateStatus(rs, *claimed, manageError, scalingUp);
  const std::int64_t generation = meta::generation(rs);
  Json oldStatus = status(rs);
  const bool unchanged = integerMember(oldStatus, "observedGeneration") == generation && [&] {
    Json a = oldStatus, b = newStatus;
    a.erase("observedGeneration");
    b.erase("observedGeneration");
    return a == b;
  }();
  if (!unchanged) {
    newStatus["observedGeneration"] = generation;
    Json updated = rs;
    updated["status"] = newStatus;
    auto written = manager_.client().updateStatus(kReplicaSets, std::move(updated));
    if (!written) return reconcileError(written.error());
  }
  if (manageError) return reconcileError(*manageError);

  // A ready pod becomes available minReadySeconds later: look again then.
  const int minReadySeconds = static_cast<int>(integerMember(spec(rs), "minReadySeconds"));
  if (minReadySeconds > 0) {
    const TimePoint now = clock().now();
    std::optional<Duration> next;
    for (const auto& pod : *claimed) {
      auto since = podReadySince(*pod);
      if (!since || isPodAvailable(*pod, minReadySeconds, now)) continue;
      Duration wait =
          *since + std::chrono::seconds(minReadySeconds) - now + std::chrono::seconds(1);
      if (!next || wait < *next) next = wait;
    }
    if (next) return ReconcileResult{*next};
  }
  return ReconcileResult{};
}

}  // namespace

Result<Controller*> addReplicaSetController(Manager& manager, ReplicaSetControllerOptions options) {
  auto controller = std::make_shared<ReplicaSetController>(manager, options);
  return ControllerBuilder(manager)
      .named("replicaset")
      .forResource(kReplicaSets)
      .watches(kPods, controller->podHandler())
      .withOptions({.maxConcurrentReconciles = options.workers})
      .complete(workload::reconcileWith(controller));
}

}  // namespace fakekube
