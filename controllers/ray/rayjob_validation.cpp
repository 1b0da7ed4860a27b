#include "controllers/ray/internal/rayjob_validation.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "controllers/ray/constants.h"
#include "controllers/ray/internal/json_members.h"
#include "controllers/ray/internal/raycluster_validation.h"
#include "controllers/ray/raycluster_types.h"
#include "controllers/ray/rayjob_types.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/validation.h"
#include "fakekube/api/yaml.h"

namespace fakekube::ray {

namespace {

// A RayCluster document around a RayJob's spec.rayClusterSpec, for the RayCluster's checks.
Json clusterOf(const Json& rayJob) {
  Json cluster = {{"metadata", Json::object()},
                  {"spec", jsonAt(rayJob, {"spec", "rayClusterSpec"})}};
  if (const Json& a = jsonAt(rayJob, {"metadata", "annotations"}); a.is_object()) {
    cluster["metadata"]["annotations"] = a;
  }
  return cluster;
}

std::optional<std::string> validateDeletionCondition(const Json& condition) {
  const bool hasJobStatus = jsonAt(condition, {"jobStatus"}).is_string();
  const bool hasDeploymentStatus = jsonAt(condition, {"jobDeploymentStatus"}).is_string();
  if (hasJobStatus && hasDeploymentStatus) {
    return "cannot set both JobStatus and JobDeploymentStatus at the same time";
  }
  if (!hasJobStatus && !hasDeploymentStatus) {
    return "exactly one of JobStatus and JobDeploymentStatus must be set";
  }
  const Json& ttl = jsonAt(condition, {"ttlSeconds"});
  if (ttl.is_number_integer() && ttl.get<std::int64_t>() < 0)
    return "TTLSeconds must be non-negative";
  return std::nullopt;
}

// validateTTLConsistency: TTLs non-decreasing along DeleteWorkers, DeleteCluster, DeleteSelf.
void validateTtlConsistency(const std::map<std::string, std::int64_t>& policyTtls,
                            std::string_view conditionType, const std::string& conditionValue,
                            std::vector<std::string>& errors) {
  std::optional<std::pair<std::string, std::int64_t>> previous;
  for (std::string_view policy : {kDeleteWorkers, kDeleteCluster, kDeleteSelf}) {
    auto it = policyTtls.find(std::string(policy));
    if (it == policyTtls.end()) continue;
    if (previous && it->second < previous->second) {
      errors.push_back(fmt::format("for {} '{}': {} TTL ({}) must be >= {} TTL ({})", conditionType,
                                   conditionValue, policy, it->second, previous->first,
                                   previous->second));
    }
    previous = {std::string(policy), it->second};
  }
}

std::optional<std::string> validateDeletionRules(const Json& rayJob) {
  const Json& rules = jsonAt(rayJob, {"spec", "deletionStrategy", "deletionRules"});
  const bool clusterSelector = hasClusterSelector(rayJob);
  const bool autoscaling = isAutoscalingEnabled(clusterOf(rayJob));
  std::map<std::string, std::map<std::string, std::int64_t>> byJobStatus, byDeploymentStatus;
  std::vector<std::string> errors;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const Json& rule = rules[i];
    const Json& condition = jsonAt(rule, {"condition"});
    if (auto e = validateDeletionCondition(condition)) {
      errors.push_back(fmt::format("deletionRules[{}]: {}", i, *e));
      continue;
    }
    const std::string policy = stringAt(rule, {"policy"});
    if (clusterSelector && (policy == kDeleteCluster || policy == kDeleteWorkers)) {
      errors.push_back(fmt::format(
          "deletionRules[{}]: DeletionPolicyType '{}' not supported when ClusterSelector is set", i,
          policy));
      continue;
    }
    if (autoscaling && policy == kDeleteWorkers) {
      errors.push_back(
          fmt::format("deletionRules[{}]: DeletionPolicyType 'DeleteWorkers' not "
                      "supported with autoscaling enabled",
                      i));
      continue;
    }
    const Json& ttl = jsonAt(condition, {"ttlSeconds"});
    const std::int64_t ttlSeconds = ttl.is_number_integer() ? ttl.get<std::int64_t>() : 0;
    const bool onJobStatus = jsonAt(condition, {"jobStatus"}).is_string();
    const std::string value = onJobStatus ? stringAt(condition, {"jobStatus"})
                                          : stringAt(condition, {"jobDeploymentStatus"});
    auto& group = onJobStatus ? byJobStatus[value] : byDeploymentStatus[value];
    if (group.contains(policy)) {
      errors.push_back(
          fmt::format("deletionRules[{}]: duplicate rule for DeletionPolicyType '{}' "
                      "and {} '{}'",
                      i, policy, onJobStatus ? "JobStatus" : "JobDeploymentStatus", value));
      continue;
    }
    group[policy] = ttlSeconds;
  }
  for (const auto& [value, ttls] : byJobStatus)
    validateTtlConsistency(ttls, "JobStatus", value, errors);
  for (const auto& [value, ttls] : byDeploymentStatus)
    validateTtlConsistency(ttls, "JobDeploymentStatus", value, errors);
  if (errors.empty()) return std::nullopt;
  std::string joined;
  for (const auto& e : errors) joined += (joined.empty() ? "" : "\n") + e;  // errors.Join
  return joined;
}

std::optional<std::string> validateLegacyDeletionPolicies(const Json& rayJob) {
  const Json& strategy = jsonAt(rayJob, {"spec", "deletionStrategy"});
  const Json& onSuccess = jsonAt(strategy, {"onSuccess"});
  const Json& onFailure = jsonAt(strategy, {"onFailure"});
  if (!onSuccess.is_object() || !onFailure.is_object()) {
    return "both DeletionStrategy.OnSuccess and DeletionStrategy.OnFailure must be set when using "
           "the legacy deletion policy fields of DeletionStrategy";
  }
  const std::string success = stringAt(onSuccess, {"policy"});
  const std::string failure = stringAt(onFailure, {"policy"});
  if (success.empty()) {
    return "the DeletionPolicyType field of DeletionStrategy.OnSuccess cannot be unset when "
           "DeletionStrategy is enabled";
  }
  if (failure.empty()) {
    return "the DeletionPolicyType field of DeletionStrategy.OnFailure cannot be unset when "
           "DeletionStrategy is enabled";
  }
  if (hasClusterSelector(rayJob)) {
    if (success == kDeleteCluster || success == kDeleteWorkers) {
      return fmt::format("the ClusterSelector mode doesn't support DeletionStrategy={} on success",
                         success);
    }
    if (failure == kDeleteCluster || failure == kDeleteWorkers) {
      return fmt::format("the ClusterSelector mode doesn't support DeletionStrategy={} on failure",
                         failure);
    }
  }
  if ((success == kDeleteWorkers || failure == kDeleteWorkers) &&
      isAutoscalingEnabled(clusterOf(rayJob))) {
    return "DeletionStrategy=DeleteWorkers currently does not support RayCluster with autoscaling "
           "enabled";
  }
  if (shutdownAfterJobFinishes(rayJob) && (success == kDeleteNone || failure == kDeleteNone)) {
    return "The RayJob spec is invalid: shutdownAfterJobFinshes is set to 'true' while deletion "
           "policy is 'DeleteNone'";
  }
  return std::nullopt;
}

std::optional<std::string> validateDeletionConfiguration(const Json& rayJob) {
  if (!shutdownAfterJobFinishes(rayJob) && ttlSecondsAfterFinished(rayJob) > 0) {
    return "The RayJob spec is invalid: a RayJob with shutdownAfterJobFinishes set to false cannot "
           "have TTLSecondsAfterFinished";
  }
  const Json& strategy = jsonAt(rayJob, {"spec", "deletionStrategy"});
  if (!strategy.is_object()) return std::nullopt;
  const bool legacy =
      jsonAt(strategy, {"onSuccess"}).is_object() || jsonAt(strategy, {"onFailure"}).is_object();
  const Json& rules = jsonAt(strategy, {"deletionRules"});
  const bool rulesConfigured = rules.is_array() && !rules.empty();
  if (rulesConfigured && shutdownAfterJobFinishes(rayJob)) {
    return "The RayJob spec is invalid: spec.shutdownAfterJobFinishes and "
           "spec.deletionStrategy.deletionRules are mutually exclusive";
  }
  if (rulesConfigured && legacy) {
    return "The RayJob spec is invalid: Cannot use both legacy onSuccess/onFailure fields and "
           "deletionRules simultaneously";
  }
  if (legacy) return validateLegacyDeletionPolicies(rayJob);
  if (rulesConfigured) return validateDeletionRules(rayJob);
  return "The RayJob spec is invalid: DeletionStrategy requires either BOTH onSuccess and "
         "onFailure, OR the deletionRules field (cannot be empty)";
}

}  // namespace

