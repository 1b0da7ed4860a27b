// The ClusterRole aggregation controller (kube-controller-manager's clusterroleaggregation): an
// aggregated ClusterRole gathers the rules of the roles its selectors select, and follows them
// as they are labelled, changed and removed.
#include "fakekube/cluster/clusterrole_aggregation_controller.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster_fixture.h"
#include "fakekube/auth/rbac_rules.h"
#include "fakekube/cluster/cluster.h"

namespace fakekube::clustertest {
namespace {

const GroupVersionResource kAggregationClusterRoles{"rbac.authorization.k8s.io", "v1",
                                                    "clusterroles"};

Json widgetRole(const std::string& name, const std::string& aggregateTo,
                const std::vector<std::string>& verbs) {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "ClusterRole"},
          {"metadata",
           {{"name", name},
            {"labels", {{"rbac.authorization.k8s.io/aggregate-to-" + aggregateTo, "true"}}}}},
          {"rules",
           Json::array(
               {{{"apiGroups", {"example.com"}}, {"resources", {"widgets"}}, {"verbs", verbs}}})}};
}

AuthorizationAttributes widgetRequest(const std::string& verb) {
  AuthorizationAttributes attributes;
  attributes.verb = verb;
  attributes.apiGroup = "example.com";
  attributes.resource = "widgets";
  return attributes;
}

class ClusterRoleAggregationTest : public ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    must(addClusterRoleAggregationController(*manager), "addClusterRoleAggregationController");
  }
  Json rulesOf(const std::string& role) { return get(kAggregationClusterRoles, "", role)["rules"]; }
};

// A CRD's operator labels a role aggregate-to-view: view gathers it, and through view edit and
// admin do too; a role aggregated to edit reaches edit and admin, not view.
TEST_F(ClusterRoleAggregationTest, LabelledRolesReachTheUserFacingRoles) {
  create(kAggregationClusterRoles, widgetRole("widgets-view", "view", {"get", "list", "watch"}));
  create(kAggregationClusterRoles, widgetRole("widgets-edit", "edit", {"create", "delete"}));
  settle();
  EXPECT_TRUE(rulesAllow(rulesOf("view"), widgetRequest("list")));
  EXPECT_FALSE(rulesAllow(rulesOf("view"), widgetRequest("create")));
  EXPECT_TRUE(rulesAllow(rulesOf("edit"), widgetRequest("list")));
  EXPECT_TRUE(rulesAllow(rulesOf("edit"), widgetRequest("create")));
  EXPECT_TRUE(rulesAllow(rulesOf("admin"), widgetRequest("create")));
  Json view = get(kAggregationClusterRoles, "", "view");
  bool appliedByController = false;
  for (const Json& entry : view["metadata"]["managedFields"]) {
    appliedByController =
        appliedByController ||
        (entry["manager"] == "clusterrole-aggregation-controller" && entry["operation"] == "Apply");
  }
  EXPECT_TRUE(appliedByController) << view.dump();
}

// Rules leave the aggregated role when the role that brought them is deleted.
TEST_F(ClusterRoleAggregationTest, RemovedRolesRulesLeave) {
  create(kAggregationClusterRoles, widgetRole("widgets-view", "view", {"get"}));
  settle();
  ASSERT_TRUE(rulesAllow(rulesOf("admin"), widgetRequest("get")));
  remove(kAggregationClusterRoles, "", "widgets-view");
  settle();
  EXPECT_FALSE(rulesAllow(rulesOf("view"), widgetRequest("get")));
  EXPECT_FALSE(rulesAllow(rulesOf("admin"), widgetRequest("get")));
  EXPECT_EQ(rulesOf("view"),
            get(kAggregationClusterRoles, "", "system:aggregate-to-view")["rules"]);
}

// syncClusterRole: the selected roles in name order, each rule once, the role itself skipped.
TEST_F(ClusterRoleAggregationTest, RulesAreGatheredInNameOrderOnce) {
  Json gatherer = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                   {"kind", "ClusterRole"},
                   {"metadata", {{"name", "gatherer"}, {"labels", {{"team", "a"}}}}},
                   {"aggregationRule",
                    {{"clusterRoleSelectors", Json::array({{{"matchLabels", {{"team", "a"}}}}})}}}};
  create(kAggregationClusterRoles, gatherer);
  Json b = widgetRole("b", "x", {"get"});
  b["metadata"]["labels"] = {{"team", "a"}};
  Json a = widgetRole("a", "x", {"list"});
  a["metadata"]["labels"] = {{"team", "a"}};
  a["rules"].push_back(b["rules"][0]);
  create(kAggregationClusterRoles, b);
  create(kAggregationClusterRoles, a);
  settle();
  EXPECT_EQ(rulesOf("gatherer"),
            Json::parse(R"([{"apiGroups":["example.com"],"resources":["widgets"],"verbs":["list"]},
                            {"apiGroups":["example.com"],"resources":["widgets"],"verbs":["get"]}])"));
}

// A Cluster runs it when named; its default parts leave it out (the server writes the
// bootstrap's aggregated roles filled already).
TEST(ClusterRoleAggregationOnClusterTest, ClusterRunsTheControllerWhenNamed) {
  EXPECT_FALSE(defaultClusterComponents().count("clusterrole-aggregation"));
  SimExecutor ex;
  auto server = must(ApiServer::open(ex.clock()), "open");
  ClusterOptions options;
  options.enabled = must(parseClusterComponents("namespace,clusterrole-aggregation"), "parse");
  Cluster cluster(ex, *server, options);
  ASSERT_TRUE(cluster.start().has_value());
  must(server->create(kAggregationClusterRoles, "", widgetRole("widgets-view", "view", {"get"})),
       "create");
  ex.runFor(std::chrono::seconds(1));
  Json admin = must(server->get(kAggregationClusterRoles, "", "admin"), "get");
  EXPECT_TRUE(rulesAllow(admin["rules"], widgetRequest("get")));
  cluster.stop();
}

}  // namespace
}  // namespace fakekube::clustertest
