#include "fakekube/http/internal/rules_review.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/auth/authorizer.h"

namespace fakekube {

namespace {

const GroupVersionResource kRulesClusterRoles{"rbac.authorization.k8s.io", "v1", "clusterroles"};
const GroupVersionResource kRulesRoles{"rbac.authorization.k8s.io", "v1", "roles"};
const GroupVersionResource kRulesClusterRoleBindings{"rbac.authorization.k8s.io", "v1",
                                                     "clusterrolebindings"};
const GroupVersionResource kRulesRoleBindings{"rbac.authorization.k8s.io", "v1", "rolebindings"};

std::string memberText(const Json& object, const char* member) {
  const Json& value = jsonAt(object, {member});
  return value.is_string() ? value.get<std::string>() : std::string();
}

// appliesToUser: a subject names the user, one of its groups, or its ServiceAccount (a
// ServiceAccount subject without a namespace is of the binding's).
bool subjectNamesUser(const Json& subject, const UserInfo& user, const std::string& bindingNs) {
  const std::string kind = memberText(subject, "kind");
  const std::string name = memberText(subject, "name");
  if (kind == "User") return user.name == name;
  if (kind == "Group") return user.inGroup(name);
  if (kind != "ServiceAccount") return false;
  std::string ns = memberText(subject, "namespace");
  if (ns.empty()) ns = bindingNs;
  if (ns.empty()) return false;
  return user.name == std::string(users::kServiceAccountPrefix) + ns + ":" + name;
}

bool bindingNamesUser(const Json& binding, const UserInfo& user) {
  const Json& subjects = jsonAt(binding, {"subjects"});
  if (!subjects.is_array()) return false;
  for (const auto& subject : subjects) {
    if (subjectNamesUser(subject, user, meta::namespace_(binding))) return true;
  }
  return false;
}

// A rule as the review writes it: only the members that hold something.
void addRule(const Json& rule, Json& resourceRules, Json& nonResourceRules) {
  auto listed = [&rule](const char* member) {
    const Json& value = jsonAt(rule, {member});
    return value.is_array() && !value.empty();
  };
  if (listed("resources")) {
    Json out = {{"verbs", jsonAt(rule, {"verbs"})}};
    for (const char* member : {"apiGroups", "resources", "resourceNames"}) {
      if (listed(member)) out[member] = rule[member];
    }
    resourceRules.push_back(std::move(out));
  }
  if (listed("nonResourceURLs")) {
    nonResourceRules.push_back(
        {{"verbs", jsonAt(rule, {"verbs"})}, {"nonResourceURLs", rule["nonResourceURLs"]}});
  }
}

Json wildcardResourceRule() {
  return {{"verbs", Json::array({"*"})},
          {"apiGroups", Json::array({"*"})},
          {"resources", Json::array({"*"})}};
}

Json wildcardNonResourceRule() {
  return {{"verbs", Json::array({"*"})}, {"nonResourceURLs", Json::array({"*"})}};
}

}  // namespace

Json subjectRulesReviewStatus(ApiServer& server, const UserInfo& user, const std::string& ns) {
  Json resourceRules = Json::array();
  Json nonResourceRules = Json::array();
  if (user.inGroup(users::kSystemMasters)) {
    resourceRules.push_back(wildcardResourceRule());
    nonResourceRules.push_back(wildcardNonResourceRule());
  } else {
    // AlwaysAllow allows what no rule could ask for: the verb "*" on every resource.
    AuthorizationAttributes everything;
    everything.user = &user;
    everything.verb = "fakekube:every-verb";
    everything.apiGroup = "fakekube.invalid";
    everything.resource = "every-resource";
    if (server.authorize(everything).allowed()) {
      return {{"resourceRules", Json::array({wildcardResourceRule()})},
              {"nonResourceRules", Json::array({wildcardNonResourceRule()})},
              {"incomplete", false}};
    }
  }
  // The policy is read as the server's own: the user need not be allowed to read it.
  RequestUserScope serverOwn(nullptr);
  std::vector<std::string> errors;
  auto visitBindings = [&](const GroupVersionResource& bindings, const std::string& bindingsNs) {
    auto list = server.list(bindings, bindingsNs);
    if (!list) return;
    for (const auto& binding : list->items) {
      if (!bindingNamesUser(*binding, user)) continue;
      const std::string kind = memberText(jsonAt(*binding, {"roleRef"}), "kind");
      const std::string name = memberText(jsonAt(*binding, {"roleRef"}), "name");
      const bool clusterRole = kind == "ClusterRole";
      auto role = clusterRole ? server.get(kRulesClusterRoles, "", name)
                              : server.get(kRulesRoles, meta::namespace_(*binding), name);
      if (!role) {
        errors.push_back(fmt::format("{}.rbac.authorization.k8s.io \"{}\" not found",
                                     clusterRole ? "clusterrole" : "role", name));
        continue;
      }
      const Json& rules = jsonAt(**role, {"rules"});
      if (!rules.is_array()) continue;
      for (const auto& rule : rules) addRule(rule, resourceRules, nonResourceRules);
    }
  };
  visitBindings(kRulesClusterRoleBindings, "");
  if (!ns.empty()) visitBindings(kRulesRoleBindings, ns);
  Json status = {{"resourceRules", std::move(resourceRules)},
                 {"nonResourceRules", std::move(nonResourceRules)},
                 {"incomplete", false}};
  if (!errors.empty()) status["evaluationError"] = fmt::format("{}", fmt::join(errors, ", "));
  return status;
}

}  // namespace fakekube
