// The rules of an aggregated ClusterRole (kube-controller-manager's
// pkg/controller/clusterroleaggregation): a ClusterRole with an aggregationRule holds the rules
// of every other ClusterRole its clusterRoleSelectors select — selector by selector, the
// selected roles by name, each rule once.
#pragma once

#include <optional>
#include <vector>

#include "fakekube/api/object.h"
#include "fakekube/api/status.h"

namespace fakekube {

// The `rules` `clusterRole` should hold given `clusterRoles` (all of them, itself included);
// nullopt when it has no aggregationRule. A selector that does not parse is an error.
Result<std::optional<Json>> aggregatedClusterRoleRules(const Json& clusterRole,
                                                       const std::vector<ObjectPtr>& clusterRoles);

}  // namespace fakekube
