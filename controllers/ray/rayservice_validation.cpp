#include "controllers/ray/internal/rayservice_validation.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "controllers/ray/constants.h"
#include "controllers/ray/internal/raycluster_validation.h"
#include "controllers/ray/internal/rayservice_incremental_upgrade.h"
#include "controllers/ray/internal/rayservice_types.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/validation.h"

namespace fakekube::ray {

std::optional<std::string> validateRayServiceMetadata(const Json& rayService) {
  const std::string name = meta::name(rayService);
  if (name.size() > kMaxRayServiceNameLength) {
    return fmt::format(
        "The RayService metadata is invalid: RayService name should be no more than {} "
        "characters",
        kMaxRayServiceNameLength);
  }
  if (auto errors = isDns1035Label(name); !errors.empty()) {
    std::string joined;
    for (const auto& e : errors) joined += (joined.empty() ? "" : " ") + e;
    return fmt::format(
        "The RayService metadata is invalid: RayService name should be a valid DNS1035 label: "
        "[{}]",
        joined);
  }
  if (auto timeout = initializingTimeout(rayService); timeout.invalid) {
    return "The RayService metadata is invalid: RayService annotations is invalid: " +
           *timeout.invalid;
  }
  return std::nullopt;
}

std::optional<std::string> validateRayServiceSpec(const Json& rayService,
                                                  bool incrementalUpgradeGate) {
  const Json& clusterSpec = jsonAt(rayService, {"spec", "rayClusterConfig"});
  if (const Json& k8sAuth = jsonAt(clusterSpec, {"authOptions", "enableK8sTokenAuth"});
      k8sAuth.is_boolean() && k8sAuth.get<bool>()) {
    return "The RayService spec is invalid: K8s token auth mode is currently not supported for "
           "RayService";
  }
  // ValidateRayClusterSpec over the cluster the RayService would create (its annotations too).
  Json cluster = {
      {"metadata",
       {{"labels", {{std::string(kRayOriginatedFromCRDLabelKey), std::string(kRayServiceKind)}}}}},
      {"spec", clusterSpec.is_object() ? clusterSpec : Json::object()}};
  if (const Json& a = jsonAt(rayService, {"metadata", "annotations"}); a.is_object()) {
    cluster["metadata"]["annotations"] = a;
  }
  if (auto e = validateRayClusterSpec(cluster)) return "The RayService spec is invalid: " + *e;
  if (const Json& name = jsonAt(clusterSpec, {"headGroupSpec", "headService", "metadata", "name"});
      name.is_string() && !name.get<std::string>().empty()) {
    return "The RayService spec is invalid: "
           "spec.rayClusterConfig.headGroupSpec.headService.metadata.name should not be set";
  }
  if (auto type = rayServiceUpgradeType(rayService);
      type && *type != kRayServiceUpgradeNone && *type != kRayServiceNewCluster &&
      *type != kRayServiceNewClusterWithIncrementalUpgrade) {
    return fmt::format(
        "The RayService spec is invalid: Spec.UpgradeStrategy.Type value {} is invalid, valid "
        "options are {}, {}, or {}",
        *type, kRayServiceNewClusterWithIncrementalUpgrade, kRayServiceNewCluster,
        kRayServiceUpgradeNone);
  }
  if (auto delay = rayClusterDeletionDelaySeconds(rayService); delay && *delay < 0) {
    return fmt::format(
        "The RayService spec is invalid: Spec.RayClusterDeletionDelaySeconds should be a "
        "non-negative integer, got {}",
        *delay);
  }
  if (isIncrementalUpgradeEnabled(rayService, incrementalUpgradeGate)) {
    if (auto invalid = validateClusterUpgradeOptions(rayService)) {
      return "The RayService spec is invalid: " + *invalid;
    }
  }
  return std::nullopt;
}

}  // namespace fakekube::ray
