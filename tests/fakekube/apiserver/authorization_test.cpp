// The API server authorizes every request made as a user (docs/rbac.md): a ServiceAccount
// without bindings is refused everything with kube-apiserver's 403 and nothing is written; a
// RoleBinding to a bootstrap ClusterRole grants what it grants in a cluster, in its namespace
// only; the server's own requests and system:masters pass without looking.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "fakekube/auth/authorizer.h"
#include "fakekube/auth/user_info.h"
#include "fakekube/client/in_process_client.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

const GroupVersionResource kClusterRolesV1{"rbac.authorization.k8s.io", "v1", "clusterroles"};
const GroupVersionResource kClusterRoleBindingsV1{"rbac.authorization.k8s.io", "v1",
                                                  "clusterrolebindings"};
const GroupVersionResource kRoleBindingsV1{"rbac.authorization.k8s.io", "v1", "rolebindings"};
const GroupVersionResource kRolesV1{"rbac.authorization.k8s.io", "v1", "roles"};

Json roleBindingTo(const std::string& ns, const std::string& name, const std::string& roleKind,
                   const std::string& role, const Json& subject) {
  return {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "RoleBinding"},
      {"metadata", {{"name", name}, {"namespace", ns}}},
      {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", roleKind}, {"name", role}}},
      {"subjects", Json::array({subject})}};
}

Json serviceAccountSubject(const std::string& ns, const std::string& name) {
  return {{"kind", "ServiceAccount"}, {"name", name}, {"namespace", ns}};
}

constexpr const char* kOperator = "system:serviceaccount:default:operator";

class AuthorizationTest : public ApiServerTest {
 protected:
  UserInfo operatorUser = serviceAccountUser("default", "operator");
};

