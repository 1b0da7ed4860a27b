// A file-backed API server reopened after a clean close: every object, the revision, the
// compaction mark and the custom kinds are back, and writes continue the revision.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "fakekube/api/resources.h"
#include "fakekube/auth/authorizer.h"
#include "fakekube/auth/rbac_rules.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

// Whether the authenticated user alice may do `verb` on the resource (or, given a path, the
// non-resource URL).
bool aliceMay(const ApiServer& server, std::string verb, std::string group, std::string resource,
              std::string ns = "", std::string path = "") {
  UserInfo alice = authenticatedUser("alice");
  AuthorizationAttributes attributes;
  attributes.user = &alice;
  attributes.verb = std::move(verb);
  attributes.resourceRequest = path.empty();
  attributes.apiGroup = std::move(group);
  attributes.resource = std::move(resource);
  attributes.ns = std::move(ns);
  attributes.path = std::move(path);
  return server.authorize(attributes).allowed();
}

class RestartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = "/tmp/fakekube-restart-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  std::unique_ptr<ApiServer> open() {
    ApiServerOptions options;
    options.store.path = dir_ + "/fakekube.db";
    options.seed = 7;
    return must(ApiServer::open(ex.clock(), options), "open");
  }

  SimExecutor ex;
  std::string dir_;
};

TEST_F(RestartTest, ReopenedServerHasEveryObjectAndContinuesTheRevision) {
  std::int64_t revision = 0;
  std::string podUid;
  {
    auto server = open();
    must(server->create(kNamespaces, "", namespaceObject("team")));
    must(server->create(kConfigMaps, "", configMap("c1", "team")));
    Json held = configMap("held", "team");
    held["metadata"]["finalizers"] = {"example.com/hold"};
    must(server->create(kConfigMaps, "", held));
    must(server->deleteObject(kConfigMaps, "team", "held"));
    podUid = meta::uid(must(server->create(kPods, "", pod("p1", "team"))));
    must(server->create(kCustomResourceDefinitions, "", widgetCrd()));
    must(server->create(
        GroupVersionResource{"", "v1", "services"}, "",
        {{"metadata", {{"name", "svc"}, {"namespace", "team"}}},
         {"spec", {{"clusterIP", "10.96.0.42"}, {"ports", Json::array({{{"port", 80}}})}}}}));
    must(server->create(kWidgets, "", widget("w1", "team")));
    ASSERT_TRUE(server->compact(server->revision() - 2));
    revision = server->revision();
  }

  auto server = open();
  EXPECT_EQ(server->revision(), revision);
  EXPECT_EQ(server->compactedRevision(), revision - 2);
  EXPECT_EQ(must(server->get(kConfigMaps, "team", "c1"))["data"]["key"], "value");
  EXPECT_EQ(meta::uid(must(server->get(kPods, "team", "p1"))), podUid);
  Json held = must(server->get(kConfigMaps, "team", "held"));
  EXPECT_TRUE(meta::isDeleting(held)) << "a pending deletion survives the restart";
  EXPECT_EQ(must(server->get(kWidgets, "team", "w1"))["spec"]["size"], 1)
      << "custom kinds are served again";
  EXPECT_EQ(must(server->list(kNamespaces, ""))["items"].size(), 5u)
      << "the four system namespaces are not created twice";

  auto sameIp = server->create(GroupVersionResource{"", "v1", "services"}, "",
                               {{"metadata", {{"name", "svc2"}, {"namespace", "team"}}},
                                {"spec", {{"clusterIP", "10.96.0.42"}}}});
  ASSERT_FALSE(sameIp) << "the reopened server knows which cluster IPs are taken";
  EXPECT_EQ(sameIp.error().code, 422);

  Json c2 = must(server->create(kConfigMaps, "", configMap("c2", "team")));
  EXPECT_EQ(rvNumber(c2), revision + 1);

  // The history survives too: a watch resumes across the restart.
  WatchOptions options;
  options.resourceVersion = std::to_string(revision - 1);
  auto watch = must<std::shared_ptr<Watch>>(server->watch(kConfigMaps, "team", options));
  std::vector<std::string> seen;
  while (auto e = watch->tryNext()) seen.push_back(meta::name(*e->object));
  EXPECT_EQ(seen, (std::vector<std::string>{"c2"}));
}

