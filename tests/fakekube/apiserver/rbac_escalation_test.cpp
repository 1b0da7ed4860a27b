// RBAC's escalation checks on writes of roles and bindings, as kube-apiserver's policybased
// storages make them (pkg/registry/rbac/role/policybased, clusterrole/policybased,
// rolebinding/policybased, clusterrolebinding/policybased): a user writes only the rules it
// holds unless it may `escalate`, and binds only roles whose rules it holds unless it may
// `bind` them; the server itself and system:masters are not checked.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "fakekube/auth/user_info.h"
#include "fakekube/client/in_process_client.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

const GroupVersionResource kEscalationRoles{"rbac.authorization.k8s.io", "v1", "roles"};
const GroupVersionResource kEscalationClusterRoles{"rbac.authorization.k8s.io", "v1",
                                                   "clusterroles"};
const GroupVersionResource kEscalationRoleBindings{"rbac.authorization.k8s.io", "v1",
                                                   "rolebindings"};
const GroupVersionResource kEscalationClusterRoleBindings{"rbac.authorization.k8s.io", "v1",
                                                          "clusterrolebindings"};

Json rbacRule(const std::vector<std::string>& verbs, const std::vector<std::string>& groups,
              const std::vector<std::string>& resources,
              const std::vector<std::string>& names = {}) {
  Json rule = {{"verbs", verbs}, {"apiGroups", groups}, {"resources", resources}};
  if (!names.empty()) rule["resourceNames"] = names;
  return rule;
}

Json roleObject(const std::string& kind, const std::string& name, const std::string& ns,
                Json rules) {
  Json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
               {"kind", kind},
               {"metadata", {{"name", name}}},
               {"rules", std::move(rules)}};
  if (!ns.empty()) role["metadata"]["namespace"] = ns;
  return role;
}

Json bindingObject(const std::string& kind, const std::string& name, const std::string& ns,
                   const std::string& roleKind, const std::string& role, const std::string& user) {
  Json binding = {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", kind},
      {"metadata", {{"name", name}}},
      {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", roleKind}, {"name", role}}},
      {"subjects",
       Json::array(
           {{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "User"}, {"name", user}}})}};
  if (!ns.empty()) binding["metadata"]["namespace"] = ns;
  return binding;
}

// alice may read pods in "team", and write roles and role bindings there.
class RbacEscalationTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    create(kNamespaces, namespaceObject("team"));
    create(kEscalationClusterRoles,
           roleObject("ClusterRole", "pod-reader", "",
                      Json::array({rbacRule({"get", "list"}, {""}, {"pods"})})));
    create(kEscalationClusterRoles,
           roleObject("ClusterRole", "secret-reader", "",
                      Json::array({rbacRule({"get"}, {""}, {"secrets"})})));
    create(kEscalationRoles, roleObject("Role", "rbac-writer", "team",
                                        Json::array({rbacRule({"create", "update", "patch"},
                                                              {"rbac.authorization.k8s.io"},
                                                              {"roles", "rolebindings"})})));
    create(kEscalationRoleBindings, bindingObject("RoleBinding", "alice-reads", "team",
                                                  "ClusterRole", "pod-reader", "alice"));
    create(kEscalationRoleBindings,
           bindingObject("RoleBinding", "alice-writes", "team", "Role", "rbac-writer", "alice"));
  }

  // A Role granting `escalate` on roles in "team", bound to alice.
  void letAliceEscalateRoles() {
    create(kEscalationRoles,
           roleObject(
               "Role", "escalator", "team",
               Json::array({rbacRule({"escalate"}, {"rbac.authorization.k8s.io"}, {"roles"})})));
    create(kEscalationRoleBindings,
           bindingObject("RoleBinding", "alice-escalates", "team", "Role", "escalator", "alice"));
  }

  UserInfo alice = authenticatedUser("alice");
};

TEST_F(RbacEscalationTest, RoleWithRulesTheUserHoldsIsCreated) {
  InProcessClient client(*server, alice);
  EXPECT_TRUE(
      client
          .create(kEscalationRoles, roleObject("Role", "readers", "team",
                                               Json::array({rbacRule({"get"}, {""}, {"pods"})})))
          .has_value());
}

