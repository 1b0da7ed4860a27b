// Authorization over HTTP: every request runs as its authenticated (or impersonated) user and
// the ApiServer authorizes it; the reviews answer through the same authorizer; impersonation is
// checked as kube-apiserver's impersonation filter checks it, with its 403s and 400.
#include <algorithm>

#include "http_fixture.h"

namespace fakekube::httptest {
namespace {

const char* const kBuilder = "system:serviceaccount:default:builder";

class AuthorizationTest : public HttpTest {
 protected:
  void SetUp() override {
    HttpTest::SetUp();
    ASSERT_EQ(post("/api/v1/namespaces/default/serviceaccounts",
                   {{"apiVersion", "v1"},
                    {"kind", "ServiceAccount"},
                    {"metadata", {{"name", "builder"}, {"namespace", "default"}}}})
                  ->status,
              201);
    Json request = {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}};
    token = parse(post("/api/v1/namespaces/default/serviceaccounts/builder/token", request)
                      ->body)["status"]["token"];
  }

  httplib::Headers asBuilder(httplib::Headers headers = {}) {
    headers.emplace("Authorization", "Bearer " + token);
    return headers;
  }
  httplib::Result postWith(const std::string& path, const Json& body,
                           const httplib::Headers& headers) {
    return client->Post(path, headers, body.dump(), "application/json");
  }
  // A SelfSubjectReview (`kubectl auth whoami`) made with `headers`, as the builder or the admin.
  httplib::Result whoAmIResponse(httplib::Headers headers, bool asTheBuilder = true) {
    if (asTheBuilder) headers = asBuilder(std::move(headers));
    return postWith("/apis/authentication.k8s.io/v1/selfsubjectreviews",
                    {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "SelfSubjectReview"}},
                    headers);
  }
  // The user the admin's SelfSubjectReview made with `headers` names.
  Json whoAmI(const httplib::Headers& headers) {
    auto response = whoAmIResponse(headers, false);
    EXPECT_EQ(response->status, 201) << response->body;
    return parse(response->body)["status"]["userInfo"];
  }
  // As the admin: a Role of these rules in "default" (a ClusterRole without `ns`) bound to the
  // builder ServiceAccount.
  void grantBuilder(const std::string& name, const Json& rules, const std::string& ns = "default") {
    const bool cluster = ns.empty();
    const std::string base = "/apis/rbac.authorization.k8s.io/v1/" +
                             (cluster ? std::string() : "namespaces/" + ns + "/");
    Json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                 {"kind", cluster ? "ClusterRole" : "Role"},
                 {"metadata", {{"name", name}}},
                 {"rules", rules}};
    ASSERT_EQ(post(base + (cluster ? "clusterroles" : "roles"), role)->status, 201);
    Json binding = {
        {"apiVersion", "rbac.authorization.k8s.io/v1"},
        {"kind", cluster ? "ClusterRoleBinding" : "RoleBinding"},
        {"metadata", {{"name", name}}},
        {"roleRef",
         {{"apiGroup", "rbac.authorization.k8s.io"},
          {"kind", cluster ? "ClusterRole" : "Role"},
          {"name", name}}},
        {"subjects",
         Json::array(
             {{{"kind", "ServiceAccount"}, {"name", "builder"}, {"namespace", "default"}}})}};
    ASSERT_EQ(post(base + (cluster ? "clusterrolebindings" : "rolebindings"), binding)->status,
              201);
  }

  std::string token;
};

TEST_F(AuthorizationTest, ServiceAccountTokenRequestsAreAuthorizedAsTheServiceAccount) {
  auto refused = get("/api/v1/namespaces/default/pods", asBuilder());
  EXPECT_EQ(refused->status, 403);
  EXPECT_EQ(status(refused)["message"],
            "pods is forbidden: User \"system:serviceaccount:default:builder\" cannot list "
            "resource \"pods\" in API group \"\" in the namespace \"default\"");
  grantBuilder("pod-reader", Json::array({{{"apiGroups", Json::array({""})},
                                           {"resources", Json::array({"pods"})},
                                           {"verbs", Json::array({"get", "list"})}}}));
  EXPECT_EQ(get("/api/v1/namespaces/default/pods", asBuilder())->status, 200);
  // The Role is of "default" only.
  EXPECT_EQ(get("/api/v1/namespaces/kube-system/pods", asBuilder())->status, 403);
  // The admin of the kubeconfig is in system:masters.
  EXPECT_EQ(get("/api/v1/namespaces/kube-system/pods")->status, 200);
}

