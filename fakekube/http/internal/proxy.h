// Proxy: the services/<name>[:<port>]/proxy and pods/<name>[:<port>]/proxy subresources, which
// forward an HTTP request to a program inside the cluster, as the API server's proxy handlers do.
//
//   /api/v1/namespaces/<ns>/services/[<scheme>:]<name>[:<port>]/proxy[/<path>]
//   /api/v1/namespaces/<ns>/pods/[<scheme>:]<name>[:<port>]/proxy[/<path>]
//
// Any method; the body, the query and the Content-Type go through, and the program's status,
// body and Content-Type come back as they are. What answers is a listener of the in-process
// cluster (a ProxyTransport: the in-process network, cluster/network.h):
//   services  <port> is a Service port's name or number (none: the first port); the request goes
//             to that port of the Service, which forwards it to a Ready pod its selector matches
//             (targetPort by number or container port name), as kube-proxy would
//   pods      <port> is a number or a container port's name (none: 80), on the pod's IP
// Errors are Status documents: the Service or pod missing is 404 NotFound; no such Service port
// is 503 `no service port "x" found for service "s"`; no Ready endpoint is 503 `no endpoints
// available for service "s"`; a pod without an IP is 503; a connection that fails is 503 "error
// trying to reach service: <the network's error>"; without a network (a server that runs no
// cluster) every proxy request is 503.
//
// The request is answered synchronously on the caller's thread (an HTTP server thread): the
// network runs the listener's handler in place, so nothing waits on the executor and nothing can
// deadlock it; handlers are thread-safe, as every simulated program is under the
// ThreadPoolExecutor.
#pragma once

#include <string>
#include <vector>

#include "fakekube/apiserver/api_server.h"
#include "fakekube/http/internal/rest_types.h"

namespace fakekube {

class ProxyTransport;

// Whether the path's segments address a proxy subresource (the shape above).
bool isProxyPath(const std::vector<std::string>& segments);

// Serves one proxy request. `network` may be null.
RestResponse proxyRequest(ApiServer& server, ProxyTransport* network, const RestRequest& request);

}  // namespace fakekube
