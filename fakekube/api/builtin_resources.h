// The kinds a default kube-apiserver 1.32 serves, as ResourceRegistry entries.
//
// One table row per group/resource: its served versions (preferred first), plural and kind, scope,
// short names and categories (what `kubectl get all` and `kubectl api-resources` read), whether it
// has the status and scale subresources, the other subresources discovery lists
// (pods/log, serviceaccounts/token, certificatesigningrequests/approval, ...), when its
// generation moves and which name rule its names follow (RBAC kinds accept path segments such as
// "system:aggregate-to-admin"). Kinds that are only ever created and answered, never stored
// (SelfSubjectAccessReview, TokenReview, ...), list the single verb "create".
//
// Beta and alpha APIs that 1.32 leaves off by default (networking.k8s.io/v1beta1 ServiceCIDR,
// resource.k8s.io, storagemigration) are not in the table, as in a default cluster.
#pragma once

#include <vector>

#include "fakekube/api/resource_registry.h"

namespace fakekube {

// Built once per call; ResourceRegistry's constructor calls it.
std::vector<ResourceInfo> builtinResources();

}  // namespace fakekube
