#include "fakekube/cluster/disruption_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "fakekube/api/conditions.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/controller_utils.h"
#include "fakekube/runtime/builder.h"

namespace fakekube {

namespace {

using namespace workload;  // NOLINT: the shared controller helpers

// An IntOrString: a number, or a percentage ("50%").
struct IntOrPercent {
  std::int64_t value = 0;
  bool percent = false;
};
std::optional<IntOrPercent> intOrPercent(const Json& spec, const char* key) {
  auto it = spec.find(key);
  if (it == spec.end() || it->is_null()) return std::nullopt;
  if (it->is_number_integer()) return IntOrPercent{it->get<std::int64_t>(), false};
  if (!it->is_string()) return std::nullopt;
  std::string text = it->get<std::string>();
  bool percent = !text.empty() && text.back() == '%';
  if (percent) text.pop_back();
  if (text.empty() || !std::all_of(text.begin(), text.end(), ::isdigit)) return std::nullopt;
  return IntOrPercent{std::stoll(text), percent};
}

std::int64_t scaled(const IntOrPercent& v, std::int64_t total) {
  if (!v.percent) return v.value;
  return static_cast<std::int64_t>(std::ceil(static_cast<double>(v.value) * total / 100.0));
}

std::int64_t replicasOf(const Json& object) {
  auto spec = object.find("spec");
  if (spec == object.end() || !spec->is_object()) return 1;
  return spec->value("replicas", 1);
}

ReconcileOutcome reconcilePdb(Manager& manager, const ReconcileRequest& request) {
  Cache& cache = manager.cache();
  auto read = cache.getShared(kPodDisruptionBudgets, request.namespace_, request.name);
  if (!read)
    return isNotFound(read.error()) ? ReconcileOutcome(ReconcileResult{})
                                    : reconcileError(read.error());
  const Json& pdb = **read;
  const Json spec = pdb.value("spec", Json::object());
  auto selector = specSelector(pdb);

  std::vector<ObjectPtr> pods;
  if (selector) {
    for (const auto& pod : listInNamespace(cache, kPods, request.namespace_)) {
      if (selector->matches(meta::labels(*pod))) pods.push_back(pod);
    }
  }
  std::int64_t currentHealthy = 0;
  for (const auto& pod : pods) {
    if (!meta::isDeleting(*pod) && isPodReady(*pod)) ++currentHealthy;
  }

  auto minAvailable = intOrPercent(spec, "minAvailable");
  auto maxUnavailable = intOrPercent(spec, "maxUnavailable");
  std::int64_t expected = 0, desired = 0;
  std::optional<std::string> failure;
  if (minAvailable && !minAvailable->percent) {
    expected = static_cast<std::int64_t>(pods.size());
    desired = minAvailable->value;
  } else if (minAvailable || maxUnavailable) {
    // The scales of the pods' controllers, each once.
    std::set<std::string> seen;
    for (const auto& pod : pods) {
      auto ref = meta::controllerOf(*pod);
      if (!ref) continue;
      const std::string ns = meta::namespace_(*pod);
      Result<ObjectPtr> owner = tl::unexpected(Status::notFound({"", ""}, ref->name));
      if (ref->kind == "ReplicaSet") {
        owner = cache.getShared(kReplicaSets, ns, ref->name);
        if (owner) {
          if (auto up = meta::controllerOf(**owner); up && up->kind == "Deployment") {
            owner = cache.getShared(kDeployments, ns, up->name);
          }
        }
      } else if (ref->kind == "StatefulSet") {
        owner = cache.getShared(kStatefulSets, ns, ref->name);
      } else if (ref->kind == "ReplicationController") {
        owner = cache.getShared(kReplicationControllers, ns, ref->name);
      } else {
        failure = fmt::format("found no controllers for pod \"{}\"", meta::name(*pod));
        break;
      }
      if (!owner) continue;  // gone: its pods are not expected
      if (seen.insert(meta::uid(**owner)).second) expected += replicasOf(**owner);
    }
    if (minAvailable) {
      desired = scaled(*minAvailable, expected);
    } else {
      desired = std::max<std::int64_t>(0, expected - scaled(*maxUnavailable, expected));
    }
  } else {
    expected = static_cast<std::int64_t>(pods.size());
  }
  std::int64_t allowed = expected <= 0 ? 0 : std::max<std::int64_t>(0, currentHealthy - desired);
  if (failure) {
    expected = 0;
    desired = 0;
    currentHealthy = 0;
    allowed = 0;
  }

  const Json oldStatus = pdb.value("status", Json::object());
  Json status = oldStatus;
  status["currentHealthy"] = currentHealthy;
  status["desiredHealthy"] = desired;
  status["expectedPods"] = expected;
  status["disruptionsAllowed"] = allowed;
  status["observedGeneration"] = meta::generation(pdb);
  const std::string conditionStatus = allowed > 0 ? "True" : "False";
  const std::string reason = failure       ? "SyncFailed"
                             : allowed > 0 ? "SufficientPods"
                                           : "InsufficientPods";
  Json condition = {{"type", "DisruptionAllowed"},
                    {"status", conditionStatus},
                    {"reason", reason},
                    {"message", failure.value_or("")},
                    {"observedGeneration", meta::generation(pdb)},
                    {"lastTransitionTime", formatRfc3339(manager.executor().clock().now())}};
  Json conditions = Json::array();
  bool found = false;
  for (const auto& c : oldStatus.value("conditions", Json::array())) {
    if (c.value("type", "") != "DisruptionAllowed") {
      conditions.push_back(c);
      continue;
    }
    found = true;
    if (c.value("status", "") == conditionStatus && c.contains("lastTransitionTime")) {
      condition["lastTransitionTime"] = c["lastTransitionTime"];
    }
    conditions.push_back(condition);
  }
  if (!found) conditions.push_back(condition);
  status["conditions"] = conditions;
  if (status != oldStatus) {
    Json write = pdb;
    write["status"] = status;
    auto written = manager.client().updateStatus(kPodDisruptionBudgets, std::move(write));
    if (!written) return reconcileError(written.error());
  }
  return ReconcileResult{};
}

}  // namespace

Result<Controller*> addDisruptionController(Manager& manager) {
  Cache& cache = manager.cache();
  // Pods and the scales of their controllers: every PDB of the namespace looks again.
  auto namespacePdbs = enqueueRequestsFromMapFunc([&cache](const Json& object) {
    std::vector<ReconcileRequest> out;
    for (const auto& pdb :
         listInNamespace(cache, kPodDisruptionBudgets, meta::namespace_(object))) {
      out.push_back({meta::namespace_(*pdb), meta::name(*pdb)});
    }
    return out;
  });
  return ControllerBuilder(manager)
      .named("disruption")
      .forResource(kPodDisruptionBudgets)
      .watches(kPods, namespacePdbs)
      .watches(kReplicaSets, namespacePdbs)
      .watches(kDeployments, namespacePdbs)
      .watches(kStatefulSets, namespacePdbs)
      .watches(kReplicationControllers, namespacePdbs)
      .complete(
          [&manager](const ReconcileRequest& request) { return reconcilePdb(manager, request); });
}

}  // namespace fakekube
