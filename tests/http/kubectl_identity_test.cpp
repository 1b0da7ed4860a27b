// Identities with the real kubectl against `fakekube serve`: `kubectl create token` and the token
// used with `kubectl --token`, and `kubectl auth whoami` for the kubeconfig's admin and for a
// ServiceAccount.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {
namespace {

using ::testing::HasSubstr;

// kubectl sends a bearer token only over TLS, and asks for a password when a kubeconfig for an
// HTTPS server holds no credentials: the server serves HTTPS with an admin token, both in the
// kubeconfig, and `kubectl --token` replaces the admin's token with the ServiceAccount's.
class KubectlServiceAccountTokenTest : public KubectlTest {
 protected:
  std::vector<std::string> serveArguments() override { return {"--token", "admin-token"}; }
};

TEST_F(KubectlServiceAccountTokenTest, CreateTokenThenTheTokenIsTheServiceAccount) {
  ok({"create", "serviceaccount", "builder"});
  std::string token = ok({"create", "token", "builder", "--duration=2h"});
  ASSERT_FALSE(token.empty());
  if (token.back() == '\n') token.pop_back();
  const std::string uid =
      ok({"get", "serviceaccount", "builder", "-o", "jsonpath={.metadata.uid}"});
  const Json review = Json::parse(ok({"--token", token, "auth", "whoami", "-o", "json"}));
  EXPECT_EQ(review["kind"], "SelfSubjectReview");
  EXPECT_EQ(review["status"]["userInfo"]["username"], "system:serviceaccount:default:builder");
  EXPECT_EQ(review["status"]["userInfo"]["uid"], uid);
  EXPECT_EQ(review["status"]["userInfo"]["groups"],
            Json::array({"system:serviceaccounts", "system:serviceaccounts:default",
                         "system:authenticated"}));
}

TEST_F(KubectlServiceAccountTokenTest, TokenOfADeletedServiceAccountIsUnauthorized) {
  ok({"create", "serviceaccount", "builder"});
  std::string token = ok({"create", "token", "builder"});
  if (!token.empty() && token.back() == '\n') token.pop_back();
  ok({"delete", "serviceaccount", "builder"});
  ProcessResult r = kubectl({"--token", token, "get", "configmaps"});
  EXPECT_NE(r.exitCode, 0);
  EXPECT_THAT(r.err, HasSubstr("error: You must be logged in to the server (Unauthorized)"));
}

TEST_F(KubectlServiceAccountTokenTest, CreateTokenShorterThanTenMinutesIsInvalid) {
  ok({"create", "serviceaccount", "builder"});
  ProcessResult r = kubectl({"create", "token", "builder", "--duration=5m"});
  EXPECT_NE(r.exitCode, 0);
  EXPECT_THAT(r.err, HasSubstr("spec.expirationSeconds: Invalid value: 300: may not specify a "
                               "duration less than 10 minutes"));
}

class KubectlWhoAmITest : public KubectlTest {};

TEST_F(KubectlWhoAmITest, WhoAmIPrintsTheKubeconfigAdmin) {
  EXPECT_EQ(ok({"auth", "whoami"}),
            "ATTRIBUTE   VALUE\n"
            "Username    kubernetes-admin\n"
            "Groups      [system:masters system:authenticated]\n");
}

}  // namespace
}  // namespace fakekube::e2e
