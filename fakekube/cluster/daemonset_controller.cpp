#include "fakekube/cluster/daemonset_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

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

constexpr std::string_view kRevisionLabel = "controller-revision-hash";

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
  for (const auto& [key, value] : jsonObjectAt(podSpec, "nodeSelector").items()) {
    if (!labels.is_object() || !labels.contains(key) || labels[key] != value) return false;
  }
  const Json tolerations = withDaemonTolerations(podSpec.value("tolerations", Json::array()));
  for (const auto& taint : jsonObjectAt(node, "spec").value("taints", Json::array())) {
    const std::string effect = taint.value("effect", "");
    if ((effect == "NoSchedule" || effect == "NoExecute") && !tolerates(tolerations, taint)) {
      return false;
    }
  }
  return true;
}

// One round of a DaemonSet: its template, its pods by node, what it counted and the first error.
struct DaemonSetSync {
  const Json& set;
  const Json& podTemplate;
  std::string hash;  // the template's, the revision label of up-to-date pods
  TimePoint now;
  int minReadySeconds = 0;
  std::map<std::string, std::vector<ObjectPtr>> byNode;  // node name -> claimed pods
  std::int64_t desired = 0, current = 0, misscheduled = 0, ready = 0, available = 0, updated = 0;
  std::optional<Status> firstError;

  void remember(const Status& error) {
    if (!firstError) firstError = error;
  }
};

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
  // What one node needs (podsShouldBeOnNode and syncNodes for it): no daemon pod where it
  // should not run, exactly one (the oldest, not Failed) where it should, made when missing;
  // counted for the status.
  void syncNode(DaemonSetSync& s, const Json& node);
  void deletePod(DaemonSetSync& s, const Json& pod);
  void createPod(DaemonSetSync& s, const std::string& nodeName);
  // Writes the status counted when it changed.
  Result<void> updateDaemonSetStatus(const DaemonSetSync& s);

  Manager& manager_;
  const DaemonSetControllerOptions options_;
};

ReconcileOutcome DaemonSetController::reconcile(const ReconcileRequest& request) {
  auto read = manager_.cache().getShared(kDaemonSets, request.namespace_, request.name);
  if (!read) return ignoreNotFound(read.error());
  const Json& set = **read;
  auto selector = specSelector(set);
  if (!selector || selector->empty()) return ReconcileResult{};
  const Json& spec = jsonObjectAt(set, "spec");
  const Json& podTemplate = jsonObjectAt(spec, "template");

  auto claimed = claimFromCache(manager_, kDaemonSets, set, *selector, kPods);
  if (!claimed) return reconcileError(claimed.error());
  DaemonSetSync s{.set = set,
                  .podTemplate = podTemplate,
                  .hash = computePodTemplateHash(podTemplate, std::nullopt),
                  .now = manager_.executor().clock().now(),
                  .minReadySeconds = spec.value("minReadySeconds", 0)};
  for (const auto& pod : *claimed) s.byNode[podNodeName(*pod)].push_back(pod);

  std::set<std::string> nodeNames;
  for (const auto& node : manager_.cache().informerFor(kNodes).list()) {
    nodeNames.insert(meta::name(*node));
    syncNode(s, *node);
  }
  // Pods bound to nodes that are gone.
  for (const auto& [nodeName, pods] : s.byNode) {
    if (nodeName.empty() || nodeNames.count(nodeName)) continue;
    for (const auto& pod : pods) deletePod(s, *pod);
  }

  if (auto written = updateDaemonSetStatus(s); !written) return reconcileError(written.error());
  if (s.firstError) return reconcileError(*s.firstError);
  if (s.minReadySeconds > 0 && s.available < s.ready) {
    return ReconcileResult{std::chrono::seconds(1)};
  }
  return ReconcileResult{};
}

