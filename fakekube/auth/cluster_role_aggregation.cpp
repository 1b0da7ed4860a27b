#include "fakekube/auth/internal/cluster_role_aggregation.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/label_selector.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/auth/rbac_rules.h"

namespace fakekube {

Result<std::optional<Json>> aggregatedClusterRoleRules(const Json& clusterRole,
                                                       const std::vector<ObjectPtr>& clusterRoles) {
  const Json& aggregationRule = jsonAt(clusterRole, {"aggregationRule"});
  if (!aggregationRule.is_object()) return std::optional<Json>();
  std::vector<ObjectPtr> byName = clusterRoles;
  std::sort(byName.begin(), byName.end(),
            [](const ObjectPtr& a, const ObjectPtr& b) { return meta::name(*a) < meta::name(*b); });
  const std::string& self = meta::name(clusterRole);
  // Rules compare as equality.Semantic compares them: an empty list is a missing one.
  std::vector<PolicyRule> rules;
  for (const Json& selectorJson : jsonArrayAt(aggregationRule, "clusterRoleSelectors")) {
    auto selector = LabelSelector::fromJson(selectorJson);
    if (!selector) return tl::unexpected(selector.error());
    for (const ObjectPtr& role : byName) {
      if (meta::name(*role) == self) continue;
      if (!selector->matches(jsonAt(*role, {"metadata", "labels"}))) continue;
      for (const Json& ruleJson : jsonArrayAt(*role, "rules")) {
        PolicyRule rule = PolicyRule::fromJson(ruleJson);
        if (std::find(rules.begin(), rules.end(), rule) == rules.end()) {
          rules.push_back(std::move(rule));
        }
      }
    }
  }
  return std::optional<Json>(policyRulesToJson(rules));
}

}  // namespace fakekube
