// RBAC's rule matching, coverage and subject matching, ported from kube-apiserver's tests:
// plugin/pkg/auth/authorizer/rbac/rbac_test.go TestRuleMatches,
// pkg/registry/rbac/validation/policy_comparator_test.go (TestCovers...) and rule_test.go
// TestAppliesTo.
#include "fakekube/auth/rbac_rules.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace fakekube {
namespace {

using Strings = std::vector<std::string>;

AuthorizationAttributes resourceRequest(std::string verb, std::string group, std::string resource,
                                        std::string subresource = "", std::string name = "") {
  AuthorizationAttributes attributes;
  attributes.verb = std::move(verb);
  attributes.apiGroup = std::move(group);
  attributes.resource = std::move(resource);
  attributes.subresource = std::move(subresource);
  attributes.name = std::move(name);
  return attributes;
}

AuthorizationAttributes nonResourceRequest(std::string verb, std::string path) {
  AuthorizationAttributes attributes;
  attributes.resourceRequest = false;
  attributes.verb = std::move(verb);
  attributes.path = std::move(path);
  return attributes;
}

Json resourceRule(Strings verbs, Strings groups, Strings resources, Strings names = {}) {
  return PolicyRule{std::move(verbs), std::move(groups), std::move(resources), std::move(names), {}}
      .toJson();
}

Json urlRule(Strings verbs, Strings urls) {
  return PolicyRule{std::move(verbs), {}, {}, {}, std::move(urls)}.toJson();
}

struct RuleCase {
  AuthorizationAttributes request;
  bool allowed;
};

void expectRuleMatches(const Json& rule, const std::vector<RuleCase>& cases) {
  for (const RuleCase& c : cases) {
    EXPECT_EQ(ruleAllows(rule, c.request), c.allowed)
        << c.request.verb << " " << c.request.apiGroup << "/" << c.request.resource << "/"
        << c.request.subresource << " " << c.request.path;
  }
}

// TestRuleMatches "star verb, exact match other".
TEST(RbacRuleMatchesTest, StarVerbExactMatchOther) {
  expectRuleMatches(resourceRule({"*"}, {"group1"}, {"resource1"}),
                    {{resourceRequest("verb1", "group1", "resource1"), true},
                     {resourceRequest("verb1", "group2", "resource1"), false},
                     {resourceRequest("verb1", "group1", "resource2"), false},
                     {resourceRequest("verb2", "group1", "resource1"), true},
                     {resourceRequest("verb2", "group2", "resource2"), false}});
}

// TestRuleMatches "star group, exact match other".
TEST(RbacRuleMatchesTest, StarGroupExactMatchOther) {
  expectRuleMatches(resourceRule({"verb1"}, {"*"}, {"resource1"}),
                    {{resourceRequest("verb1", "group1", "resource1"), true},
                     {resourceRequest("verb1", "group2", "resource1"), true},
                     {resourceRequest("verb1", "group1", "resource2"), false},
                     {resourceRequest("verb2", "group1", "resource1"), false}});
}

// TestRuleMatches "star resource, exact match other".
TEST(RbacRuleMatchesTest, StarResourceExactMatchOther) {
  expectRuleMatches(resourceRule({"verb1"}, {"group1"}, {"*"}),
                    {{resourceRequest("verb1", "group1", "resource1"), true},
                     {resourceRequest("verb1", "group2", "resource1"), false},
                     {resourceRequest("verb1", "group1", "resource2"), true},
                     {resourceRequest("verb2", "group1", "resource1"), false}});
}

// TestRuleMatches "tuple expansion".
TEST(RbacRuleMatchesTest, TupleExpansion) {
  Json rule = resourceRule({"verb1", "verb2"}, {"group1", "group2"}, {"resource1", "resource2"});
  for (const char* verb : {"verb1", "verb2"}) {
    for (const char* group : {"group1", "group2"}) {
      for (const char* resource : {"resource1", "resource2"}) {
        EXPECT_TRUE(ruleAllows(rule, resourceRequest(verb, group, resource)));
      }
    }
  }
}

// TestRuleMatches "subresource expansion".
TEST(RbacRuleMatchesTest, SubresourceExpansion) {
  expectRuleMatches(resourceRule({"*"}, {"*"}, {"resource1/subresource1"}),
                    {{resourceRequest("verb1", "group1", "resource1", "subresource1"), true},
                     {resourceRequest("verb1", "group2", "resource1", "subresource2"), false},
                     {resourceRequest("verb1", "group1", "resource2", "subresource1"), false},
                     {resourceRequest("verb2", "group1", "resource1", "subresource1"), true},
                     {resourceRequest("verb1", "group1", "resource1"), false}});
}

// ResourceMatches: "*/status" is any resource's status, and only a subresource of that name.
TEST(RbacRuleMatchesTest, StarSlashSubresourceMatchesThatSubresourceOfEveryResource) {
  expectRuleMatches(resourceRule({"get"}, {"*"}, {"*/status"}),
                    {{resourceRequest("get", "", "pods", "status"), true},
                     {resourceRequest("get", "ray.io", "rayclusters", "status"), true},
                     {resourceRequest("get", "", "pods"), false},
                     {resourceRequest("get", "", "pods", "log"), false},
                     {resourceRequest("get", "", "pods", "xstatus"), false}});
}

// TestAuthorizer's subresource resolution: "pods" does not grant "pods/status", nor the reverse.
TEST(RbacRuleMatchesTest, ResourceAndItsSubresourceAreDistinct) {
  EXPECT_FALSE(ruleAllows(resourceRule({"*"}, {"*"}, {"pods"}),
                          resourceRequest("get", "", "pods", "status")));
  EXPECT_FALSE(
      ruleAllows(resourceRule({"*"}, {"*"}, {"pods/status"}), resourceRequest("get", "", "pods")));
  EXPECT_TRUE(ruleAllows(resourceRule({"get"}, {""}, {"pods/log"}),
                         resourceRequest("get", "", "pods", "log")));
}

// ResourceNameMatches: no names means every name; otherwise the name must be listed (a list,
// which has no name, is not allowed by a rule with names).
TEST(RbacRuleMatchesTest, ResourceNamesRestrictTheRule) {
  expectRuleMatches(resourceRule({"get", "list"}, {""}, {"configmaps"}, {"allowed"}),
                    {{resourceRequest("get", "", "configmaps", "", "allowed"), true},
                     {resourceRequest("get", "", "configmaps", "", "other"), false},
                     {resourceRequest("list", "", "configmaps"), false}});
}

// TestRuleMatches "star nonresource, exact match other".
TEST(RbacRuleMatchesTest, StarNonResourceExactMatchOther) {
  expectRuleMatches(urlRule({"verb1"}, {"*"}),
                    {{nonResourceRequest("verb1", "/foo"), true},
                     {nonResourceRequest("verb1", "/foo/bar"), true},
                     {nonResourceRequest("verb1", "/foo/baz/one"), true},
                     {nonResourceRequest("verb2", "/foo"), false},
                     {nonResourceRequest("verb2", "/foo/bar/one"), false}});
}

// TestRuleMatches "star nonresource subpath".
TEST(RbacRuleMatchesTest, StarNonResourceSubpath) {
  expectRuleMatches(urlRule({"verb1"}, {"/foo/*"}),
                    {{nonResourceRequest("verb1", "/foo"), false},
                     {nonResourceRequest("verb1", "/foo/bar"), true},
                     {nonResourceRequest("verb1", "/foo/baz"), true},
                     {nonResourceRequest("verb1", "/foo/bar/one"), true},
                     {nonResourceRequest("verb1", "/notfoo"), false},
                     {nonResourceRequest("verb1", "/notfoo/bar/one"), false}});
}

// TestRuleMatches "star verb, exact nonresource".
TEST(RbacRuleMatchesTest, StarVerbExactNonResource) {
  expectRuleMatches(urlRule({"*"}, {"/foo", "/foo/bar/one"}),
                    {{nonResourceRequest("verb1", "/foo"), true},
                     {nonResourceRequest("verb1", "/foo/bar"), false},
                     {nonResourceRequest("verb1", "/foo/bar/one"), true},
                     {nonResourceRequest("verb2", "/foo"), true},
                     {nonResourceRequest("verb2", "/foo/baz/one"), false}});
}

// A resource rule never allows a non-resource request, nor the reverse.
TEST(RbacRuleMatchesTest, ResourceRulesAndNonResourceRulesDoNotMix) {
  EXPECT_FALSE(ruleAllows(resourceRule({"*"}, {"*"}, {"*"}), nonResourceRequest("get", "/apis")));
  EXPECT_FALSE(ruleAllows(urlRule({"*"}, {"*"}), resourceRequest("get", "", "pods")));
}

TEST(RbacRuleMatchesTest, RulesAllowWhenAnyRuleAllows) {
  Json rules = Json::array(
      {resourceRule({"get"}, {""}, {"pods"}), resourceRule({"list"}, {"apps"}, {"deployments"})});
  EXPECT_TRUE(rulesAllow(rules, resourceRequest("list", "apps", "deployments")));
  EXPECT_FALSE(rulesAllow(rules, resourceRequest("list", "", "pods")));
  EXPECT_FALSE(rulesAllow(Json(), resourceRequest("get", "", "pods")));
}

// --- validation.Covers (policy_comparator_test.go) ---

struct CoversCase {
  std::vector<PolicyRule> owner;
  std::vector<PolicyRule> servant;
  bool covered;
  std::vector<PolicyRule> uncovered;
};

void expectCovers(const CoversCase& c) {
  EXPECT_EQ(rulesCover(policyRulesToJson(c.owner), policyRulesToJson(c.servant)), c.covered);
  EXPECT_EQ(uncoveredRules(c.owner, c.servant), c.uncovered);
}

PolicyRule rule(Strings groups, Strings verbs, Strings resources, Strings names = {}) {
  return PolicyRule{
      std::move(verbs), std::move(groups), std::move(resources), std::move(names), {}};
}
PolicyRule urls(Strings urls, Strings verbs) { return PolicyRule{verbs, {}, {}, {}, urls}; }

TEST(RbacCoversTest, CoversExactMatch) {
  expectCovers(
      {{rule({"v1"}, {"get"}, {"builds"})}, {rule({"v1"}, {"get"}, {"builds"})}, true, {}});
}

TEST(RbacCoversTest, CoversMultipleRulesCoveringSingleRule) {
  expectCovers({{rule({"v1"}, {"delete"}, {"deployments"}), rule({"v1"}, {"delete"}, {"builds"}),
                 rule({"v1"}, {"update"}, {"builds", "deployments"})},
                {rule({"v1"}, {"delete", "update"}, {"builds", "deployments"})},
                true,
                {}});
}

TEST(RbacCoversTest, CoversSingleAPIGroupsCoveringMultiple) {
  expectCovers({{rule({"group1", "group2"}, {"delete", "update"}, {"builds", "deployments"})},
                {rule({"group1"}, {"delete"}, {"deployments"}),
                 rule({"group2"}, {"update"}, {"builds", "deployments"})},
                true,
                {}});
}

TEST(RbacCoversTest, CoversMultipleRulesMissingSingleVerbResourceCombination) {
  expectCovers({{rule({"v1"}, {"delete", "update"}, {"builds", "deployments"}),
                 rule({"v1"}, {"delete"}, {"pods"})},
                {rule({"v1"}, {"delete", "update"}, {"builds", "deployments", "pods"})},
                false,
                {rule({"v1"}, {"update"}, {"pods"})}});
}

TEST(RbacCoversTest, CoversAPIGroupStarCoveringMultiple) {
  expectCovers({{rule({"*"}, {"get"}, {"roles"})},
                {rule({"group1", "group2"}, {"get"}, {"roles"})},
                true,
                {}});
}

TEST(RbacCoversTest, CoversEnumerationNotCoveringAPIGroupStar) {
  expectCovers({{rule({"dummy-group"}, {"get"}, {"roles"})},
                {rule({"*"}, {"get"}, {"roles"})},
                false,
                {rule({"*"}, {"get"}, {"roles"})}});
}

TEST(RbacCoversTest, CoversVerbStarCoveringMultiple) {
  expectCovers(
      {{rule({"v1"}, {"*"}, {"roles"})}, {rule({"v1"}, {"watch", "list"}, {"roles"})}, true, {}});
}

TEST(RbacCoversTest, CoversEnumerationNotCoveringVerbStar) {
  expectCovers(
      {{rule({"v1"}, {"get", "list", "watch", "create", "update", "delete", "exec"}, {"roles"})},
       {rule({"v1"}, {"*"}, {"roles"})},
       false,
       {rule({"v1"}, {"*"}, {"roles"})}});
}

TEST(RbacCoversTest, CoversResourceStarCoveringMultiple) {
  expectCovers({{rule({"v1"}, {"get"}, {"*"})},
                {rule({"v1"}, {"get"}, {"resourcegroup:deployments"})},
                true,
                {}});
}

TEST(RbacCoversTest, CoversEnumerationNotCoveringResourceStar) {
  expectCovers({{rule({"v1"}, {"get"}, {"roles", "resourcegroup:deployments"})},
                {rule({"v1"}, {"get"}, {"*"})},
                false,
                {rule({"v1"}, {"get"}, {"*"})}});
}

TEST(RbacCoversTest, CoversResourceNameEmptyCoveringMultiple) {
  expectCovers({{rule({"v1"}, {"get"}, {"pods"})},
                {rule({"v1"}, {"get"}, {"pods"}, {"foo", "bar"})},
                true,
                {}});
}

TEST(RbacCoversTest, CoversEnumerationNotCoveringResourceNameEmpty) {
  expectCovers({{rule({"v1"}, {"get"}, {"pods"}, {"foo", "bar"})},
                {rule({"v1"}, {"get"}, {"pods"})},
                false,
                {rule({"v1"}, {"get"}, {"pods"})}});
}

TEST(RbacCoversTest, CoversNonResourceURLsStar) {
  expectCovers({{urls({"*"}, {"*"})}, {urls({"/apis", "/apis/v1", "/"}, {"*"})}, true, {}});
}

TEST(RbacCoversTest, CoversNonResourceURLsStarAfterPrefixDoesntCover) {
  expectCovers({{urls({"/apis/*"}, {"*"})},
                {urls({"/apis", "/apis/v1"}, {"get"})},
                false,
                {urls({"/apis"}, {"get"})}});
}

TEST(RbacCoversTest, CoversNonResourceURLsStarAfterPrefix) {
  expectCovers(
      {{urls({"/apis/*"}, {"*"})}, {urls({"/apis/v1/foo", "/apis/v1"}, {"get"})}, true, {}});
}

TEST(RbacCoversTest, CoversNonResourceURLsWithOtherFieldsFailure) {
  PolicyRule servant = rule({"v1"}, {"get"}, {"builds"});
  servant.nonResourceURLs = {"/apis"};
  expectCovers({{rule({"v1"}, {"get"}, {"builds"})}, {servant}, false, {urls({"/apis"}, {"get"})}});
}

// TestNonResourceURLCovers, through rules of one URL each.
TEST(RbacCoversTest, NonResourceURLCovers) {
  struct {
    const char* owner;
    const char* requested;
    bool covers;
  } cases[] = {
      {"*", "/api", true},        {"/api", "/api", true},         {"/apis", "/api", false},
      {"/api/v1", "/api", false}, {"/api/v1", "/api/v1", true},   {"/api/*", "/api/v1", true},
      {"/api/*", "/api", false},  {"/api/*/*", "/api/v1", false}, {"/*/v1/*", "/api/v1", false}};
  for (const auto& c : cases) {
    EXPECT_EQ(uncoveredRules({urls({c.owner}, {"get"})}, {urls({c.requested}, {"get"})}).empty(),
              c.covers)
        << c.owner << " " << c.requested;
  }
}

// validation.CompactRules merges the simple rules of one group/resource; CompactString prints
// what the escalation message lists.
TEST(RbacCoversTest, CompactRulesAndCompactString) {
  auto compacted = compactRules({rule({""}, {"get"}, {"pods"}), rule({""}, {"list"}, {"pods"}),
                                 rule({""}, {"get"}, {"pods"}, {"a"})});
  ASSERT_EQ(compacted.size(), 2u);
  EXPECT_EQ(compactString(compacted[0]),
            R"({APIGroups:[""], Resources:["pods"], ResourceNames:["a"], Verbs:["get"]})");
  EXPECT_EQ(compactString(compacted[1]),
            R"({APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]})");
  EXPECT_EQ(compactString(urls({"/healthz"}, {"get"})),
            R"({NonResourceURLs:["/healthz"], Verbs:["get"]})");
}

// --- TestAppliesTo (validation/rule_test.go) ---

UserInfo namedUser(std::string name, std::vector<std::string> groups = {}) {
  UserInfo user;
  user.name = std::move(name);
  user.groups = std::move(groups);
  return user;
}

Json subject(const char* kind, const char* name, const char* ns = nullptr) {
  Json s = {{"kind", kind}, {"name", name}};
  if (kind != std::string("ServiceAccount")) s["apiGroup"] = "rbac.authorization.k8s.io";
  if (ns != nullptr) s["namespace"] = ns;
  return s;
}

TEST(RbacAppliesToTest, AppliesTo) {
  struct Case {
    Json subjects;
    UserInfo user;
    const char* ns;
    bool applies;
    const char* name;
  } cases[] = {
      {Json::array({subject("User", "foobar")}), namedUser("foobar"), "", true,
       "single subject that matches username"},
      {Json::array({subject("User", "barfoo"), subject("User", "foobar")}), namedUser("foobar"), "",
       true, "multiple subjects, one that matches username"},
      {Json::array({subject("User", "barfoo"), subject("User", "foobar")}), namedUser("zimzam"), "",
       false, "multiple subjects, none that match username"},
      {Json::array({subject("User", "barfoo"), subject("Group", "foobar")}),
       namedUser("zimzam", {"foobar"}), "", true, "multiple subjects, one that match group"},
      {Json::array({subject("User", "barfoo"), subject("Group", "foobar")}),
       namedUser("zimzam", {"foobar"}), "namespace1", true,
       "multiple subjects, one that match group, should ignore namespace"},
      {Json::array({subject("User", "barfoo"), subject("Group", "foobar"),
                    subject("ServiceAccount", "default", "kube-system")}),
       namedUser("system:serviceaccount:kube-system:default"), "default", true,
       "multiple subjects with a service account that matches"},
      {Json::array({subject("User", "*")}), namedUser("foobar"), "default", false,
       "* user subject name doesn't match all users"},
      {Json::array(
           {subject("Group", "system:authenticated"), subject("Group", "system:unauthenticated")}),
       namedUser("foobar", {"system:authenticated"}), "default", true,
       "binding to all authenticated and unauthenticated subjects matches authenticated user"},
      {Json::array(
           {subject("Group", "system:authenticated"), subject("Group", "system:unauthenticated")}),
       namedUser("system:anonymous", {"system:unauthenticated"}), "default", true,
       "binding to all authenticated and unauthenticated subjects matches anonymous user"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(appliesTo(c.user, c.subjects, c.ns).has_value(), c.applies) << c.name;
  }
}

// A ServiceAccount subject without a namespace takes the binding's; with none at all (a
// ClusterRoleBinding) it names nobody.
TEST(RbacAppliesToTest, ServiceAccountSubjectDefaultsToTheBindingsNamespace) {
  UserInfo user = serviceAccountUser("team-a", "builder");
  Json subjects = Json::array({subject("ServiceAccount", "builder")});
  EXPECT_TRUE(appliesTo(user, subjects, "team-a").has_value());
  EXPECT_FALSE(appliesTo(user, subjects, "team-b").has_value());
  EXPECT_FALSE(appliesTo(user, subjects, "").has_value());
  EXPECT_EQ(
      appliesTo(user,
                Json::array({subject("User", "x"), subject("ServiceAccount", "builder", "team-a")}),
                ""),
      std::optional<std::size_t>(1));
}

}  // namespace
}  // namespace fakekube
