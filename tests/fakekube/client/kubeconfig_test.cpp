#include "fakekube/client/kubeconfig.h"

#include <gtest/gtest.h>

#include "fakekube/api/internal/base64.h"

namespace fakekube {
namespace {

constexpr const char* kTwoContexts = R"yaml(
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: http://127.0.0.1:8080/
- name: remote
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==
    insecure-skip-tls-verify: true
users:
- name: dev
  user:
    token: secret-token
- name: admin
  user:
    username: admin
    password: hunter2
- name: cloud
  user:
    exec:
      command: get-token
contexts:
- name: local
  context: {cluster: local, user: dev, namespace: team-a}
- name: remote
  context: {cluster: remote, user: admin}
- name: plugin
  context: {cluster: remote, user: cloud}
current-context: local
)yaml";

TEST(KubeconfigTest, CurrentContextGivesServerTokenAndNamespace) {
  auto config = parseKubeconfig(kTwoContexts);
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->server, "http://127.0.0.1:8080");  // the trailing slash is dropped
  EXPECT_EQ(config->token, "secret-token");
  EXPECT_EQ(config->namespace_, "team-a");
  EXPECT_TRUE(config->certificateAuthority.empty());
}

TEST(KubeconfigTest, NamedContextGivesTlsAndBasicAuth) {
  auto config = parseKubeconfig(kTwoContexts, "remote");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->server, "https://10.0.0.1:6443");
  EXPECT_EQ(config->certificateAuthority, "-----BEGIN CERTIFICATE-----\n");
  EXPECT_TRUE(config->insecureSkipTlsVerify);
  EXPECT_EQ(config->username, "admin");
  EXPECT_EQ(config->password, "hunter2");
  EXPECT_EQ(config->namespace_, "default");  // the context names none
}

TEST(KubeconfigTest, PluginUsersAreRefusedByName) {
  auto config = parseKubeconfig(kTwoContexts, "plugin");
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, 400);
  EXPECT_EQ(config.error().message,
            "kubeconfig: user \"cloud\" needs an exec or auth-provider plugin, which fakekube does "
            "not run");
}

TEST(KubeconfigTest, BadInputGivesOneClearError) {
  EXPECT_EQ(parseKubeconfig(kTwoContexts, "nope").error().message,
            "kubeconfig: context \"nope\" not found");
  EXPECT_EQ(parseKubeconfig("[1, 2]").error().message,
            "kubeconfig: not a kubeconfig (expected a mapping)");
  EXPECT_EQ(parseKubeconfig("a: [").error().code, 400);
  EXPECT_EQ(parseKubeconfig("clusters: []").error().message,
            "kubeconfig: no context given and no current-context");
  auto missing = loadKubeconfig("/nonexistent/kubeconfig");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message, "kubeconfig: cannot read /nonexistent/kubeconfig");
}

TEST(KubeconfigTest, RenderedConfigReadsBack) {
  auto withToken = parseKubeconfig(renderKubeconfig("http://127.0.0.1:36443", "t0ken"));
  ASSERT_TRUE(withToken.has_value()) << withToken.error().message;
  EXPECT_EQ(withToken->server, "http://127.0.0.1:36443");
  EXPECT_EQ(withToken->token, "t0ken");
  EXPECT_EQ(withToken->namespace_, "default");

  auto withCa = parseKubeconfig(
      renderKubeconfig("https://127.0.0.1:36443", "t0ken", "-----BEGIN CERTIFICATE-----\nAA\n"));
  ASSERT_TRUE(withCa.has_value()) << withCa.error().message;
  EXPECT_EQ(withCa->certificateAuthority, "-----BEGIN CERTIFICATE-----\nAA\n");

  auto anonymous = parseKubeconfig(renderKubeconfig("http://127.0.0.1:1", ""));
  ASSERT_TRUE(anonymous.has_value()) << anonymous.error().message;
  EXPECT_TRUE(anonymous->token.empty());
}

}  // namespace
}  // namespace fakekube
