#include "fakekube/cluster/internal/deployment_util.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/cluster/internal/controller_utils.h"

namespace fakekube::workload {

namespace {

std::optional<std::int64_t> parseInt(const std::string& text) {
  if (text.empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    long long value = std::stoll(text, &used);
    if (used != text.size()) return std::nullopt;
    return value;
  } catch (...) {
    return std::nullopt;
  }
}

std::optional<std::int64_t> annotationInt(const Json& object, std::string_view key) {
  auto value = meta::annotation(object, key);
  return parseInt(value);
}

// The fenceposts of a RollingUpdate: {maxSurge, maxUnavailable} for `desired` replicas.
std::pair<std::int64_t, std::int64_t> resolveFenceposts(const Json& deployment,
                                                        std::int64_t desired) {
  const Json& rollingUpdate = jsonAt(deployment, {"spec", "strategy", "rollingUpdate"});
  // Unset (an update does not default them): the API server's 25%.
  auto field = [&rollingUpdate](const char* key) {
    const Json& value = jsonAt(rollingUpdate, {key});
    return value.is_null() ? Json("25%") : value;
  };
  std::int64_t surge = scaledValue(field("maxSurge"), desired, true);
  std::int64_t unavailable = scaledValue(field("maxUnavailable"), desired, false);
  if (surge == 0 && unavailable == 0) unavailable = 1;
  return {surge, unavailable};
}

}  // namespace

std::int64_t specReplicas(const Json& object) {
  const Json& replicas = jsonAt(object, {"spec", "replicas"});
  return replicas.is_number_integer() ? replicas.get<std::int64_t>() : 1;
}

std::int64_t statusCount(const Json& object, const char* key) {
  const Json& value = jsonAt(object, {"status", key});
  return value.is_number_integer() ? value.get<std::int64_t>() : 0;
}

bool isRollingUpdate(const Json& deployment) {
  const Json& type = jsonAt(deployment, {"spec", "strategy", "type"});
  return !type.is_string() || type == "RollingUpdate";
}

std::int64_t minReadySeconds(const Json& object) {
  const Json& value = jsonAt(object, {"spec", "minReadySeconds"});
  return value.is_number_integer() ? value.get<std::int64_t>() : 0;
}

std::int64_t scaledValue(const Json& intOrPercent, std::int64_t total, bool roundUp) {
  if (intOrPercent.is_number_integer()) return intOrPercent.get<std::int64_t>();
  if (!intOrPercent.is_string()) return 0;
  std::string text = intOrPercent.get<std::string>();
  if (text.empty() || text.back() != '%') return parseInt(text).value_or(0);
  auto percent = parseInt(text.substr(0, text.size() - 1)).value_or(0);
  if (roundUp) return (percent * total + 99) / 100;
  return percent * total / 100;
}

std::int64_t maxSurge(const Json& deployment) {
  if (!isRollingUpdate(deployment)) return 0;
  return resolveFenceposts(deployment, specReplicas(deployment)).first;
}

std::int64_t maxUnavailable(const Json& deployment) {
  std::int64_t replicas = specReplicas(deployment);
  if (!isRollingUpdate(deployment) || replicas == 0) return 0;
  return std::min(resolveFenceposts(deployment, replicas).second, replicas);
}

std::int64_t revisionOf(const Json& object) {
  return annotationInt(object, kRevisionAnnotation).value_or(0);
}

std::int64_t maxRevision(const std::vector<Json>& replicaSets) {
  std::int64_t max = 0;
  for (const auto& rs : replicaSets) max = std::max(max, revisionOf(rs));
  return max;
}

std::int64_t sumSpecReplicas(const std::vector<const Json*>& replicaSets) {
  std::int64_t sum = 0;
  for (const Json* rs : replicaSets) {
    if (rs) sum += specReplicas(*rs);
  }
  return sum;
}

std::int64_t sumStatus(const std::vector<const Json*>& replicaSets, const char* key) {
  std::int64_t sum = 0;
  for (const Json* rs : replicaSets) {
    if (rs) sum += statusCount(*rs, key);
  }
  return sum;
}

void sortByCreation(std::vector<Json*>& replicaSets) {
  std::stable_sort(replicaSets.begin(), replicaSets.end(), [](const Json* a, const Json* b) {
    auto ta = meta::creationTimestamp(*a), tb = meta::creationTimestamp(*b);
    if (ta != tb) return ta < tb;  // RFC 3339 at whole seconds sorts as text
    return meta::name(*a) < meta::name(*b);
  });
}

std::optional<std::int64_t> desiredReplicasAnnotation(const Json& rs) {
  return annotationInt(rs, kDesiredReplicasAnnotation);
}

bool setReplicasAnnotations(Json& rs, std::int64_t desired, std::int64_t max) {
  bool changed = false;
  for (auto [key, value] :
       {std::pair{kDesiredReplicasAnnotation, desired}, std::pair{kMaxReplicasAnnotation, max}}) {
    std::string text = std::to_string(value);
    if (meta::annotation(rs, key) != text) {
      meta::setAnnotation(rs, key, text);
      changed = true;
    }
  }
  return changed;
}

bool replicasAnnotationsNeedUpdate(const Json& rs, std::int64_t desired, std::int64_t max) {
  return meta::annotation(rs, kDesiredReplicasAnnotation) != std::to_string(desired) ||
         meta::annotation(rs, kMaxReplicasAnnotation) != std::to_string(max);
}

bool setNewReplicaSetAnnotations(const Json& deployment, Json& rs, const std::string& newRevision,
                                 bool exists) {
  bool changed = false;
  const Json& annotations = meta::annotations(deployment);
  if (annotations.is_object()) {
    for (const auto& [key, value] : annotations.items()) {
      if (key == kRevisionAnnotation || key == kDesiredReplicasAnnotation ||
          key == kMaxReplicasAnnotation || key == "deployment.kubernetes.io/revision-history" ||
          key == "kubectl.kubernetes.io/last-applied-configuration" ||
          key == "deprecated.deployment.rollback.to") {
        continue;
      }
      if (!value.is_string() || meta::annotation(rs, key) == value.get<std::string>()) continue;
      meta::setAnnotation(rs, key, value.get<std::string>());
      changed = true;
    }
  }
  std::string oldRevision = meta::annotation(rs, kRevisionAnnotation);
  auto oldNumber = parseInt(oldRevision);
  if (oldRevision.empty() || oldNumber) {
    if (oldNumber.value_or(0) < parseInt(newRevision).value_or(0)) {
      meta::setAnnotation(rs, kRevisionAnnotation, newRevision);
      changed = true;
    }
  }
  if (!exists && setReplicasAnnotations(rs, specReplicas(deployment),
                                        specReplicas(deployment) + maxSurge(deployment))) {
    changed = true;
  }
  return changed;
}

std::int64_t newReplicaSetReplicas(const Json& deployment, std::int64_t allSpecReplicas,
                                   std::int64_t newReplicaSetSpecReplicas) {
  const std::int64_t replicas = specReplicas(deployment);
  if (!isRollingUpdate(deployment)) return replicas;
  const std::int64_t maxTotal = replicas + maxSurge(deployment);
  if (allSpecReplicas >= maxTotal) return newReplicaSetSpecReplicas;
  std::int64_t scaleUp = std::min(maxTotal - allSpecReplicas, replicas - newReplicaSetSpecReplicas);
  return newReplicaSetSpecReplicas + scaleUp;
}

bool isSaturated(const Json& deployment, const Json* rs) {
  if (rs == nullptr) return false;
  auto desired = desiredReplicasAnnotation(*rs);
  if (!desired) return false;
  const std::int64_t replicas = specReplicas(deployment);
  return specReplicas(*rs) == replicas && *desired == replicas &&
         statusCount(*rs, "availableReplicas") == replicas;
}

std::int64_t proportion(const Json& rs, const Json& deployment, std::int64_t toAdd,
                        std::int64_t added) {
  const std::int64_t rsReplicas = specReplicas(rs);
  if (rsReplicas == 0 || toAdd == 0 || toAdd == added) return 0;
  // getReplicaSetFraction.
  std::int64_t fraction;
  if (specReplicas(deployment) == 0) {
    fraction = -rsReplicas;
  } else {
    const std::int64_t deploymentReplicas = specReplicas(deployment) + maxSurge(deployment);
    std::int64_t annotated =
        annotationInt(rs, kMaxReplicasAnnotation).value_or(statusCount(deployment, "replicas"));
    if (annotated == 0) annotated = 1;  // Go divides by zero into +Inf; never reached in practice
    double newSize =
        static_cast<double>(rsReplicas * deploymentReplicas) / static_cast<double>(annotated);
    fraction = static_cast<std::int64_t>(std::round(newSize)) - rsReplicas;
  }
  const std::int64_t allowed = toAdd - added;
  return toAdd > 0 ? std::min(fraction, allowed) : std::max(fraction, allowed);
}

Json newDeploymentCondition(std::string_view type, std::string_view status, std::string_view reason,
                            std::string_view message, TimePoint now) {
  const std::string time = formatRfc3339(now);
  return {{"type", type},           {"status", status},
          {"lastUpdateTime", time}, {"lastTransitionTime", time},
          {"reason", reason},       {"message", message}};
}

const Json* deploymentCondition(const Json& status, std::string_view type) {
  const Json& conditions = jsonAt(status, {"conditions"});
  if (!conditions.is_array()) return nullptr;
  for (const auto& c : conditions) {
    if (c.is_object() && c.value("type", "") == type) return &c;
  }
  return nullptr;
}

void setDeploymentCondition(Json& status, Json condition) {
  const std::string type = condition.value("type", "");
  const Json* current = deploymentCondition(status, type);
  if (current && current->value("status", "") == condition.value("status", "") &&
      current->value("reason", "") == condition.value("reason", "")) {
    return;
  }
  if (current && current->value("status", "") == condition.value("status", "")) {
    condition["lastTransitionTime"] = current->value("lastTransitionTime", "");
  }
  removeDeploymentCondition(status, type);
  if (!status.contains("conditions") || !status["conditions"].is_array()) {
    status["conditions"] = Json::array();
  }
  status["conditions"].push_back(std::move(condition));
}

void removeDeploymentCondition(Json& status, std::string_view type) {
  auto it = status.find("conditions");
  if (it == status.end() || !it->is_array()) return;
  Json kept = Json::array();
  for (auto& c : *it) {
    if (!c.is_object() || c.value("type", "") != type) kept.push_back(std::move(c));
  }
  if (kept.empty()) {
    status.erase("conditions");
  } else {
    *it = std::move(kept);
  }
}

bool hasProgressDeadline(const Json& deployment) {
  const Json& seconds = jsonAt(deployment, {"spec", "progressDeadlineSeconds"});
  return seconds.is_number_integer() &&
         seconds.get<std::int64_t>() != std::numeric_limits<std::int32_t>::max();
}

bool deploymentComplete(const Json& deployment, const Json& newStatus) {
  auto count = [&newStatus](const char* key) {
    const Json& v = jsonAt(newStatus, {key});
    return v.is_number_integer() ? v.get<std::int64_t>() : 0;
  };
  const std::int64_t replicas = specReplicas(deployment);
  return count("updatedReplicas") == replicas && count("replicas") == replicas &&
         count("availableReplicas") == replicas &&
         count("observedGeneration") >= meta::generation(deployment);
}

bool deploymentProgressing(const Json& deployment, const Json& newStatus) {
  auto count = [](const Json& status, const char* key) {
    const Json& v = jsonAt(status, {key});
    return v.is_number_integer() ? v.get<std::int64_t>() : 0;
  };
  const Json& oldStatus = jsonAt(deployment, {"status"});
  std::int64_t oldOld = count(oldStatus, "replicas") - count(oldStatus, "updatedReplicas");
  std::int64_t newOld = count(newStatus, "replicas") - count(newStatus, "updatedReplicas");
  return count(newStatus, "updatedReplicas") > count(oldStatus, "updatedReplicas") ||
         newOld < oldOld || count(newStatus, "readyReplicas") > count(oldStatus, "readyReplicas") ||
         count(newStatus, "availableReplicas") > count(oldStatus, "availableReplicas");
}

bool deploymentTimedOut(const Json& deployment, const Json& newStatus, TimePoint now) {
  if (!hasProgressDeadline(deployment)) return false;
  const Json* condition = deploymentCondition(newStatus, "Progressing");
  if (condition == nullptr) return false;
  const std::string reason = condition->value("reason", "");
  if (reason == "NewReplicaSetAvailable") return false;
  if (reason == "ProgressDeadlineExceeded") return true;
  auto from = parseTime(jsonAt(*condition, {"lastUpdateTime"}));
  if (!from) return false;
  auto deadline = std::chrono::seconds(
      jsonAt(deployment, {"spec", "progressDeadlineSeconds"}).get<std::int64_t>());
  return *from + deadline < now;
}

}  // namespace fakekube::workload
