// Authentication over HTTP, as kube-apiserver's authentication filter: a request without
// credentials is the cluster's admin (the kubeconfig `fakekube serve` writes carries none), a
// ServiceAccount token the server issued (POST serviceaccounts/<name>/token) is that
// ServiceAccount, and anything else is 401 Unauthorized before the request does anything.
#include "fakekube/api/internal/base64.h"
#include "http_fixture.h"

namespace fakekube::httptest {
namespace {

const char* const kWhoAmIPath = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
const char* const kUnauthorizedBody =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
    R"("message":"Unauthorized","reason":"Unauthorized","code":401})";

class AuthenticationTest : public HttpTest {
 protected:
  void SetUp() override {
    HttpTest::SetUp();
    ASSERT_EQ(post("/api/v1/namespaces/default/serviceaccounts", serviceAccount("builder"))->status,
              201);
  }

  static Json serviceAccount(const std::string& name) {
    return {{"apiVersion", "v1"},
            {"kind", "ServiceAccount"},
            {"metadata", {{"name", name}, {"namespace", "default"}}}};
  }

  // A token of default/<name>, as `kubectl create token <name>` asks for one.
  std::string issueToken(const std::string& name, Json spec = Json::object()) {
    Json request = {
        {"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}, {"spec", spec}};
    auto response = post("/api/v1/namespaces/default/serviceaccounts/" + name + "/token", request);
    EXPECT_EQ(response->status, 201) << response->body;
    return parse(response->body)["status"]["token"].get<std::string>();
  }

  // POST a SelfSubjectReview (`kubectl auth whoami`) with these credentials.
  httplib::Result whoAmI(const std::string& authorization) {
    httplib::Headers headers;
    if (!authorization.empty()) headers.emplace("Authorization", authorization);
    Json review = {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "SelfSubjectReview"}};
    return client->Post(kWhoAmIPath, headers, review.dump(), "application/json");
  }
};

TEST_F(AuthenticationTest, ServiceAccountTokenAuthenticatesAsTheServiceAccount) {
  const std::string uid =
      parse(get("/api/v1/namespaces/default/serviceaccounts/builder")->body)["metadata"]["uid"];
  auto response = whoAmI("Bearer " + issueToken("builder"));
  ASSERT_EQ(response->status, 201) << response->body;
  const Json user = parse(response->body)["status"]["userInfo"];
  EXPECT_EQ(user["username"], "system:serviceaccount:default:builder");
  EXPECT_EQ(user["uid"], uid);
  EXPECT_EQ(user["groups"], Json::array({"system:serviceaccounts", "system:serviceaccounts:default",
                                         "system:authenticated"}));
  // ServiceAccountTokenJTI: the token's jti, as the credential id.
  ASSERT_TRUE(user["extra"]["authentication.kubernetes.io/credential-id"].is_array());
  EXPECT_EQ(user["extra"]["authentication.kubernetes.io/credential-id"][0].get<std::string>().rfind(
                "JTI=", 0),
            0u);
}

TEST_F(AuthenticationTest, TokenIsAJwtWithTheKubernetesClaims) {
  const std::string token = issueToken("builder", {{"expirationSeconds", 3600}});
  const auto first = token.find('.');
  const auto last = token.rfind('.');
  ASSERT_NE(first, last);
  std::string payload = token.substr(first + 1, last - first - 1);
  for (auto& c : payload) c = c == '-' ? '+' : c == '_' ? '/' : c;
  while (payload.size() % 4 != 0) payload.push_back('=');
  auto decoded = base64Decode(payload);
  ASSERT_TRUE(decoded);
  const Json claims = parse(*decoded);
  EXPECT_EQ(claims["sub"], "system:serviceaccount:default:builder");
  EXPECT_EQ(claims["kubernetes.io"]["namespace"], "default");
  EXPECT_EQ(claims["kubernetes.io"]["serviceaccount"]["name"], "builder");
  EXPECT_EQ(claims["exp"].get<std::int64_t>() - claims["iat"].get<std::int64_t>(), 3600);
  EXPECT_EQ(claims["aud"], Json::array({"https://kubernetes.default.svc.cluster.local"}));
}

TEST_F(AuthenticationTest, RequestWithoutCredentialsIsTheClusterAdmin) {
  auto response = whoAmI("");
  ASSERT_EQ(response->status, 201);
  const Json user = parse(response->body)["status"]["userInfo"];
  EXPECT_EQ(user["username"], "kubernetes-admin");
  EXPECT_EQ(user["groups"], Json::array({"system:masters", "system:authenticated"}));
}

TEST_F(AuthenticationTest, InvalidBearerTokenIsUnauthorized) {
  const std::string token = issueToken("builder");
  for (const std::string& authorization :
       {std::string("Bearer not-a-token"), "Bearer " + token.substr(0, token.size() - 2) + "AA",
        std::string("Bearer "), std::string("Basic YWRtaW46YWRtaW4=")}) {
    auto response = whoAmI(authorization);
    EXPECT_EQ(response->status, 401) << authorization;
    EXPECT_EQ(parse(response->body), parse(kUnauthorizedBody)) << authorization;
  }
  // The scheme is read in any case, as the bearertoken authenticator reads it.
  EXPECT_EQ(whoAmI("bearer " + token)->status, 201);
}

TEST_F(AuthenticationTest, ExpiredTokenIsUnauthorized) {
  const std::string token = issueToken("builder", {{"expirationSeconds", 600}});
  clock.advance(std::chrono::seconds(599));
  EXPECT_EQ(whoAmI("Bearer " + token)->status, 201);
  clock.advance(std::chrono::seconds(1));
  auto response = whoAmI("Bearer " + token);
  EXPECT_EQ(response->status, 401);
  EXPECT_EQ(parse(response->body), parse(kUnauthorizedBody));
}

TEST_F(AuthenticationTest, TokenOfDeletedServiceAccountIsUnauthorized) {
  const std::string token = issueToken("builder");
  ASSERT_EQ(client->Delete("/api/v1/namespaces/default/serviceaccounts/builder")->status, 200);
  EXPECT_EQ(whoAmI("Bearer " + token)->status, 401);
  // A ServiceAccount made again under the name has another uid: the old token stays refused.
  ASSERT_EQ(post("/api/v1/namespaces/default/serviceaccounts", serviceAccount("builder"))->status,
            201);
  EXPECT_EQ(whoAmI("Bearer " + token)->status, 401);
  EXPECT_EQ(whoAmI("Bearer " + issueToken("builder"))->status, 201);
}

TEST_F(AuthenticationTest, ServerTokenIsTheAdminAndRequestsWithoutCredentialsAreRefused) {
  const std::string serviceAccountToken = issueToken("builder");
  http->stop();
  startServer(HttpServerOptions{.bearerToken = "s3cret"});
  EXPECT_EQ(whoAmI("")->status, 401);
  EXPECT_EQ(whoAmI("Bearer wrong")->status, 401);
  auto admin = whoAmI("Bearer s3cret");
  ASSERT_EQ(admin->status, 201);
  EXPECT_EQ(parse(admin->body)["status"]["userInfo"]["username"], "kubernetes-admin");
  auto account = whoAmI("Bearer " + serviceAccountToken);
  ASSERT_EQ(account->status, 201);
  EXPECT_EQ(parse(account->body)["status"]["userInfo"]["username"],
            "system:serviceaccount:default:builder");
}

TEST_F(AuthenticationTest, TokenRequestIsValidatedAsKubeApiserverValidatesIt) {
  auto path = "/api/v1/namespaces/default/serviceaccounts/builder/token";
  Json request = {{"apiVersion", "authentication.k8s.io/v1"},
                  {"kind", "TokenRequest"},
                  {"spec", {{"expirationSeconds", 599}}}};
  auto tooShort = post(path, request);
  EXPECT_EQ(tooShort->status, 422);
  EXPECT_EQ(status(tooShort)["message"],
            "TokenRequest.authentication.k8s.io \"\" is invalid: spec.expirationSeconds: Invalid "
            "value: 599: may not specify a duration less than 10 minutes");
  request["spec"]["expirationSeconds"] = 4294967297LL;
  EXPECT_EQ(status(post(path, request))["message"],
            "TokenRequest.authentication.k8s.io \"\" is invalid: spec.expirationSeconds: Invalid "
            "value: 4294967297: may not specify a duration larger than 2^32 seconds");
  request["spec"] = Json::object();
  request["metadata"] = {{"name", "other"}};
  EXPECT_EQ(status(post(path, request))["message"],
            "TokenRequest.authentication.k8s.io \"builder\" is invalid: metadata.name: Invalid "
            "value: \"other\": must match the service account name if specified");
  auto missing = post("/api/v1/namespaces/default/serviceaccounts/nobody/token",
                      {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}});
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(status(missing)["message"], "serviceaccounts \"nobody\" not found");
  // The default lifetime is an hour.
  auto issued = parse(
      post(path, {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}})->body);
  EXPECT_EQ(issued["spec"]["expirationSeconds"], 3600);
  EXPECT_EQ(issued["status"]["expirationTimestamp"], "2024-01-01T01:00:00Z");
}

}  // namespace
}  // namespace fakekube::httptest