TEST_F(RbacEscalationTest, RoleWithRulesTheUserDoesNotHoldIsForbiddenAndNotWritten) {
  InProcessClient client(*server, alice);
  EXPECT_TRUE(failsWith(
      client.create(kEscalationRoles, roleObject("Role", "deleter", "team",
                                                 Json::array({rbacRule({"delete", "get"}, {""},
                                                                       {"pods", "secrets"})}))),
      403, "Forbidden",
      "roles.rbac.authorization.k8s.io \"deleter\" is forbidden: user \"alice\" "
      "(groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently "
      "held:\n{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"delete\"]}\n{APIGroups:[\"\"], "
      "Resources:[\"secrets\"], Verbs:[\"delete\" \"get\"]}"));
  EXPECT_TRUE(isNotFound(server->get(kEscalationRoles, "team", "deleter")));
  // An update is checked as a create is.
  Json readers = must(client.create(
      kEscalationRoles,
      roleObject("Role", "readers", "team", Json::array({rbacRule({"get"}, {""}, {"pods"})}))));
  readers["rules"] = Json::array({rbacRule({"get"}, {""}, {"secrets"})});
  EXPECT_TRUE(failsWith(client.update(kEscalationRoles, readers), 403, "Forbidden",
                        "roles.rbac.authorization.k8s.io \"readers\" is forbidden: user \"alice\" "
                        "(groups=[\"system:authenticated\"]) is attempting to grant RBAC "
                        "permissions not currently held:\n{APIGroups:[\"\"], "
                        "Resources:[\"secrets\"], Verbs:[\"get\"]}"));
}

// RoleEscalationAuthorized: the `escalate` verb on roles lets a user write any rules.
TEST_F(RbacEscalationTest, EscalateVerbAllowsRulesTheUserDoesNotHold) {
  letAliceEscalateRoles();
  InProcessClient client(*server, alice);
  EXPECT_TRUE(
      client
          .create(kEscalationRoles, roleObject("Role", "deleter", "team",
                                               Json::array({rbacRule({"delete"}, {""}, {"pods"})})))
          .has_value());
}

// The policybased storage checks escalation before it hands the write to the standard storage,
// whose rest.BeforeCreate validates: a role that both escalates and is invalid is answered 403,
// and only a user who holds its rules (or may escalate) learns that it is invalid (422).
TEST_F(RbacEscalationTest, EscalationIsCheckedBeforeValidationSoAnInvalidEscalatingRoleIs403) {
  Json rules = Json::array({rbacRule({"delete"}, {""}, {"secrets"}),
                            {{"verbs", {"get"}}, {"resources", {"pods"}}}});  // no apiGroups
  InProcessClient client(*server, alice);
  EXPECT_TRUE(failsWith(
      client.create(kEscalationRoles, roleObject("Role", "invalid", "team", rules)), 403,
      "Forbidden",
      "roles.rbac.authorization.k8s.io \"invalid\" is forbidden: user \"alice\" "
      "(groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently "
      "held:\n{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"delete\"]}"));
  letAliceEscalateRoles();
  EXPECT_TRUE(failsWith(
      client.create(kEscalationRoles, roleObject("Role", "invalid", "team", rules)), 422, "Invalid",
      "Role.rbac.authorization.k8s.io \"invalid\" is invalid: rules[1].apiGroups: Required "
      "value: resource rules must supply at least one api group"));
  EXPECT_TRUE(isNotFound(server->get(kEscalationRoles, "team", "invalid")));
}

// An update that only changes what the garbage collector changes is never an escalation.
TEST_F(RbacEscalationTest, UpdatingOnlyFinalizersOfARoleIsNotChecked) {
  create(kEscalationRoles,
         roleObject("Role", "wide", "team", Json::array({rbacRule({"*"}, {"*"}, {"*"})})));
  Json wide = get(kEscalationRoles, "team", "wide");
  wide["metadata"]["finalizers"] = Json::array({"example.com/keep"});
  InProcessClient client(*server, alice);
  EXPECT_TRUE(client.update(kEscalationRoles, wide).has_value());
}

TEST_F(RbacEscalationTest, BindingARoleTheUserHoldsIsAllowed) {
  InProcessClient client(*server, alice);
  EXPECT_TRUE(
      client
          .create(kEscalationRoleBindings, bindingObject("RoleBinding", "bob-reads", "team",
                                                         "ClusterRole", "pod-reader", "bob"))
          .has_value());
}

