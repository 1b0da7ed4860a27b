#include "controllers/ray/internal/operator_rbac.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "controllers/ray/operator_rbac_yaml.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/yaml.h"
#include "fakekube/client/client.h"

namespace fakekube::ray {
namespace {

const GroupVersionResource kRbacClusterRoles{"rbac.authorization.k8s.io", "v1", "clusterroles"};
const GroupVersionResource kRbacClusterRoleBindings{"rbac.authorization.k8s.io", "v1",
                                                    "clusterrolebindings"};
const GroupVersionResource kRbacRoles{"rbac.authorization.k8s.io", "v1", "roles"};
const GroupVersionResource kRbacRoleBindings{"rbac.authorization.k8s.io", "v1", "rolebindings"};

Json decodedShippedYaml(std::string_view text) {
  auto decoded = decodeYaml(text);
  // The text is compiled in from the repository's files, which tests read: it always decodes.
  return decoded ? std::move(*decoded) : Json::object();
}

// role_binding.yaml / leader_election_role_binding.yaml, with kustomize's namespace applied.
Json bindingOf(std::string_view kind, std::string_view roleKind, std::string_view name,
               std::string_view ns, std::string_view serviceAccount) {
  Json metadata = {{"name", name}};
  if (kind == "RoleBinding") metadata["namespace"] = ns;
  return {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", kind},
      {"metadata", std::move(metadata)},
      {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", roleKind}, {"name", name}}},
      {"subjects",
       Json::array({{{"kind", "ServiceAccount"}, {"name", serviceAccount}, {"namespace", ns}}})}};
}

}  // namespace

std::string_view operatorClusterRoleYaml() { return shipped::kOperatorClusterRoleYaml; }
std::string_view leaderElectionRoleYaml() { return shipped::kLeaderElectionRoleYaml; }

const Json& operatorClusterRole() {
  static const Json role = decodedShippedYaml(shipped::kOperatorClusterRoleYaml);
  return role;
}

const Json& leaderElectionRole() {
  static const Json role = decodedShippedYaml(shipped::kLeaderElectionRoleYaml);
  return role;
}

Result<void> installOperatorRbac(Client& client, std::string_view ns,
                                 std::string_view serviceAccount) {
  Json leaderElection = leaderElectionRole();
  meta::setNamespace(leaderElection, std::string(ns));
  const std::vector<std::pair<GroupVersionResource, Json>> objects = {
      {kNamespaces, {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}}},
      {kServiceAccounts,
       {{"apiVersion", "v1"},
        {"kind", "ServiceAccount"},
        {"metadata", {{"name", serviceAccount}, {"namespace", ns}}}}},
      {kRbacClusterRoles, operatorClusterRole()},
      {kRbacClusterRoleBindings, bindingOf("ClusterRoleBinding", "ClusterRole",
                                           kOperatorClusterRoleName, ns, serviceAccount)},
      {kRbacRoles, std::move(leaderElection)},
      {kRbacRoleBindings,
       bindingOf("RoleBinding", "Role", kLeaderElectionRoleName, ns, serviceAccount)},
  };
  for (const auto& [gvr, object] : objects) {
    auto created = client.create(gvr, object);
    if (!created && !isAlreadyExists(created.error())) {
      Status s = created.error();
      s.message = fmt::format("installing KubeRay's RBAC: {}", s.message);
      return tl::unexpected(s);
    }
  }
  return {};
}

}  // namespace fakekube::ray
