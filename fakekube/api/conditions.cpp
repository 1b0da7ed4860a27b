#include "fakekube/api/conditions.h"

#include <nlohmann/json.hpp>

namespace fakekube {

namespace {

// The member's text, or "" (a view into `object`: conditions are compared far more often than
// kept, and a condition type is longer than a short string's inline buffer).
std::string_view stringField(const Json& object, std::string_view key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>())
                                               : std::string_view();
}

}  // namespace

const Json* findCondition(const Json& object, std::string_view type) {
  if (!object.is_object()) return nullptr;
  auto status = object.find("status");
  if (status == object.end() || !status->is_object()) return nullptr;
  auto conditions = status->find("conditions");
  if (conditions == status->end() || !conditions->is_array()) return nullptr;
  for (const auto& c : *conditions) {
    if (c.is_object() && stringField(c, "type") == type) return &c;
  }
  return nullptr;
}

Json* findCondition(Json& object, std::string_view type) {
  return const_cast<Json*>(findCondition(static_cast<const Json&>(object), type));
}

std::string conditionStatus(const Json& object, std::string_view type) {
  const Json* c = findCondition(object, type);
  return c ? std::string(stringField(*c, "status")) : std::string();
}

bool isConditionTrue(const Json& object, std::string_view type) {
  const Json* c = findCondition(object, type);
  return c != nullptr && stringField(*c, "status") == "True";
}

bool setCondition(Json& status, Json condition, TimePoint now) {
  if (!status.is_object()) status = Json::object();
  Json& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = Json::array();
  const std::string type(stringField(condition, "type"));
  if (!condition.contains("lastProbeTime")) condition["lastProbeTime"] = nullptr;
  for (auto& existing : conditions) {
    if (!existing.is_object() || stringField(existing, "type") != type) continue;
    if (stringField(existing, "status") == stringField(condition, "status") &&
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

}  // namespace fakekube
