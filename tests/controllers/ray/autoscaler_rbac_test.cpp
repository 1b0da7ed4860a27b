// KubeRay's raycluster_controller_unit_test.go and raycluster_controller_test.go for the
// autoscaler's ServiceAccount, Role and RoleBinding, and the envtest suite's default sidecar, on
// the operator running against the API server on virtual time.
#include "controllers/ray/internal/autoscaler_rbac.h"

#include <gtest/gtest.h>

#include "tests/controllers/ray/ray_fixture.h"

namespace fakekube::ray::testing {
namespace {

class AutoscalerRbacTest : public RayClusterTest {
 protected:
  Json autoscalingCluster(const std::string& name) {
    Json rc = sampleRayCluster(name, 3, 0, 4);
    rc["spec"]["enableInTreeAutoscaling"] = true;
    return rc;
  }
  // The object's single owner reference is the RayCluster's controller reference.
  static void expectOwnedBy(const Json& object, const Json& rayCluster) {
    ASSERT_EQ(object["metadata"]["ownerReferences"].size(), 1u);
    const Json& owner = object["metadata"]["ownerReferences"][0];
    EXPECT_EQ(owner["kind"], "RayCluster");
    EXPECT_EQ(owner["uid"], rayCluster["metadata"]["uid"]);
    EXPECT_EQ(owner["controller"], true);
  }
};

// TestReconcile_AutoscalerServiceAccount, TestReconcile_AutoscalerRoleBinding and the envtest's
// "Check RoleBinding / Role / ServiceAccount": named after the cluster, owned by it, labelled,
// and the head pod runs as that ServiceAccount.
TEST_F(AutoscalerRbacTest, Test_reconcileAutoscalerServiceAccountRoleAndRoleBinding) {
  startOperator();
  EXPECT_FALSE(exists(kServiceAccounts, "default", "raycluster-autoscaler"));
  createCluster(autoscalingCluster("raycluster-autoscaler"));
  run(seconds(1));
  const Json rc = getCluster("raycluster-autoscaler");

  Json account = get(kServiceAccounts, "default", "raycluster-autoscaler");
  ASSERT_FALSE(account.is_null());
  expectOwnedBy(account, rc);
  EXPECT_EQ(account["metadata"]["labels"]["ray.io/cluster"], "raycluster-autoscaler");
  EXPECT_EQ(account["metadata"]["labels"]["app.kubernetes.io/created-by"], "kuberay-operator");

  Json role = get(kRoles, "default", "raycluster-autoscaler");
  ASSERT_FALSE(role.is_null());
  expectOwnedBy(role, rc);
  EXPECT_EQ(role["rules"], buildRole(rc)["rules"]);

  Json binding = get(kRoleBindings, "default", "raycluster-autoscaler");
  ASSERT_FALSE(binding.is_null());
  expectOwnedBy(binding, rc);
  EXPECT_EQ(binding["subjects"][0]["name"], "raycluster-autoscaler");
  EXPECT_EQ(binding["roleRef"]["name"], "raycluster-autoscaler");

  EXPECT_EQ(events("CreatedServiceAccount").size(), 1u);
  EXPECT_EQ(events("CreatedRole").size(), 1u);
  EXPECT_EQ(events("CreatedRoleBinding").size(), 1u);
  auto heads = headPods("raycluster-autoscaler");
  ASSERT_EQ(heads.size(), 1u);
  EXPECT_EQ(heads[0]["spec"]["serviceAccountName"], "raycluster-autoscaler");
  EXPECT_EQ(heads[0]["spec"]["containers"][1]["name"], "autoscaler");
  // "Check the number of worker Pods".
  EXPECT_EQ(workerPods("raycluster-autoscaler").size(), 3u);

  // Later rounds find them and create nothing more.
  run(seconds(301));
  EXPECT_EQ(events("CreatedServiceAccount").size(), 1u);
  EXPECT_EQ(events("CreatedRoleBinding").size(), 1u);
}

// Without enableInTreeAutoscaling none of the three is created.
TEST_F(AutoscalerRbacTest, SkippedWithoutInTreeAutoscaling) {
  startOperatorWithCluster(sampleRayCluster("rc", 1, 0, 4));
  EXPECT_EQ(workerPods("rc").size(), 1u);
  EXPECT_FALSE(exists(kServiceAccounts, "default", "rc"));
  EXPECT_FALSE(exists(kRoles, "default", "rc"));
  EXPECT_FALSE(exists(kRoleBindings, "default", "rc"));
}

// TestReconcile_Autoscaler_ServiceAccountName: a ServiceAccount the user named for the head is
// never created by KubeRay. Missing: the round fails (no head pod) with a Warning; once the user
// creates it, the round goes on (the Role and RoleBinding, bound to that account).
TEST_F(AutoscalerRbacTest, TestReconcile_Autoscaler_ServiceAccountName) {
  startOperator();
  Json spec = autoscalingCluster("rc");
  spec["spec"]["headGroupSpec"]["template"]["spec"]["serviceAccountName"] = "my-sa";
  createCluster(spec);
  run(seconds(1));
  EXPECT_FALSE(exists(kServiceAccounts, "default", "my-sa"));
  EXPECT_FALSE(exists(kServiceAccounts, "default", "rc"));
  EXPECT_TRUE(headPods("rc").empty());
  EXPECT_FALSE(exists(kRoles, "default", "rc"));
  auto warnings = events("AutoscalerServiceAccountNotFound");
  ASSERT_FALSE(warnings.empty());
  EXPECT_EQ(warnings[0]["type"], "Warning");
  EXPECT_EQ(warnings[0]["message"],
            "Failed to reconcile RayCluster default/rc. If users specify ServiceAccountName for "
            "the head Pod, they need to create a ServiceAccount themselves. However, "
            "ServiceAccount my-sa is not found. Please create one. See the PR description of "
            "https://github.com/ray-project/kuberay/pull/1128 for more details.");

  create(kServiceAccounts, {{"apiVersion", "v1"},
                            {"kind", "ServiceAccount"},
                            {"metadata", {{"name", "my-sa"}, {"namespace", "default"}}}});
  run(seconds(5));
  auto heads = headPods("rc");
  ASSERT_EQ(heads.size(), 1u);
  EXPECT_EQ(heads[0]["spec"]["serviceAccountName"], "my-sa");
  Json binding = get(kRoleBindings, "default", "rc");
  ASSERT_FALSE(binding.is_null());
  EXPECT_EQ(binding["subjects"][0]["name"], "my-sa");
  // The user's account stays the user's: no owner reference was added.
  EXPECT_FALSE(get(kServiceAccounts, "default", "my-sa")["metadata"].contains("ownerReferences"));
}

// An object that already exists is left as it is (the user's Role with other rules stays).
TEST_F(AutoscalerRbacTest, ExistingRoleIsKept) {
  startOperator();
  create(kRoles, {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                  {"kind", "Role"},
                  {"metadata", {{"name", "rc"}, {"namespace", "default"}}},
                  {"rules", Json::array({{{"apiGroups", Json::array({""})},
                                          {"resources", Json::array({"pods"})},
                                          {"verbs", Json::array({"get"})}}})}});
  run();
  createCluster(autoscalingCluster("rc"));
  run(seconds(1));
  Json role = get(kRoles, "default", "rc");
  EXPECT_EQ(role["rules"].size(), 1u);
  EXPECT_FALSE(role["metadata"].contains("ownerReferences"));
  EXPECT_TRUE(events("CreatedRole").empty());
  EXPECT_TRUE(exists(kRoleBindings, "default", "rc"));
  EXPECT_EQ(headPods("rc").size(), 1u);
}

// The envtest suite runs the operator with HeadSidecarContainers = [fluentbit]: "Create a head
// Pod resource with default sidecars" (2 containers, the sidecar last); workers get theirs.
TEST_F(AutoscalerRbacTest, CreateAHeadPodResourceWithDefaultSidecars) {
  OperatorOptions options;
  options.headSidecarContainers = {{{"name", "fluentbit"}, {"image", "fluent/fluent-bit:1.9.6"}}};
  options.workerSidecarContainers = {{{"name", "log-shipper"}, {"image", "busybox"}}};
  startOperator(options);
  createCluster(sampleRayCluster("raycluster-sample", 3, 0, 4));
  run(seconds(1));
  auto heads = headPods("raycluster-sample");
  ASSERT_EQ(heads.size(), 1u);
  ASSERT_EQ(heads[0]["spec"]["containers"].size(), 2u);
  EXPECT_EQ(heads[0]["spec"]["containers"][1]["name"], "fluentbit");
  auto workers = workerPods("raycluster-sample");
  ASSERT_EQ(workers.size(), 3u);
  for (const Json& worker : workers) {
    ASSERT_EQ(worker["spec"]["containers"].size(), 2u);
    EXPECT_EQ(worker["spec"]["containers"][1]["name"], "log-shipper");
  }
}

}  // namespace
}  // namespace fakekube::ray::testing
