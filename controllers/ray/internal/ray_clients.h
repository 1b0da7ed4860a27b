// How the RayJob and RayService controllers reach Ray (upstream's ClientProvider): the factories
// a caller set in OperatorOptions, or else over HTTP to the pod or dashboard address — through
// the API server's service proxy instead when `useKubernetesProxy` is set and the manager talks
// to a server over REST (an operator out of process cannot reach pod addresses).
#pragma once

#include "controllers/ray/dashboard_client_factory.h"
#include "controllers/ray/httpproxy_client.h"
#include "controllers/ray/operator_options.h"
#include "fakekube/runtime/manager.h"

namespace fakekube::ray {

// GetDashboardClient's factory for `manager`.
DashboardClientFactory dashboardClientsFor(Manager& manager, const OperatorOptions& options);

// GetHttpProxyClient's factory for `manager`.
HttpProxyClientFactory httpProxyClientsFor(Manager& manager, const OperatorOptions& options);

}  // namespace fakekube::ray
