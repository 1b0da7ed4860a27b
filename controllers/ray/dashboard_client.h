// What KubeRay's operator asks a Ray head's dashboard (the Jobs API and Serve's REST API): the
// interface
// (RayDashboardClientInterface, as upstream's dashboardclient.RayDashboardClientInterface) and
// DashboardClient, which implements it over one of three transports as upstream's
// RayDashboardClient does.
//
// A test replaces the client as KubeRay's tests do with their FakeRayDashboardClient: its own
// RayDashboardClientInterface, returned by the DashboardClientFactory it sets in
// OperatorOptions::dashboardClients (operator_options.h). The RayJob controller then asks the
// fake for every job it submits, watches and stops. DashboardClient's answers:
//
//   call          request                    answer
//   getJobInfo    GET    /api/jobs/<id>      RayJobInfo; 404 -> 400 BadRequest "Job <id> does not
//                                            exist on the cluster" (how the RayJob controller
//                                            tells "not submitted yet" from other errors)
//   listJobs      GET    /api/jobs/          every job (404: none)
//   submitJob     POST   /api/jobs/          the submission id; a 500 saying "Please use a
//                                            different submission_id" -> 409 AlreadyExists
//                                            "submission ID '<id>' already used, Please use a
//                                            different submission_id"
//   getJobLog     GET    /api/jobs/<id>/logs the logs; nullopt for 404 (as upstream)
//   stopJob       POST   /api/jobs/<id>/stop ok when stopped, or when not stopped because the job
//                                            is terminal already (asked with getJobInfo)
//   deleteJob     DELETE /api/jobs/<id>      ok whatever the answer
//   updateDeployments
//                 PUT    /api/serve/applications/   the Serve config (JSON); a non-2xx answer ->
//                                            "UpdateDeployments fail: <status> <body>"
//   getServeDetails
//                 GET    /api/serve/applications/?api_type=declarative
//                                            ServeDetails; non-2xx -> "GetServeDetails fail:
//                                            <status> <body>"
//   getMultiApplicationStatus
//                 getServeDetails' applications by name (an error is wrapped "failed to get serve
//                 details: ...")
// Every other failure is a 500 InternalError Status whose message names the call: a transport
// error as Go's net/http words it (`Get "http://x/api/jobs/y": dial tcp ...: connection refused`),
// an answer that is not JSON as "GetJobInfo fail: <body>". Unlike upstream, a non-2xx answer other
// than the ones above is an error even when its body is JSON (upstream would decode a proxy's
// Status document as an empty job). With a token, requests carry `x-ray-authorization: Bearer T`.
//
// Transports (DashboardTransport: one request, one answer):
//   networkTransport   in process, through the cluster's Network, resolving the dashboardURL
//                      `<svc>.<ns>.svc.cluster.local:<port>` as a pod would. The call runs the
//                      head's handler synchronously in the caller's task and costs no virtual
//                      time, so a reconcile on the SimExecutor simply calls it.
//   httpTransport      HTTP to http://<dashboardURL> (a real dashboard, or one reachable from
//                      outside), with a 2 s timeout as upstream's client.
//   kubernetesProxyTransport
//                      through the API server's service proxy, over the REST client's
//                      connections: <server>/api/v1/namespaces/<ns>/services/<svc>:dashboard/
//                      proxy/api/jobs/..., as the operator's --use-kubernetes-proxy does
//                      (fakekube operator out of process reaches in-process heads this way).
// DashboardClientFactory mirrors upstream's GetRayDashboardClientFunc: given the RayCluster and
// its dashboardURL, a client.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "controllers/ray/dashboard_client_factory.h"
#include "fakekube/api/json.h"
#include "fakekube/api/status.h"
#include "fakekube/cluster/network.h"
#include "fakekube/sim/clock.h"

namespace fakekube {
class RestClient;
}

namespace fakekube::ray {

// Ray's job statuses; terminal: STOPPED, SUCCEEDED, FAILED (rayv1.IsJobTerminal).
bool isJobTerminal(std::string_view status);

// The answer of GET /api/jobs/<id> (utiltypes.RayJobInfo).
struct RayJobInfo {
  std::string jobStatus;  // "status"
  std::string entrypoint;
  std::string jobId;
  std::string submissionId;
  std::string message;
  std::string errorType;
  Json metadata;
  Json runtimeEnv;
  std::uint64_t startTime = 0;  // ms since the epoch
  std::uint64_t endTime = 0;

  static RayJobInfo fromJson(const Json& j);
};

// The body of POST /api/jobs/ (utiltypes.RayJobRequest).
struct RayJobRequest {
  std::string entrypoint;
  std::string submissionId;
  Json metadata;    // object or null
  Json runtimeEnv;  // object or null
  Json resources;   // entrypoint_resources: object or null
  double numCpus = 0;
  double numGpus = 0;