TEST_F(RbacEscalationTest, BindingARoleWithRulesTheUserDoesNotHoldIsForbidden) {
  InProcessClient client(*server, alice);
  EXPECT_TRUE(failsWith(
      client.create(kEscalationRoleBindings, bindingObject("RoleBinding", "bob-secrets", "team",
                                                           "ClusterRole", "secret-reader", "bob")),
      403, "Forbidden",
      "rolebindings.rbac.authorization.k8s.io \"bob-secrets\" is forbidden: user \"alice\" "
      "(groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently "
      "held:\n{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\"]}"));
  EXPECT_TRUE(isNotFound(server->get(kEscalationRoleBindings, "team", "bob-secrets")));
}

// BindingAuthorized: `bind` on the ClusterRole by name, in the binding's namespace.
TEST_F(RbacEscalationTest, BindVerbOnTheRoleAllowsBindingIt) {
  create(kEscalationRoles,
         roleObject("Role", "binder", "team",
                    Json::array({rbacRule({"bind"}, {"rbac.authorization.k8s.io"}, {"clusterroles"},
                                          {"secret-reader"})})));
  create(kEscalationRoleBindings,
         bindingObject("RoleBinding", "alice-binds", "team", "Role", "binder", "alice"));
  InProcessClient client(*server, alice);
  EXPECT_TRUE(
      client
          .create(kEscalationRoleBindings, bindingObject("RoleBinding", "bob-secrets", "team",
                                                         "ClusterRole", "secret-reader", "bob"))
          .has_value());
}

TEST_F(RbacEscalationTest, BindingAMissingRoleIsNotFound) {
  InProcessClient client(*server, alice);
  EXPECT_TRUE(failsWith(
      client.create(kEscalationRoleBindings,
                    bindingObject("RoleBinding", "dangling", "team", "ClusterRole", "nope", "bob")),
      404, "NotFound", "clusterrole.rbac.authorization.k8s.io \"nope\" not found"));
}

// A ClusterRoleBinding is checked against the user's cluster-wide rules only.
TEST_F(RbacEscalationTest, ClusterRoleBindingNeedsTheRulesClusterWide) {
  UserInfo carol = authenticatedUser("carol");
  create(kEscalationClusterRoles,
         roleObject("ClusterRole", "crb-writer", "",
                    Json::array({rbacRule({"create"}, {"rbac.authorization.k8s.io"},
                                          {"clusterrolebindings", "clusterroles"})})));
  create(kEscalationClusterRoleBindings, bindingObject("ClusterRoleBinding", "carol-writes", "",
                                                       "ClusterRole", "crb-writer", "carol"));
  create(kEscalationRoleBindings,
         bindingObject("RoleBinding", "carol-reads", "team", "ClusterRole", "pod-reader", "carol"));
  InProcessClient client(*server, carol);
  EXPECT_TRUE(failsWith(
      client.create(kEscalationClusterRoleBindings,
                    bindingObject("ClusterRoleBinding", "dave-reads", "", "ClusterRole",
                                  "pod-reader", "dave")),
      403, "Forbidden",
      "clusterrolebindings.rbac.authorization.k8s.io \"dave-reads\" is forbidden: user \"carol\" "
      "(groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently "
      "held:\n{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"get\" \"list\"]}"));
  // An aggregationRule takes every permission.
  Json aggregated = roleObject("ClusterRole", "gatherer", "", Json::array());
  aggregated["aggregationRule"] = {
      {"clusterRoleSelectors", Json::array({{{"matchLabels", {{"x", "y"}}}}})}};
  EXPECT_TRUE(failsWith(client.create(kEscalationClusterRoles, aggregated), 403, "Forbidden",
                        "clusterroles.rbac.authorization.k8s.io \"gatherer\" is forbidden: must "
                        "have cluster-admin privileges to use the aggregationRule"));
}

TEST_F(RbacEscalationTest, SystemMastersIsNotChecked) {
  InProcessClient client(*server, authenticatedUser("root", {"system:masters"}));
  EXPECT_TRUE(client
                  .create(kEscalationClusterRoleBindings,
                          bindingObject("ClusterRoleBinding", "anyone-admin", "", "ClusterRole",
                                        "cluster-admin", "anyone"))
                  .has_value());
}

}  // namespace
}  // namespace fakekube::apitest
