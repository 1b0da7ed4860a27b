#include "fakekube/api/conditions.h"

#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"

namespace fakekube {

namespace {

// The member's text, or "" (a view into `object`: conditions are compared far more often than
// kept, and a condition type is longer than a short string's inline buffer).
std::string_view stringField(const Json& object, std::string_view key) {
  const Json* found = jsonFind(object, key);
  return found != nullptr && found->is_string()
             ? std::string_view(found->get_ref<const std::string&>())
             : std::string_view();
}

// Whether setting `condition` over `existing` (of its type, with the same status) would leave
// `existing` as it is: every member of `condition` but lastTransitionTime is there with the same
// value, and `existing` has nothing else but its lastTransitionTime and, when `condition` has
// none, a null lastProbeTime. Most writes of a status set conditions that did not change, and
// this answers without building the new condition.
bool leavesUnchanged(const Json& existing, const Json& condition) {
  if (!existing.contains("lastTransitionTime")) return false;
  std::size_t kept = 1;  // lastTransitionTime
  for (auto it = condition.begin(); it != condition.end(); ++it) {
    if (it.key() == "lastTransitionTime") continue;
    auto found = existing.find(it.key());
    if (found == existing.end() || *found != *it) return false;
    ++kept;
  }
  if (!condition.contains("lastProbeTime")) {
    auto probe = existing.find("lastProbeTime");
    if (probe == existing.end() || !probe->is_null()) return false;
    ++kept;
  }
  return existing.size() == kept;
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
  Json& conditions = jsonMember(status, "conditions");
  if (!conditions.is_array()) conditions = Json::array();
  const std::string type(stringField(condition, "type"));
  const bool withProbeTime = condition.contains("lastProbeTime");
  for (auto& existing : conditions) {
    if (!existing.is_object() || stringField(existing, "type") != type) continue;
    const bool sameStatus = stringField(existing, "status") == stringField(condition, "status");
    if (sameStatus && leavesUnchanged(existing, condition)) return false;
    if (!withProbeTime) jsonMember(condition, "lastProbeTime") = nullptr;
    if (sameStatus && existing.contains("lastTransitionTime")) {
      jsonMember(condition, "lastTransitionTime") = existing["lastTransitionTime"];
    } else {
      jsonMember(condition, "lastTransitionTime") = formatRfc3339(now);
    }
    if (existing == condition) return false;
    existing = std::move(condition);
    return true;
  }
  if (!withProbeTime) jsonMember(condition, "lastProbeTime") = nullptr;
  jsonMember(condition, "lastTransitionTime") = formatRfc3339(now);
  conditions.push_back(std::move(condition));
  return true;
}

}  // namespace fakekube
