#include "fakekube/http/internal/request_metrics.h"

#include <vector>

#include "fakekube/http/internal/media_type.h"

namespace fakekube {

namespace {

std::vector<std::string> segmentsOf(const std::string& path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (end > start) out.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool truthy(const std::optional<std::string>& value) {
  return value && (*value == "true" || *value == "1");
}

}  // namespace

RequestLabels requestLabels(const RestRequest& request) {
  RequestLabels labels;
  labels.verb = request.method;
  const std::vector<std::string> s = segmentsOf(request.path);
  std::size_t i = 0;
  if (s.size() >= 3 && s[0] == "api") {
    labels.version = s[1];
    i = 2;
  } else if (s.size() >= 4 && s[0] == "apis") {
    labels.group = s[1];
    labels.version = s[2];
    i = 3;
  } else {
    // A request outside the resource paths.
    static const std::vector<std::string> kReported = {"/healthz", "/livez", "/readyz", "/metrics"};
    for (const auto& p : kReported) {
      if (request.path == p) labels.subresource = p;
    }
    return labels;
  }
  std::vector<std::string> rest(s.begin() + static_cast<std::ptrdiff_t>(i), s.end());
  bool namespaced = false;
  // namespaces/<n> is the namespace itself; namespaces/<n>/<resource>... is inside it.
  if (rest.size() >= 3 && rest[0] == "namespaces" &&
      !(rest.size() == 3 && (rest[2] == "status" || rest[2] == "finalize"))) {
    namespaced = true;
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  labels.component = "apiserver";
  labels.resource = rest[0];
  const bool item = rest.size() >= 2;
  if (rest.size() >= 3) labels.subresource = rest[2];
  labels.scope = item ? "resource" : namespaced ? "namespace" : "cluster";
  if (request.param("dryRun")) labels.dryRun = "All";

  const std::string& m = request.method;
  if (m == "GET" || m == "HEAD") {
    if (truthy(request.param("watch"))) {
      labels.verb = "WATCH";
    } else {
      labels.verb = item ? "GET" : "LIST";
    }
  } else if (m == "PATCH") {
    labels.verb = patchTypeFor(request.contentType) == PatchType::Apply ? "APPLY" : "PATCH";
  } else if (m == "DELETE") {
    labels.verb = item ? "DELETE" : "DELETECOLLECTION";
  }
  return labels;
}

RequestMetrics::RequestMetrics(MetricsRegistry& registry)
    : total_(registry.counter(
          "apiserver_request_total",
          "[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, "
          "version, resource, scope, component, and HTTP response code.",
          {"code", "component", "dry_run", "group", "resource", "scope", "subresource", "verb",
           "version"})),
      duration_(registry.histogram(
          "apiserver_request_duration_seconds",
          "[STABLE] Response latency distribution in seconds for each verb, dry run value, group, "
          "version, resource, subresource, scope and component.",
          {0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2,
           3,     4,     5,    6,   8,   10,  15,  20,  30,  45,   60},
          {"component", "dry_run", "group", "resource", "scope", "subresource", "verb",
           "version"})) {}

void RequestMetrics::record(const RequestLabels& l, int code, double seconds) {
  total_
      .withLabels({std::to_string(code), l.component, l.dryRun, l.group, l.resource, l.scope,
                   l.subresource, l.verb, l.version})
      .inc();
  if (l.verb == "WATCH") return;
  duration_
      .withLabels(
          {l.component, l.dryRun, l.group, l.resource, l.scope, l.subresource, l.verb, l.version})
      .observe(seconds);
}

}  // namespace fakekube
