// RBAC's rules (rbac.authorization.k8s.io/v1 PolicyRule and Subject), as kube-apiserver
// evaluates them: whether a rule allows a request (plugin/pkg/auth/authorizer/rbac RuleAllows,
// pkg/apis/rbac/v1 evaluation_helpers), whether one set of rules covers another (the escalation
// check's validation.Covers), and whether a binding's subject names a user (validation
// appliesTo).
//
// The Json entry points take the documents as stored (a Role's or ClusterRole's `rules`, a
// binding's `subjects`). PolicyRule is the same rule read once, for callers that evaluate it
// many times (the server's RBAC index).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/auth/authorizer.h"
#include "fakekube/auth/user_info.h"

namespace fakekube {

namespace rbac {
inline constexpr std::string_view kGroupName = "rbac.authorization.k8s.io";
inline constexpr std::string_view kVerbAll = "*";
inline constexpr std::string_view kApiGroupAll = "*";
inline constexpr std::string_view kResourceAll = "*";
inline constexpr std::string_view kNonResourceAll = "*";
}  // namespace rbac

struct PolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> apiGroups;
  std::vector<std::string> resources;
  std::vector<std::string> resourceNames;
  std::vector<std::string> nonResourceURLs;

  bool operator==(const PolicyRule&) const = default;
  // Members that are missing or not lists of strings read as empty (validation refuses them).
  static PolicyRule fromJson(const Json& rule);
  Json toJson() const;  // empty lists left out, as the API server serializes them
};
// A `rules` array; anything but an array reads as no rules.
std::vector<PolicyRule> policyRulesFromJson(const Json& rules);
Json policyRulesToJson(const std::vector<PolicyRule>& rules);

// rbac.RuleAllows: verbs, apiGroups, resources ("pods", "pods/log", "*", "*/status"),
// resourceNames (none = every name) for a resource request; verbs and nonResourceURLs ("/apis",
// "/apis/*", "*") for a non-resource request.
bool ruleAllows(const PolicyRule& rule, const AuthorizationAttributes& attributes);
bool ruleAllows(const Json& policyRule, const AuthorizationAttributes& attributes);
// rbac.RulesAllow: any rule of the array allows the request.
bool rulesAllow(const Json& rulesArray, const AuthorizationAttributes& attributes);

// validation.Covers: every action `requested` grants is granted by one rule of `owner`.
bool rulesCover(const Json& ownerRules, const Json& requestedRules);
// The requested rules broken down to one verb, group, resource and name each (one verb and URL
// for non-resource rules), keeping those no owner rule covers: Covers' second answer.
std::vector<PolicyRule> uncoveredRules(const std::vector<PolicyRule>& owner,
                                       const std::vector<PolicyRule>& requested);
// validation.CompactRules: the rules with one group and one resource and nothing but verbs are
// merged per group/resource (the others are kept as they are), for a readable message.
std::vector<PolicyRule> compactRules(const std::vector<PolicyRule>& rules);
// rbacv1helpers.CompactString: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`.
std::string compactString(const PolicyRule& rule);

// validation.appliesToUser: a User subject by name, a Group by membership, a ServiceAccount by
// its user name (namespace defaulting to `ns`, the binding's; none at all matches nobody).
bool appliesToUser(const UserInfo& user, const Json& subject, std::string_view ns);
// validation.appliesTo: the index of the first of `subjects` that names the user.
std::optional<std::size_t> appliesTo(const UserInfo& user, const Json& subjects,
                                     std::string_view ns);

// An aggregate of errors as utilerrors.NewAggregate prints it: one as itself, several
// deduplicated in brackets ("[a, b]").
std::string aggregateErrorMessage(const std::vector<std::string>& errors);

// Go's %q of a []string: ["a" "b"].
std::string goQuoteList(const std::vector<std::string>& values);

}  // namespace fakekube
