#include "fakekube/http/internal/proxy.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/label_selector.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/proxy_transport.h"
#include "fakekube/http/internal/rest_handler.h"

namespace fakekube {

namespace {

// [scheme:]name[:port]
struct ProxyTarget {
  std::string name;
  std::string port;
};

ProxyTarget parseTarget(const std::string& segment) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    auto colon = segment.find(':', start);
    parts.push_back(segment.substr(start, colon == std::string::npos ? colon : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() == 3) return {parts[1], parts[2]};
  if (parts.size() == 2) {
    if (parts[0] == "http" || parts[0] == "https") return {parts[1], ""};
    return {parts[0], parts[1]};
  }
  return {parts[0], ""};
}

std::string percentEncode(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

// What follows ".../proxy" in the path, "/" at least, with the query.
std::string forwardedPath(const RestRequest& request) {
  std::string path;
  const std::string marker = "/proxy";
  // The first "/proxy" after the <resource>/<name> segments: segments 0..5 are fixed.
  std::size_t at = 0;
  int slashes = 0;
  for (; at < request.path.size(); ++at) {
    if (request.path[at] == '/' && ++slashes == 7) break;
  }
  if (at < request.path.size()) {
    std::string_view rest = std::string_view(request.path).substr(at);  // "/proxy..."
    rest.remove_prefix(std::min(rest.size(), marker.size()));
    path = std::string(rest);
  }
  if (path.empty() || path[0] != '/') path = "/" + path;
  if (!request.query.empty()) {
    path += '?';
    bool first = true;
    for (const auto& [k, v] : request.query) {
      if (!first) path += '&';
      first = false;
      path += percentEncode(k) + "=" + percentEncode(v);
    }
  }
  return path;
}

RestResponse unavailable(std::string message) {
  return RestHandler::errorResponse(Status::serviceUnavailable(message));
}

RestResponse forward(ProxyTransport& network, std::string_view ns, const std::string& host,
                     int port, const RestRequest& request) {
  HttpRequest forwarded;
  forwarded.method = request.method;
  forwarded.path = forwardedPath(request);
  forwarded.body = request.body;
  if (!request.contentType.empty()) forwarded.headers["Content-Type"] = request.contentType;
  if (!request.accept.empty()) forwarded.headers["Accept"] = request.accept;
  auto answer = network.send(ns, host, port, forwarded);
  if (!answer) return unavailable("error trying to reach service: " + answer.error().message);
  RestResponse response;
  response.status = answer->status;
  response.body = std::move(answer->body);
  response.contentType = "text/plain; charset=utf-8";
  for (const auto& [k, v] : answer->headers) {
    std::string lower = k;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "content-type") {
      response.contentType = v;
    } else if (lower != "content-length" && lower != "transfer-encoding" && lower != "connection") {
      response.headers.emplace_back(k, v);
    }
  }
  return response;
}

std::optional<int> containerPort(const Json& pod, const Json& port) {
  if (port.is_number_integer()) return port.get<int>();
  if (!port.is_string()) return std::nullopt;
  const std::string name = port.get<std::string>();
  for (const auto& c : jsonAt(pod, {"spec", "containers"})) {
    if (!c.is_object()) continue;
    for (const auto& p : c.value("ports", Json::array())) {
      if (p.is_object() && p.value("name", "") == name && p.contains("containerPort") &&
          p["containerPort"].is_number_integer()) {
        return p["containerPort"].get<int>();
      }
    }
  }
  return std::nullopt;
}

RestResponse proxyService(ApiServer& server, ProxyTransport& network, const std::string& ns,
                          const ProxyTarget& target, const RestRequest& request) {
  auto service = server.get(kServices, ns, target.name);
  if (!service) return RestHandler::errorResponse(service.error());
  const Json& spec = jsonAt(**service, {"spec"});
  const Json& ports = jsonAt(spec, {"ports"});
  std::optional<Json> servicePort;
  if (ports.is_array()) {
    for (const auto& p : ports) {
      if (!p.is_object()) continue;
      if (target.port.empty() || p.value("name", "") == target.port ||
          std::to_string(p.value("port", 0)) == target.port) {
        servicePort = p;
        break;
      }
    }
  }
  if (!servicePort) {
    return unavailable(fmt::format("no service port {} found for service {}", goQuote(target.port),
                                   goQuote(target.name)));
  }
  // Endpoints as the EndpointSlice controller would list them: Ready pods the selector matches.
  const Json& selector = jsonAt(spec, {"selector"});
  bool anyEndpoint = false;
  if (selector.is_object() && !selector.empty()) {
    auto parsed = LabelSelector::fromJson(Json{{"matchLabels", selector}});
    auto pods = server.list(kPods, ns);
    if (parsed && pods) {
      const bool notReadyToo = spec.value("publishNotReadyAddresses", false);
      for (const auto& pod : pods->items) {
        if (!parsed->matches(jsonAt(*pod, {"metadata", "labels"}))) continue;
        if (meta::isDeleting(*pod) || isPodTerminal(*pod)) continue;
        if (!notReadyToo && !isPodReady(*pod)) continue;
        if (jsonAt(*pod, {"status", "podIP"}).is_string()) anyEndpoint = true;
      }
    }
  }
  if (!anyEndpoint) {
    return unavailable(fmt::format("no endpoints available for service {}", goQuote(target.name)));
  }
  const std::string host = fmt::format("{}.{}.svc.cluster.local", target.name, ns);
  return forward(network, ns, host, servicePort->value("port", 0), request);
}

RestResponse proxyPod(ApiServer& server, ProxyTransport& network, const std::string& ns,
                      const ProxyTarget& target, const RestRequest& request) {
  auto pod = server.get(kPods, ns, target.name);
  if (!pod) return RestHandler::errorResponse(pod.error());
  const Json& ip = jsonAt(**pod, {"status", "podIP"});
  if (!ip.is_string() || ip.get<std::string>().empty()) {
    return unavailable(fmt::format("pod {} has no pod IP", goQuote(target.name)));
  }
  int port = 80;
  if (!target.port.empty()) {
    // A number (at most 5 digits: a port), else a container port's name.
    const bool numeric =
        target.port.size() <= 5 && target.port.find_first_not_of("0123456789") == std::string::npos;
    auto found = containerPort(**pod, numeric ? Json(std::stoi(target.port)) : Json(target.port));
    if (!found) {
      return unavailable(fmt::format("no container port {} found in pod {}", goQuote(target.port),
                                     goQuote(target.name)));
    }
    port = *found;
  }
  return forward(network, ns, ip.get<std::string>(), port, request);
}

}  // namespace

bool isProxyPath(const std::vector<std::string>& s) {
  return s.size() >= 7 && s[0] == "api" && s[1] == "v1" && s[2] == "namespaces" &&
         (s[4] == "services" || s[4] == "pods") && s[6] == "proxy";
}

RestResponse proxyRequest(ApiServer& server, ProxyTransport* network, const RestRequest& request) {
  std::vector<std::string> s;
  std::size_t start = 0;
  while (start <= request.path.size() && s.size() < 7) {
    std::size_t end = request.path.find('/', start);
    if (end == std::string::npos) end = request.path.size();
    if (end > start) s.emplace_back(request.path.substr(start, end - start));
    start = end + 1;
  }
  if (!isProxyPath(s)) return RestHandler::errorResponse(Status::resourceNotServed());
  if (network == nullptr) return unavailable("this server runs no cluster network to proxy to");
  const std::string& ns = s[3];
  const ProxyTarget target = parseTarget(s[5]);
  if (s[4] == "services") return proxyService(server, *network, ns, target, request);
  return proxyPod(server, *network, ns, target, request);
}

}  // namespace fakekube
