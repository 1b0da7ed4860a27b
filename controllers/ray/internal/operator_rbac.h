// KubeRay's own RBAC, as upstream ships it in ray-operator/config/rbac (copied in
// controllers/ray/config/rbac/): the ClusterRole `kuberay-operator` that controller-gen generates
// from the controllers' `+kubebuilder:rbac` markers (role.yaml), the Role
// `kuberay-operator-leader-election` (leader_election_role.yaml), their bindings to the
// ServiceAccount `kuberay-operator` (role_binding.yaml, leader_election_role_binding.yaml).
//
// `fakekube serve --operator-service-account NS/NAME` installs them and runs the in-process
// operator as that ServiceAccount, so that a request the operator makes and its role does not
// allow fails with 403 Forbidden as in a real cluster (docs/ray-operator.md, "RBAC").
#pragma once

#include <string_view>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {
class Client;
}

namespace fakekube::ray {

inline constexpr std::string_view kOperatorServiceAccountName = "kuberay-operator";
inline constexpr std::string_view kOperatorClusterRoleName = "kuberay-operator";
inline constexpr std::string_view kLeaderElectionRoleName = "kuberay-operator-leader-election";

// config/rbac/role.yaml and config/rbac/leader_election_role.yaml, as text and as documents.
std::string_view operatorClusterRoleYaml();
std::string_view leaderElectionRoleYaml();
const Json& operatorClusterRole();
const Json& leaderElectionRole();

// What `kubectl apply -k config/default` creates of RBAC with the namespace `ns`: the
// ServiceAccount, the ClusterRole and its ClusterRoleBinding, the leader-election Role and its
// RoleBinding in `ns`, the bindings' subject being the ServiceAccount `ns`/`serviceAccount`. An
// object that exists already is left as it is. `client` must be allowed to create them (the
// cluster's admin).
Result<void> installOperatorRbac(Client& client, std::string_view ns,
                                 std::string_view serviceAccount = kOperatorServiceAccountName);

}  // namespace fakekube::ray
