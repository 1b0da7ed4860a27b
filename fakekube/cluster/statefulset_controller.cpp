#include "fakekube/cluster/statefulset_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/internal/controller_utils.h"
#include "fakekube/cluster/internal/pod_template_hash.h"
#include "fakekube/runtime/builder.h"

namespace fakekube {

namespace {

using namespace workload;  // NOLINT: the shared controller helpers

constexpr std::string_view kPodNameLabel = "statefulset.kubernetes.io/pod-name";
constexpr std::string_view kPodIndexLabel = "apps.kubernetes.io/pod-index";
constexpr std::string_view kRevisionLabel = "controller-revision-hash";

// The ordinal of `<set>-<n>`, or -1.
int ordinalOf(const std::string& setName, const std::string& podName) {
  if (podName.size() <= setName.size() + 1 || podName.compare(0, setName.size(), setName) != 0 ||
      podName[setName.size()] != '-') {
    return -1;
  }
  std::string digits = podName.substr(setName.size() + 1);
  if (digits.empty() || digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(), ::isdigit) ||
      (digits.size() > 1 && digits[0] == '0')) {
    return -1;
  }
  return std::stoi(digits);
}

bool isRunningAndReady(const Json& pod) {
  return podPhase(pod) == "Running" && isPodReady(pod) && !meta::isDeleting(pod);
}

bool isFinished(const Json& pod) {
  auto phase = podPhase(pod);
  return phase == "Succeeded" || phase == "Failed";
}

// One round of a StatefulSet: its spec, its revisions and its pods by ordinal.
struct StatefulSetSync {
  const Json& set;
  const Json& spec;
  std::string setName;
  int replicas = 1;
  bool parallel = false;  // podManagementPolicy Parallel
  std::string updateRevision;
  std::string currentRevision;
  std::map<int, ObjectPtr> inRange;                  // ordinal < replicas -> pod
  std::vector<std::pair<int, ObjectPtr>> condemned;  // the rest, highest ordinal first
  TimePoint now;
  int minReadySeconds = 0;

  // The ControllerRevision name of a pod's revision label.
  std::string revisionOf(const Json& pod) const {
    return setName + "-" + meta::label(pod, kRevisionLabel);
  }
};

class StatefulSetController {
 public:
  StatefulSetController(Manager& manager, StatefulSetControllerOptions options)
      : manager_(manager), options_(options) {}

  ReconcileOutcome reconcile(const ReconcileRequest& request);
  std::vector<ReconcileRequest> setsSelecting(const Json& pod);

 private:
  Result<std::string> ensureRevision(const Json& set, const std::string& hash);
  Result<void> createPod(const Json& set, int ordinal, const std::string& revision);
  Result<void> deletePod(const Json& set, const Json& pod);
  // The claims of the pod's volumeClaimTemplates, made when missing, and its volumes naming them.
  Result<void> createPersistentVolumeClaims(const Json& set, Json& pod);
  // Sorts the claimed pods with an ordinal into those in range and the condemned.
  void sortPodsByOrdinal(StatefulSetSync& s, const std::vector<ObjectPtr>& claimed);
  // Deletes finished pods, creates missing ones, deletes condemned ones, one at a time under
  // OrderedReady (updateStatefulSet), then rolls the update.
  Result<void> updateStatefulSet(StatefulSetSync& s);
  // The rolling update: the highest ordinal at or above the partition with another revision
  // goes, once every pod is running and ready.
  Result<void> updateStatefulSetAfterInvariantEstablished(StatefulSetSync& s);
  // Counts the pods into a status and writes it when it changed; answers it.
  Result<Json> updateStatefulSetStatus(StatefulSetSync& s, const std::vector<ObjectPtr>& claimed);
  void event(const Json& set, std::string_view type, std::string_view reason,
             const std::string& message) {
    if (options_.recordEvents) {
      (void)manager_.eventRecorder("statefulset-controller").event(set, type, reason, message);
    }
  }

