#include "controllers/ray/internal/raycluster_validation.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "controllers/ray/constants.h"
#include "controllers/ray/internal/json_members.h"
#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/validation.h"

namespace fakekube::ray {

namespace {

std::string joinErrors(const std::vector<std::string>& errors) {
  std::string out = "[";
  for (std::size_t i = 0; i < errors.size(); ++i) {
    if (i) out += " ";
    out += errors[i];
  }
  return out + "]";
}

// At least one container, and every container an object (what the API's schema guarantees a Go
// operator; this port reads raw JSON, so it checks).
bool hasContainers(const Json& group) {
  const Json& spec = podSpecOf(group);
  auto it = spec.find("containers");
  if (it == spec.end() || !it->is_array() || it->empty()) return false;
  return std::all_of(it->begin(), it->end(), [](const Json& c) { return c.is_object(); });
}

std::string startParam(const Json& group, const char* key) {
  const Json& params = memberOrNull(group, "rayStartParams");
  const Json& v = memberOrNull(params, key);
  return v.is_string() ? v.get<std::string>() : v.is_null() ? "" : v.dump();
}

// validateRayGroupResources.
std::optional<std::string> validateGroupResources(const std::string& groupName, const Json& group) {
  const bool inParams =
      !startParam(group, "num-cpus").empty() || !startParam(group, "num-gpus").empty() ||
      !startParam(group, "memory").empty() || !startParam(group, "resources").empty();
  const Json& resources = memberOrNull(group, "resources");
  if (inParams && resources.is_object() && !resources.empty()) {
    return fmt::format(
        "resource fields should not be set in both rayStartParams and Resources for {} group; "
        "please use only one",
        groupName);
  }
  return std::nullopt;
}

// validateRayGroupLabels.
std::optional<std::string> validateGroupLabels(const std::string& groupName, const Json& group) {
  const Json& params = memberOrNull(group, "rayStartParams");
  if (params.is_object() && params.contains("labels")) {
    return fmt::format(
        "rayStartParams['labels'] is not supported for {} group; please use the top-level Labels "
        "field instead",
        groupName);
  }
  const Json& labels = memberOrNull(group, "labels");
  if (!labels.is_object()) return std::nullopt;
  std::vector<std::string> all;
  for (const auto& [key, value] : labels.items()) {
    for (const auto& e : isQualifiedName(key)) {
      all.push_back(
          fmt::format("invalid label key for {} group: '{}', error: {}", groupName, key, e));
    }
    const std::string v = value.is_string() ? value.get<std::string>() : value.dump();
    for (const auto& e : isValidLabelValue(v)) {
      all.push_back(fmt::format("invalid label value for key '{}' in {} group: '{}', error: {}",
                                key, groupName, v, e));
    }
  }
  if (all.empty()) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < all.size(); ++i) out += (i ? "; " : "") + all[i];
  return out;
}

bool rayContainerEnvIsTrue(const Json& group, std::string_view name) {
  const Json& spec = podSpecOf(group);
  const Json& containers = memberOrNull(spec, "containers");
  if (!containers.is_array() || containers.empty()) return false;
  const Json& env = memberOrNull(containers[kRayContainerIndex], "env");
  if (!env.is_array()) return false;
  for (const Json& e : env) {
    if (e.is_object() && stringField(e, "name") == name) {
      const std::string v = stringField(e, "value");
      return v == "1" || v == "true";
    }
  }
  return false;
}

}  // namespace

std::optional<std::string> validateRayClusterMetadata(const Json& rayCluster) {
  const std::string name = meta::name(rayCluster);
  if (name.size() > kMaxRayClusterNameLength) {
    return fmt::format("RayCluster name should be no more than {} characters",
                       kMaxRayClusterNameLength);
  }
  if (auto errors = isDns1035Label(name); !errors.empty()) {
    return "RayCluster name should be a valid DNS1035 label: " + joinErrors(errors);
  }
  return std::nullopt;
}

std::optional<std::string> validateRayClusterSpec(const Json& rayCluster) {
  const Json& head = headGroupSpec(rayCluster);
  if (!hasContainers(head)) return "headGroupSpec should have at least one container";
  if (auto e = validateGroupResources("Head", head)) return e;
  if (auto e = validateGroupLabels("Head", head)) return e;
  const bool autoscaling = isAutoscalingEnabled(rayCluster);
  for (const WorkerGroupSpec& group : workerGroupSpecs(rayCluster)) {
    if (!hasContainers(*group.raw)) return "workerGroupSpec should have at least one container";
    if (!autoscaling && (!group.minReplicas || !group.maxReplicas)) {
      return fmt::format(
          "worker group {} must set both minReplicas and maxReplicas when autoscaling is disabled",
          group.groupName);
    }
    if (group.minReplicas && *group.minReplicas < 0) {
      return fmt::format("worker group {} has negative minReplicas {}", group.groupName,
                         *group.minReplicas);
    }
    if (group.maxReplicas && *group.maxReplicas < 0) {
      return fmt::format("worker group {} has negative maxReplicas {}", group.groupName,
                         *group.maxReplicas);
    }
    if (group.minReplicas && group.maxReplicas && *group.minReplicas > *group.maxReplicas) {
      return fmt::format("worker group {} has minReplicas {} greater than maxReplicas {}",
                         group.groupName, *group.minReplicas, *group.maxReplicas);
    }
    if (auto e = validateGroupResources(group.groupName, *group.raw)) return e;
    if (auto e = validateGroupLabels(group.groupName, *group.raw)) return e;
  }
  if (!autoscaling && rayContainerEnvIsTrue(head, "RAY_enable_autoscaler_v2")) {
    return "environment variable RAY_enable_autoscaler_v2 cannot be set to 'true' when "
           "enableInTreeAutoscaling is false. Please set enableInTreeAutoscaling: true to use "
           "autoscaler v2";
  }
  if (autoscaling) {
    for (const WorkerGroupSpec& group : workerGroupSpecs(rayCluster)) {
      if (group.suspend) {
        return fmt::format("worker group {} cannot be suspended with Autoscaler enabled",
                           group.groupName);
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> validateRayClusterUpgradeOptions(const Json& rayCluster) {
  auto type = upgradeStrategyType(rayCluster);
  if (!type) return std::nullopt;
  if (*type != kUpgradeRecreate && *type != kUpgradeNone) {
    return fmt::format(
        "The RayCluster spec is invalid: Spec.UpgradeStrategy.Type value {} is invalid, valid "
        "options are {} or {}",
        *type, kUpgradeRecreate, kUpgradeNone);
  }
  const CrdType creator = creatorCrdType(rayCluster);
  if (creator == CrdType::RayJob || creator == CrdType::RayService) {
    return fmt::format("upgradeStrategy cannot be set when RayCluster is created by {}",
                       crdTypeName(creator));
  }
  return std::nullopt;
}

std::optional<std::string> validateRayClusterStatus(const Json& rayCluster) {
  const Json& conditions = memberOrNull(memberOrNull(rayCluster, "status"), "conditions");
  if (isStatusConditionTrue(conditions, kRayClusterSuspending) &&
      isStatusConditionTrue(conditions, kRayClusterSuspended)) {
    return "invalid RayCluster State: rayv1.RayClusterSuspending and rayv1.RayClusterSuspended "
           "conditions should not be both true";
  }
  return std::nullopt;
}

}  // namespace fakekube::ray
