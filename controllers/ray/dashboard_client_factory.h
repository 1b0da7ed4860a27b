// DashboardClientFactory: how the RayJob controller gets a client for a RayCluster's dashboard
// (upstream's GetRayDashboardClientFunc), and the factories of the three transports that
// dashboard_client.h describes.
//
// Apart from dashboard_client.h so that the operator's public header (ray_operator.h) names the
// factory without the client's types, whose Json members need the complete document type.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {
class Network;
class RestClient;
}  // namespace fakekube

namespace fakekube::ray {

class RayDashboardClientInterface;

// Given a RayCluster document and a dashboardURL, the client to use: DashboardClient over one of
// the transports below, or a test's own implementation (dashboard_client.h).
using DashboardClientFactory = std::function<Result<std::unique_ptr<RayDashboardClientInterface>>(
    const Json& rayCluster, const std::string& dashboardUrl)>;

// In process, through the cluster's Network (networkTransport).
DashboardClientFactory inProcessDashboardClients(Network& network);
// Over HTTP to the dashboardURL (httpTransport).
DashboardClientFactory httpDashboardClients();
// Through the API server's service proxy (kubernetesProxyTransport). The head Service: the
// RayCluster's status.head.serviceName, else "<cluster>-head-svc".
DashboardClientFactory kubernetesProxyDashboardClients(RestClient& client);

}  // namespace fakekube::ray
