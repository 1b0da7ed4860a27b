#include "controllers/ray/httpproxy_client.h"

#include <fmt/format.h>

#include "controllers/ray/dashboard_client.h"
#include "fakekube/client/rest_client.h"

namespace fakekube::ray {

namespace {

constexpr std::string_view kRayServeProxyHealthPath = "/-/healthz";

// The pods proxy subresource of one pod and port, over the REST client's connections.
class PodProxyTransport final : public DashboardTransport {
 public:
  PodProxyTransport(RestClient& client, const std::string& ns, const std::string& pod, int port)
      : client_(client),
        prefix_(fmt::format("/api/v1/namespaces/{}/pods/{}:{}/proxy", ns, pod, port)) {}

  Result<HttpResponse> send(const HttpRequest& request) override {
    auto answer = client_.requestRaw(request.method, prefix_ + request.path, request.body, "");
    if (!answer) {
      return tl::unexpected(
          Status::generic(500, "InternalError",
                          fmt::format("Get \"{}{}{}\": {}", client_.config().server, prefix_,
                                      request.path, answer.error().message)));
    }
    HttpResponse response;
    response.status = answer->status;
    response.body = std::move(answer->body);
    return response;
  }

 private:
  RestClient& client_;
  std::string prefix_;
};

std::string statusText(int code) {
  switch (code) {
    case 404:
      return "404 Not Found";
    case 500:
      return "500 Internal Server Error";
    case 502:
      return "502 Bad Gateway";
    case 503:
      return "503 Service Unavailable";
    default:
      return std::to_string(code);
  }
}

class RayHttpProxyClient final : public RayHttpProxyClientInterface {
 public:
  explicit RayHttpProxyClient(std::shared_ptr<DashboardTransport> transport)
      : transport_(std::move(transport)) {}

  Result<void> checkProxyActorHealth() override {
    auto answer = transport_->send(HttpRequest{.path = std::string(kRayServeProxyHealthPath)});
    if (!answer) return tl::unexpected(answer.error());
    if (answer->status != 200) {
      std::string body = answer->body.substr(0, 4096);
      return tl::unexpected(Status::generic(
          500, "InternalError",
          fmt::format("CheckProxyActorHealth fails. status code: {}, status: {}, body: {}",
                      answer->status, statusText(answer->status), body)));
    }
    return {};
  }

 private:
  std::shared_ptr<DashboardTransport> transport_;
};

}  // namespace

HttpProxyClientFactory inProcessHttpProxyClients(Network& network) {
  return [&network](const std::string& hostIp, const std::string& podNamespace, const std::string&,
                    int port) -> std::unique_ptr<RayHttpProxyClientInterface> {
    return std::make_unique<RayHttpProxyClient>(
        networkTransport(network, fmt::format("{}:{}", hostIp, port), podNamespace));
  };
}

HttpProxyClientFactory httpHttpProxyClients() {
  return [](const std::string& hostIp, const std::string&, const std::string&,
            int port) -> std::unique_ptr<RayHttpProxyClientInterface> {
    return std::make_unique<RayHttpProxyClient>(
        httpTransport(fmt::format("http://{}:{}", hostIp, port)));
  };
}

HttpProxyClientFactory kubernetesProxyHttpProxyClients(RestClient& client) {
  return [&client](const std::string&, const std::string& podNamespace, const std::string& podName,
                   int port) -> std::unique_ptr<RayHttpProxyClientInterface> {
    return std::make_unique<RayHttpProxyClient>(
        std::make_shared<PodProxyTransport>(client, podNamespace, podName, port));
  };
}

}  // namespace fakekube::ray
