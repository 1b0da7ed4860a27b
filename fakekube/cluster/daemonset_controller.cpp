#include "fakekube/cluster/daemonset_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/controller_utils.h"
#include "fakekube/cluster/pod_template_hash.h"
#include "fakekube/runtime/builder.h"

namespace fakekube {

namespace {

using namespace workload;  // NOLINT: the shared controller helpers

constexpr std::string_view kRevisionLabel = "controller-revision-hash";

const Json& field(const Json& object, const char* key) {
  static const Json kEmpty = Json::object();
  auto it = object.find(key);
  return it != object.end() && it->is_object() ? *it : kEmpty;
}

// The tolerations every daemon pod gets (util.AddOrUpdateDaemonPodTolerations).
Json withDaemonTolerations(Json tolerations) {
  if (!tolerations.is_array()) tolerations = Json::array();
  auto add = [&](const char* key, const char* effect) {
    for (const auto& t : tolerations) {
      if (t.value("key", "") == key && t.value("effect", "") == effect) return;
    }
    tolerations.push_back({{"key", key}, {"operator", "Exists"}, {"effect", effect}});
  };
  add("node.kubernetes.io/not-ready", "NoExecute");
  add("node.kubernetes.io/unreachable", "NoExecute");
  add("node.kubernetes.io/disk-pressure", "NoSchedule");
  add("node.kubernetes.io/memory-pressure", "NoSchedule");
  add("node.kubernetes.io/pid-pressure", "NoSchedule");
  add("node.kubernetes.io/unschedulable", "NoSchedule");
  return tolerations;
}

bool tolerates(const Json& tolerations, const Json& taint) {
  for (const auto& t : tolerations) {
    std::string effect = t.value("effect", "");
    if (!effect.empty() && effect != taint.value("effect", "")) continue;
    std::string key = t.value("key", "");
    if (!key.empty() && key != taint.value("key", "")) continue;
    std::string op = t.value("operator", "Equal");
    if (op == "Exists") return true;
    if (op == "Equal" && !key.empty() && t.value("value", "") == taint.value("value", "")) {
      return true;
    }
  }
  return false;
}

// nodeShouldRunDaemonPod, for the predicates kept (see the header).
bool shouldRun(const Json& podSpec, const Json& node) {
  const Json& labels = meta::labels(node);
  for (const auto& [key, value] : field(podSpec, "nodeSelector").items()) {
    if (!labels.is_object() || !labels.contains(key) || labels[key] != value) return false;
  }
  const Json tolerations = withDaemonTolerations(podSpec.value("tolerations", Json::array()));
  for (const auto& taint : field(node, "spec").value("taints", Json::array())) {
    const std::string effect = taint.value("effect", "");
    if ((effect == "NoSchedule" || effect == "NoExecute") && !tolerates(tolerations, taint)) {
      return false;
    }
  }
  return true;
}

class DaemonSetController {
 public:
  DaemonSetController(Manager& manager, DaemonSetControllerOptions options)
      : manager_(manager), options_(options) {}
  ReconcileOutcome reconcile(const ReconcileRequest& request);