TEST_F(AuthorizationTest, ServiceAccountWithoutBindingsIsForbiddenEverythingAndNothingIsWritten) {
  create(kConfigMaps, configMap("existing"));
  std::int64_t revision = server->revision();
  InProcessClient client(*server, operatorUser);

  EXPECT_TRUE(failsWith(
      client.get(kConfigMaps, "default", "existing"), 403, "Forbidden",
      std::string(R"(configmaps "existing" is forbidden: User ")") + kOperator +
          R"(" cannot get resource "configmaps" in API group "" in the namespace "default")"));
  EXPECT_TRUE(failsWith(
      client.list(kConfigMaps, "default"), 403, "Forbidden",
      std::string(R"(configmaps is forbidden: User ")") + kOperator +
          R"(" cannot list resource "configmaps" in API group "" in the namespace "default")"));
  EXPECT_TRUE(failsWith(
      client.create(kConfigMaps, configMap("new")), 403, "Forbidden",
      std::string(R"(configmaps is forbidden: User ")") + kOperator +
          R"(" cannot create resource "configmaps" in API group "" in the namespace "default")"));
  EXPECT_TRUE(failsWith(
      client.watch(kConfigMaps, ""), 403, "Forbidden",
      std::string(R"(configmaps is forbidden: User ")") + kOperator +
          R"(" cannot watch resource "configmaps" in API group "" at the cluster scope)"));
  EXPECT_EQ(server->revision(), revision) << "a refused request writes nothing";
  EXPECT_TRUE(isNotFound(server->get(kConfigMaps, "default", "new")));
  Status status = client.get(kConfigMaps, "default", "existing").error();
  EXPECT_EQ(status.details.name, "existing");
  EXPECT_EQ(status.details.kind, "configmaps");
  EXPECT_EQ(status.details.group, "");
}

TEST_F(AuthorizationTest, RoleBindingToEditAllowsConfigMapsInItsNamespaceOnly) {
  create(kNamespaces, namespaceObject("other"));
  create(kRoleBindingsV1, roleBindingTo("default", "operator-edit", "ClusterRole", "edit",
                                        serviceAccountSubject("default", "operator")));
  InProcessClient client(*server, operatorUser);
  ASSERT_TRUE(client.create(kConfigMaps, configMap("mine")).has_value());
  EXPECT_TRUE(client.get(kConfigMaps, "default", "mine").has_value());
  EXPECT_TRUE(client.list(kConfigMaps, "default").has_value());
  EXPECT_TRUE(failsWith(
      client.create(kConfigMaps, configMap("theirs", "other")), 403, "Forbidden",
      std::string(R"(configmaps is forbidden: User ")") + kOperator +
          R"(" cannot create resource "configmaps" in API group "" in the namespace "other")"));
  EXPECT_TRUE(
      failsWith(client.list(kConfigMaps, ""), 403, "Forbidden",
                std::string(R"(configmaps is forbidden: User ")") + kOperator +
                    R"(" cannot list resource "configmaps" in API group "" at the cluster scope)"));
  // edit does not reach roles and bindings (admin does), nor status subresources.
  EXPECT_TRUE(failsWith(
      client.list(kRoleBindingsV1, "default"), 403, "Forbidden",
      std::string(R"(rolebindings.rbac.authorization.k8s.io is forbidden: User ")") + kOperator +
          R"(" cannot list resource "rolebindings" in API group "rbac.authorization.k8s.io" in the namespace "default")"));
  EXPECT_TRUE(isNotFound(server->get(kConfigMaps, "other", "theirs")));
}

TEST_F(AuthorizationTest, SubresourceRequestsAreAuthorizedAsResourceSlashSubresource) {
  create(kPods, pod("web"));
  Json status = get(kPods, "default", "web");
  RequestUserScope scope(&operatorUser);
  EXPECT_TRUE(failsWith(
      server->updateStatus(kPods, "default", status), 403, "Forbidden",
      std::string(R"(pods "web" is forbidden: User ")") + kOperator +
          R"(" cannot update resource "pods/status" in API group "" in the namespace "default")"));
  Json binding = {{"apiVersion", "v1"},
                  {"kind", "Binding"},
                  {"metadata", {{"name", "web"}}},
                  {"target", {{"kind", "Node"}, {"name", "n1"}}}};
  EXPECT_TRUE(failsWith(
      server->createSubresource(kPods, "default", "web", "binding", binding), 403, "Forbidden",
      std::string(R"(pods "web" is forbidden: User ")") + kOperator +
          R"(" cannot create resource "pods/binding" in API group "" in the namespace "default")"));
}

// RequestInfo makes a namespace its own namespace: /api/v1/namespaces/<name>.
TEST_F(AuthorizationTest, ANamespaceIsAuthorizedInItself) {
  UserInfo user = authenticatedUser("alice");
  RequestUserScope scope(&user);
  EXPECT_TRUE(failsWith(
      server->get(kNamespaces, "", "default"), 403, "Forbidden",
      R"(namespaces "default" is forbidden: User "alice" cannot get resource "namespaces" in API group "" in the namespace "default")"));
  EXPECT_TRUE(failsWith(
      server->list(kNamespaces, ""), 403, "Forbidden",
      R"(namespaces is forbidden: User "alice" cannot list resource "namespaces" in API group "" at the cluster scope)"));
}

TEST_F(AuthorizationTest, SystemMastersAndTheServerItselfAreAlwaysAllowed) {
  UserInfo admin = authenticatedUser("admin", {"system:masters"});
  InProcessClient asAdmin(*server, admin);
  EXPECT_TRUE(asAdmin.create(kConfigMaps, configMap("a")).has_value());
  InProcessClient asServer(*server);
  EXPECT_TRUE(asServer.create(kConfigMaps, configMap("b")).has_value());
  AuthorizationAttributes attributes;
  attributes.user = &admin;
  attributes.verb = "delete";
  attributes.resource = "nodes";
  EXPECT_TRUE(server->authorize(attributes).allowed());
  attributes.user = nullptr;
  EXPECT_TRUE(server->authorize(attributes).allowed());
}

TEST_F(AuthorizationTest, AlwaysAllowModeAllowsEveryUser) {
  ApiServerOptions options;
  options.authorization = AuthorizationMode::AlwaysAllow;
  auto open = ApiServer::open(ex.clock(), options);
  ASSERT_TRUE(open.has_value());
  InProcessClient client(**open, operatorUser);
  EXPECT_TRUE(client.create(kConfigMaps, configMap("c")).has_value());
  AuthorizationAttributes attributes;
  attributes.user = &operatorUser;
  attributes.verb = "delete";
  attributes.resource = "nodes";
  EXPECT_TRUE((*open)->authorize(attributes).allowed());
}

// ApiServer::authorize answers as RBACAuthorizer: the binding that allows, or why not.
TEST_F(AuthorizationTest, AuthorizeNamesTheAllowingBindingAndFollowsWrites) {
  AuthorizationAttributes attributes;
  attributes.user = &operatorUser;
  attributes.verb = "get";
  attributes.resource = "pods";
  attributes.ns = "default";
  auto before = server->authorize(attributes);
  EXPECT_EQ(before.decision, AuthorizationDecision::NoOpinion);
  EXPECT_EQ(before.reason, "");
  create(kRoleBindingsV1, roleBindingTo("default", "view-it", "ClusterRole", "view",
                                        serviceAccountSubject("default", "operator")));
  auto allowed = server->authorize(attributes);
  EXPECT_TRUE(allowed.allowed());
  EXPECT_EQ(
      allowed.reason,
      R"(RBAC: allowed by RoleBinding "view-it/default" of ClusterRole "view" to ServiceAccount "operator/default")");
  remove(kRoleBindingsV1, "default", "view-it");
  EXPECT_FALSE(server->authorize(attributes).allowed());

  // A binding to a missing role: the refusal says so.
  create(kRoleBindingsV1, roleBindingTo("default", "dangling", "Role", "nope",
                                        serviceAccountSubject("default", "operator")));
  InProcessClient client(*server, operatorUser);
  EXPECT_TRUE(failsWith(
      client.get(kPods, "default", "x"), 403, "Forbidden",
      std::string(R"(pods "x" is forbidden: User ")") + kOperator +
          R"(" cannot get resource "pods" in API group "" in the namespace "default": RBAC: role.rbac.authorization.k8s.io "nope" not found)"));
}

// Every user is bound to system:discovery and system:basic-user, as in a cluster.
TEST_F(AuthorizationTest, EveryAuthenticatedUserMayDiscoverAndReviewItself) {
  AuthorizationAttributes discovery;
  discovery.user = &operatorUser;
  discovery.resourceRequest = false;
  discovery.verb = "get";
  discovery.path = "/apis/apps/v1";
  EXPECT_TRUE(server->authorize(discovery).allowed());
  discovery.path = "/metrics";
  EXPECT_FALSE(server->authorize(discovery).allowed());
  AuthorizationAttributes review;
  review.user = &operatorUser;
  review.verb = "create";
  review.apiGroup = "authorization.k8s.io";
  review.resource = "selfsubjectaccessreviews";
  EXPECT_TRUE(server->authorize(review).allowed());
}

// The server is called from many threads: authorizations run while bindings change (TSan).
TEST_F(AuthorizationTest, AuthorizationsRunConcurrentlyWithBindingWrites) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      InProcessClient client(*server, operatorUser);
      for (int i = 0; i < 50; ++i) (void)client.list(kConfigMaps, "default");
    });
  }
  for (int i = 0; i < 20; ++i) {
    std::string name = "b" + std::to_string(i);
    create(kRoleBindingsV1, roleBindingTo("default", name, "ClusterRole", "view",
                                          serviceAccountSubject("default", "operator")));
    remove(kRoleBindingsV1, "default", name);
  }
  for (auto& thread : threads) thread.join();
  InProcessClient client(*server, operatorUser);
  EXPECT_FALSE(client.list(kConfigMaps, "default").has_value());
}

// Records what the interceptors see of each request.
class SeenRequests : public Interceptor {
 public:
  std::optional<Status> before(const Request& request) override {
    seen.push_back(std::string("before ") + verbName(request.verb));
    return std::nullopt;
  }
  void after(const Request& request, std::optional<Status>& error) override {
    seen.push_back(std::string("after ") + verbName(request.verb) + " " +
                   (error ? std::to_string(error->code) : "ok"));
  }
  std::vector<std::string> seen;
};

// Authorization comes first: a refused request never reaches before() (so nothing acts on it),
// and after() sees the 403, as an audit log records one.
TEST_F(AuthorizationTest, InterceptorsSeeARefusalInAfterOnly) {
  auto seen = std::make_shared<SeenRequests>();
  server->addInterceptor(seen);
  InProcessClient client(*server, operatorUser);
  EXPECT_TRUE(isForbidden(client.create(kConfigMaps, configMap("x")).error()));
  EXPECT_EQ(seen->seen, (std::vector<std::string>{"after create 403"}));
  seen->seen.clear();
  InProcessClient asServer(*server);
  EXPECT_TRUE(asServer.create(kConfigMaps, configMap("y")).has_value());
  EXPECT_EQ(seen->seen, (std::vector<std::string>{"before create", "after create ok"}));
}

}  // namespace
}  // namespace fakekube::apitest
