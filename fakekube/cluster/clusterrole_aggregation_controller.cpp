#include "fakekube/cluster/clusterrole_aggregation_controller.h"

#include <nlohmann/json.hpp>
#include <vector>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/auth/internal/cluster_role_aggregation.h"
#include "fakekube/runtime/builder.h"

namespace fakekube {
namespace {

const GroupVersionResource kAggregatedClusterRoles{"rbac.authorization.k8s.io", "v1",
                                                   "clusterroles"};

bool isAggregatedClusterRole(const Json& clusterRole) {
  return jsonAt(clusterRole, {"aggregationRule"}).is_object();
}

// enqueue(): any ClusterRole's change may change what any aggregated one gathers.
std::vector<ReconcileRequest> everyAggregatedClusterRole(Manager& manager) {
  std::vector<ReconcileRequest> requests;
  auto roles = manager.cache().list(kAggregatedClusterRoles, "");
  if (!roles) return requests;
  for (const Json& role : jsonArrayAt(*roles, "items")) {
    if (isAggregatedClusterRole(role)) requests.push_back({"", meta::name(role)});
  }
  return requests;
}

// syncClusterRole.
ReconcileOutcome aggregateClusterRole(Manager& manager, const ReconcileRequest& request) {
  auto role = manager.cache().getShared(kAggregatedClusterRoles, "", request.name);
  if (!role) {
    if (isNotFound(role.error())) return ReconcileResult{};
    return reconcileError(role.error());
  }
  auto listed = manager.cache().list(kAggregatedClusterRoles, "");
  if (!listed) return reconcileError(listed.error());
  std::vector<ObjectPtr> all;
  for (const Json& item : jsonArrayAt(*listed, "items")) {
    all.push_back(std::make_shared<const Json>(item));
  }
  auto rules = aggregatedClusterRoleRules(**role, all);
  if (!rules) return reconcileError(rules.error());
  if (!rules->has_value()) return ReconcileResult{};
  const Json& current = jsonAt(**role, {"rules"});
  bool same = (current.is_null() && (*rules)->empty()) || current == **rules;
  if (same) return ReconcileResult{};
  Json apply = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                {"kind", "ClusterRole"},
                {"metadata", {{"name", request.name}}},
                {"rules", std::move(**rules)}};
  PatchOptions options;
  options.fieldManager = "clusterrole-aggregation-controller";
  options.force = true;
  auto applied = manager.client().patch(kAggregatedClusterRoles, "", request.name, PatchType::Apply,
                                        apply.dump(), options);
  if (!applied && !isNotFound(applied.error())) return reconcileError(applied.error());
  return ReconcileResult{};
}

}  // namespace

Result<Controller*> addClusterRoleAggregationController(Manager& manager,
                                                        ClusterRoleAggregationOptions options) {
  return ControllerBuilder(manager)
      .named("clusterrole-aggregation")
      .forResource(kAggregatedClusterRoles, predicate::fromFilter([](const Json& role) {
                     return isAggregatedClusterRole(role);
                   }))
      .watches(kAggregatedClusterRoles, enqueueRequestsFromMapFunc([&manager](const Json&) {
                 return everyAggregatedClusterRole(manager);
               }))
      .withOptions({.maxConcurrentReconciles = options.workers})
      .complete([&manager](const ReconcileRequest& request) {
        return aggregateClusterRole(manager, request);
      });
}

}  // namespace fakekube