 private:
  void event(const Json& set, std::string_view type, std::string_view reason,
             const std::string& message) {
    if (options_.recordEvents) {
      (void)manager_.eventRecorder("daemonset-controller").event(set, type, reason, message);
    }
  }
  Manager& manager_;
  const DaemonSetControllerOptions options_;
};

ReconcileOutcome DaemonSetController::reconcile(const ReconcileRequest& request) {
  auto read = manager_.cache().getShared(kDaemonSets, request.namespace_, request.name);
  if (!read)
    return isNotFound(read.error()) ? ReconcileOutcome(ReconcileResult{})
                                    : reconcileError(read.error());
  const Json& set = **read;
  auto selector = specSelector(set);
  if (!selector || selector->empty()) return ReconcileResult{};
  const Json& spec = field(set, "spec");
  const Json& podTemplate = field(spec, "template");
  const Json& podSpec = field(podTemplate, "spec");
  const std::string hash = computePodTemplateHash(podTemplate, std::nullopt);

  ClaimContext claim{manager_.client(), manager_.apiReader(), kDaemonSets, set, *selector, ""};
  auto claimed =
      claimObjects(claim, kPods, listInNamespace(manager_.cache(), kPods, request.namespace_));
  if (!claimed) return reconcileError(claimed.error());
  std::map<std::string, std::vector<ObjectPtr>> byNode;
  for (const auto& pod : *claimed) byNode[podNodeName(*pod)].push_back(pod);

  Client& client = manager_.client();
  std::optional<Status> firstError;
  auto remember = [&firstError](const Status& s) {
    if (!firstError) firstError = s;
  };
  auto deletePod = [&](const Json& pod) {
    if (meta::isDeleting(pod)) return;
    auto deleted = client.deleteObject(kPods, meta::namespace_(pod), meta::name(pod));
    if (!deleted && !isNotFound(deleted.error())) {
      event(set, "Warning", "FailedDelete", "Error deleting: " + deleted.error().message);
      remember(deleted.error());
      return;
    }
    event(set, "Normal", "SuccessfulDelete", "Deleted pod: " + meta::name(pod));
  };

  const TimePoint now = manager_.executor().clock().now();
  const int minReadySeconds = spec.value("minReadySeconds", 0);
  std::int64_t desired = 0, current = 0, misscheduled = 0, ready = 0, available = 0, updated = 0;
  std::set<std::string> nodeNames;
  for (const auto& node : manager_.cache().informerFor(kNodes).list()) {
    const std::string nodeName = meta::name(*node);
    nodeNames.insert(nodeName);
    std::vector<ObjectPtr> daemons;
    for (const auto& pod : byNode[nodeName]) {
      if (!meta::isDeleting(*pod)) daemons.push_back(pod);
    }
    const bool run = shouldRun(podSpec, *node);
    if (!run) {
      if (!daemons.empty()) ++misscheduled;
      if (!meta::isDeleting(set)) {
        for (const auto& pod : daemons) deletePod(*pod);
      }
      continue;
    }
    ++desired;
    // Failed pods go (and are made again below); the oldest of several stays.
    std::vector<ObjectPtr> keep;
    for (const auto& pod : daemons) {
      if (podPhase(*pod) == "Failed") {
        if (!meta::isDeleting(set)) deletePod(*pod);
      } else {
        keep.push_back(pod);
      }
    }
    std::sort(keep.begin(), keep.end(), [](const ObjectPtr& a, const ObjectPtr& b) {
      return std::make_pair(meta::creationTimestamp(*a), meta::name(*a)) <
             std::make_pair(meta::creationTimestamp(*b), meta::name(*b));
    });
    if (!keep.empty()) {
      ++current;
      const Json& pod = *keep.front();
      if (isPodReady(pod)) {
        ++ready;
        if (isPodAvailable(pod, minReadySeconds, now)) ++available;
      }
      if (meta::label(pod, kRevisionLabel) == hash) ++updated;
      for (std::size_t i = 1; i < keep.size(); ++i) {
        if (!meta::isDeleting(set)) deletePod(*keep[i]);
      }
      continue;
    }
    if (meta::isDeleting(set) || daemons.size() > keep.size()) continue;  // wait for the delete
    Json pod = podFromTemplate(set, podTemplate);
    meta::setLabel(pod, kRevisionLabel, hash);
    pod["spec"]["nodeName"] = nodeName;
    pod["spec"]["tolerations"] =
        withDaemonTolerations(pod["spec"].value("tolerations", Json::array()));
    auto created = client.create(kPods, std::move(pod));
    if (!created) {
      event(set, "Warning", "FailedCreate", "Error creating: " + created.error().message);
      remember(created.error());
    } else {
      event(set, "Normal", "SuccessfulCreate", "Created pod: " + meta::name(*created));
    }
  }
  // Pods bound to nodes that are gone.
  for (const auto& [nodeName, pods] : byNode) {
    if (nodeName.empty() || nodeNames.count(nodeName)) continue;
    for (const auto& pod : pods) deletePod(*pod);
  }

  const Json& oldStatus = field(set, "status");
  Json status = {{"desiredNumberScheduled", desired},
                 {"currentNumberScheduled", current},
                 {"numberMisscheduled", misscheduled},
                 {"numberReady", ready},
                 {"observedGeneration", meta::generation(set)}};
  if (available > 0) status["numberAvailable"] = available;
  if (desired - available > 0) status["numberUnavailable"] = desired - available;
  if (updated > 0) status["updatedNumberScheduled"] = updated;
  if (oldStatus.contains("conditions")) status["conditions"] = oldStatus["conditions"];
  if (oldStatus.contains("collisionCount")) status["collisionCount"] = oldStatus["collisionCount"];
  if (status != oldStatus) {
    Json write = set;
    write["status"] = status;
    auto written = client.updateStatus(kDaemonSets, std::move(write));
    if (!written) return reconcileError(written.error());
  }
  if (firstError) return reconcileError(*firstError);
  if (minReadySeconds > 0 && available < ready) return ReconcileResult{std::chrono::seconds(1)};
  return ReconcileResult{};
}

}  // namespace

Result<Controller*> addDaemonSetController(Manager& manager, DaemonSetControllerOptions options) {
  auto controller = std::make_shared<DaemonSetController>(manager, options);
  ControllerOptions controllerOptions;
  controllerOptions.maxConcurrentReconciles = options.workers;
  Cache& cache = manager.cache();
  // A node's change may change where every DaemonSet should run.
  auto nodeHandler = enqueueRequestsFromMapFunc([&cache](const Json&) {
    std::vector<ReconcileRequest> out;
    for (const auto& set : cache.informerFor(kDaemonSets).list()) {
      out.push_back({meta::namespace_(*set), meta::name(*set)});
    }
    return out;
  });
  auto podHandler = enqueueRequestsFromMapFunc([&cache](const Json& pod) {
    std::vector<ReconcileRequest> out;
    if (auto ref = meta::controllerRefOf(pod)) {
      if (ref->kind == "DaemonSet") out.push_back({meta::namespace_(pod), std::string(ref->name)});
      return out;
    }
    for (const auto& set : listInNamespace(cache, kDaemonSets, meta::namespace_(pod))) {
      auto selector = specSelector(*set);
      if (selector && !selector->empty() && selector->matches(meta::labels(pod))) {
        out.push_back({meta::namespace_(*set), meta::name(*set)});
      }
    }
    return out;
  });
  return ControllerBuilder(manager)
      .named("daemonset")
      .forResource(kDaemonSets)
      .watches(kPods, std::move(podHandler))
      .watches(kNodes, std::move(nodeHandler))
      .withOptions(std::move(controllerOptions))
      .complete(
          [controller](const ReconcileRequest& request) { return controller->reconcile(request); });
}

}  // namespace fakekube
