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
#include "fakekube/cluster/internal/controller_utils.h"
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

// The pods of the PDB's namespace its selector matches (getPodsForPdb).
std::vector<ObjectPtr> getPodsForPdb(Cache& cache, const Json& pdb) {
  std::vector<ObjectPtr> pods;
  auto selector = specSelector(pdb);
  if (!selector) return pods;
  for (const auto& pod : listInNamespace(cache, kPods, meta::namespace_(pdb))) {
    if (selector->matches(meta::labels(*pod))) pods.push_back(pod);
  }
  return pods;
}

// The pods not being deleted that are Ready (countHealthyPods).
std::int64_t countHealthyPods(const std::vector<ObjectPtr>& pods) {
  std::int64_t healthy = 0;
  for (const auto& pod : pods) {
    if (!meta::isDeleting(*pod) && isPodReady(*pod)) ++healthy;
  }
  return healthy;
}

// What the PDB expects: expectedPods and desiredHealthy, or why they cannot be known.
struct ExpectedPodCount {
  std::int64_t expected = 0;
  std::int64_t desired = 0;
  std::optional<std::string> failure;
};

// The sum of the scales of the pods' controllers, each counted once (getExpectedScale); a pod
// whose controller has no scale the controller knows is a failure.
std::int64_t getExpectedScale(Cache& cache, const std::vector<ObjectPtr>& pods,
                              std::optional<std::string>& failure) {
  std::int64_t expected = 0;
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
  return expected;
}

// getExpectedPodCount: minAvailable a number counts the pods; a percentage, or maxUnavailable,
// the scales of their controllers.
ExpectedPodCount getExpectedPodCount(Cache& cache, const Json& spec,
                                     const std::vector<ObjectPtr>& pods) {
  ExpectedPodCount count;
  auto minAvailable = intOrPercent(spec, "minAvailable");
  auto maxUnavailable = intOrPercent(spec, "maxUnavailable");
  if (minAvailable && !minAvailable->percent) {
    count.expected = static_cast<std::int64_t>(pods.size());
    count.desired = minAvailable->value;
  } else if (minAvailable || maxUnavailable) {
    count.expected = getExpectedScale(cache, pods, count.failure);
    if (minAvailable) {
      count.desired = scaled(*minAvailable, count.expected);
    } else {
      count.desired =
          std::max<std::int64_t>(0, count.expected - scaled(*maxUnavailable, count.expected));
    }
  } else {
    count.expected = static_cast<std::int64_t>(pods.size());
  }
  return count;
}

// The DisruptionAllowed condition among the old ones (its lastTransitionTime kept while its
// status stays).
Json withDisruptionAllowedCondition(const Json& oldConditions, Json condition) {
  Json conditions = Json::array();
  bool found = false;
  for (const auto& c : oldConditions) {
    if (c.value("type", "") != "DisruptionAllowed") {
      conditions.push_back(c);
      continue;
    }
    found = true;
    if (c.value("status", "") == condition.value("status", "") &&
        c.contains("lastTransitionTime")) {
      condition["lastTransitionTime"] = c["lastTransitionTime"];
    }
    conditions.push_back(condition);
  }
  if (!found) conditions.push_back(condition);
  return conditions;
}

// Writes the PDB's status when it changed (updatePdbStatus).
Result<void> updatePdbStatus(Manager& manager, const Json& pdb, std::int64_t currentHealthy,
                             const ExpectedPodCount& count, std::int64_t allowed) {
  const Json oldStatus = pdb.value("status", Json::object());
  Json status = oldStatus;
  status["currentHealthy"] = currentHealthy;
  status["desiredHealthy"] = count.desired;
  status["expectedPods"] = count.expected;
  status["disruptionsAllowed"] = allowed;
  status["observedGeneration"] = meta::generation(pdb);
  const std::string reason = count.failure ? "SyncFailed"
                             : allowed > 0 ? "SufficientPods"
                                           : "InsufficientPods";
  Json condition = {{"type", "DisruptionAllowed"},
                    {"status", allowed > 0 ? "True" : "False"},
                    {"reason", reason},
                    {"message", count.failure.value_or("")},
                    {"observedGeneration", meta::generation(pdb)},
                    {"lastTransitionTime", formatRfc3339(manager.executor().clock().now())}};
  status["conditions"] = withDisruptionAllowedCondition(
      oldStatus.value("conditions", Json::array()), std::move(condition));
  if (status == oldStatus) return {};
  Json write = pdb;
  write["status"] = status;
  auto written = manager.client().updateStatus(kPodDisruptionBudgets, std::move(write));
  if (!written) return tl::unexpected(written.error());
  return {};
}

ReconcileOutcome reconcilePdb(Manager& manager, const ReconcileRequest& request) {
  Cache& cache = manager.cache();
  auto read = cache.getShared(kPodDisruptionBudgets, request.namespace_, request.name);
  if (!read) return ignoreNotFound(read.error());
  const Json& pdb = **read;
  const std::vector<ObjectPtr> pods = getPodsForPdb(cache, pdb);
  std::int64_t currentHealthy = countHealthyPods(pods);
  ExpectedPodCount count = getExpectedPodCount(cache, pdb.value("spec", Json::object()), pods);
  std::int64_t allowed =
      count.expected <= 0 ? 0 : std::max<std::int64_t>(0, currentHealthy - count.desired);
  if (count.failure) {
    count.expected = 0;
    count.desired = 0;
    currentHealthy = 0;
    allowed = 0;
  }
  auto written = updatePdbStatus(manager, pdb, currentHealthy, count, allowed);
  if (!written) return reconcileError(written.error());
  return ReconcileResult{};
}

}  // namespace

Result<Controller*> addDisruptionController(Manager& manager, DisruptionControllerOptions options) {
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
      .withOptions({.maxConcurrentReconciles = options.workers})
      .complete(
          [&manager](const ReconcileRequest& request) { return reconcilePdb(manager, request); });
}

}  // namespace fakekube
