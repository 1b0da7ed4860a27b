#include "controllers/ray/rayjob_types.h"

#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"

namespace fakekube::ray {

bool isJobDeploymentTerminal(std::string_view status) {
  return status == kJobDeploymentStatusComplete || status == kJobDeploymentStatusFailed;
}

namespace {
const Json& spec(const Json& rayJob) { return jsonAt(rayJob, {"spec"}); }
}  // namespace

std::string submissionMode(const Json& rayJob) {
  const Json& mode = jsonAt(rayJob, {"spec", "submissionMode"});
  if (mode.is_string() && !mode.get<std::string>().empty()) return mode.get<std::string>();
  return std::string(kK8sJobMode);
}

bool isRayJobSuspendRequested(const Json& rayJob) {
  const Json& v = jsonAt(rayJob, {"spec", "suspend"});
  return v.is_boolean() && v.get<bool>();
}

bool shutdownAfterJobFinishes(const Json& rayJob) {
  const Json& v = jsonAt(rayJob, {"spec", "shutdownAfterJobFinishes"});
  return v.is_boolean() && v.get<bool>();
}

std::optional<std::int64_t> optionalIntegerSpec(const Json& rayJob, const char* field) {
  const Json& s = spec(rayJob);
  if (!s.is_object()) return std::nullopt;
  auto it = s.find(field);
  if (it == s.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}

std::int64_t ttlSecondsAfterFinished(const Json& rayJob) {
  return optionalIntegerSpec(rayJob, "ttlSecondsAfterFinished").value_or(0);
}

bool hasClusterSelector(const Json& rayJob) {
  const Json& selector = jsonAt(rayJob, {"spec", "clusterSelector"});
  return selector.is_object() && !selector.empty();
}

std::string clusterSelectorName(const Json& rayJob) {
  const Json& name = jsonAt(rayJob, {"spec", "clusterSelector", kRayJobClusterSelectorKey});
  return name.is_string() ? name.get<std::string>() : "";
}

bool hasSubmitter(const Json& rayJob) {
  const std::string mode = submissionMode(rayJob);
  return mode == kK8sJobMode || mode == kSidecarMode;
}

std::string statusString(const Json& rayJob, const char* field) {
  const Json& v = jsonAt(rayJob, {"status", field});
  return v.is_string() ? v.get<std::string>() : "";
}

std::int64_t statusCounter(const Json& rayJob, const char* field) {
  const Json& v = jsonAt(rayJob, {"status", field});
  return v.is_number_integer() ? v.get<std::int64_t>() : 0;
}

}  // namespace fakekube::ray
