// The ClusterRole aggregation controller of kube-controller-manager
// (pkg/controller/clusterroleaggregation), on a Manager.
//
// A ClusterRole with an aggregationRule holds the rules of the ClusterRoles its
// clusterRoleSelectors select (auth/internal/cluster_role_aggregation.h): whenever any ClusterRole
// changes, every aggregated one is looked at again, and those whose rules differ get them by a
// server-side apply of `rules` with field manager clusterrole-aggregation-controller, forced.
// That is how `kubectl get clusterrole admin -o yaml` shows the rules of edit, view and every
// role labelled rbac.authorization.k8s.io/aggregate-to-admin: "true", and how a CRD's operator
// extends them.
#pragma once

#include "fakekube/api/status.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/manager.h"

namespace fakekube {

struct ClusterRoleAggregationOptions {
  // kube-controller-manager runs it with five workers.
  int workers = 5;
};

// Registers the controller on `manager` (it starts with the manager). Its name is
// "clusterrole-aggregation".
Result<Controller*> addClusterRoleAggregationController(Manager& manager,
                                                        ClusterRoleAggregationOptions options = {});

}  // namespace fakekube
