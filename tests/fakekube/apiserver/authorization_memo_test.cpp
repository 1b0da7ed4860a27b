// The API server remembers RBAC's answers per thread (authorization_memo.h). A remembered answer
// must never outlive what it was computed from: every write of a role or binding forgets it, a
// different user at the same address does not get it, a second server in the same thread does
// not get the first one's, and a request's own key is not confused with an AuthorizationAttributes
// of the same strings. Each test asks the same question twice in one thread around a change, so a
// stale answer would show.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "fakekube/auth/authorizer.h"
#include "fakekube/auth/user_info.h"
#include "fakekube/client/in_process_client.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

const GroupVersionResource kMemoRoles{"rbac.authorization.k8s.io", "v1", "roles"};
const GroupVersionResource kMemoRoleBindings{"rbac.authorization.k8s.io", "v1", "rolebindings"};

Json memoRole(const std::string& name, const Json& rules) {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "Role"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"rules", rules}};
}

Json memoRoleBinding(const std::string& name, const std::string& role, const std::string& user) {
  return {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "RoleBinding"},
      {"metadata", {{"name", name}, {"namespace", "default"}}},
      {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", role}}},
      {"subjects",
       Json::array(
           {{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "User"}, {"name", user}}})}};
}

Json configMapRules(const Json& verbs) {
  return Json::array({{{"apiGroups", {""}}, {"resources", {"configmaps"}}, {"verbs", verbs}}});
}

AuthorizationAttributes getConfigMap(const UserInfo& user, const std::string& name) {
  AuthorizationAttributes attributes;
  attributes.user = &user;
  attributes.verb = "get";
  attributes.apiVersion = "v1";
  attributes.resource = "configmaps";
  attributes.ns = "default";
  attributes.name = name;
  return attributes;
}

// Whether the request was refused with kube-apiserver's 403 (the message is pinned elsewhere).
template <class T>
::testing::AssertionResult refused(const Result<T>& result) {
  return failsWithMessageStarting(result, 403, "Forbidden", "configmaps");
}

class AuthorizationMemoTest : public ApiServerTest {
 protected:
  UserInfo alice = authenticatedUser("alice");
};

TEST_F(AuthorizationMemoTest, AnAnswerIsForgottenWhenARoleOrBindingChanges) {
  create(kConfigMaps, configMap("settings"));
  InProcessClient client(*server, alice);
  const AuthorizationAttributes question = getConfigMap(alice, "settings");
  EXPECT_TRUE(refused(client.get(kConfigMaps, "default", "settings")));
  EXPECT_FALSE(server->authorize(question).allowed());

  // A binding to a Role not yet written: still refused, and now the refusal says why.
  create(kMemoRoleBindings, memoRoleBinding("alice-reads", "reader", "alice"));
  EXPECT_EQ(server->authorize(question).reason,
            R"(RBAC: role.rbac.authorization.k8s.io "reader" not found)");
  EXPECT_TRUE(refused(client.get(kConfigMaps, "default", "settings")));

  create(kMemoRoles, memoRole("reader", configMapRules({"get"})));
  EXPECT_TRUE(server->authorize(question).allowed());
  EXPECT_TRUE(client.get(kConfigMaps, "default", "settings").has_value());

  // The Role loses the verb: the remembered Allow goes with it.
  Json role = get(kMemoRoles, "default", "reader");
  role["rules"] = configMapRules({"list"});
  update(kMemoRoles, role);
  EXPECT_FALSE(server->authorize(question).allowed());
  EXPECT_TRUE(refused(client.get(kConfigMaps, "default", "settings")));

  role = get(kMemoRoles, "default", "reader");
  role["rules"] = configMapRules({"get"});
  update(kMemoRoles, role);
  EXPECT_TRUE(client.get(kConfigMaps, "default", "settings").has_value());
  remove(kMemoRoleBindings, "default", "alice-reads");
  EXPECT_TRUE(refused(client.get(kConfigMaps, "default", "settings")));
  EXPECT_FALSE(server->authorize(question).allowed());
}