  Manager& manager_;
  const StatefulSetControllerOptions options_;
};

std::vector<ReconcileRequest> StatefulSetController::setsSelecting(const Json& pod) {
  std::vector<ReconcileRequest> out;
  if (auto ref = meta::controllerRefOf(pod)) {
    if (ref->kind == "StatefulSet") out.push_back({meta::namespace_(pod), std::string(ref->name)});
    return out;
  }
  return ownersSelecting(manager_.cache(), kStatefulSets, pod);
}

Result<std::string> StatefulSetController::ensureRevision(const Json& set,
                                                          const std::string& hash) {
  const std::string name = meta::name(set) + "-" + hash;
  std::int64_t highest = 0;
  for (const auto& revision :
       listInNamespace(manager_.cache(), kControllerRevisions, meta::namespace_(set))) {
    if (!isControlledBy(*revision, meta::uid(set))) continue;
    if (meta::name(*revision) == name) return name;
    highest = std::max(highest, integerMember(*revision, "revision", 0));
  }
  Json labels = jsonObjectAt(jsonObjectAt(jsonObjectAt(set, "spec"), "template"), "metadata")
                    .value("labels", Json::object());
  labels[std::string(kRevisionLabel)] = hash;
  Json revision = {
      {"apiVersion", "apps/v1"},
      {"kind", "ControllerRevision"},
      {"metadata",
       {{"name", name},
        {"namespace", meta::namespace_(set)},
        {"labels", labels},
        {"ownerReferences", Json::array({meta::toJson(meta::controllerRefTo(set))})}}},
      {"data", {{"spec", {{"template", jsonObjectAt(jsonObjectAt(set, "spec"), "template")}}}}},
      {"revision", highest + 1}};
  auto created = manager_.client().create(kControllerRevisions, std::move(revision));
  if (!created && !isAlreadyExists(created.error())) return tl::unexpected(created.error());
  return name;
}

Result<void> StatefulSetController::createPod(const Json& set, int ordinal,
                                              const std::string& revision) {
  const Json& spec = jsonObjectAt(set, "spec");
  const std::string setName = meta::name(set);
  const std::string podName = fmt::format("{}-{}", setName, ordinal);
  Json pod = podFromTemplate(set, jsonObjectAt(spec, "template"));
  pod["metadata"].erase("generateName");
  pod["metadata"]["name"] = podName;
  meta::setLabel(pod, kPodNameLabel, podName);
  meta::setLabel(pod, kPodIndexLabel, std::to_string(ordinal));
  meta::setLabel(pod, kRevisionLabel, revision.substr(setName.size() + 1));
  pod["spec"]["hostname"] = podName;
  if (auto service = spec.value("serviceName", ""); !service.empty()) {
    pod["spec"]["subdomain"] = service;
  }
  // Storage first: the claims, then the pod's volumes that name them.
  if (auto claimed = createPersistentVolumeClaims(set, pod); !claimed) return claimed;
  auto created = manager_.client().create(kPods, std::move(pod));
  if (!created) {
    if (isAlreadyExists(created.error())) return {};  // the cache lags
    event(set, "Warning", "FailedCreate",
          fmt::format("create Pod {} in StatefulSet {} failed error: {}", podName, setName,
                      created.error().message));
    return tl::unexpected(created.error());
  }
  event(set, "Normal", "SuccessfulCreate",
        fmt::format("create Pod {} in StatefulSet {} successful", podName, setName));
  return {};
}

Result<void> StatefulSetController::createPersistentVolumeClaims(const Json& set, Json& pod) {
  const Json& spec = jsonObjectAt(set, "spec");
  const std::string setName = meta::name(set);
  const std::string podName = meta::name(pod);
  Json selectorLabels = jsonObjectAt(jsonObjectAt(spec, "selector"), "matchLabels");
  for (const auto& claimTemplate : spec.value("volumeClaimTemplates", Json::array())) {
    if (!claimTemplate.is_object()) continue;
    const std::string templateName = jsonObjectAt(claimTemplate, "metadata").value("name", "");
    if (templateName.empty()) continue;
    const std::string claimName = fmt::format("{}-{}", templateName, podName);
    auto existing =
        manager_.cache().getShared(kPersistentVolumeClaims, meta::namespace_(set), claimName);
    if (!existing) {
      if (!isNotFound(existing.error())) return tl::unexpected(existing.error());
      Json claim = {
          {"apiVersion", "v1"},
          {"kind", "PersistentVolumeClaim"},
          {"metadata",
           {{"name", claimName},
            {"namespace", meta::namespace_(set)},
            {"labels", jsonObjectAt(claimTemplate, "metadata").value("labels", Json::object())}}},
          {"spec", jsonObjectAt(claimTemplate, "spec")}};
      for (const auto& [k, v] : selectorLabels.items()) claim["metadata"]["labels"][k] = v;
      if (claim["metadata"]["labels"].empty()) claim["metadata"].erase("labels");
      auto created = manager_.client().create(kPersistentVolumeClaims, std::move(claim));
      if (!created && !isAlreadyExists(created.error())) {
        event(set, "Warning", "FailedCreate",
              fmt::format("create Claim {} for Pod {} in StatefulSet {} failed error: {}",
                          claimName, podName, setName, created.error().message));
        return tl::unexpected(created.error());
      }
      if (created) {
        event(set, "Normal", "SuccessfulCreate",
              fmt::format("create Claim {} Pod {} in StatefulSet {} success", claimName, podName,
                          setName));
      }
    }
    Json volume = {{"name", templateName}, {"persistentVolumeClaim", {{"claimName", claimName}}}};
    Json volumes = pod["spec"].value("volumes", Json::array());
    volumes.erase(
        std::remove_if(volumes.begin(), volumes.end(),
                       [&](const Json& v) { return v.value("name", "") == templateName; }),
        volumes.end());
    volumes.push_back(std::move(volume));
    pod["spec"]["volumes"] = std::move(volumes);
  }
  return {};
}

Result<void> StatefulSetController::deletePod(const Json& set, const Json& pod) {
  auto deleted = manager_.client().deleteObject(kPods, meta::namespace_(pod), meta::name(pod));
  if (!deleted && !isNotFound(deleted.error())) {
    event(set, "Warning", "FailedDelete",
          fmt::format("delete Pod {} in StatefulSet {} failed error: {}", meta::name(pod),
                      meta::name(set), deleted.error().message));
    return tl::unexpected(deleted.error());
  }
  event(
      set, "Normal", "SuccessfulDelete",
      fmt::format("delete Pod {} in StatefulSet {} successful", meta::name(pod), meta::name(set)));
  return {};
}

ReconcileOutcome StatefulSetController::reconcile(const ReconcileRequest& request) {
  auto read = manager_.cache().getShared(kStatefulSets, request.namespace_, request.name);
  if (!read) return ignoreNotFound(read.error());
  const Json& set = **read;
  auto selector = specSelector(set);
  if (!selector || selector->empty()) return ReconcileResult{};
  const Json& spec = jsonObjectAt(set, "spec");

  auto claimed = claimFromCache(manager_, kStatefulSets, set, *selector, kPods);
  if (!claimed) return reconcileError(claimed.error());

  const std::string hash = computePodTemplateHash(jsonObjectAt(spec, "template"), std::nullopt);
  auto updateRevision = ensureRevision(set, hash);
  if (!updateRevision) return reconcileError(updateRevision.error());
  StatefulSetSync s{.set = set,
                    .spec = spec,
                    .setName = meta::name(set),
                    .replicas = static_cast<int>(integerMember(spec, "replicas", 1)),
                    .parallel = spec.value("podManagementPolicy", "OrderedReady") == "Parallel",
                    .updateRevision = *updateRevision,
                    .currentRevision = jsonObjectAt(set, "status").value("currentRevision", ""),
                    .now = manager_.executor().clock().now(),
                    .minReadySeconds = static_cast<int>(integerMember(spec, "minReadySeconds", 0))};
  if (s.currentRevision.empty()) s.currentRevision = s.updateRevision;
  sortPodsByOrdinal(s, *claimed);

  auto synced = meta::isDeleting(set) ? Result<void>{} : updateStatefulSet(s);
  // Status, from what the cache shows (the next event brings the writes above).
  auto status = updateStatefulSetStatus(s, *claimed);
  if (!status) return reconcileError(status.error());
  if (!synced) return reconcileError(synced.error());
  if (s.minReadySeconds > 0 &&
      integerMember(*status, "availableReplicas", 0) < integerMember(*status, "readyReplicas", 0)) {
    return ReconcileResult{std::chrono::seconds(1)};
  }
  return ReconcileResult{};
}

void StatefulSetController::sortPodsByOrdinal(StatefulSetSync& s,
                                              const std::vector<ObjectPtr>& claimed) {
  for (const auto& pod : claimed) {
    int ordinal = ordinalOf(s.setName, meta::name(*pod));
    if (ordinal < 0) continue;  // not one of the set's identities: left alone
    if (ordinal < s.replicas) {
      s.inRange[ordinal] = pod;
    } else {
      s.condemned.push_back({ordinal, pod});
    }
  }
  std::sort(s.condemned.begin(), s.condemned.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
}

Result<void> StatefulSetController::updateStatefulSet(StatefulSetSync& s) {
  const Json& set = s.set;
  // Finished pods are made again (deleted now, created on the next sync).
  for (auto& [ordinal, pod] : s.inRange) {
    if (isFinished(*pod) && !meta::isDeleting(*pod)) {
      if (auto r = deletePod(set, *pod); !r) return r;
      if (!s.parallel) return {};
    }
  }
  for (int ordinal = 0; ordinal < s.replicas; ++ordinal) {
    auto it = s.inRange.find(ordinal);
    if (it == s.inRange.end()) {
      if (auto r = createPod(set, ordinal, s.updateRevision); !r) return r;
      if (!s.parallel) return {};
      continue;
    }
    const Json& pod = *it->second;
    if (!s.parallel && !isRunningAndReady(pod)) return {};
  }
  // Scale down, highest ordinal first.
  for (const auto& [ordinal, pod] : s.condemned) {
    if (meta::isDeleting(*pod)) {
      if (!s.parallel) return {};
      continue;
    }
    if (!s.parallel) {
      for (const auto& [_, other] : s.inRange) {
        if (!isRunningAndReady(*other)) return {};
      }
    }
    if (auto r = deletePod(set, *pod); !r) return r;
    if (!s.parallel) return {};
  }
  return updateStatefulSetAfterInvariantEstablished(s);
}

Result<void> StatefulSetController::updateStatefulSetAfterInvariantEstablished(StatefulSetSync& s) {
  const Json& strategy = jsonObjectAt(s.spec, "updateStrategy");
  if (strategy.value("type", "RollingUpdate") != "RollingUpdate") return {};
  if (!s.condemned.empty()) return {};
  for (const auto& [_, pod] : s.inRange) {
    if (!isRunningAndReady(*pod)) return {};
  }
  const int partition =
      static_cast<int>(integerMember(jsonObjectAt(strategy, "rollingUpdate"), "partition", 0));
  for (auto it = s.inRange.rbegin(); it != s.inRange.rend(); ++it) {
    if (it->first < partition) break;
    if (s.revisionOf(*it->second) != s.updateRevision) return deletePod(s.set, *it->second);
  }
  return {};
}

Result<Json> StatefulSetController::updateStatefulSetStatus(StatefulSetSync& s,
                                                            const std::vector<ObjectPtr>& claimed) {
  std::int64_t count = 0, ready = 0, available = 0, current = 0, updated = 0;
  for (const auto& pod : claimed) {
    if (ordinalOf(s.setName, meta::name(*pod)) < 0) continue;
    ++count;
    if (isPodReady(*pod)) {
      ++ready;
      if (isPodAvailable(*pod, s.minReadySeconds, s.now)) ++available;
    }
    if (s.revisionOf(*pod) == s.currentRevision) ++current;
    if (s.revisionOf(*pod) == s.updateRevision) ++updated;
  }
  // Every pod is at the update revision: it becomes the current one.
  if (updated == s.replicas && count == s.replicas) {
    s.currentRevision = s.updateRevision;
    current = updated;
  }
  const Json& oldStatus = jsonObjectAt(s.set, "status");
  Json status = {{"replicas", count},
                 {"availableReplicas", available},
                 {"currentRevision", s.currentRevision},
                 {"updateRevision", s.updateRevision},
                 {"collisionCount", 0},
                 {"observedGeneration", meta::generation(s.set)}};
  if (ready > 0) status["readyReplicas"] = ready;
  if (current > 0) status["currentReplicas"] = current;
  if (updated > 0) status["updatedReplicas"] = updated;
  if (oldStatus.contains("conditions")) status["conditions"] = oldStatus["conditions"];
  if (status != oldStatus) {
    Json write = s.set;
    write["status"] = status;
    auto written = manager_.client().updateStatus(kStatefulSets, std::move(write));
    if (!written) return tl::unexpected(written.error());
  }
  return status;
}

}  // namespace

Result<Controller*> addStatefulSetController(Manager& manager,
                                             StatefulSetControllerOptions options) {
  auto controller = std::make_shared<StatefulSetController>(manager, options);
  std::weak_ptr<StatefulSetController> weak = controller;
  auto podHandler = enqueueRequestsFromMapFunc([weak](const Json& pod) {
    auto self = weak.lock();
    return self ? self->setsSelecting(pod) : std::vector<ReconcileRequest>{};
  });
  return ControllerBuilder(manager)
      .named("statefulset")
      .forResource(kStatefulSets)
      .watches(kPods, std::move(podHandler))
      .withOptions({.maxConcurrentReconciles = options.workers})
      .complete(workload::reconcileWith(controller));
}

}  // namespace fakekube
