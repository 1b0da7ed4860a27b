// RBAC with the real kubectl against `fakekube serve`: `kubectl auth can-i --as` over KubeRay's
// operator roles, kube-apiserver's Forbidden text for a user without rights, a ServiceAccount
// token authorized by the Role bound to its ServiceAccount, impersonation refused, and
// `--authorization-mode`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {
namespace {

using ::testing::HasSubstr;

const char* const kKubeRayOperator = "system:serviceaccount:ray-system:kuberay-operator";

const char* const kKubeRayOperatorIdentity = R"yaml(apiVersion: v1
kind: Namespace
metadata:
  name: ray-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kuberay-operator
  namespace: ray-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kuberay-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: kuberay-operator
subjects:
- kind: ServiceAccount
  name: kuberay-operator
  namespace: ray-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: kuberay-operator-leader-election
  namespace: ray-system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: kuberay-operator-leader-election
subjects:
- kind: ServiceAccount
  name: kuberay-operator
  namespace: ray-system
)yaml";

class KubectlRbacTest : public KubectlTest {
 protected:
  // `kubectl auth can-i ARGS --as USER`: its answer ("yes" or "no"), and its exit code checked
  // against it (0 for yes, 1 for no, as kubectl exits).
  std::string canI(std::vector<std::string> args, const std::string& user) {
    args.insert(args.begin(), {"auth", "can-i"});
    args.insert(args.end(), {"--as", user});
    ProcessResult r = kubectl(args);
    EXPECT_EQ(r.exitCode, r.out == "yes\n" ? 0 : 1) << r.err;
    return r.out;
  }
};

TEST_F(KubectlRbacTest, AuthCanIAnswersForTheKubeRayOperatorAsItsRolesAllow) {
  // KubeRay's config/rbac: its ClusterRole and leader-election Role as upstream ships them, and
  // their bindings to the ServiceAccount, in ray-system as the Helm chart installs it.
  const std::string rbac = std::string(FAKEKUBE_SOURCE_DIR) + "/controllers/ray/config/rbac/";
  ok({"apply", "-f", "-"}, kKubeRayOperatorIdentity);
  ok({"apply", "-n", "ray-system", "-f", rbac + "role.yaml", "-f",
      rbac + "leader_election_role.yaml"});
  // The ClusterRole, bound cluster-wide.
  EXPECT_EQ(canI({"list", "pods"}, kKubeRayOperator), "yes\n");
  EXPECT_EQ(canI({"deletecollection", "pods", "-n", "team"}, kKubeRayOperator), "yes\n");
  EXPECT_EQ(canI({"create", "jobs.batch", "-A"}, kKubeRayOperator), "yes\n");
  EXPECT_EQ(canI({"get", "pods", "--subresource=proxy"}, kKubeRayOperator), "yes\n");
  EXPECT_EQ(canI({"patch", "services", "--subresource=status"}, kKubeRayOperator), "yes\n");
  EXPECT_EQ(canI({"patch", "secrets"}, kKubeRayOperator), "no\n");
  EXPECT_EQ(canI({"delete", "nodes"}, kKubeRayOperator), "no\n");
  EXPECT_EQ(canI({"update", "rolebindings.rbac.authorization.k8s.io"}, kKubeRayOperator), "no\n");
  // The leader-election Role, bound in ray-system only.
  EXPECT_EQ(canI({"create", "configmaps", "-n", "ray-system"}, kKubeRayOperator), "yes\n");
  EXPECT_EQ(canI({"create", "configmaps", "-n", "default"}, kKubeRayOperator), "no\n");
  // Another ServiceAccount of the namespace has none of it.
  EXPECT_EQ(canI({"list", "pods"}, "system:serviceaccount:ray-system:default"), "no\n");
}