void DaemonSetController::syncNode(DaemonSetSync& s, const Json& node) {
  const Json& set = s.set;
  const std::string nodeName = meta::name(node);
  std::vector<ObjectPtr> daemons;
  for (const auto& pod : s.byNode[nodeName]) {
    if (!meta::isDeleting(*pod)) daemons.push_back(pod);
  }
  if (!shouldRun(jsonObjectAt(s.podTemplate, "spec"), node)) {
    if (!daemons.empty()) ++s.misscheduled;
    if (!meta::isDeleting(set)) {
      for (const auto& pod : daemons) deletePod(s, *pod);
    }
    return;
  }
  ++s.desired;
  // Failed pods go (and are made again below); the oldest of several stays.
  std::vector<ObjectPtr> keep;
  for (const auto& pod : daemons) {
    if (podPhase(*pod) == "Failed") {
      if (!meta::isDeleting(set)) deletePod(s, *pod);
    } else {
      keep.push_back(pod);
    }
  }
  std::sort(keep.begin(), keep.end(), [](const ObjectPtr& a, const ObjectPtr& b) {
    return std::make_pair(meta::creationTimestamp(*a), meta::name(*a)) <
           std::make_pair(meta::creationTimestamp(*b), meta::name(*b));
  });
  if (!keep.empty()) {
    ++s.current;
    const Json& pod = *keep.front();
    if (isPodReady(pod)) {
      ++s.ready;
      if (isPodAvailable(pod, s.minReadySeconds, s.now)) ++s.available;
    }
    if (meta::label(pod, kRevisionLabel) == s.hash) ++s.updated;
    for (std::size_t i = 1; i < keep.size(); ++i) {
      if (!meta::isDeleting(set)) deletePod(s, *keep[i]);
    }
    return;
  }
  if (meta::isDeleting(set) || daemons.size() > keep.size()) return;  // wait for the delete
  createPod(s, nodeName);
}

void DaemonSetController::deletePod(DaemonSetSync& s, const Json& pod) {
  if (meta::isDeleting(pod)) return;
  auto deleted = manager_.client().deleteObject(kPods, meta::namespace_(pod), meta::name(pod));
  if (!deleted && !isNotFound(deleted.error())) {
    event(s.set, "Warning", "FailedDelete", "Error deleting: " + deleted.error().message);
    s.remember(deleted.error());
    return;
  }
  event(s.set, "Normal", "SuccessfulDelete", "Deleted pod: " + meta::name(pod));
}

void DaemonSetController::createPod(DaemonSetSync& s, const std::string& nodeName) {
  Json pod = podFromTemplate(s.set, s.podTemplate);
  meta::setLabel(pod, kRevisionLabel, s.hash);
  pod["spec"]["nodeName"] = nodeName;
  pod["spec"]["tolerations"] =
      withDaemonTolerations(pod["spec"].value("tolerations", Json::array()));
  auto created = manager_.client().create(kPods, std::move(pod));
  if (!created) {
    event(s.set, "Warning", "FailedCreate", "Error creating: " + created.error().message);
    s.remember(created.error());
  } else {
    event(s.set, "Normal", "SuccessfulCreate", "Created pod: " + meta::name(*created));
  }
}

Result<void> DaemonSetController::updateDaemonSetStatus(const DaemonSetSync& s) {
  const Json& oldStatus = jsonObjectAt(s.set, "status");
  Json status = {{"desiredNumberScheduled", s.desired},
                 {"currentNumberScheduled", s.current},
                 {"numberMisscheduled", s.misscheduled},
                 {"numberReady", s.ready},
                 {"observedGeneration", meta::generation(s.set)}};
  if (s.available > 0) status["numberAvailable"] = s.available;
  if (s.desired - s.available > 0) status["numberUnavailable"] = s.desired - s.available;
  if (s.updated > 0) status["updatedNumberScheduled"] = s.updated;
  if (oldStatus.contains("conditions")) status["conditions"] = oldStatus["conditions"];
  if (oldStatus.contains("collisionCount")) status["collisionCount"] = oldStatus["collisionCount"];
  if (status == oldStatus) return {};
  Json write = s.set;
  write["status"] = status;
  auto written = manager_.client().updateStatus(kDaemonSets, std::move(write));
  if (!written) return tl::unexpected(written.error());
  return {};
}

}  // namespace

Result<Controller*> addDaemonSetController(Manager& manager, DaemonSetControllerOptions options) {
  auto controller = std::make_shared<DaemonSetController>(manager, options);
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
    return ownersSelecting(cache, kDaemonSets, pod);
  });
  return ControllerBuilder(manager)
      .named("daemonset")
      .forResource(kDaemonSets)
      .watches(kPods, std::move(podHandler))
      .watches(kNodes, std::move(nodeHandler))
      .withOptions({.maxConcurrentReconciles = options.workers})
      .complete(workload::reconcileWith(controller));
}

}  // namespace fakekube