  // ConvertRayJobToReq: entrypoint, status.jobId, metadata, runtimeEnvYAML (YAML), the
  // entrypoint's CPUs, GPUs and resources (JSON text). Bad YAML or JSON is a 400.
  static Result<RayJobRequest> fromRayJob(const Json& rayJob);
  Json toJson() const;
};

// Ray Serve's view of one deployment and one application (utiltypes.ServeDeploymentStatus,
// ServeApplicationStatus), as GET /api/serve/applications/ reports them.
struct ServeDeploymentStatus {
  std::string status;
  std::string message;
};
struct ServeApplicationStatus {
  std::string name;
  std::string status;
  std::string message;
  std::map<std::string, ServeDeploymentStatus> deployments;
};
using ServeApplicationStatuses = std::map<std::string, ServeApplicationStatus>;

class DashboardTransport {
 public:
  virtual ~DashboardTransport() = default;
  // Sends `request` (path relative to the dashboard's root, query included). An error is the
  // transport's failure, worded as Go's net/http error for `request`.
  virtual Result<HttpResponse> send(const HttpRequest& request) = 0;
};

// The Jobs API calls the RayJob controller makes. An implementation answers as the table above
// says DashboardClient does: in particular getJobInfo of a job the dashboard does not know is a
// 400 BadRequest "Job <id> does not exist on the cluster" (the controller then submits, in
// HTTPMode, or waits for the submitter); a job is done when jobStatus is terminal
// (isJobTerminal). Called from the controller's reconciles, one call at a time per client.
class RayDashboardClientInterface {
 public:
  virtual ~RayDashboardClientInterface() = default;

  virtual Result<RayJobInfo> getJobInfo(std::string_view jobId) = 0;
  virtual Result<std::vector<RayJobInfo>> listJobs() = 0;
  // The submission id the dashboard took (request.submissionId when set).
  virtual Result<std::string> submitJobRequest(const RayJobRequest& request) = 0;
  virtual Result<std::optional<std::string>> getJobLog(std::string_view jobId) = 0;
  virtual Result<void> stopJob(std::string_view jobId) = 0;
  virtual Result<void> deleteJob(std::string_view jobId) = 0;

  // submitJobRequest(RayJobRequest::fromRayJob(rayJob)).
  Result<std::string> submitJob(const Json& rayJob);

  // Serve's REST API, which the RayService controller uses. A client for the Jobs API alone
  // (a RayJob test's fake) need not implement them: the defaults answer 501 NotImplemented.
  virtual Result<void> updateDeployments(const std::string& configJson);
  // The whole answer of GET /api/serve/applications/?api_type=declarative (ServeDetails).
  virtual Result<Json> getServeDetails();
  // getServeDetails' applications, as ConvertServeDetailsToApplicationStatuses reads them.
  virtual Result<ServeApplicationStatuses> getMultiApplicationStatus();
};

class DashboardClient : public RayDashboardClientInterface {
 public:
  explicit DashboardClient(std::shared_ptr<DashboardTransport> transport,
                           std::string authToken = "");

  Result<RayJobInfo> getJobInfo(std::string_view jobId) override;
  Result<std::vector<RayJobInfo>> listJobs() override;
  Result<std::string> submitJobRequest(const RayJobRequest& request) override;
  Result<std::optional<std::string>> getJobLog(std::string_view jobId) override;
  Result<void> stopJob(std::string_view jobId) override;
  Result<void> deleteJob(std::string_view jobId) override;
  Result<void> updateDeployments(const std::string& configJson) override;
  Result<Json> getServeDetails() override;

 private:
  Result<HttpResponse> send(std::string method, std::string path, std::string body = "");

  std::shared_ptr<DashboardTransport> transport_;
  std::string authToken_;
};

// In process: `dashboardUrl` is host:port ("x-head-svc.default.svc.cluster.local:8265"), resolved
// by `network` for a caller in `callerNamespace`. The network must outlive the transport.
std::shared_ptr<DashboardTransport> networkTransport(Network& network, std::string dashboardUrl,
                                                     std::string callerNamespace = "");
// Over HTTP to `baseUrl` ("http://host:port", or host:port).
std::shared_ptr<DashboardTransport> httpTransport(std::string baseUrl,
                                                  Duration timeout = std::chrono::seconds(2));
// Through the API server's proxy of Service `service` (port name or number `port`) in `ns`.
// The REST client must outlive the transport.
std::shared_ptr<DashboardTransport> kubernetesProxyTransport(RestClient& client, std::string ns,
                                                             std::string service,
                                                             std::string port = "dashboard");

// DashboardClientFactory and the factories of the three transports: dashboard_client_factory.h.

}  // namespace fakekube::ray
