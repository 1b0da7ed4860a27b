#include "controllers/ray/internal/raycluster_status.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "controllers/ray/batchscheduler/internal/pod_group_sizing.h"
#include "controllers/ray/constants.h"
#include "controllers/ray/internal/json_members.h"
#include "controllers/ray/internal/naming.h"
#include "controllers/ray/internal/service_builder.h"
#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/internal/json_build.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"

namespace fakekube::ray {

namespace {

// FindRayClusterSuspendStatus over a conditions array: the first Suspending or Suspended
// condition that is True ("" when none is).
std::string suspendStatusOf(const Json& conditions) {
  for (const Json& c : conditions) {
    const std::string type = stringMember(c, "type");
    if ((type == kRayClusterSuspending || type == kRayClusterSuspended) &&
        stringMember(c, "status") == "True") {
      return type;
    }
  }
  return "";
}

bool isRunningAndReady(const Json& pod) {
  const Json& status = memberOrNull(pod, "status");
  if (stringMember(status, "phase") != "Running") return false;
  const Json& conditions = memberOrNull(status, "conditions");
  if (!conditions.is_array()) return false;
  for (const Json& c : conditions) {
    if (stringMember(c, "type") == "Ready" && stringMember(c, "status") == "True") return true;
  }
  return false;
}

bool isWorker(const Json& pod) { return meta::label(pod, kRayNodeTypeLabelKey) == kWorkerNode; }

// FindHeadPodReadyCondition.
struct ConditionValue {
  std::string status = "False";
  std::string reason = std::string(kUnknownReason);
  std::string message;
};
ConditionValue headPodReadyCondition(const Json& headPod) {
  ConditionValue out;
  const Json& status = memberOrNull(headPod, "status");
  const Json& conditions = memberOrNull(status, "conditions");
  if (!conditions.is_array()) return out;
  for (const Json& c : conditions) {
    if (stringMember(c, "type") != "Ready") continue;
    out.status = stringMember(c, "status");
    out.message = stringMember(c, "message");
    std::string reason = stringMember(c, "reason");
    if (out.status == "True" && reason.empty()) reason = std::string(kHeadPodRunningAndReady);
    if (!reason.empty()) out.reason = reason;
    if (reason == "ContainersNotReady") {
      // firstNotReadyContainerStatus: a waiting or terminated container explains it better.
      const Json& statuses = memberOrNull(status, "containerStatuses");
      if (statuses.is_array()) {
        for (const Json& s : statuses) {
          const Json& state = memberOrNull(s, "state");
          const Json* detail = nullptr;
          if (memberOrNull(state, "waiting").is_object()) {
            detail = &state["waiting"];
          } else if (memberOrNull(state, "terminated").is_object()) {
            detail = &state["terminated"];
          }
          if (!detail) continue;
          if (!out.message.empty()) out.message += "; ";
          out.message += stringMember(s, "name") + ": " + stringMember(*detail, "message");
          out.reason = stringMember(*detail, "reason");
          break;
        }
      }
    }
    break;
  }
  return out;
}

Json toJsonStatusTimes(const Json& status) {
  const Json& times = memberOrNull(status, "stateTransitionTimes");
  return times.is_object() ? times : Json::object();
}

}  // namespace

void setStatusCondition(Json& conditions, std::string_view type, std::string_view status,
                        std::string_view reason, std::string_view message, TimePoint now) {
  if (!conditions.is_array()) conditions = Json::array();
  for (Json& c : conditions) {
    if (!c.is_object() || stringField(c, "type") != type) continue;
    if (stringField(c, "status") != status) {
      jsonMember(c, "status") = std::string(status);
      jsonMember(c, "lastTransitionTime") = formatRfc3339(now);
    }
    jsonMember(c, "reason") = std::string(reason);
    jsonMember(c, "message") = std::string(message);
    return;
  }
  conditions.push_back(jsonObject("type", std::string(type), "status", std::string(status),
                                  "lastTransitionTime", formatRfc3339(now), "reason",
                                  std::string(reason), "message", std::string(message)));
}

void removeStatusCondition(Json& conditions, std::string_view type) {
  if (!conditions.is_array()) return;
  for (auto it = conditions.begin(); it != conditions.end(); ++it) {
    if (it->is_object() && stringField(*it, "type") == type) {
      conditions.erase(it);
      return;
    }
  }
}

std::string findRayClusterSuspendStatus(const Json& rayCluster) {
  const Json& conditions = memberOrNull(memberOrNull(rayCluster, "status"), "conditions");
  if (!conditions.is_array()) return "";
  return suspendStatusOf(conditions);
}

bool checkAllPodsRunning(const std::vector<ObjectPtr>& pods) {
  if (pods.empty()) return false;
  for (const ObjectPtr& podPtr : pods) {
    const Json& pod = *podPtr;
    const Json& status = memberOrNull(pod, "status");
    if (stringMember(status, "phase") != "Running") return false;
    const Json& conditions = memberOrNull(status, "conditions");
    if (!conditions.is_array()) continue;
    for (const Json& c : conditions) {
      if (stringMember(c, "type") == "Ready" && stringMember(c, "status") != "True") return false;
    }
  }
  return true;
}

DesiredResources calculateDesiredResources(const Json& rayCluster) {
  using batchscheduler::QuantitySum;
  const batchscheduler::ResourceSums total =
      batchscheduler::calculateRayClusterDesiredResources(rayCluster);
  DesiredResources out;
  if (auto it = total.find("cpu"); it != total.end())
    out.cpu = batchscheduler::formatQuantity(it->second, true);
  if (auto it = total.find("memory"); it != total.end()) {
    out.memory = batchscheduler::formatQuantity(it->second, false);
  }
  QuantitySum gpus;
  for (const auto& [name, q] : total) {
    // IsGPUResourceKey: nvidia.com/gpu, amd.com/gpu, ...
    if (name.size() >= 3 && name.compare(name.size() - 3, 3, "gpu") == 0 && q.value != 0) {
      gpus.value += q.value;
      gpus.binary = gpus.binary || q.binary;
    }
  }
  out.gpu = batchscheduler::formatQuantity(gpus, false);
  if (auto it = total.find("google.com/tpu"); it != total.end()) {
    out.tpu = batchscheduler::formatQuantity(it->second, false);
  }
  return out;
}

namespace {

// omitempty: a zero count is absent.
void setCount(Json& status, const char* key, std::int64_t value) {
  if (value == 0) {
    status.erase(key);
  } else {
    jsonMember(status, key) = value;
  }
}

// The worker counts (CalculateReadyReplicas, CalculateAvailableReplicas,
// CalculateDesiredReplicas, CalculateMinReplicas, CalculateMaxReplicas); answers the desired.
std::int32_t updateWorkerReplicas(Json& status, const Json& instance,
                                  const std::vector<ObjectPtr>& pods) {
  std::int32_t ready = 0, available = 0, desired = 0, minReplicas = 0;
  std::int64_t maxReplicas = 0;
  for (const ObjectPtr& podPtr : pods) {
    const Json& pod = *podPtr;
    if (!isWorker(pod)) continue;
    if (isRunningAndReady(pod)) ++ready;
    if (stringMember(memberOrNull(pod, "status"), "phase") == "Running") ++available;
  }
  for (const WorkerGroupSpec& group : workerGroupSpecs(instance)) {
    desired += workerGroupDesiredReplicas(group);
    if (group.suspend) continue;
    minReplicas += group.minReplicas.value_or(0) * group.numOfHosts;
    maxReplicas += static_cast<std::int64_t>(
                       group.maxReplicas.value_or(std::numeric_limits<std::int32_t>::max())) *
                   group.numOfHosts;
  }
  maxReplicas = std::min<std::int64_t>(maxReplicas, std::numeric_limits<std::int32_t>::max());
  setCount(status, "readyWorkerReplicas", ready);
  setCount(status, "availableWorkerReplicas", available);
  setCount(status, "desiredWorkerReplicas", desired);
  setCount(status, "minWorkerReplicas", minReplicas);
  setCount(status, "maxWorkerReplicas", maxReplicas);
  return desired;
}

// RayClusterProvisioned (until it first holds), then the suspension conditions.
void updateProvisionedAndSuspendConditions(Json& conditions, const Json& instance,
                                           const std::vector<ObjectPtr>& pods, TimePoint now) {
  const std::string suspendStatus = suspendStatusOf(conditions);
  if (!isStatusConditionTrue(conditions, kRayClusterProvisioned) &&
      suspendStatus != kRayClusterSuspended) {
    if (checkAllPodsRunning(pods)) {
      setStatusCondition(conditions, kRayClusterProvisioned, "True",
                         kAllPodRunningAndReadyFirstTime,
                         "All Ray Pods are ready for the first time", now);
    } else {
      setStatusCondition(conditions, kRayClusterProvisioned, "False", kRayClusterPodsProvisioning,
                         "RayCluster Pods are being provisioned for first time", now);
    }
  }
  if (suspendStatus == kRayClusterSuspending) {
    if (pods.empty()) {
      setStatusCondition(conditions, kRayClusterProvisioned, "False", kRayClusterPodsProvisioning,
                         "RayCluster has been suspended", now);
      setStatusCondition(conditions, kRayClusterSuspending, "False", kRayClusterSuspending, "",
                         now);
      setStatusCondition(conditions, kRayClusterSuspended, "True", kRayClusterSuspended, "", now);
    }
  } else if (suspendStatus == kRayClusterSuspended) {
    const Json& suspend = memberOrNull(memberOrNull(instance, "spec"), "suspend");
    if (suspend.is_boolean() && !suspend.get<bool>()) {
      setStatusCondition(conditions, kRayClusterSuspended, "False", kRayClusterSuspended, "", now);
    }
  } else {
    setStatusCondition(conditions, kRayClusterSuspended, "False", kRayClusterSuspended, "", now);
    setStatusCondition(conditions, kRayClusterSuspending,
                       isSuspendRequested(instance) ? "True" : "False", kRayClusterSuspending, "",
                       now);
  }
}

// updateEndpoints: each named port of the head Service, by its nodePort, else its targetPort.
void updateEndpoints(Json& status, const std::vector<ObjectPtr>& headServices) {
  if (headServices.empty()) return;
  const Json& svc = *headServices.front();
  Json endpoints = memberOrNull(status, "endpoints");
  if (!endpoints.is_object()) endpoints = Json::object();
  const Json& ports = memberOrNull(memberOrNull(svc, "spec"), "ports");
  if (ports.is_array()) {
    for (const Json& port : ports) {
      const std::string portName = stringMember(port, "name");
      if (portName.empty()) continue;
      const Json& nodePort = memberOrNull(port, "nodePort");
      const Json& target = memberOrNull(port, "targetPort");
      if (nodePort.is_number_integer() && nodePort.get<std::int64_t>() != 0) {
        endpoints[portName] = std::to_string(nodePort.get<std::int64_t>());
      } else if (target.is_number_integer() && target.get<std::int64_t>() != 0) {
        endpoints[portName] = std::to_string(target.get<std::int64_t>());
      } else if (target.is_string() && !target.get<std::string>().empty()) {
        endpoints[portName] = target.get<std::string>();
      }
    }
  }
  if (endpoints.empty()) {
    status.erase("endpoints");
  } else {
    jsonMember(status, "endpoints") = std::move(endpoints);
  }
}

// updateHeadInfo: the head pod's name and IP, the head Service's name and IP (the pod's for a
// headless Service). Exactly one head Service with a cluster IP, or an error.
Result<void> updateHeadInfo(Json& status, const std::string& name, const Json* headPod,
                            const std::vector<ObjectPtr>& headServices) {
  Json head = Json::object();
  if (headPod) {
    const std::string podIp = stringMember(memberOrNull(*headPod, "status"), "podIP");
    if (!podIp.empty()) jsonMember(head, "podIP") = podIp;
    jsonMember(head, "podName") = meta::name(*headPod);
  }
  const std::string selector =
      fmt::format("ray.io/cluster={},ray.io/identifier={},ray.io/node-type=head", name,
                  checkLabel(generateIdentifier(name, kHeadNode)));
  if (headServices.empty()) {
    return tl::unexpected(Status::internal(fmt::format(
        "unable to find head service. cluster name {}, filter labels {}", name, selector)));
  }
  if (headServices.size() > 1) {
    return tl::unexpected(Status::internal(fmt::format(
        "found multiple head services. cluster name {}, filter labels {}", name, selector)));
  }
  const Json& svc = *headServices.front();
  const std::string clusterIp = stringMember(memberOrNull(svc, "spec"), "clusterIP");
  if (clusterIp.empty()) {
    return tl::unexpected(Status::internal(fmt::format(
        "head service IP is empty. cluster name {}, filter labels {}", name, selector)));
  }
  std::string serviceIp = clusterIp;
  if (clusterIp == "None") {
    serviceIp = headPod ? stringMember(memberOrNull(*headPod, "status"), "podIP") : "";
  }
  if (!serviceIp.empty()) jsonMember(head, "serviceIP") = serviceIp;
  jsonMember(head, "serviceName") = meta::name(svc);
  jsonMember(status, "head") = std::move(head);
  return {};
}

// The time the state changed, when it did.
void updateStateTransitionTimes(Json& status, const Json& oldStatus, TimePoint now) {
  const std::string oldState = stringMember(oldStatus, "state");
  const std::string newState = stringMember(status, "state");
  if (oldState == newState) return;
  Json times = toJsonStatusTimes(status);
  times[newState] = formatRfc3339(now);
  jsonMember(status, "stateTransitionTimes") = std::move(times);
}

}  // namespace

Result<Json> calculateStatus(const Json& instance, const ReconcileFailure* reconcileError,
                             const std::vector<ObjectPtr>& pods,
                             const std::vector<ObjectPtr>& headServices, TimePoint now) {
  // The body of the status write: everything but the spec, which a status write takes from the
  // stored object whatever the body says (and which is most of a RayCluster's size).
  Json next = Json::object();
  for (auto it = instance.begin(); it != instance.end(); ++it) {
    if (it.key() != "spec") next.emplace(it.key(), *it);
  }
  if (!next.contains("status") || !next["status"].is_object()) next["status"] = Json::object();
  Json& status = jsonMember(next, "status");
  Json conditions = memberOrNull(status, "conditions");
  if (!conditions.is_array()) conditions = Json::array();

  if (reconcileError) {
    if (!reconcileError->replicaFailureReason.empty()) {
      setStatusCondition(conditions, kRayClusterReplicaFailure, "True",
                         reconcileError->replicaFailureReason, reconcileError->status.message, now);
    }
  } else {
    removeStatusCondition(conditions, kRayClusterReplicaFailure);
  }
  jsonMember(status, "observedGeneration") = meta::generation(instance);
  const std::string name = meta::name(next);
  const std::int32_t desired = updateWorkerReplicas(status, instance, pods);
  const DesiredResources resources = calculateDesiredResources(instance);
  jsonMember(status, "desiredCPU") = resources.cpu;
  jsonMember(status, "desiredMemory") = resources.memory;
  jsonMember(status, "desiredGPU") = resources.gpu;
  jsonMember(status, "desiredTPU") = resources.tpu;
  if (!reconcileError && pods.size() == static_cast<std::size_t>(desired) + 1 &&
      checkAllPodsRunning(pods)) {
    jsonMember(status, "state") = std::string(kStateReady);
    status.erase("reason");
  }

  // The head pod (GetRayClusterHeadPod): none, one, or an error for several.
  std::vector<const Json*> headPods;
  for (const ObjectPtr& pod : pods) {
    if (meta::label(*pod, kRayNodeTypeLabelKey) == kHeadNode) headPods.push_back(pod.get());
  }
  if (headPods.size() > 1) {
    return tl::unexpected(Status::internal(fmt::format(
        "found multiple heads. filter labels ray.io/cluster={},ray.io/node-type=head", name)));
  }
  const Json* headPod = headPods.empty() ? nullptr : headPods.front();
  if (!headPod) {
    setStatusCondition(conditions, kHeadPodReady, "False", kHeadPodNotFound, "Head Pod not found",
                       now);
  } else {
    ConditionValue c = headPodReadyCondition(*headPod);
    setStatusCondition(conditions, kHeadPodReady, c.status, c.reason, c.message, now);
  }
  updateProvisionedAndSuspendConditions(conditions, instance, pods, now);
  if (isSuspendRequested(instance) && pods.empty()) {
    jsonMember(status, "state") = std::string(kStateSuspended);
  }
  updateEndpoints(status, headServices);
  if (auto head = updateHeadInfo(status, name, headPod, headServices); !head) {
    return tl::unexpected(head.error());
  }
  if (conditions.empty()) {
    status.erase("conditions");
  } else {
    jsonMember(status, "conditions") = std::move(conditions);
  }
  jsonMember(status, "lastUpdateTime") = formatRfc3339(now);
  updateStateTransitionTimes(status, memberOrNull(instance, "status"), now);
  return next;
}

bool inconsistentRayClusterStatus(const Json& oldStatus, const Json& newStatus) {
  auto str = [](const Json& s, const char* key) { return stringMember(s, key); };
  auto count = [](const Json& s, const char* key) -> std::int64_t {
    const Json& v = memberOrNull(s, key);
    return v.is_number_integer() ? v.get<std::int64_t>() : 0;
  };
  // Equal members, an absent (null) one standing for an empty object or array (Go's nil map or
  // slice against an empty one under reflect.DeepEqual of the decoded status). Compared in
  // place: this runs every round.
  auto same = [](const Json& a, const Json& b, const char* key, bool isObject) {
    const Json& x = memberOrNull(a, key);
    const Json& y = memberOrNull(b, key);
    if (x.is_null() == y.is_null()) return x == y;
    const Json& present = x.is_null() ? y : x;
    return (isObject ? present.is_object() : present.is_array()) && present.empty();
  };
  if (str(oldStatus, "state") != str(newStatus, "state") ||
      str(oldStatus, "reason") != str(newStatus, "reason")) {
    return true;
  }
  for (const char* key : {"readyWorkerReplicas", "availableWorkerReplicas", "desiredWorkerReplicas",
                          "minWorkerReplicas", "maxWorkerReplicas"}) {
    if (count(oldStatus, key) != count(newStatus, key)) return true;
  }
  if (!same(oldStatus, newStatus, "endpoints", true) || !same(oldStatus, newStatus, "head", true)) {
    return true;
  }
  return !same(oldStatus, newStatus, "conditions", false);
}

}  // namespace fakekube::ray
