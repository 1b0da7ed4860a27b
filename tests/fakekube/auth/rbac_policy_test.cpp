// RBAC over a set of roles and bindings, ported from kube-apiserver's tests:
// plugin/pkg/auth/authorizer/rbac/rbac_test.go TestAuthorizer and
// pkg/registry/rbac/validation/rule_test.go TestDefaultRuleResolver; and the 403 kube-apiserver
// answers a refused request with (responsewriters.Forbidden), byte for byte.
#include "fakekube/auth/rbac_policy.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace fakekube {
namespace {

using Strings = std::vector<std::string>;

ObjectPtr object(Json document) { return std::make_shared<const Json>(std::move(document)); }

Json rulesJson(const std::vector<PolicyRule>& rules) { return policyRulesToJson(rules); }

// rbac_test.go newRule: verbs, groups, resources, URLs, each split on ",".
PolicyRule newRule(const std::string& verbs, const std::string& groups,
                   const std::string& resources, const std::string& urls) {
  auto split = [](const std::string& s) {
    Strings parts;
    std::size_t start = 0;
    while (true) {
      auto comma = s.find(',', start);
      parts.push_back(s.substr(start, comma - start));
      if (comma == std::string::npos) return parts;
      start = comma + 1;
    }
  };
  return PolicyRule{split(verbs), split(groups), split(resources), {}, split(urls)};
}

Json subjectsJson(const Strings& subjects) {
  Json array = Json::array();
  for (const std::string& s : subjects) {
    auto colon = s.find(':');
    std::string kind = s.substr(0, colon);
    Json subject = {{"kind", kind}, {"name", s.substr(colon + 1)}};
    if (kind != "ServiceAccount") subject["apiGroup"] = "rbac.authorization.k8s.io";
    array.push_back(subject);
  }
  return array;
}

ObjectPtr clusterRole(const std::string& name, const std::vector<PolicyRule>& rules) {
  return object({{"metadata", {{"name", name}}}, {"rules", rulesJson(rules)}});
}
ObjectPtr role(const std::string& ns, const std::string& name,
               const std::vector<PolicyRule>& rules) {
  return object({{"metadata", {{"name", name}, {"namespace", ns}}}, {"rules", rulesJson(rules)}});
}
ObjectPtr clusterRoleBinding(const std::string& name, const std::string& roleName,
                             const Strings& subjects) {
  return object(
      {{"metadata", {{"name", name}}},
       {"roleRef",
        {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", roleName}}},
       {"subjects", subjectsJson(subjects)}});
}
ObjectPtr roleBinding(const std::string& ns, const std::string& name, const std::string& roleKind,
                      const std::string& roleName, const Strings& subjects) {
  return object(
      {{"metadata", {{"name", name}, {"namespace", ns}}},
       {"roleRef",
        {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", roleKind}, {"name", roleName}}},
       {"subjects", subjectsJson(subjects)}});
}

UserInfo namedUser(std::string name, Strings groups = {}) {
  UserInfo user;
  user.name = std::move(name);
  user.groups = std::move(groups);
  return user;
}

// defaultAttributes{user, groups, verb, resource, subresource, namespace, apiGroup}.
struct Request {
  UserInfo user;
  AuthorizationAttributes attributes;
};
Request resourceRequest(std::string user, Strings groups, std::string verb, std::string resource,
                        std::string subresource, std::string ns) {
  Request r{namedUser(std::move(user), std::move(groups)), {}};
  r.attributes.verb = std::move(verb);
  r.attributes.resource = std::move(resource);
  r.attributes.subresource = std::move(subresource);
  r.attributes.ns = std::move(ns);
  return r;
}
Request pathRequest(std::string user, Strings groups, std::string verb, std::string path) {
  Request r{namedUser(std::move(user), std::move(groups)), {}};
  r.attributes.resourceRequest = false;
  r.attributes.verb = std::move(verb);
  r.attributes.path = std::move(path);
  return r;
}

void expectDecisions(const RbacPolicy& policy, std::vector<Request> pass,
                     std::vector<Request> fail) {
  for (Request& r : pass) {
    r.attributes.user = &r.user;
    EXPECT_TRUE(policy.authorize(r.attributes).allowed())
        << "incorrectly restricted " << r.user.name << " " << r.attributes.verb << " "
        << r.attributes.resource << r.attributes.path << " in " << r.attributes.ns;
    EXPECT_TRUE(policy.allows(r.attributes));
  }
  for (Request& r : fail) {
    r.attributes.user = &r.user;
    EXPECT_FALSE(policy.authorize(r.attributes).allowed())
        << "incorrectly passed " << r.user.name << " " << r.attributes.verb << " "
        << r.attributes.resource << r.attributes.path << " in " << r.attributes.ns;
    EXPECT_FALSE(policy.allows(r.attributes));
  }
}

// TestAuthorizer, first case: a RoleBinding to a ClusterRole grants in its namespace only.
TEST(RbacAuthorizerTest, RoleBindingToClusterRoleGrantsInItsNamespaceOnly) {
  RbacPolicy policy;
  policy.apply(RbacPolicy::Kind::ClusterRole, clusterRole("admin", {newRule("*", "*", "*", "*")}));
  policy.apply(RbacPolicy::Kind::RoleBinding,
               roleBinding("ns1", "b", "ClusterRole", "admin", {"User:admin", "Group:admins"}));
  expectDecisions(policy,
                  {resourceRequest("admin", {}, "get", "Pods", "", "ns1"),
                   resourceRequest("admin", {}, "watch", "Pods", "", "ns1"),
                   resourceRequest("admin", {"group1"}, "watch", "Foobar", "", "ns1"),
                   resourceRequest("joe", {"admins"}, "watch", "Foobar", "", "ns1"),
                   resourceRequest("joe", {"group1", "admins"}, "watch", "Foobar", "", "ns1")},
                  {resourceRequest("admin", {}, "GET", "Pods", "", "ns2"),
                   resourceRequest("admin", {}, "GET", "Nodes", "", ""),
                   resourceRequest("admin", {"admins"}, "GET", "Pods", "", "ns2"),
                   resourceRequest("admin", {"admins"}, "GET", "Nodes", "", "")});
}

// TestAuthorizer, non-resource URL case.
TEST(RbacAuthorizerTest, NonResourceUrls) {
  RbacPolicy policy;
  policy.apply(RbacPolicy::Kind::ClusterRole,
               clusterRole("non-resource-url-getter", {newRule("get", "", "", "/apis")}));
  policy.apply(RbacPolicy::Kind::ClusterRole,
               clusterRole("non-resource-url", {newRule("*", "", "", "/apis")}));
  policy.apply(RbacPolicy::Kind::ClusterRole,
               clusterRole("non-resource-url-prefix", {newRule("get", "", "", "/apis/*")}));
  policy.apply(RbacPolicy::Kind::ClusterRoleBinding,
               clusterRoleBinding("b1", "non-resource-url-getter", {"User:foo", "Group:bar"}));
  policy.apply(RbacPolicy::Kind::ClusterRoleBinding,
               clusterRoleBinding("b2", "non-resource-url", {"User:admin", "Group:admin"}));
  policy.apply(
      RbacPolicy::Kind::ClusterRoleBinding,
      clusterRoleBinding("b3", "non-resource-url-prefix", {"User:prefixed", "Group:prefixed"}));
  expectDecisions(
      policy,
      {pathRequest("foo", {}, "get", "/apis"), pathRequest("", {"bar"}, "get", "/apis"),
       pathRequest("admin", {}, "get", "/apis"), pathRequest("", {"admin"}, "get", "/apis"),
       pathRequest("admin", {}, "watch", "/apis"), pathRequest("", {"admin"}, "watch", "/apis"),
       pathRequest("prefixed", {}, "get", "/apis/v1"),
       pathRequest("", {"prefixed"}, "get", "/apis/v1"),
       pathRequest("prefixed", {}, "get", "/apis/v1/foobar"),
       pathRequest("", {"prefixed"}, "get", "/apis/v1/foorbar")},
      {pathRequest("foo", {}, "watch", "/apis"), pathRequest("", {"bar"}, "watch", "/apis"),
       pathRequest("foo", {}, "get", "/api/v1"), pathRequest("", {"bar"}, "get", "/api/v1"),
       pathRequest("admin", {}, "get", "/api/v1"), pathRequest("", {"admin"}, "get", "/api/v1"),
       pathRequest("prefixed", {}, "get", "/api/v1"),
       pathRequest("", {"prefixed"}, "get", "/api/v1")});
}

// TestAuthorizer, the two subresource resolution cases.
TEST(RbacAuthorizerTest, SubresourceResolution) {
  RbacPolicy pods;
  pods.apply(RbacPolicy::Kind::ClusterRole, clusterRole("admin", {newRule("*", "*", "pods", "*")}));
  pods.apply(RbacPolicy::Kind::RoleBinding,
             roleBinding("ns1", "b", "ClusterRole", "admin", {"User:admin", "Group:admins"}));
  expectDecisions(pods, {resourceRequest("admin", {}, "get", "pods", "", "ns1")},
                  {resourceRequest("admin", {}, "get", "pods", "status", "ns1")});
  RbacPolicy status;
  status.apply(RbacPolicy::Kind::ClusterRole,
               clusterRole("admin", {newRule("*", "*", "pods/status", "*")}));
  status.apply(RbacPolicy::Kind::RoleBinding,
               roleBinding("ns1", "b", "ClusterRole", "admin", {"User:admin", "Group:admins"}));
  expectDecisions(status, {resourceRequest("admin", {}, "get", "pods", "status", "ns1")},
                  {resourceRequest("admin", {}, "get", "pods", "", "ns1")});
}

// TestDefaultRuleResolver: the rules of a user in a namespace; cluster-wide only cluster rules.
TEST(RbacRuleResolverTest, DefaultRuleResolver) {
  PolicyRule readPods{{"GET", "WATCH"}, {"v1"}, {"pods"}, {}, {}};
  PolicyRule readServices{{"GET", "WATCH"}, {"v1"}, {"services"}, {}, {}};
  PolicyRule writeNodes{{"PUT", "CREATE", "UPDATE"}, {"v1"}, {"nodes"}, {}, {}};
  PolicyRule admin{{"*"}, {"*"}, {"*"}, {}, {}};
  RbacPolicy policy;
  policy.apply(RbacPolicy::Kind::Role, role("namespace1", "readthings", {readPods, readServices}));
  policy.apply(RbacPolicy::Kind::ClusterRole, clusterRole("cluster-admin", {admin}));
  policy.apply(RbacPolicy::Kind::ClusterRole, clusterRole("write-nodes", {writeNodes}));
  policy.apply(RbacPolicy::Kind::RoleBinding, roleBinding("namespace1", "", "Role", "readthings",
                                                          {"User:foobar", "Group:group1"}));
  policy.apply(RbacPolicy::Kind::ClusterRoleBinding,
               clusterRoleBinding("", "cluster-admin", {"User:admin", "Group:admin"}));

  auto resolved = policy.rulesFor(namedUser("foobar"), "namespace1");
  EXPECT_EQ(resolved.rules, (std::vector<PolicyRule>{readPods, readServices}));
  EXPECT_TRUE(resolved.errors.empty());
  EXPECT_TRUE(policy.rulesFor(namedUser("foobar"), "namespace2").rules.empty());
  EXPECT_EQ(policy.rulesFor(namedUser("foobar", {"admin"}), "").rules,
            (std::vector<PolicyRule>{admin}));
  EXPECT_TRUE(policy.rulesFor(namedUser(""), "").rules.empty());
}

// The index follows updates and deletions: a binding's old subjects lose what it granted.
TEST(RbacRuleResolverTest, UpdatedAndRemovedBindingsStopGranting) {
  RbacPolicy policy;
  policy.apply(RbacPolicy::Kind::ClusterRole,
               clusterRole("view", {newRule("get", "", "pods", "")}));
  policy.apply(RbacPolicy::Kind::RoleBinding,
               roleBinding("ns", "b", "ClusterRole", "view", {"User:alice"}));
  EXPECT_EQ(policy.rulesFor(namedUser("alice"), "ns").rules.size(), 1u);
  policy.apply(RbacPolicy::Kind::RoleBinding,
               roleBinding("ns", "b", "ClusterRole", "view", {"User:bob"}));
  EXPECT_TRUE(policy.rulesFor(namedUser("alice"), "ns").rules.empty());
  EXPECT_EQ(policy.rulesFor(namedUser("bob"), "ns").rules.size(), 1u);
  policy.remove(RbacPolicy::Kind::RoleBinding, "ns", "b");
  EXPECT_TRUE(policy.rulesFor(namedUser("bob"), "ns").rules.empty());
  policy.apply(RbacPolicy::Kind::RoleBinding,
               roleBinding("ns", "b", "ClusterRole", "view", {"User:bob"}));
  policy.remove(RbacPolicy::Kind::ClusterRole, "", "view");
  auto resolved = policy.rulesFor(namedUser("bob"), "ns");
  EXPECT_TRUE(resolved.rules.empty());
  EXPECT_EQ(resolved.errors, Strings{R"(clusterrole.rbac.authorization.k8s.io "view" not found)"});
}

// RBACAuthorizer.Authorize's reasons: the source of an allowing rule, and for a refusal the
// errors met (deduplicated, several in brackets), as utilerrors.NewAggregate prints them.
TEST(RbacAuthorizerTest, ReasonsNameTheAllowingBindingOrTheResolutionErrors) {
  RbacPolicy policy;
  policy.apply(RbacPolicy::Kind::ClusterRole,
               clusterRole("view", {newRule("get", "", "pods", "")}));
  policy.apply(RbacPolicy::Kind::ClusterRoleBinding,
               clusterRoleBinding("viewers", "view", {"Group:readers"}));
  policy.apply(RbacPolicy::Kind::RoleBinding,
               roleBinding("ns", "edit-sa", "Role", "gone", {"ServiceAccount:builder"}));
  UserInfo reader = namedUser("r", {"readers"});
  AuthorizationAttributes get;
  get.user = &reader;
  get.verb = "get";
  get.resource = "pods";
  get.ns = "ns";
  auto allowed = policy.authorize(get);
  EXPECT_TRUE(allowed.allowed());
  EXPECT_EQ(
      allowed.reason,
      R"(RBAC: allowed by ClusterRoleBinding "viewers" of ClusterRole "view" to Group "readers")");

  UserInfo builder = serviceAccountUser("ns", "builder");
  get.user = &builder;
  get.verb = "list";
  auto refused = policy.authorize(get);
  EXPECT_EQ(refused.decision, AuthorizationDecision::NoOpinion);
  EXPECT_EQ(refused.reason, R"(RBAC: role.rbac.authorization.k8s.io "gone" not found)");
  std::string reason;
  EXPECT_FALSE(policy.allows(get, &reason));
  EXPECT_EQ(reason, refused.reason);

  policy.apply(RbacPolicy::Kind::Role, role("ns", "gone", {newRule("list", "", "pods", "")}));
  auto now = policy.authorize(get);
  EXPECT_TRUE(now.allowed());
  EXPECT_EQ(
      now.reason,
      R"(RBAC: allowed by RoleBinding "edit-sa/ns" of Role "gone" to ServiceAccount "builder/ns")");

  policy.apply(RbacPolicy::Kind::RoleBinding,
               roleBinding("ns", "a", "ClusterRole", "missing", {"ServiceAccount:builder"}));
  policy.apply(RbacPolicy::Kind::RoleBinding,
               roleBinding("ns", "b", "Other", "x", {"ServiceAccount:builder"}));
  get.verb = "delete";
  EXPECT_EQ(
      policy.authorize(get).reason,
      R"(RBAC: [clusterrole.rbac.authorization.k8s.io "missing" not found, unsupported role reference kind: "Other"])");
}

// --- responsewriters.Forbidden ---

TEST(RbacForbiddenTest, NamespacedResourceWithoutName) {
  UserInfo alice = authenticatedUser("alice");
  AuthorizationAttributes a;
  a.user = &alice;
  a.verb = "list";
  a.resource = "pods";
  a.ns = "default";
  Status status = forbidden(a, "");
  EXPECT_EQ(status.code, 403);
  EXPECT_EQ(status.reason, "Forbidden");
  EXPECT_EQ(
      status.message,
      R"(pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default")");
  EXPECT_EQ(status.details.name, "");
  EXPECT_EQ(status.details.group, "");
  EXPECT_EQ(status.details.kind, "pods");
}

TEST(RbacForbiddenTest, NamedSubresourceOfAGroupAtClusterScope) {
  UserInfo bob = authenticatedUser("bob");
  AuthorizationAttributes a;
  a.user = &bob;
  a.verb = "update";
  a.apiGroup = "ray.io";
  a.apiVersion = "v1";
  a.resource = "rayclusters";
  a.subresource = "status";
  a.name = "a";
  Status status = forbidden(a, "");
  EXPECT_EQ(
      status.message,
      R"(rayclusters.ray.io "a" is forbidden: User "bob" cannot update resource "rayclusters/status" in API group "ray.io" at the cluster scope)");
  EXPECT_EQ(status.details.name, "a");
  EXPECT_EQ(status.details.group, "ray.io");
  EXPECT_EQ(status.details.kind, "rayclusters");
}

TEST(RbacForbiddenTest, NamedObjectInANamespaceWithAReason) {
  UserInfo sa = serviceAccountUser("default", "default");
  AuthorizationAttributes a;
  a.user = &sa;
  a.verb = "get";
  a.apiGroup = "apps";
  a.resource = "deployments";
  a.name = "web";
  a.ns = "prod";
  EXPECT_EQ(
      forbidden(a, R"(RBAC: clusterrole.rbac.authorization.k8s.io "x" not found)").message,
      R"(deployments.apps "web" is forbidden: User "system:serviceaccount:default:default" cannot get resource "deployments" in API group "apps" in the namespace "prod": RBAC: clusterrole.rbac.authorization.k8s.io "x" not found)");
}

TEST(RbacForbiddenTest, NonResourcePath) {
  UserInfo carol = authenticatedUser("carol");
  AuthorizationAttributes a;
  a.user = &carol;
  a.resourceRequest = false;
  a.verb = "get";
  a.path = "/metrics";
  Status status = forbidden(a, "");
  EXPECT_EQ(status.code, 403);
  EXPECT_EQ(status.reason, "Forbidden");
  EXPECT_EQ(status.message, R"(forbidden: User "carol" cannot get path "/metrics")");
  EXPECT_TRUE(status.details.empty());
}

// The sanitizer of responsewriters: nothing in the message reads as HTML.
TEST(RbacForbiddenTest, MessageIsSanitized) {
  UserInfo user = authenticatedUser("<b>&");
  AuthorizationAttributes a;
  a.user = &user;
  a.resourceRequest = false;
  a.verb = "get";
  a.path = "/x";
  EXPECT_EQ(forbidden(a, "").message, R"(forbidden: User "&lt;b&gt;&amp;" cannot get path "/x")");
}

}  // namespace
}  // namespace fakekube