TEST_F(AuthorizationTest, ImpersonatedUserIsAuthenticatedWithTheGroupsGiven) {
  Json alice = whoAmI({{"Impersonate-User", "alice"}});
  EXPECT_EQ(alice["username"], "alice");
  EXPECT_EQ(alice["groups"], Json::array({"system:authenticated"}));

  Json withGroups = whoAmI({{"Impersonate-User", "alice"},
                            {"Impersonate-Group", "devs"},
                            {"Impersonate-Group", "ops"},
                            {"Impersonate-Uid", "1234"},
                            {"Impersonate-Extra-Scopes", "view"},
                            {"Impersonate-Extra-Scopes", "edit"}});
  EXPECT_EQ(withGroups["groups"], Json::array({"devs", "ops", "system:authenticated"}));
  EXPECT_EQ(withGroups["uid"], "1234");
  EXPECT_EQ(withGroups["extra"]["scopes"], Json::array({"view", "edit"}));

  Json account = whoAmI({{"Impersonate-User", "system:serviceaccount:ray-system:operator"}});
  EXPECT_EQ(account["username"], "system:serviceaccount:ray-system:operator");
  EXPECT_EQ(account["groups"],
            Json::array({"system:serviceaccounts", "system:serviceaccounts:ray-system",
                         "system:authenticated"}));
  // system:anonymous is in system:unauthenticated, which system:basic-user does not bind: not
  // even the self reviews are allowed it.
  auto anonymous = whoAmIResponse({{"Impersonate-User", "system:anonymous"}}, false);
  EXPECT_EQ(anonymous->status, 403);
  EXPECT_EQ(status(anonymous)["message"],
            "selfsubjectreviews.authentication.k8s.io is forbidden: User \"system:anonymous\" "
            "cannot create resource \"selfsubjectreviews\" in API group "
            "\"authentication.k8s.io\" at the cluster scope");
}

TEST_F(AuthorizationTest, ImpersonatedUserIsAuthorizedAsItself) {
  auto response = get("/api/v1/namespaces/default/configmaps", {{"Impersonate-User", "alice"}});
  EXPECT_EQ(response->status, 403);
  EXPECT_EQ(status(response)["message"],
            "configmaps is forbidden: User \"alice\" cannot list resource \"configmaps\" in API "
            "group \"\" in the namespace \"default\"");
  EXPECT_EQ(get("/api/v1/namespaces/default/configmaps",
                {{"Impersonate-User", "alice"}, {"Impersonate-Group", "system:masters"}})
                ->status,
            200);
}

TEST_F(AuthorizationTest, ImpersonationIsRefusedWithKubeApiserverMessage) {
  auto user = whoAmIResponse({{"Impersonate-User", "bob"}});
  EXPECT_EQ(user->status, 403);
  EXPECT_EQ(status(user)["message"],
            "users \"bob\" is forbidden: User \"system:serviceaccount:default:builder\" cannot "
            "impersonate resource \"users\" in API group \"\" at the cluster scope");
  auto account = whoAmIResponse({{"Impersonate-User", "system:serviceaccount:team:robot"}});
  EXPECT_EQ(status(account)["message"],
            "serviceaccounts \"robot\" is forbidden: User "
            "\"system:serviceaccount:default:builder\" cannot impersonate resource "
            "\"serviceaccounts\" in API group \"\" in the namespace \"team\"");

  grantBuilder("impersonate-bob",
               Json::array({{{"apiGroups", Json::array({""})},
                             {"resources", Json::array({"users"})},
                             {"resourceNames", Json::array({"bob"})},
                             {"verbs", Json::array({"impersonate"})}}}),
               "");
  EXPECT_EQ(whoAmIResponse({{"Impersonate-User", "bob"}})->status, 201);
  auto group = whoAmIResponse({{"Impersonate-User", "bob"}, {"Impersonate-Group", "admins"}});
  EXPECT_EQ(status(group)["message"],
            "groups \"admins\" is forbidden: User \"system:serviceaccount:default:builder\" "
            "cannot impersonate resource \"groups\" in API group \"\" at the cluster scope");
  auto extra = whoAmIResponse({{"Impersonate-User", "bob"}, {"Impersonate-Extra-Scopes", "x"}});
  EXPECT_EQ(status(extra)["message"],
            "userextras.authentication.k8s.io \"x\" is forbidden: User "
            "\"system:serviceaccount:default:builder\" cannot impersonate resource "
            "\"userextras/scopes\" in API group \"authentication.k8s.io\" at the cluster scope");
}

TEST_F(AuthorizationTest, ImpersonatingGroupsWithoutAUserIsBadRequest) {
  auto response = whoAmIResponse({{"Impersonate-Group", "devs"}}, false);
  EXPECT_EQ(response->status, 400);
  EXPECT_EQ(status(response)["message"],
            "requested [{Group  devs    }] without impersonating a user");
}

