// The roles and bindings an API server writes when it opens, as kube-apiserver's bootstrap
// policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy) and the ClusterRole aggregation leave
// them in a cluster.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "fakekube/auth/rbac_rules.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

const GroupVersionResource kBootstrapClusterRoles{"rbac.authorization.k8s.io", "v1",
                                                  "clusterroles"};
const GroupVersionResource kBootstrapClusterRoleBindings{"rbac.authorization.k8s.io", "v1",
                                                         "clusterrolebindings"};

class BootstrapPolicyTest : public ApiServerTest {};

TEST_F(BootstrapPolicyTest, ClusterAdminIsBoundToSystemMasters) {
  Json role = get(kBootstrapClusterRoles, "", "cluster-admin");
  EXPECT_EQ(role["rules"], Json::parse(R"([{"apiGroups":["*"],"resources":["*"],"verbs":["*"]},
                                            {"nonResourceURLs":["*"],"verbs":["*"]}])"));
  EXPECT_EQ(role["metadata"]["labels"]["kubernetes.io/bootstrapping"], "rbac-defaults");
  EXPECT_EQ(role["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"], "true");
  Json binding = get(kBootstrapClusterRoleBindings, "", "cluster-admin");
  EXPECT_EQ(binding["roleRef"], Json::parse(R"({"apiGroup":"rbac.authorization.k8s.io",
                                                "kind":"ClusterRole","name":"cluster-admin"})"));
  EXPECT_EQ(binding["subjects"], Json::parse(R"([{"apiGroup":"rbac.authorization.k8s.io",
                                                  "kind":"Group","name":"system:masters"}])"));
}

TEST_F(BootstrapPolicyTest, TheUserFacingRolesAndTheDiscoveryBindingsExist) {
  std::set<std::string> roles;
  Json clusterRoles = list(kBootstrapClusterRoles, "");
  for (const Json& item : clusterRoles["items"]) roles.insert(meta::name(item));
  for (const char* name : {"cluster-admin", "admin", "edit", "view", "system:aggregate-to-admin",
                           "system:aggregate-to-edit", "system:aggregate-to-view",
                           "system:basic-user", "system:discovery", "system:public-info-viewer"}) {
    EXPECT_TRUE(roles.count(name)) << name;
  }
  std::set<std::string> bindings;
  Json clusterRoleBindings = list(kBootstrapClusterRoleBindings, "");
  for (const Json& item : clusterRoleBindings["items"]) bindings.insert(meta::name(item));
  EXPECT_EQ(bindings, (std::set<std::string>{"cluster-admin", "system:basic-user",
                                             "system:discovery", "system:public-info-viewer"}));
}

// The aggregated roles hold what their selectors gather: view's rules are in edit, edit's in
// admin, each role's own aggregate-to-<role> rules too; edit does not have admin's rules.
TEST_F(BootstrapPolicyTest, AdminEditAndViewHoldTheRulesTheyAggregate) {
  Json admin = get(kBootstrapClusterRoles, "", "admin");
  Json edit = get(kBootstrapClusterRoles, "", "edit");
  Json view = get(kBootstrapClusterRoles, "", "view");
  EXPECT_EQ(admin["aggregationRule"], Json::parse(R"({"clusterRoleSelectors":[{"matchLabels":
      {"rbac.authorization.k8s.io/aggregate-to-admin":"true"}}]})"));
  EXPECT_EQ(edit["metadata"]["labels"]["rbac.authorization.k8s.io/aggregate-to-admin"], "true");
  EXPECT_EQ(view["metadata"]["labels"]["rbac.authorization.k8s.io/aggregate-to-edit"], "true");
  EXPECT_EQ(view["rules"], get(kBootstrapClusterRoles, "", "system:aggregate-to-view")["rules"]);
  EXPECT_TRUE(rulesCover(edit["rules"], view["rules"]));
  EXPECT_TRUE(rulesCover(admin["rules"], edit["rules"]));
  Json adminOnly = get(kBootstrapClusterRoles, "", "system:aggregate-to-admin")["rules"];
  EXPECT_TRUE(rulesCover(admin["rules"], adminOnly));
  EXPECT_FALSE(rulesCover(edit["rules"], adminOnly));
  AuthorizationAttributes createConfigMap;
  createConfigMap.verb = "create";
  createConfigMap.resource = "configmaps";
  EXPECT_TRUE(rulesAllow(edit["rules"], createConfigMap));
  EXPECT_FALSE(rulesAllow(view["rules"], createConfigMap));
}

}  // namespace
}  // namespace fakekube::apitest
