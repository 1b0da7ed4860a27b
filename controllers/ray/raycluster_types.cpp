#include "controllers/ray/raycluster_types.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <nlohmann/json.hpp>

#include "controllers/ray/constants.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"

namespace fakekube::ray {

namespace {

std::optional<std::int32_t> int32Member(const Json& object, std::string_view key) {
  const Json* found = jsonFind(object, key);
  if (found == nullptr || !found->is_number_integer()) return std::nullopt;
  auto v = found->get<std::int64_t>();
  v = std::clamp<std::int64_t>(v, std::numeric_limits<std::int32_t>::min(),
                               std::numeric_limits<std::int32_t>::max());
  return static_cast<std::int32_t>(v);
}

bool boolMember(const Json& object, std::string_view key) {
  if (!object.is_object()) return false;
  auto it = object.find(key);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

CrdType creatorCrdType(const Json& rayCluster) {
  const std::string v = meta::label(rayCluster, kRayOriginatedFromCRDLabelKey);
  if (v == kRayJobKind) return CrdType::RayJob;
  if (v == kRayServiceKind) return CrdType::RayService;
  return CrdType::RayCluster;
}

const char* crdTypeName(CrdType type) {
  switch (type) {
    case CrdType::RayJob:
      return "RayJob";
    case CrdType::RayService:
      return "RayService";
    case CrdType::RayCluster:
      break;
  }
  return "RayCluster";
}

std::vector<WorkerGroupSpec> workerGroupSpecs(const Json& rayCluster) {
  std::vector<WorkerGroupSpec> out;
  const Json& spec = jsonObjectAt(rayCluster, "spec");
  auto it = spec.find("workerGroupSpecs");
  if (it == spec.end() || !it->is_array()) return out;
  for (const Json& group : *it) {
    if (!group.is_object()) continue;
    WorkerGroupSpec w;
    w.groupName = stringField(group, "groupName");
    w.replicas = int32Member(group, "replicas");
    w.minReplicas = int32Member(group, "minReplicas");
    w.maxReplicas = int32Member(group, "maxReplicas");
    // numOfHosts defaults to 1 in the CRD; a non-positive value counts as 1 (reconcilePods'
    // max(1, NumOfHosts)).
    w.numOfHosts = std::max<std::int32_t>(1, int32Member(group, "numOfHosts").value_or(1));
    w.suspend = boolMember(group, "suspend");
    const Json& scaleStrategy = jsonObjectAt(group, "scaleStrategy");
    if (auto d = scaleStrategy.find("workersToDelete"); d != scaleStrategy.end() && d->is_array()) {
      for (const Json& name : *d) {
        if (name.is_string()) w.workersToDelete.push_back(name.get<std::string>());
      }
    }
    w.raw = &group;
    out.push_back(std::move(w));
  }
  return out;
}

const Json& headGroupSpec(const Json& rayCluster) {
  return jsonObjectAt(jsonObjectAt(rayCluster, "spec"), "headGroupSpec");
}

const Json& podSpecOf(const Json& group) {
  return jsonObjectAt(jsonObjectAt(group, "template"), "spec");
}

bool isAutoscalingEnabled(const Json& rayCluster) {
  return boolMember(jsonObjectAt(rayCluster, "spec"), "enableInTreeAutoscaling");
}

bool isSuspendRequested(const Json& rayCluster) {
  return boolMember(jsonObjectAt(rayCluster, "spec"), "suspend");
}

std::optional<std::string> managedByExternalController(const Json& rayCluster) {
  const Json& spec = jsonObjectAt(rayCluster, "spec");
  auto it = spec.find("managedBy");
  if (it == spec.end() || !it->is_string()) return std::nullopt;
  std::string value = it->get<std::string>();
  if (value == "ray.io/kuberay-operator") return std::nullopt;  // KubeRayController
  return value;
}

std::optional<std::string> upgradeStrategyType(const Json& rayCluster) {
  const Json& strategy = jsonObjectAt(jsonObjectAt(rayCluster, "spec"), "upgradeStrategy");
  auto it = strategy.find("type");
  if (it == strategy.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

bool isGcsFaultToleranceEnabled(const Json& rayCluster) {
  if (lower(meta::annotation(rayCluster, kRayFTEnabledAnnotationKey)) == "true") return true;
  const Json& spec = jsonObjectAt(rayCluster, "spec");
  auto it = spec.find("gcsFaultToleranceOptions");
  return it != spec.end() && !it->is_null();
}

std::int32_t workerGroupDesiredReplicas(const WorkerGroupSpec& group) {
  if (group.suspend) return 0;
  const std::int32_t minReplicas = group.minReplicas.value_or(0);
  const std::int32_t maxReplicas =
      group.maxReplicas.value_or(std::numeric_limits<std::int32_t>::max());
  std::int32_t replicas;
  if (!group.replicas || *group.replicas < minReplicas) {
    replicas = minReplicas;
  } else if (*group.replicas > maxReplicas) {
    replicas = maxReplicas;
  } else {
    replicas = *group.replicas;
  }
  const std::int64_t total = static_cast<std::int64_t>(replicas) * group.numOfHosts;
  return static_cast<std::int32_t>(
      std::min<std::int64_t>(total, std::numeric_limits<std::int32_t>::max()));
}

const std::string& stringField(const Json& object, std::string_view key) {
  static const std::string kEmpty;
  const Json* found = jsonFind(object, key);
  return found != nullptr && found->is_string() ? found->get_ref<const std::string&>() : kEmpty;
}

const Json* findStatusCondition(const Json& conditions, std::string_view type) {
  if (!conditions.is_array()) return nullptr;
  for (const Json& c : conditions) {
    if (c.is_object() && stringField(c, "type") == type) return &c;
  }
  return nullptr;
}

bool isStatusConditionTrue(const Json& conditions, std::string_view type) {
  const Json* c = findStatusCondition(conditions, type);
  return c && stringField(*c, "status") == "True";
}

}  // namespace fakekube::ray
