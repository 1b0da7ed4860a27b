#include "fakekube/cluster/node_lifecycle_controller.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "fakekube/api/conditions.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/internal/controller_utils.h"
#include "fakekube/cluster/nodes.h"
#include "fakekube/runtime/builder.h"

namespace fakekube {

namespace {

// The pod's own tolerationSeconds for the taint a node with this Ready status carries.
std::optional<Duration> podToleration(const Json& pod, const std::string& readyStatus) {
  const std::string key =
      readyStatus == "Unknown" ? "node.kubernetes.io/unreachable" : "node.kubernetes.io/not-ready";
  for (const auto& t : jsonArrayAt(pod["spec"], "tolerations")) {
    if (t.value("key", "") != key || !t.contains("tolerationSeconds")) continue;
    std::string effect = t.value("effect", "");
    if (!effect.empty() && effect != "NoExecute") continue;
    return std::chrono::seconds(t["tolerationSeconds"].get<std::int64_t>());
  }
  return std::nullopt;
}

class NodeLifecycleReconciler : public std::enable_shared_from_this<NodeLifecycleReconciler> {
 public:
  NodeLifecycleReconciler(Manager& manager, NodeLifecycleControllerOptions options)
      : manager_(manager), options_(options) {}

  Result<Controller*> add() {
    Informer& pods = manager_.cache().informerFor(kPods);
    workload::addPodNodeNameIndex(pods);
    // A pod that lands on (or changes on) a node that is not Ready is the node's business.
    auto nodeOfPod = enqueueRequestsFromMapFunc([](const Json& pod) {
      std::string node = podNodeName(pod);
      return node.empty() ? std::vector<ReconcileRequest>{}
                          : std::vector<ReconcileRequest>{{"", node}};
    });
    auto self = shared_from_this();
    auto controller =
        ControllerBuilder(manager_)
            .named("node-lifecycle")
            .forResource(kNodes)
            .watches(kPods, nodeOfPod)
            .complete([self](const ReconcileRequest& request) { return self->reconcile(request); });
    return controller;
  }

 private:
  ReconcileOutcome reconcile(const ReconcileRequest& request) {
    auto node = manager_.cache().getShared(kNodes, "", request.name);
    if (!node || isNodeReady(**node)) return ReconcileResult{};
    const Json* ready = findCondition(**node, "Ready");
    const std::string readyStatus = ready ? ready->value("status", "Unknown") : "Unknown";
    const TimePoint now = manager_.executor().now();
    TimePoint since = now;
    if (ready != nullptr) parseRfc3339(ready->value("lastTransitionTime", ""), &since);

    std::optional<Duration> wake;
    std::optional<Status> failure;
    auto pods =
        manager_.cache().informerFor(kPods).byIndex(workload::kPodNodeNameIndex, request.name);
    for (const auto& podPtr : pods) {
      const Json& pod = *podPtr;
      if (isPodTerminal(pod)) continue;
      TimePoint evictAt = since + podToleration(pod, readyStatus).value_or(options_.evictionDelay);
      Json updated = pod;
      Json& status = updated["status"];
      bool changed = false;
      if (now >= evictAt && !meta::isDeleting(pod)) {
        status["phase"] = "Failed";
        status["reason"] = "NodeLost";
        status["message"] = fmt::format("Node {} which was running pod {} is unresponsive",
                                        request.name, meta::name(pod));
        changed = true;
      } else if (now < evictAt) {
        Duration left = evictAt - now;
        if (!wake || left < *wake) wake = left;
      }
      if (conditionStatus(pod, "Ready") != "False") {
        Json condition = findCondition(pod, "Ready") != nullptr ? *findCondition(pod, "Ready")
                                                                : Json{{"type", "Ready"}};
        condition["status"] = "False";
        setCondition(status, condition, now);
        changed = true;
      }
      if (!changed) continue;
      auto written = manager_.client().updateStatus(kPods, std::move(updated));
      if (!written && !isNotFound(written.error())) failure = written.error();
    }
    if (failure) return reconcileError(*failure);  // a 409: again on a fresher cache
    return wake ? ReconcileResult{*wake} : ReconcileResult{};
  }

  Manager& manager_;
  const NodeLifecycleControllerOptions options_;
};

}  // namespace

Result<Controller*> addNodeLifecycleController(Manager& manager,
                                               NodeLifecycleControllerOptions options) {
  return std::make_shared<NodeLifecycleReconciler>(manager, options)->add();
}

}  // namespace fakekube
