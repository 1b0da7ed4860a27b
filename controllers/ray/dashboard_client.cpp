#include "controllers/ray/dashboard_client.h"

#include <fmt/format.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "controllers/ray/constants.h"
#include "controllers/ray/internal/json_members.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/yaml.h"
#include "fakekube/client/rest_client.h"

namespace fakekube::ray {

namespace {

constexpr std::string_view kJobPath = "/api/jobs/";
constexpr std::string_view kServeApplicationsPath = "/api/serve/applications/";

// Go's http.Response.Status: "404 Not Found".
std::string statusLine(int code) {
  const char* text = "";
  switch (code) {
    case 400:
      text = "Bad Request";
      break;
    case 401:
      text = "Unauthorized";
      break;
    case 403:
      text = "Forbidden";
      break;
    case 404:
      text = "Not Found";
      break;
    case 405:
      text = "Method Not Allowed";
      break;
    case 500:
      text = "Internal Server Error";
      break;
    case 502:
      text = "Bad Gateway";
      break;
    case 503:
      text = "Service Unavailable";
      break;
    case 504:
      text = "Gateway Timeout";
      break;
    default:
      break;
  }
  return fmt::format("{} {}", code, text);
}

// Go's url.Error: `Get "http://host/path": <cause>`.
std::string goUrlError(std::string_view method, std::string_view url, std::string_view cause) {
  std::string verb(method);
  for (std::size_t i = 1; i < verb.size(); ++i) verb[i] = static_cast<char>(std::tolower(verb[i]));
  return fmt::format("{} \"{}\": {}", verb, url, cause);
}

// An InternalError whose message is exactly `message` (Status::internal prefixes "Internal error
// occurred: ", which a Go error from net/http does not carry).
Status failure(std::string message) { return Status::generic(500, "InternalError", message); }

bool is2xx(int code) { return code >= 200 && code <= 299; }

std::uint64_t unsignedMember(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return 0;
  if (it->is_number_unsigned()) return it->get<std::uint64_t>();
  if (it->is_number_integer())
    return static_cast<std::uint64_t>(std::max<std::int64_t>(0, it->get<std::int64_t>()));
  return static_cast<std::uint64_t>(std::max(0.0, it->get<double>()));
}

class NetworkTransport final : public DashboardTransport {
 public:
  NetworkTransport(Network& network, std::string dashboardUrl, std::string callerNamespace)
      : network_(network), url_(std::move(dashboardUrl)), ns_(std::move(callerNamespace)) {
    std::string_view url = url_;
    if (url.starts_with("http://")) url.remove_prefix(7);
    if (auto slash = url.find('/'); slash != std::string_view::npos) url = url.substr(0, slash);
    host_ = std::string(url);
    if (auto colon = url.rfind(':'); colon != std::string_view::npos) {
      host_ = std::string(url.substr(0, colon));
      port_ = std::atoi(std::string(url.substr(colon + 1)).c_str());
    }
    base_ = fmt::format("http://{}:{}", host_, port_);
  }

  Result<HttpResponse> send(const HttpRequest& request) override {
    auto answer = network_.call(ns_, host_, port_, request);
    if (!answer) {
      return tl::unexpected(
          failure(goUrlError(request.method, base_ + request.path, answer.error().message)));
    }
    return std::move(*answer);
  }

 private:
  Network& network_;
  std::string url_;
  std::string ns_;
  std::string host_;
  int port_ = 80;
  std::string base_;
};

class HttpTransport final : public DashboardTransport {
 public:
  HttpTransport(std::string baseUrl, Duration timeout) : timeout_(timeout) {
    if (!baseUrl.starts_with("http://") && !baseUrl.starts_with("https://")) {
      baseUrl = "http://" + baseUrl;
    }
    while (baseUrl.ends_with('/')) baseUrl.pop_back();
    base_ = baseUrl;
    // httplib connects to scheme://host:port; a path in the base URL prefixes every request.
    auto pathStart = baseUrl.find('/', baseUrl.find("://") + 3);
    origin_ = baseUrl.substr(0, pathStart);
    if (pathStart != std::string::npos) prefix_ = baseUrl.substr(pathStart);
  }

  Result<HttpResponse> send(const HttpRequest& request) override {
    httplib::Client http(origin_);
    auto seconds = std::chrono::duration_cast<std::chrono::microseconds>(timeout_).count();
    http.set_connection_timeout(seconds / 1000000, seconds % 1000000);
    http.set_read_timeout(seconds / 1000000, seconds % 1000000);
    http.set_write_timeout(seconds / 1000000, seconds % 1000000);
    httplib::Request req;
    req.method = request.method;
    req.path = prefix_ + request.path;
    for (const auto& [k, v] : request.headers) req.headers.emplace(k, v);
    req.body = request.body;
    httplib::Result res = http.send(req);
    if (!res) {
      return tl::unexpected(failure(
          goUrlError(request.method, base_ + request.path, httplib::to_string(res.error()))));
    }
    HttpResponse response;
    response.status = res->status;
    for (const auto& [k, v] : res->headers) response.headers[k] = v;
    response.body = std::move(res->body);
    return response;
  }

