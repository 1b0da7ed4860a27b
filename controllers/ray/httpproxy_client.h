// How KubeRay's RayService controller asks a Ray head's Serve proxy whether it is healthy
// (utils/httpproxy_httpclient.go): GET http://<pod IP>:<serve port>/-/healthz, healthy when the
// answer is 200. The controller labels the head pod ray.io/serve=true or false by it, which puts
// the head into, or takes it out of, the serve Service's endpoints (workers are judged by their
// readiness probe instead).
//
// As with the dashboard client, the interface is what a test replaces (OperatorOptions::
// httpProxyClients; KubeRay's tests use FakeRayHttpProxyClient), and three transports reach a
// real or simulated proxy:
//   inProcessHttpProxyClients   through the cluster's Network, to the pod IP
//   httpHttpProxyClients        plain HTTP to http://<pod IP>:<port>, 2 s timeout as upstream
//   kubernetesProxyHttpProxyClients
//                               through the API server's pods proxy,
//                               <server>/api/v1/namespaces/<ns>/pods/<pod>:<port>/proxy/-/healthz
//                               (the operator's --use-kubernetes-proxy)
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "fakekube/api/status.h"

namespace fakekube {
class Network;
class RestClient;
}  // namespace fakekube

namespace fakekube::ray {

class RayHttpProxyClientInterface {
 public:
  virtual ~RayHttpProxyClientInterface() = default;
  // Ok when the proxy answers 200; otherwise the transport's error, or "CheckProxyActorHealth
  // fails. status code: <code>, status: <status line>, body: <body>".
  virtual Result<void> checkProxyActorHealth() = 0;
};

// upstream's httpProxyClientFunc: given the pod's IP, namespace, name and the serve port, a client.
using HttpProxyClientFactory = std::function<std::unique_ptr<RayHttpProxyClientInterface>(
    const std::string& hostIp, const std::string& podNamespace, const std::string& podName,
    int port)>;

// The network and the REST client must outlive the clients.
HttpProxyClientFactory inProcessHttpProxyClients(Network& network);
HttpProxyClientFactory httpHttpProxyClients();
HttpProxyClientFactory kubernetesProxyHttpProxyClients(RestClient& client);

}  // namespace fakekube::ray
