// ProxyTransport: how the API server reaches what runs in the cluster for the services/proxy and
// pods/proxy subresources, as kube-apiserver's proxy transport dials pod and Service addresses.
// The cluster's in-process network implements it (cluster/network.h); the API server and its
// HTTP front see only this interface, so they do not depend on the cluster. A server with no
// cluster has none, and its proxy answers 503.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

namespace fakekube {

struct HttpRequest {
  std::string method = "GET";
  std::string path = "/";
  std::map<std::string, std::string> headers;
  std::string body;
};

struct HttpResponse {
  int status = 200;
  std::map<std::string, std::string> headers;
  std::string body;
};

struct NetworkError {
  enum class Kind {
    NoSuchHost,
    ConnectionRefused,
    AddressInUse,
  };
  Kind kind = Kind::ConnectionRefused;
  std::string message;
};

template <class T>
using NetworkResult = tl::expected<T, NetworkError>;

class ProxyTransport {
 public:
  virtual ~ProxyTransport() = default;
  // Sends `request` to host:port (a Service name, a ClusterIP or a pod IP) as a caller outside any
  // pod, resolving names as seen from `callerNamespace`.
  virtual NetworkResult<HttpResponse> send(std::string_view callerNamespace, std::string_view host,
                                           int port, const HttpRequest& request) = 0;
};

}  // namespace fakekube
