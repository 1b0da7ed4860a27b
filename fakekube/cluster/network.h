// Network: the simulated cluster network, in process, so simulated programs reach each other the
// way pods do: by Service DNS name, ClusterIP or pod IP.
//
// Listening. A simulated process listens on (pod IP, port) with a handler for HTTP-shaped
// requests (method, path, headers, body -> status, headers, body). A call runs the handler
// synchronously, in the caller's task: a request/response exchange costs no virtual time, and a
// program that must wait schedules its next step on the executor.
//
// Resolution (what CoreDNS and kube-proxy do), for a caller in namespace `ns`:
//   <svc>.<ns>.svc.cluster.local, <svc>.<ns>.svc, <svc>.<ns>, <svc>   (a trailing dot allowed)
//                        the Service; no such Service is "no such host"
//   a Service's ClusterIP    the Service (only addresses of the API server's Service range,
//                            10.96.0.0/12, are looked up among the Services)
//   any other IP             a pod IP: the listener on (ip, port), or "connection refused"
//   localhost, 127.x.y.z     the caller's own pod (its containers share one network namespace, so
//                            a sidecar reaches the main container on 127.0.0.1); a caller that
//                            names no pod (the API server's proxy, an operator) gets "connection
//                            refused", as its own loopback has nothing of the cluster's
// A Service forwards port -> targetPort (a number, or a container port name looked up in the
// pod) to one of its endpoints: pods in its namespace that its selector matches, Ready (or any,
// with publishNotReadyAddresses), not being deleted, with a pod IP and a listener on the target
// port. Endpoints are taken in turn (round robin, in pod name order), so a run is deterministic.
// No endpoint, or no such Service port: "connection refused". A headless Service (clusterIP
// None) resolves to its first endpoint's pod IP.
//
// Services and Pods are read through the Reader given (a manager's client: its cache), so the
// network sees what an informer sees; the ClusterIP is the one the API server allocated.
//
// Errors are values shaped like Go's net errors:
//   dial tcp: lookup nosuch.default.svc.cluster.local: no such host
//   dial tcp 10.96.0.12:8265: connect: connection refused
//
// Thread-safe: handlers run outside the network's lock, so a handler may call the network.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

#include "fakekube/apiserver/proxy_transport.h"
#include "fakekube/client/client.h"

namespace fakekube {

using HttpHandler = std::function<HttpResponse(const HttpRequest& request)>;

class Network final : public ProxyTransport {
 public:
  // `reader` (Services and Pods) must outlive the network.
  explicit Network(Reader& reader);
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  // Starts serving (ip, port). AddressInUse if something listens there already.
  NetworkResult<void> listen(const std::string& ip, int port, HttpHandler handler);
  // Stops serving (ip, port); false if nothing listened.
  bool close(const std::string& ip, int port);
  bool listening(const std::string& ip, int port) const;

  // The address `host` names for a caller in `callerNamespace`: a ClusterIP, or a pod IP for an
  // IP literal or a headless Service.
  NetworkResult<std::string> resolve(std::string_view host, std::string_view callerNamespace);

  // Sends `request` to host:port, as a pod in `callerNamespace` would; `callerPodIp` is that pod's
  // IP (empty: a caller outside any pod), where its loopback addresses lead.
  NetworkResult<HttpResponse> call(std::string_view callerNamespace, std::string_view host,
                                   int port, const HttpRequest& request,
                                   std::string_view callerPodIp = {});
  // The API server's proxy: a call from outside any pod.
  NetworkResult<HttpResponse> send(std::string_view callerNamespace, std::string_view host,
                                   int port, const HttpRequest& request) override {
    return call(callerNamespace, host, port, request);
  }

 private:
  struct Target {
    std::string ip;
    int port = 0;
  };
  // The Service a DNS name or ClusterIP names, if any.
  std::optional<Json> serviceFor(std::string_view host, std::string_view callerNamespace,
                                 bool* isName);
  // The endpoint a connection to service:port goes to.
  NetworkResult<Target> pickEndpoint(const Json& service, int port, std::string_view shownHost,
                                     bool advance);
  std::shared_ptr<HttpHandler> handlerAt(const std::string& ip, int port) const;

  Reader& reader_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<HttpHandler>> listeners_;  // "ip:port"
  std::map<std::string, std::uint64_t> nextEndpoint_;              // by service uid and port
};

}  // namespace fakekube