std::optional<std::string> validateRayJobMetadata(const Json& rayJob) {
  const std::string name = meta::name(rayJob);
  if (name.size() > kMaxRayJobNameLength) {
    return fmt::format(
        "The RayJob metadata is invalid: RayJob name should be no more than {} characters",
        kMaxRayJobNameLength);
  }
  if (auto errors = isDns1035Label(name); !errors.empty()) {
    std::string joined;
    for (const auto& e : errors) joined += (joined.empty() ? "" : " ") + e;
    return fmt::format(
        "The RayJob metadata is invalid: RayJob name should be a valid DNS1035 label: [{}]",
        joined);
  }
  return std::nullopt;
}

std::optional<std::string> validateRayJobSpec(const Json& rayJob) {
  const bool suspend = isRayJobSuspendRequested(rayJob);
  if (suspend && !shutdownAfterJobFinishes(rayJob)) {
    return "The RayJob spec is invalid: a RayJob with shutdownAfterJobFinishes set to false is not "
           "allowed to be suspended";
  }
  if (ttlSecondsAfterFinished(rayJob) < 0) {
    return "The RayJob spec is invalid: TTLSecondsAfterFinished must be a non-negative integer";
  }
  if (auto e = validateDeletionConfiguration(rayJob)) return e;

  const bool clusterSelectorMode = hasClusterSelector(rayJob);
  const std::string mode = submissionMode(rayJob);
  const std::optional<std::int64_t> backoffLimit = optionalIntegerSpec(rayJob, "backoffLimit");
  const Json& clusterSpec = jsonAt(rayJob, {"spec", "rayClusterSpec"});
  if (suspend && clusterSelectorMode) {
    return "The RayJob spec is invalid: the ClusterSelector mode doesn't support the suspend "
           "operation";
  }
  if (!clusterSpec.is_object() && !clusterSelectorMode) {
    return "The RayJob spec is invalid: one of RayClusterSpec or ClusterSelector must be set";
  }
  if (clusterSelectorMode) {
    if (clusterSelectorName(rayJob).empty())
      return "cluster name in ClusterSelector should not be empty";
    if (mode == kSidecarMode) return "ClusterSelector is not supported in SidecarMode";
    if (backoffLimit && *backoffLimit > 0) {
      return "The RayJob spec is invalid: BackoffLimit is incompatible with ClusterSelector mode";
    }
  }
  if (mode == kInteractiveMode && backoffLimit && *backoffLimit > 0) {
    return "The RayJob spec is invalid: BackoffLimit is incompatible with InteractiveMode";
  }
  if (mode == kSidecarMode) {
    if (jsonAt(rayJob, {"spec", "submitterPodTemplate"}).is_object()) {
      return "Currently, SidecarMode doesn't support SubmitterPodTemplate";
    }
    if (jsonAt(rayJob, {"spec", "submitterConfig"}).is_object()) {
      return "Currently, SidecarMode doesn't support SubmitterConfig";
    }
    const std::string restartPolicy =
        stringAt(clusterSpec, {"headGroupSpec", "template", "spec", "restartPolicy"});
    if (!restartPolicy.empty() && restartPolicy != "Never") {
      return "restartPolicy for head Pod should be Never or unset when using SidecarMode";
    }
  }
  if (clusterSpec.is_object()) {
    if (auto e = validateRayClusterSpec(clusterOf(rayJob))) {
      return "The RayJob spec is invalid: " + *e;
    }
  }
  const std::string runtimeEnv = stringAt(rayJob, {"spec", "runtimeEnvYAML"});
  if (!runtimeEnv.empty()) {
    if (auto decoded = decodeYaml(runtimeEnv); !decoded) {
      return fmt::format("failed to unmarshal RuntimeEnvYAML: {}: {}", runtimeEnv,
                         decoded.error().message);
    }
  }
  if (auto v = optionalIntegerSpec(rayJob, "activeDeadlineSeconds"); v && *v <= 0) {
    return "The RayJob spec is invalid: activeDeadlineSeconds must be a positive integer";
  }
  if (auto v = optionalIntegerSpec(rayJob, "preRunningDeadlineSeconds"); v && *v <= 0) {
    return "The RayJob spec is invalid: preRunningDeadlineSeconds must be a positive integer";
  }
  if (backoffLimit && *backoffLimit < 0) {
    return "The RayJob spec is invalid: backoffLimit must be a positive integer";
  }
  return std::nullopt;
}

std::optional<std::string> validateRayJobStatus(const Json& rayJob) {
  if (statusString(rayJob, "jobDeploymentStatus") == kJobDeploymentStatusWaiting &&
      submissionMode(rayJob) != kInteractiveMode) {
    return "The RayJob status is invalid: JobDeploymentStatus cannot be `Waiting` when "
           "SubmissionMode is not InteractiveMode";
  }
  return std::nullopt;
}

}  // namespace fakekube::ray
