#include "controllers/ray/internal/ray_clients.h"

#include "fakekube/client/rest_client.h"

namespace fakekube::ray {

namespace {

// The REST client under the manager's cache when the proxy is asked for, else null.
RestClient* proxiedRestClient(Manager& manager, const OperatorOptions& options) {
  if (!options.useKubernetesProxy) return nullptr;
  return dynamic_cast<RestClient*>(&manager.client().underlyingClient());
}

}  // namespace

DashboardClientFactory dashboardClientsFor(Manager& manager, const OperatorOptions& options) {
  if (options.dashboardClients) return options.dashboardClients;
  if (auto* rest = proxiedRestClient(manager, options))
    return kubernetesProxyDashboardClients(*rest);
  return httpDashboardClients();
}

HttpProxyClientFactory httpProxyClientsFor(Manager& manager, const OperatorOptions& options) {
  if (options.httpProxyClients) return options.httpProxyClients;
  if (auto* rest = proxiedRestClient(manager, options))
    return kubernetesProxyHttpProxyClients(*rest);
  return httpHttpProxyClients();
}

}  // namespace fakekube::ray
