// ApiServer::authenticateToken over the tokens of the serviceaccounts/token subresource: a token
// authenticates as its ServiceAccount until it expires or the ServiceAccount is gone, only on the
// server that issued it, and again after a file-backed server is reopened (the signing key is
// kept in the store).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "fakekube/api/resources.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

Json serviceAccountObject(const std::string& name, const std::string& ns) {
  return {{"apiVersion", "v1"},
          {"kind", "ServiceAccount"},
          {"metadata", {{"name", name}, {"namespace", ns}}}};
}

std::string issueToken(ApiServer& server, const std::string& ns, const std::string& name) {
  Json request = {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}};
  auto answer = server.createSubresource(kServiceAccounts, ns, name, "token", request);
  EXPECT_TRUE(answer) << (answer ? "" : answer.error().str());
  return answer ? (*answer)["status"]["token"].get<std::string>() : std::string();
}

class ServiceAccountTokenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = "/tmp/fakekube-sa-token-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  std::unique_ptr<ApiServer> open(std::uint64_t seed, const std::string& file = "fakekube.db") {
    ApiServerOptions options;
    options.store.path = dir_ + "/" + file;
    options.seed = seed;
    return must(ApiServer::open(ex.clock(), options), "open");
  }

  SimExecutor ex;
  std::string dir_;
};

TEST_F(ServiceAccountTokenTest, TokenAuthenticatesAsItsServiceAccount) {
  auto server = open(1);
  const std::string uid = meta::uid(
      must(server->create(kServiceAccounts, "", serviceAccountObject("runner", "default"))));
  auto user = server->authenticateToken(issueToken(*server, "default", "runner"));
  ASSERT_TRUE(user);
  EXPECT_EQ(user->name, "system:serviceaccount:default:runner");
  EXPECT_EQ(user->uid, uid);
  EXPECT_TRUE(user->inGroup("system:serviceaccounts:default"));
  EXPECT_FALSE(server->authenticateToken("runner"));
}

TEST_F(ServiceAccountTokenTest, TokenAuthenticatesAgainAfterTheServerIsReopened) {
  std::string token;
  {
    auto server = open(1);
    must(server->create(kServiceAccounts, "", serviceAccountObject("runner", "default")));
    token = issueToken(*server, "default", "runner");
    ASSERT_TRUE(server->authenticateToken(token));
  }
  // Another seed: the key is read back from the store, not made again the same way.
  auto reopened = open(2);
  auto user = reopened->authenticateToken(token);
  ASSERT_TRUE(user);
  EXPECT_EQ(user->name, "system:serviceaccount:default:runner");
}

TEST_F(ServiceAccountTokenTest, TokenOfAnotherServerDoesNotAuthenticate) {
  auto first = open(1, "first.db");
  auto second = open(1, "second.db");
  for (auto* server : {first.get(), second.get()}) {
    must(server->create(kServiceAccounts, "", serviceAccountObject("runner", "default")));
  }
  const std::string token = issueToken(*first, "default", "runner");
  issueToken(*second, "default", "runner");
  EXPECT_TRUE(first->authenticateToken(token));
  // The same seed made the same uids, yet the second server's key is its own.
  EXPECT_FALSE(second->authenticateToken(token));
}

TEST_F(ServiceAccountTokenTest, TokenStopsAuthenticatingWhenItExpires) {
  auto server = open(1);
  must(server->create(kServiceAccounts, "", serviceAccountObject("runner", "default")));
  const std::string token = issueToken(*server, "default", "runner");
  ex.advance(std::chrono::minutes(59));
  EXPECT_TRUE(server->authenticateToken(token));
  ex.advance(std::chrono::minutes(1));
  EXPECT_FALSE(server->authenticateToken(token));
}

TEST_F(ServiceAccountTokenTest, SigningKeyIsInvisibleToListsAndWatches) {
  auto server = open(1);
  must(server->create(kServiceAccounts, "", serviceAccountObject("runner", "default")));
  issueToken(*server, "default", "runner");
  EXPECT_EQ(must(server->list(kServiceAccounts, ""))["items"].size(), 1u);
  EXPECT_EQ(must(server->list(GroupVersionResource{"", "v1", "secrets"}, ""))["items"].size(), 0u);
}

}  // namespace
}  // namespace fakekube::apitest