 private:
  Duration timeout_;
  std::string base_;
  std::string origin_;
  std::string prefix_;
};

class KubernetesProxyTransport final : public DashboardTransport {
 public:
  KubernetesProxyTransport(RestClient& client, std::string ns, std::string service,
                           std::string port)
      : client_(client),
        prefix_(fmt::format("/api/v1/namespaces/{}/services/{}:{}/proxy", ns, service, port)) {}

  Result<HttpResponse> send(const HttpRequest& request) override {
    std::string contentType;
    if (auto it = request.headers.find("Content-Type"); it != request.headers.end()) {
      contentType = it->second;
    }
    auto answer = client_.requestRaw(
        request.method, prefix_ + request.path, request.body,
        contentType.empty() && !request.body.empty() ? "application/json" : contentType);
    if (!answer) {
      return tl::unexpected(
          failure(goUrlError(request.method, client_.config().server + prefix_ + request.path,
                             answer.error().message)));
    }
    HttpResponse response;
    response.status = answer->status;
    if (!answer->contentType.empty()) response.headers["Content-Type"] = answer->contentType;
    response.body = std::move(answer->body);
    return response;
  }

 private:
  RestClient& client_;
  std::string prefix_;
};

Result<std::unique_ptr<RayDashboardClientInterface>> makeClient(
    std::shared_ptr<DashboardTransport> t) {
  return std::make_unique<DashboardClient>(std::move(t));
}

}  // namespace

bool isJobTerminal(std::string_view status) {
  return status == "STOPPED" || status == "SUCCEEDED" || status == "FAILED";
}

RayJobInfo RayJobInfo::fromJson(const Json& j) {
  RayJobInfo info;
  if (!j.is_object()) return info;
  info.jobStatus = stringMember(j, "status");
  info.entrypoint = stringMember(j, "entrypoint");
  info.jobId = stringMember(j, "job_id");
  info.submissionId = stringMember(j, "submission_id");
  info.message = stringMember(j, "message");
  info.errorType = stringMember(j, "error_type");
  if (auto it = j.find("metadata"); it != j.end() && it->is_object()) info.metadata = *it;
  if (auto it = j.find("runtime_env"); it != j.end() && it->is_object()) info.runtimeEnv = *it;
  info.startTime = unsignedMember(j, "start_time");
  info.endTime = unsignedMember(j, "end_time");
  return info;
}

Result<RayJobRequest> RayJobRequest::fromRayJob(const Json& rayJob) {
  RayJobRequest request;
  const Json& spec = jsonAt(rayJob, {"spec"});
  request.entrypoint = stringMember(spec, "entrypoint");
  const Json& jobId = jsonAt(rayJob, {"status", "jobId"});
  if (jobId.is_string()) request.submissionId = jobId.get<std::string>();
  if (const Json& m = jsonAt(spec, {"metadata"}); m.is_object() && !m.empty()) request.metadata = m;
  const std::string runtimeEnvYaml = stringMember(spec, "runtimeEnvYAML");
  if (!runtimeEnvYaml.empty()) {
    auto runtimeEnv = decodeYaml(runtimeEnvYaml);
    if (!runtimeEnv) {
      return tl::unexpected(
          Status::badRequest(fmt::format("failed to unmarshal RuntimeEnvYAML: {}: {}",
                                         runtimeEnvYaml, runtimeEnv.error().message)));
    }
    request.runtimeEnv = *runtimeEnv;
  }
  if (const Json& n = jsonAt(spec, {"entrypointNumCpus"}); n.is_number())
    request.numCpus = n.get<double>();
  if (const Json& n = jsonAt(spec, {"entrypointNumGpus"}); n.is_number())
    request.numGpus = n.get<double>();
  const std::string resources = stringMember(spec, "entrypointResources");
  if (!resources.empty()) {
    Json parsed = Json::parse(resources, nullptr, false);
    if (!parsed.is_object()) {
      return tl::unexpected(Status::badRequest(
          fmt::format("entrypointResources: not a JSON object of numbers: {}", resources)));
    }
    request.resources = std::move(parsed);
  }
  return request;
}

Json RayJobRequest::toJson() const {
  Json j = {{"entrypoint", entrypoint}};
  if (runtimeEnv.is_object() && !runtimeEnv.empty()) j["runtime_env"] = runtimeEnv;
  if (metadata.is_object() && !metadata.empty()) j["metadata"] = metadata;
  if (resources.is_object() && !resources.empty()) j["entrypoint_resources"] = resources;
  if (!submissionId.empty()) j["submission_id"] = submissionId;
  if (numCpus != 0) j["entrypoint_num_cpus"] = numCpus;
  if (numGpus != 0) j["entrypoint_num_gpus"] = numGpus;
  return j;
}

DashboardClient::DashboardClient(std::shared_ptr<DashboardTransport> transport,
                                 std::string authToken)
    : transport_(std::move(transport)), authToken_(std::move(authToken)) {}

Result<HttpResponse> DashboardClient::send(std::string method, std::string path, std::string body) {
  HttpRequest request;
  request.method = std::move(method);
  request.path = std::move(path);
  request.body = std::move(body);
  if (request.method != "GET") request.headers["Content-Type"] = "application/json";
  if (!authToken_.empty()) request.headers["x-ray-authorization"] = "Bearer " + authToken_;
  return transport_->send(request);
}

Result<RayJobInfo> DashboardClient::getJobInfo(std::string_view jobId) {
  auto answer = send("GET", fmt::format("{}{}", kJobPath, jobId));
  if (!answer) return tl::unexpected(answer.error());
  if (answer->status == 404) {
    return tl::unexpected(
        Status::badRequest(fmt::format("Job {} does not exist on the cluster", jobId)));
  }
  Json body = Json::parse(answer->body, nullptr, false);
  if (!is2xx(answer->status) || !body.is_object()) {
    return tl::unexpected(failure(
        is2xx(answer->status)
            ? fmt::format("GetJobInfo fail: {}", answer->body)
            : fmt::format("GetJobInfo fail: {} {}", statusLine(answer->status), answer->body)));
  }
  return RayJobInfo::fromJson(body);
}

Result<std::vector<RayJobInfo>> DashboardClient::listJobs() {
  auto answer = send("GET", std::string(kJobPath));
  if (!answer) return tl::unexpected(answer.error());
  if (answer->status == 404) return std::vector<RayJobInfo>{};
  Json body = Json::parse(answer->body, nullptr, false);
  if (!is2xx(answer->status) || !body.is_array()) {
    return tl::unexpected(failure(fmt::format("ListJobs fail: {}", answer->body)));
  }
  std::vector<RayJobInfo> jobs;
  for (const auto& item : body) jobs.push_back(RayJobInfo::fromJson(item));
  return jobs;
}

Result<std::string> RayDashboardClientInterface::submitJob(const Json& rayJob) {
  auto request = RayJobRequest::fromRayJob(rayJob);
  if (!request) return tl::unexpected(request.error());
  return submitJobRequest(*request);
}

Result<std::string> DashboardClient::submitJobRequest(const RayJobRequest& request) {
  auto answer = send("POST", std::string(kJobPath), request.toJson().dump());
  if (!answer) return tl::unexpected(answer.error());
  if (!is2xx(answer->status)) {
    if (answer->status == 500 &&
        answer->body.find("Please use a different submission_id") != std::string::npos) {
      return tl::unexpected(Status::generic(
          409, "AlreadyExists",
          fmt::format("submission ID '{}' already used, Please use a different submission_id",
                      request.submissionId)));
    }
    return tl::unexpected(
        failure(fmt::format("SubmitJob fail: {} {}", statusLine(answer->status), answer->body)));
  }
  Json body = Json::parse(answer->body, nullptr, false);
  if (!body.is_object() || !body.contains("job_id") || !body["job_id"].is_string()) {
    return tl::unexpected(failure(fmt::format("SubmitJob fail: {}", answer->body)));
  }
  return body["job_id"].get<std::string>();
}

Result<std::optional<std::string>> DashboardClient::getJobLog(std::string_view jobId) {
  auto answer = send("GET", fmt::format("{}{}/logs", kJobPath, jobId));
  if (!answer) return tl::unexpected(answer.error());
  if (answer->status == 404) return std::optional<std::string>();
  Json body = Json::parse(answer->body, nullptr, false);
  if (!is2xx(answer->status) || !body.is_object()) {
    return tl::unexpected(failure(fmt::format("GetJobLog fail: {}", answer->body)));
  }
  return std::optional<std::string>(stringMember(body, "logs"));
}

Result<void> DashboardClient::stopJob(std::string_view jobId) {
  auto answer = send("POST", fmt::format("{}{}/stop", kJobPath, jobId));
  if (!answer) return tl::unexpected(answer.error());
  Json body = Json::parse(answer->body, nullptr, false);
  if (!body.is_object()) {
    return tl::unexpected(
        failure(fmt::format("StopJob fail: {} {}", statusLine(answer->status), answer->body)));
  }
  if (body.value("stopped", false)) return {};
  auto info = getJobInfo(jobId);
  if (!info) return tl::unexpected(info.error());
  if (!isJobTerminal(info->jobStatus)) {
    return tl::unexpected(
        failure(fmt::format("failed to stop job: {} is {}", jobId, info->jobStatus)));
  }
  return {};
}

Result<void> DashboardClient::deleteJob(std::string_view jobId) {
  auto answer = send("DELETE", fmt::format("{}{}", kJobPath, jobId));
  if (!answer) return tl::unexpected(answer.error());
  return {};
}

Result<void> RayDashboardClientInterface::updateDeployments(const std::string&) {
  return tl::unexpected(Status::generic(501, "NotImplemented",
                                        "UpdateDeployments is not implemented by this client"));
}

Result<Json> RayDashboardClientInterface::getServeDetails() {
  return tl::unexpected(
      Status::generic(501, "NotImplemented", "GetServeDetails is not implemented by this client"));
}

Result<ServeApplicationStatuses> RayDashboardClientInterface::getMultiApplicationStatus() {
  auto details = getServeDetails();
  if (!details) {
    return tl::unexpected(
        failure(fmt::format("failed to get serve details: {}", details.error().message)));
  }
  ServeApplicationStatuses statuses;
  for (const auto& [name, app] : jsonObjectAt(*details, "applications").items()) {
    ServeApplicationStatus status;
    status.name = stringMember(app, "name");
    status.status = stringMember(app, "status");
    status.message = stringMember(app, "message");
    for (const auto& [deploymentName, deployment] : jsonObjectAt(app, "deployments").items()) {
      status.deployments[deploymentName] = {stringMember(deployment, "status"),
                                            stringMember(deployment, "message")};
    }
    statuses[name] = std::move(status);
  }
  return statuses;
}

Result<void> DashboardClient::updateDeployments(const std::string& configJson) {
  auto answer = send("PUT", std::string(kServeApplicationsPath), configJson);
  if (!answer) return tl::unexpected(answer.error());
  if (!is2xx(answer->status)) {
    return tl::unexpected(failure(
        fmt::format("UpdateDeployments fail: {} {}", statusLine(answer->status), answer->body)));
  }
  return {};
}

Result<Json> DashboardClient::getServeDetails() {
  auto answer = send("GET", fmt::format("{}?api_type=declarative", kServeApplicationsPath));
  if (!answer) return tl::unexpected(answer.error());
  if (!is2xx(answer->status)) {
    return tl::unexpected(failure(
        fmt::format("GetServeDetails fail: {} {}", statusLine(answer->status), answer->body)));
  }
  Json body = Json::parse(answer->body, nullptr, false);
  if (!body.is_object()) {
    return tl::unexpected(failure(
        fmt::format("GetServeDetails failed. Failed to unmarshal bytes: {}", answer->body)));
  }
  return body;
}

std::shared_ptr<DashboardTransport> networkTransport(Network& network, std::string dashboardUrl,
                                                     std::string callerNamespace) {
  return std::make_shared<NetworkTransport>(network, std::move(dashboardUrl),
                                            std::move(callerNamespace));
}

std::shared_ptr<DashboardTransport> httpTransport(std::string baseUrl, Duration timeout) {
  return std::make_shared<HttpTransport>(std::move(baseUrl), timeout);
}

std::shared_ptr<DashboardTransport> kubernetesProxyTransport(RestClient& client, std::string ns,
                                                             std::string service,
                                                             std::string port) {
  return std::make_shared<KubernetesProxyTransport>(client, std::move(ns), std::move(service),
                                                    std::move(port));
}

DashboardClientFactory inProcessDashboardClients(Network& network) {
  return [&network](const Json& rayCluster, const std::string& dashboardUrl) {
    return makeClient(networkTransport(network, dashboardUrl, meta::namespace_(rayCluster)));
  };
}

DashboardClientFactory httpDashboardClients() {
  return [](const Json&, const std::string& dashboardUrl) {
    return makeClient(httpTransport("http://" + dashboardUrl));
  };
}

DashboardClientFactory kubernetesProxyDashboardClients(RestClient& client) {
  return [&client](const Json& rayCluster,
                   const std::string&) -> Result<std::unique_ptr<RayDashboardClientInterface>> {
    std::string service;
    if (const Json& name = jsonAt(rayCluster, {"status", "head", "serviceName"});
        name.is_string()) {
      service = name.get<std::string>();
    }
    if (service.empty()) {
      if (meta::name(rayCluster).empty()) {
        return tl::unexpected(Status::badRequest(
            "failed to construct Ray dashboard client: the RayCluster has no name"));
      }
      service = fmt::format("{}-{}", meta::name(rayCluster), kHeadServiceSuffix);
    }
    return makeClient(kubernetesProxyTransport(client, meta::namespace_(rayCluster), service,
                                               std::string(kDashboardPortName)));
  };
}

}  // namespace fakekube::ray