TEST_F(KubectlRbacTest, GetPodsAsAUserWithoutRightsIsForbidden) {
  ProcessResult r = kubectl({"get", "pods", "--as", "alice"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.err,
            "Error from server (Forbidden): pods is forbidden: User \"alice\" cannot list resource "
            "\"pods\" in API group \"\" in the namespace \"default\"\n");
  // The same user in a group that is allowed.
  EXPECT_EQ(kubectl({"get", "pods", "--as", "alice", "--as-group", "system:masters"}).exitCode, 0);
}

TEST_F(KubectlRbacTest, WhoAmIShowsTheImpersonatedUser) {
  EXPECT_EQ(ok({"auth", "whoami", "--as", "alice", "--as-group", "devs"}),
            "ATTRIBUTE   VALUE\n"
            "Username    alice\n"
            "Groups      [devs system:authenticated]\n");
}

class KubectlRbacTokenTest : public KubectlRbacTest {
 protected:
  std::vector<std::string> serveArguments() override { return {"--token", "admin-token"}; }

  std::string tokenOf(const std::string& serviceAccount) {
    ok({"create", "serviceaccount", serviceAccount});
    std::string token = ok({"create", "token", serviceAccount});
    if (!token.empty() && token.back() == '\n') token.pop_back();
    return token;
  }
};

TEST_F(KubectlRbacTokenTest, TokenIsAuthorizedByTheRoleBoundToItsServiceAccount) {
  const std::string token = tokenOf("builder");
  ProcessResult refused = kubectl({"--token", token, "get", "pods"});
  EXPECT_EQ(refused.exitCode, 1);
  EXPECT_EQ(refused.err,
            "Error from server (Forbidden): pods is forbidden: User "
            "\"system:serviceaccount:default:builder\" cannot list resource \"pods\" in API group "
            "\"\" in the namespace \"default\"\n");
  ok({"create", "role", "pod-reader", "--verb=get,list,watch", "--resource=pods"});
  ok({"create", "rolebinding", "builder-reads-pods", "--role=pod-reader",
      "--serviceaccount=default:builder"});
  ProcessResult allowed = kubectl({"--token", token, "get", "pods"});
  EXPECT_EQ(allowed.exitCode, 0) << allowed.err;
  EXPECT_EQ(allowed.err, "No resources found in default namespace.\n");
  EXPECT_EQ(ok({"--token", token, "auth", "can-i", "list", "pods"}), "yes\n");
  EXPECT_EQ(kubectl({"--token", token, "auth", "can-i", "delete", "pods"}).out, "no\n");
}

TEST_F(KubectlRbacTokenTest, ImpersonationWithoutRightsIsForbidden) {
  const std::string token = tokenOf("builder");
  // `get --raw`: kubectl's discovery would be refused first, and reports no message.
  ProcessResult r =
      kubectl({"--token", token, "get", "--raw", "/api/v1/namespaces/default/pods", "--as", "bob"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.err,
            "Error from server (Forbidden): users \"bob\" is forbidden: User "
            "\"system:serviceaccount:default:builder\" cannot impersonate resource \"users\" in "
            "API group \"\" at the cluster scope\n");
}

class KubectlAlwaysAllowTest : public KubectlRbacTest {
 protected:
  std::vector<std::string> serveArguments() override {
    return {"--authorization-mode", "AlwaysAllow"};
  }
};

TEST_F(KubectlAlwaysAllowTest, EveryUserMayDoEverything) {
  EXPECT_EQ(kubectl({"get", "pods", "--as", "alice"}).exitCode, 0);
  EXPECT_EQ(canI({"delete", "nodes"}, "alice"), "yes\n");
}

TEST(ServeAuthorizationModeTest, UnknownModeIsAOneLineError) {
  ProcessResult r = runProcess({FAKEKUBE_CLI, "serve", "--authorization-mode", "Webhook"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.err,
            "fakekube serve: --authorization-mode \"Webhook\": expected RBAC or AlwaysAllow\n");
}

}  // namespace
}  // namespace fakekube::e2e
