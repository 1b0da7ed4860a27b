// The roles and bindings kube-apiserver writes when it starts
// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy policy.go), as rbac.authorization.k8s.io/v1
// documents: cluster-admin bound to system:masters; the user-facing admin, edit and view, which
// aggregate the ClusterRoles labelled rbac.authorization.k8s.io/aggregate-to-<role>: "true"
// (system:aggregate-to-admin, -edit and -view carry the built-in kinds' rules); and the
// discovery roles every user is bound to (system:discovery, system:basic-user,
// system:public-info-viewer).
//
// Each carries the label kubernetes.io/bootstrapping: rbac-defaults and the annotation
// rbac.authorization.kubernetes.io/autoupdate: "true", as the API server's reconciliation
// writes them; each rule's lists are sorted, as the policy's rule builder sorts them.
#pragma once

#include <vector>

#include "fakekube/api/json.h"

namespace fakekube {

// The ClusterRoles, aggregated ones with their aggregationRule and no rules (the aggregation of
// ClusterRoles fills them: cluster_role_aggregation.h).
std::vector<Json> bootstrapClusterRoles();
std::vector<Json> bootstrapClusterRoleBindings();

}  // namespace fakekube