TEST_F(AuthorizationTest, SelfSubjectAccessReviewAnswersForTheRequester) {
  Json review = {{"apiVersion", "authorization.k8s.io/v1"},
                 {"kind", "SelfSubjectAccessReview"},
                 {"spec",
                  {{"resourceAttributes",
                    {{"namespace", "default"}, {"verb", "list"}, {"resource", "pods"}}}}}};
  const std::string path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
  Json denied = parse(postWith(path, review, asBuilder())->body);
  EXPECT_EQ(denied["status"]["allowed"], false);
  EXPECT_FALSE(denied["status"].contains("denied"));
  grantBuilder("pod-reader", Json::array({{{"apiGroups", Json::array({""})},
                                           {"resources", Json::array({"pods"})},
                                           {"verbs", Json::array({"list"})}}}));
  Json allowed = parse(postWith(path, review, asBuilder())->body);
  EXPECT_EQ(allowed["status"]["allowed"], true);
  EXPECT_EQ(allowed["status"]["reason"].get<std::string>().rfind("RBAC: allowed by RoleBinding", 0),
            0u)
      << allowed;
  // The admin, in system:masters.
  EXPECT_EQ(parse(post(path, review)->body)["status"]["allowed"], true);
}

TEST_F(AuthorizationTest, SubjectAccessReviewAnswersForTheUserOfItsSpec) {
  Json review = {{"apiVersion", "authorization.k8s.io/v1"},
                 {"kind", "SubjectAccessReview"},
                 {"spec",
                  {{"user", kBuilder},
                   {"groups", Json::array({"system:serviceaccounts"})},
                   {"resourceAttributes",
                    {{"namespace", "default"}, {"verb", "get"}, {"resource", "pods"}}}}}};
  const std::string path = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
  EXPECT_EQ(parse(post(path, review)->body)["status"]["allowed"], false);
  review["spec"]["groups"] = Json::array({"system:masters"});
  EXPECT_EQ(parse(post(path, review)->body)["status"]["allowed"], true);
  // A SubjectAccessReview is itself authorized: the builder may not create one.
  auto refused = postWith(path, review, asBuilder());
  EXPECT_EQ(refused->status, 403);
}

TEST_F(AuthorizationTest, SelfSubjectRulesReviewListsTheRulesBoundToTheRequester) {
  grantBuilder("pod-reader", Json::array({{{"apiGroups", Json::array({""})},
                                           {"resources", Json::array({"pods"})},
                                           {"verbs", Json::array({"get", "list"})}}}));
  Json review = {{"apiVersion", "authorization.k8s.io/v1"},
                 {"kind", "SelfSubjectRulesReview"},
                 {"spec", {{"namespace", "default"}}}};
  const std::string path = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";
  auto response = postWith(path, review, asBuilder());
  ASSERT_EQ(response->status, 201) << response->body;
  const Json rules = parse(response->body)["status"]["resourceRules"];
  const Json podReader = {{"verbs", Json::array({"get", "list"})},
                          {"apiGroups", Json::array({""})},
                          {"resources", Json::array({"pods"})}};
  EXPECT_NE(std::find(rules.begin(), rules.end(), podReader), rules.end()) << rules;
  for (const auto& rule : rules) EXPECT_NE(rule["resources"], Json::array({"*"})) << rule;
  // The Role is of "default": another namespace lists none of it.
  review["spec"]["namespace"] = "kube-system";
  const Json elsewhere =
      parse(postWith(path, review, asBuilder())->body)["status"]["resourceRules"];
  EXPECT_EQ(std::find(elsewhere.begin(), elsewhere.end(), podReader), elsewhere.end());
}

class AlwaysAllowTest : public HttpTest {
 protected:
  void SetUp() override {
    ApiServerOptions options;
    options.authorization = AuthorizationMode::AlwaysAllow;
    auto opened = ApiServer::open(clock, options);
    ASSERT_TRUE(opened);
    api = std::move(*opened);
    HttpTest::SetUp();
  }
};

TEST_F(AlwaysAllowTest, EveryUserMayDoEverythingAndImpersonateAnyone) {
  EXPECT_EQ(
      get("/api/v1/namespaces/kube-system/configmaps", {{"Impersonate-User", "alice"}})->status,
      200);
  Json review = {{"apiVersion", "authorization.k8s.io/v1"},
                 {"kind", "SelfSubjectRulesReview"},
                 {"spec", {{"namespace", "default"}}}};
  auto response = client->Post("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                               {{"Impersonate-User", "alice"}}, review.dump(), "application/json");
  ASSERT_EQ(response->status, 201) << response->body;
  EXPECT_EQ(parse(response->body)["status"]["resourceRules"],
            Json::array({{{"verbs", Json::array({"*"})},
                          {"apiGroups", Json::array({"*"})},
                          {"resources", Json::array({"*"})}}}));
}

}  // namespace
}  // namespace fakekube::httptest