// An answer no rule with resourceNames took part in holds for every name and is found for names
// never asked about; one that a rule naming objects took part in holds for its name only.
TEST_F(AuthorizationMemoTest, AnAnswerHoldsForEveryNameOnlyWhenNoRuleNamesObjects) {
  create(kMemoRoles, memoRole("reader", configMapRules({"get"})));
  create(kMemoRoleBindings, memoRoleBinding("alice-reads", "reader", "alice"));
  EXPECT_TRUE(server->authorize(getConfigMap(alice, "first")).allowed());
  EXPECT_TRUE(server->authorize(getConfigMap(alice, "second")).allowed());

  UserInfo bob = authenticatedUser("bob");
  create(kMemoRoles, memoRole("settings-only", Json::array({{{"apiGroups", {""}},
                                                             {"resources", {"configmaps"}},
                                                             {"resourceNames", {"settings"}},
                                                             {"verbs", {"get"}}}})));
  create(kMemoRoleBindings, memoRoleBinding("bob-settings", "settings-only", "bob"));
  EXPECT_TRUE(server->authorize(getConfigMap(bob, "settings")).allowed());
  EXPECT_FALSE(server->authorize(getConfigMap(bob, "secrets")).allowed());
  EXPECT_TRUE(server->authorize(getConfigMap(bob, "settings")).allowed());
  InProcessClient client(*server, bob);
  EXPECT_TRUE(refused(client.get(kConfigMaps, "default", "secrets")));
  EXPECT_TRUE(isNotFound(client.get(kConfigMaps, "default", "settings")));
  EXPECT_TRUE(refused(client.get(kConfigMaps, "default", "secrets")));
}

TEST_F(AuthorizationMemoTest, AnotherUserAtTheSameAddressIsAnsweredForItself) {
  create(kMemoRoles, memoRole("reader", configMapRules({"get"})));
  create(kMemoRoleBindings, memoRoleBinding("alice-reads", "reader", "alice"));
  UserInfo asking = authenticatedUser("alice");
  const AuthorizationAttributes question = getConfigMap(asking, "settings");
  EXPECT_TRUE(server->authorize(question).allowed());
  asking = authenticatedUser("bob");  // the same object, so the same address
  EXPECT_FALSE(server->authorize(question).allowed());
  // A group counts as much as the name: bob in system:masters passes without RBAC, and bob in a
  // bound group is allowed by that group's binding.
  Json groupBinding = memoRoleBinding("readers-read", "reader", "");
  groupBinding["subjects"][0] = {
      {"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Group"}, {"name", "readers"}};
  create(kMemoRoleBindings, groupBinding);
  EXPECT_FALSE(server->authorize(question).allowed());
  asking.groups.push_back("readers");
  EXPECT_TRUE(server->authorize(question).allowed());
}

TEST_F(AuthorizationMemoTest, EachServerAnswersFromItsOwnPolicy) {
  std::unique_ptr<ApiServer> other = openServer();
  create(kMemoRoles, memoRole("reader", configMapRules({"get"})));
  create(kMemoRoleBindings, memoRoleBinding("alice-reads", "reader", "alice"));
  // The other server has as many RBAC writes, none of them for alice.
  ASSERT_TRUE(other->create(kMemoRoles, "default", memoRole("reader", configMapRules({"get"})))
                  .has_value());
  ASSERT_TRUE(
      other->create(kMemoRoleBindings, "default", memoRoleBinding("carol-reads", "reader", "carol"))
          .has_value());
  const AuthorizationAttributes question = getConfigMap(alice, "settings");
  EXPECT_TRUE(server->authorize(question).allowed());
  EXPECT_FALSE(other->authorize(question).allowed());
  EXPECT_TRUE(server->authorize(question).allowed());
}

// RequestInfo makes a namespace its own namespace, so `kubectl get namespace team` is asked in
// the namespace "team", where a RoleBinding may allow it. The same strings as attributes (a get
// of the namespace "team" at the cluster scope) are another question, which no RoleBinding
// answers: a request's own key and an AuthorizationAttributes are remembered apart.
TEST_F(AuthorizationMemoTest, ARequestAndAttributesOfTheSameStringsAreAnsweredApart) {
  create(kNamespaces, namespaceObject("team"));
  Json role = memoRole(
      "see-namespace",
      Json::array({{{"apiGroups", {""}}, {"resources", {"namespaces"}}, {"verbs", {"get"}}}}));
  role["metadata"]["namespace"] = "team";
  create(kMemoRoles, role);
  Json binding = memoRoleBinding("alice-sees", "see-namespace", "alice");
  binding["metadata"]["namespace"] = "team";
  create(kMemoRoleBindings, binding);
  {
    // The same UserInfo asks both questions.
    RequestUserScope asAlice(&alice);
    EXPECT_TRUE(server->get(kNamespaces, "", "team").has_value());
  }
  AuthorizationAttributes atClusterScope = getConfigMap(alice, "team");
  atClusterScope.resource = "namespaces";
  atClusterScope.ns.clear();
  EXPECT_FALSE(server->authorize(atClusterScope).allowed());
  atClusterScope.ns = "team";
  EXPECT_TRUE(server->authorize(atClusterScope).allowed());
}

}  // namespace
}  // namespace fakekube::apitest
