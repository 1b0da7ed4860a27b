#include "fakekube/cluster/network.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/internal/cluster_ip_allocator.h"

namespace fakekube {

namespace {

std::string addressKey(const std::string& ip, int port) { return fmt::format("{}:{}", ip, port); }

bool isIpv4(std::string_view host) {
  int parts = 0;
  std::size_t i = 0;
  while (i <= host.size()) {
    std::size_t end = host.find('.', i);
    if (end == std::string_view::npos) end = host.size();
    std::string_view part = host.substr(i, end - i);
    if (part.empty() || part.size() > 3) return false;
    for (char c : part) {
      if (c < '0' || c > '9') return false;
    }
    if (std::stoi(std::string(part)) > 255) return false;
    ++parts;
    i = end + 1;
  }
  return parts == 4;
}

// localhost or 127.0.0.0/8: the caller's own network namespace.
bool isLoopback(std::string_view host) {
  if (host.ends_with('.')) host.remove_suffix(1);
  return host == "localhost" || (host.starts_with("127.") && isIpv4(host));
}

// Whether `ip` is an address of the API server's Service range (ClusterIpAllocator::kRange): a
// ClusterIP always is, as the allocator refuses any other.
bool inServiceRange(std::string_view ip) {
  return ClusterIpAllocator().check(ip) != ClusterIpAllocator::Outcome::NotInRange;
}

std::vector<std::string> splitToStrings(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t i = 0;
  while (true) {
    std::size_t end = text.find(separator, i);
    parts.emplace_back(text.substr(i, end == std::string_view::npos ? end : end - i));
    if (end == std::string_view::npos) return parts;
    i = end + 1;
  }
}

NetworkError noSuchHost(std::string_view host) {
  return {NetworkError::Kind::NoSuchHost, fmt::format("dial tcp: lookup {}: no such host", host)};
}
NetworkError refused(std::string_view ip, int port) {
  return {NetworkError::Kind::ConnectionRefused,
          fmt::format("dial tcp {}:{}: connect: connection refused", ip, port)};
}

// The container port a Service targetPort names in `pod`: the number itself, or the
// containerPort of the port with that name.
std::optional<int> targetPortIn(const Json& targetPort, const Json& pod) {
  if (targetPort.is_number_integer()) return targetPort.get<int>();
  if (!targetPort.is_string()) return std::nullopt;
  const std::string name = targetPort.get<std::string>();
  for (const auto& c : jsonArrayAt(pod["spec"], "containers")) {
    for (const auto& p : jsonArrayAt(c, "ports")) {
      if (p.value("name", "") == name && p.contains("containerPort")) {
        return p["containerPort"].get<int>();
      }
    }
  }
  return std::nullopt;
}

std::string selectorString(const Json& selector) {
  std::vector<std::string> parts;
  for (const auto& [key, value] : selector.items()) {
    parts.push_back(key + "=" + (value.is_string() ? value.get<std::string>() : value.dump()));
  }
  return fmt::format("{}", fmt::join(parts, ","));
}

}  // namespace

Network::Network(Reader& reader) : reader_(reader) {}

NetworkResult<void> Network::listen(const std::string& ip, int port, HttpHandler handler) {
  std::lock_guard lock(mu_);
  auto [it, inserted] = listeners_.emplace(addressKey(ip, port), nullptr);
  if (!inserted) {
    return tl::unexpected(
        NetworkError{NetworkError::Kind::AddressInUse,
                     fmt::format("listen tcp {}:{}: bind: address already in use", ip, port)});
  }
  it->second = std::make_shared<HttpHandler>(std::move(handler));
  return {};
}

bool Network::close(const std::string& ip, int port) {
  std::lock_guard lock(mu_);
  return listeners_.erase(addressKey(ip, port)) > 0;
}

bool Network::listening(const std::string& ip, int port) const {
  return handlerAt(ip, port) != nullptr;
}

std::shared_ptr<HttpHandler> Network::handlerAt(const std::string& ip, int port) const {
  std::lock_guard lock(mu_);
  auto it = listeners_.find(addressKey(ip, port));
  return it == listeners_.end() ? nullptr : it->second;
}

std::optional<Json> Network::serviceFor(std::string_view host, std::string_view callerNamespace,
                                        bool* isName) {
  *isName = !isIpv4(host);
  if (!*isName) {
    // A ClusterIP is an address of the API server's Service range (--service-cluster-ip-range),
    // and kube-proxy's rules catch those alone: any other address is a pod's, and reading the
    // Services would find none with it (a call by pod IP, as KubeRay's to a head's Serve proxy
    // every round, would otherwise copy every Service of the cluster).
    if (!inServiceRange(host)) return std::nullopt;
    auto services = reader_.list(kServices, "");
    if (!services) return std::nullopt;
    for (auto& service : (*services)["items"]) {
      if (service["spec"].value("clusterIP", "") == host) return std::move(service);
    }
    return std::nullopt;
  }
  std::string_view name = host;
  if (name.ends_with('.')) name.remove_suffix(1);
  std::vector<std::string> labels = splitToStrings(name, '.');
  std::string service;
  std::string ns;
  if (labels.size() == 1) {
    service = labels[0];
    ns = std::string(callerNamespace);
  } else if (labels.size() == 2 || (labels.size() == 3 && labels[2] == "svc") ||
             (labels.size() == 5 && labels[2] == "svc" && labels[3] == "cluster" &&
              labels[4] == "local")) {
    service = labels[0];
    ns = labels[1];
  } else {
    return std::nullopt;
  }
  if (service.empty() || ns.empty()) return std::nullopt;
  auto got = reader_.get(kServices, ns, service);
  if (!got) return std::nullopt;
  return std::move(*got);
}

NetworkResult<Network::Target> Network::pickEndpoint(const Json& service, int port,
                                                     std::string_view shownHost, bool advance) {
  const Json& spec = service["spec"];
  std::optional<Json> servicePort;
  if (spec.contains("ports") && spec["ports"].is_array()) {
    for (const auto& p : spec["ports"]) {
      if (p.value("port", 0) == port) servicePort = p;
    }
  }
  const std::string shownIp = std::string(shownHost);
  if (!servicePort) return tl::unexpected(refused(shownIp, port));
  const Json targetPort =
      servicePort->contains("targetPort") ? (*servicePort)["targetPort"] : Json(port);
  if (!spec.contains("selector") || !spec["selector"].is_object() || spec["selector"].empty()) {
    return tl::unexpected(refused(shownIp, port));  // no selector: no endpoints managed for it
  }
  ListOptions options;
  options.labelSelector = selectorString(spec["selector"]);
  auto pods = reader_.list(kPods, meta::namespace_(service), options);
  if (!pods) return tl::unexpected(refused(shownIp, port));
  bool notReadyToo = spec.value("publishNotReadyAddresses", false);
  std::vector<std::pair<std::string, Target>> endpoints;  // by pod name
  for (const auto& pod : (*pods)["items"]) {
    if (meta::isDeleting(pod) || isPodTerminal(pod)) continue;
    if (!notReadyToo && !isPodReady(pod)) continue;
    std::string ip = pod["status"].value("podIP", "");
    auto target = targetPortIn(targetPort, pod);
    if (ip.empty() || !target || !listening(ip, *target)) continue;
    endpoints.push_back({meta::name(pod), Target{ip, *target}});
  }
  if (endpoints.empty()) return tl::unexpected(refused(shownIp, port));
  std::sort(endpoints.begin(), endpoints.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::lock_guard lock(mu_);
  std::uint64_t& next = nextEndpoint_[fmt::format("{}:{}", meta::uid(service), port)];
  Target chosen = endpoints[next % endpoints.size()].second;
  if (advance) ++next;
  return chosen;
}

NetworkResult<std::string> Network::resolve(std::string_view host,
                                            std::string_view callerNamespace) {
  bool isName = false;
  auto service = serviceFor(host, callerNamespace, &isName);
  if (!service) {
    if (!isName) return std::string(host);  // an IP that is no ClusterIP: a pod IP
    return tl::unexpected(noSuchHost(host));
  }
  std::string clusterIp = (*service)["spec"].value("clusterIP", "");
  if (clusterIp != "None" && !clusterIp.empty()) return clusterIp;
  // Headless: the first endpoint of the first port.
  auto ports = (*service)["spec"].value("ports", Json::array());
  if (ports.empty()) return tl::unexpected(noSuchHost(host));
  auto endpoint = pickEndpoint(*service, ports[0].value("port", 0), host, false);
  if (!endpoint) return tl::unexpected(noSuchHost(host));
  return endpoint->ip;
}

NetworkResult<HttpResponse> Network::call(std::string_view callerNamespace, std::string_view host,
                                          int port, const HttpRequest& request,
                                          std::string_view callerPodIp) {
  if (isLoopback(host)) {
    const std::string shown = isIpv4(host) ? std::string(host) : "127.0.0.1";
    if (callerPodIp.empty()) return tl::unexpected(refused(shown, port));
    auto handler = handlerAt(std::string(callerPodIp), port);
    if (handler == nullptr) return tl::unexpected(refused(shown, port));
    return (*handler)(request);
  }
  bool isName = false;
  auto service = serviceFor(host, callerNamespace, &isName);
  Target target;
  if (service) {
    std::string clusterIp = (*service)["spec"].value("clusterIP", "");
    bool headless = clusterIp == "None" || clusterIp.empty();
    if (headless) {
      // DNS answers a pod IP; the connection goes straight to it, on the port asked for.
      auto ip = resolve(host, callerNamespace);
      if (!ip) return tl::unexpected(ip.error());
      target = Target{*ip, port};
    } else {
      auto endpoint = pickEndpoint(*service, port, clusterIp, true);
      if (!endpoint) return tl::unexpected(endpoint.error());
      target = *endpoint;
    }
  } else if (isName) {
    return tl::unexpected(noSuchHost(host));
  } else {
    target = Target{std::string(host), port};
  }
  auto handler = handlerAt(target.ip, target.port);
  if (handler == nullptr) return tl::unexpected(refused(target.ip, target.port));
  return (*handler)(request);
}

}  // namespace fakekube
