#include "fakekube/cluster/statefulset_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/controller_utils.h"
#include "fakekube/cluster/pod_template_hash.h"
#include "fakekube/runtime/builder.h"

namespace fakekube {

namespace {

using namespace workload;  // NOLINT: the shared controller helpers

constexpr std::string_view kPodNameLabel = "statefulset.kubernetes.io/pod-name";
constexpr std::string_view kPodIndexLabel = "apps.kubernetes.io/pod-index";
constexpr std::string_view kRevisionLabel = "controller-revision-hash";

const Json& field(const Json& object, const char* key) {
  static const Json kEmpty = Json::object();
  auto it = object.find(key);
  return it != object.end() && it->is_object() ? *it : kEmpty;
}

std::int64_t intField(const Json& object, const char* key, std::int64_t fallback) {
  auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<std::int64_t>() : fallback;
}

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
  for (const auto& set : listInNamespace(manager_.cache(), kStatefulSets, meta::namespace_(pod))) {
    auto selector = specSelector(*set);
    if (selector && !selector->empty() && selector->matches(meta::labels(pod))) {
      out.push_back({meta::namespace_(*set), meta::name(*set)});
    }
  }
  return out;
}

Result<std::string> StatefulSetController::ensureRevision(const Json& set,
                                                          const std::string& hash) {
  const std::string name = meta::name(set) + "-" + hash;
  std::int64_t highest = 0;
  for (const auto& revision :
       listInNamespace(manager_.cache(), kControllerRevisions, meta::namespace_(set))) {
    if (!isControlledBy(*revision, meta::uid(set))) continue;
    if (meta::name(*revision) == name) return name;
    highest = std::max(highest, intField(*revision, "revision", 0));
  }
  Json labels =
      field(field(field(set, "spec"), "template"), "metadata").value("labels", Json::object());
  labels[std::string(kRevisionLabel)] = hash;
  Json revision = {{"apiVersion", "apps/v1"},
                   {"kind", "ControllerRevision"},
                   {"metadata",
                    {{"name", name},
                     {"namespace", meta::namespace_(set)},
                     {"labels", labels},
                     {"ownerReferences", Json::array({meta::toJson(meta::controllerRefTo(set))})}}},
                   {"data", {{"spec", {{"template", field(field(set, "spec"), "template")}}}}},
                   {"revision", highest + 1}};
  auto created = manager_.client().create(kControllerRevisions, std::move(revision));
  if (!created && !isAlreadyExists(created.error())) return tl::unexpected(created.error());
  return name;
}

Result<void> StatefulSetController::createPod(const Json& set, int ordinal,
                                              const std::string& revision) {
  const Json& spec = field(set, "spec");
  const std::string setName = meta::name(set);
  const std::string podName = fmt::format("{}-{}", setName, ordinal);
  Json pod = podFromTemplate(set, field(spec, "template"));
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
  Json selectorLabels = field(field(spec, "selector"), "matchLabels");
  for (const auto& claimTemplate : spec.value("volumeClaimTemplates", Json::array())) {
    if (!claimTemplate.is_object()) continue;
    const std::string templateName = field(claimTemplate, "metadata").value("name", "");
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
            {"labels", field(claimTemplate, "metadata").value("labels", Json::object())}}},
          {"spec", field(claimTemplate, "spec")}};
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
  if (!read)
    return isNotFound(read.error()) ? ReconcileOutcome(ReconcileResult{})
                                    : reconcileError(read.error());
  const Json& set = **read;
  auto selector = specSelector(set);
  if (!selector || selector->empty()) return ReconcileResult{};
  const Json& spec = field(set, "spec");
  const int replicas = static_cast<int>(intField(spec, "replicas", 1));
  const bool parallel = spec.value("podManagementPolicy", "OrderedReady") == "Parallel";
  const std::string setName = meta::name(set);

  ClaimContext claim{manager_.client(), manager_.apiReader(), kStatefulSets, set, *selector, ""};
  auto claimed =
      claimObjects(claim, kPods, listInNamespace(manager_.cache(), kPods, request.namespace_));
  if (!claimed) return reconcileError(claimed.error());

  const std::string hash = computePodTemplateHash(field(spec, "template"), std::nullopt);
  auto updateRevision = ensureRevision(set, hash);
  if (!updateRevision) return reconcileError(updateRevision.error());
  const Json& oldStatus = field(set, "status");
  std::string currentRevision = oldStatus.value("currentRevision", "");
  if (currentRevision.empty()) currentRevision = *updateRevision;

  std::map<int, ObjectPtr> inRange;  // ordinal -> pod
  std::vector<std::pair<int, ObjectPtr>> condemned;
  for (const auto& pod : *claimed) {
    int ordinal = ordinalOf(setName, meta::name(*pod));
    if (ordinal < 0) continue;  // not one of the set's identities: left alone
    if (ordinal < replicas) {
      inRange[ordinal] = pod;
    } else {
      condemned.push_back({ordinal, pod});
    }
  }
  std::sort(condemned.begin(), condemned.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });

  auto revisionOf = [&](const Json& pod) {
    return setName + "-" + meta::label(pod, kRevisionLabel);
  };
  const TimePoint now = manager_.executor().clock().now();
  const int minReadySeconds = static_cast<int>(intField(spec, "minReadySeconds", 0));

  auto sync = [&]() -> Result<void> {
    if (meta::isDeleting(set)) return {};
    // Finished pods are made again (deleted now, created on the next sync).
    for (auto& [ordinal, pod] : inRange) {
      if (isFinished(*pod) && !meta::isDeleting(*pod)) {
        if (auto r = deletePod(set, *pod); !r) return r;
        if (!parallel) return {};
      }
    }
    for (int ordinal = 0; ordinal < replicas; ++ordinal) {
      auto it = inRange.find(ordinal);
      if (it == inRange.end()) {
        if (auto r = createPod(set, ordinal, *updateRevision); !r) return r;
        if (!parallel) return {};
        continue;
      }
      const Json& pod = *it->second;
      if (!parallel && !isRunningAndReady(pod)) return {};
    }
    // Scale down, highest ordinal first.
    for (const auto& [ordinal, pod] : condemned) {
      if (meta::isDeleting(*pod)) {
        if (!parallel) return {};
        continue;
      }
      if (!parallel) {
        for (const auto& [_, other] : inRange) {
          if (!isRunningAndReady(*other)) return {};
        }
      }
      if (auto r = deletePod(set, *pod); !r) return r;
      if (!parallel) return {};
    }
    // Rolling update: the highest ordinal at or above the partition with another revision.
    const Json& strategy = field(spec, "updateStrategy");
    if (strategy.value("type", "RollingUpdate") != "RollingUpdate") return {};
    if (!condemned.empty()) return {};
    for (const auto& [_, pod] : inRange) {
      if (!isRunningAndReady(*pod)) return {};
    }
    const int partition =
        static_cast<int>(intField(field(strategy, "rollingUpdate"), "partition", 0));
    for (auto it = inRange.rbegin(); it != inRange.rend(); ++it) {
      if (it->first < partition) break;
      if (revisionOf(*it->second) != *updateRevision) return deletePod(set, *it->second);
    }
    return {};
  };
  auto synced = sync();

  // Status, from what the cache shows (the next event brings the writes above).
  std::int64_t count = 0, ready = 0, available = 0, current = 0, updated = 0;
  for (const auto& pod : *claimed) {
    if (ordinalOf(setName, meta::name(*pod)) < 0) continue;
    ++count;
    if (isPodReady(*pod)) {
      ++ready;
      if (isPodAvailable(*pod, minReadySeconds, now)) ++available;
    }
    if (revisionOf(*pod) == currentRevision) ++current;
    if (revisionOf(*pod) == *updateRevision) ++updated;
  }
  // Every pod is at the update revision: it becomes the current one.
  if (updated == replicas && count == replicas) {
    currentRevision = *updateRevision;
    current = updated;
  }
  Json status = {{"replicas", count},
                 {"availableReplicas", available},
                 {"currentRevision", currentRevision},
                 {"updateRevision", *updateRevision},
                 {"collisionCount", 0},
                 {"observedGeneration", meta::generation(set)}};
  if (ready > 0) status["readyReplicas"] = ready;
  if (current > 0) status["currentReplicas"] = current;
  if (updated > 0) status["updatedReplicas"] = updated;
  if (oldStatus.contains("conditions")) status["conditions"] = oldStatus["conditions"];
  if (status != oldStatus) {
    Json write = set;
    write["status"] = status;
    auto written = manager_.client().updateStatus(kStatefulSets, std::move(write));
    if (!written) return reconcileError(written.error());
  }
  if (!synced) return reconcileError(synced.error());
  if (minReadySeconds > 0 && available < ready) {
    return ReconcileResult{std::chrono::seconds(1)};
  }
  return ReconcileResult{};
}

}  // namespace

Result<Controller*> addStatefulSetController(Manager& manager,
                                             StatefulSetControllerOptions options) {
  auto controller = std::make_shared<StatefulSetController>(manager, options);
  ControllerOptions controllerOptions;
  controllerOptions.maxConcurrentReconciles = options.workers;
  std::weak_ptr<StatefulSetController> weak = controller;
  auto podHandler = enqueueRequestsFromMapFunc([weak](const Json& pod) {
    auto self = weak.lock();
    return self ? self->setsSelecting(pod) : std::vector<ReconcileRequest>{};
  });
  return ControllerBuilder(manager)
      .named("statefulset")
      .forResource(kStatefulSets)
      .watches(kPods, std::move(podHandler))
      .withOptions(std::move(controllerOptions))
      .complete(
          [controller](const ReconcileRequest& request) { return controller->reconcile(request); });
}

}  // namespace fakekube