// The RBAC index is rebuilt from the store: a binding written before the restart still grants,
// and the bootstrap roles are not written again.
TEST_F(RestartTest, ReopenedServerAuthorizesWithTheBindingsItStored) {
  const GroupVersionResource roleBindings{"rbac.authorization.k8s.io", "v1", "rolebindings"};
  std::int64_t revision = 0;
  {
    auto server = open();
    must(server->create(
        roleBindings, "",
        {{"metadata", {{"name", "viewer"}, {"namespace", "default"}}},
         {"roleRef",
          {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "view"}}},
         {"subjects", Json::array({{{"apiGroup", "rbac.authorization.k8s.io"},
                                    {"kind", "User"},
                                    {"name", "alice"}}})}}));
    revision = server->revision();
  }
  auto server = open();
  EXPECT_EQ(server->revision(), revision) << "the bootstrap policy is not written twice";
  EXPECT_TRUE(aliceMay(*server, "list", "", "pods", "default"));
  EXPECT_FALSE(aliceMay(*server, "list", "", "pods", "kube-system"));
}

// kube-apiserver reconciles its bootstrap roles and bindings on every start
// (pkg/registry/rbac/reconciliation, as storage_rbac.go's post-start hook runs it): what a
// stored one lacks of the defaults is added back (the missing rules broken down, the missing
// subjects appended), unless it is annotated rbac.authorization.kubernetes.io/autoupdate:
// "false".
TEST_F(RestartTest, BootstrapRolesAreReconciledOnRestartUnlessAutoupdateIsFalse) {
  const GroupVersionResource clusterRoles{"rbac.authorization.k8s.io", "v1", "clusterroles"};
  const GroupVersionResource clusterRoleBindings{"rbac.authorization.k8s.io", "v1",
                                                 "clusterrolebindings"};
  Json basicUserRules;
  {
    auto server = open();
    Json basicUser = must(server->get(clusterRoles, "", "system:basic-user"));
    basicUserRules = basicUser["rules"];
    basicUser["rules"] = Json::array();
    basicUser["metadata"]["labels"].erase("kubernetes.io/bootstrapping");
    must(server->update(clusterRoles, "", basicUser));
    Json discovery = must(server->get(clusterRoles, "", "system:discovery"));
    discovery["rules"] = Json::array();
    discovery["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"] = "false";
    must(server->update(clusterRoles, "", discovery));
    Json binding = must(server->get(clusterRoleBindings, "", "system:basic-user"));
    binding["subjects"] = Json::array();
    must(server->update(clusterRoleBindings, "", binding));
  }
  auto server = open();
  Json basicUser = must(server->get(clusterRoles, "", "system:basic-user"));
  EXPECT_EQ(basicUser["metadata"]["labels"]["kubernetes.io/bootstrapping"], "rbac-defaults");
  EXPECT_TRUE(rulesCover(basicUser["rules"], basicUserRules)) << basicUser["rules"].dump();
  EXPECT_EQ(basicUser["rules"].size(), 3u) << "one verb, group and resource a rule";
  EXPECT_EQ(must(server->get(clusterRoles, "", "system:discovery"))["rules"], Json::array());
  EXPECT_EQ(must(server->get(clusterRoleBindings, "", "system:basic-user"))["subjects"],
            Json::parse(R"([{"apiGroup":"rbac.authorization.k8s.io","kind":"Group",)"
                        R"("name":"system:authenticated"}])"));
  EXPECT_TRUE(aliceMay(*server, "create", "authorization.k8s.io", "selfsubjectaccessreviews"));
  EXPECT_TRUE(aliceMay(*server, "get", "", "", "", "/healthz"));  // system:public-info-viewer's
  EXPECT_FALSE(
      aliceMay(*server, "get", "", "", "", "/apis"));  // only system:discovery's: protected
}

}  // namespace
}  // namespace fakekube::apitest
