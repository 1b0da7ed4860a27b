#include "fakekube/cluster/pod_status.h"

#include <nlohmann/json.hpp>

namespace fakekube::podstatus {

const Json* findCondition(const Json& object, std::string_view type) {
  auto status = object.find("status");
  if (status == object.end() || !status->is_object()) return nullptr;
  auto conditions = status->find("conditions");
  if (conditions == status->end() || !conditions->is_array()) return nullptr;
  for (const auto& c : *conditions) {
    if (c.is_object() && c.value("type", "") == type) return &c;
  }
  return nullptr;
}

std::string conditionStatus(const Json& object, std::string_view type) {
  const Json* c = findCondition(object, type);
  return c ? c->value("status", "") : "";
}

bool setCondition(Json& status, Json condition, TimePoint now) {
  if (!status.is_object()) status = Json::object();
  Json& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = Json::array();
  const std::string type = condition.value("type", "");
  if (!condition.contains("lastProbeTime")) condition["lastProbeTime"] = nullptr;
  for (auto& existing : conditions) {
    if (!existing.is_object() || existing.value("type", "") != type) continue;
    if (existing.value("status", "") == condition.value("status", "") &&
        existing.contains("lastTransitionTime")) {
      condition["lastTransitionTime"] = existing["lastTransitionTime"];
    } else {
      condition["lastTransitionTime"] = formatRfc3339(now);
    }
    if (existing == condition) return false;
    existing = std::move(condition);
    return true;
  }
  condition["lastTransitionTime"] = formatRfc3339(now);
  conditions.push_back(std::move(condition));
  return true;
}

std::string nodeName(const Json& pod) {
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return "";
  return spec->value("nodeName", "");
}

std::string phase(const Json& pod) {
  auto status = pod.find("status");
  if (status == pod.end() || !status->is_object()) return "";
  return status->value("phase", "");
}

bool isTerminal(const Json& pod) {
  std::string p = phase(pod);
  return p == "Succeeded" || p == "Failed";
}

bool isReady(const Json& pod) { return conditionStatus(pod, "Ready") == "True"; }

bool isNodeReady(const Json& node) { return conditionStatus(node, "Ready") == "True"; }

}  // namespace fakekube::podstatus
