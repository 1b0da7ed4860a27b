// `fakekube serve`: the Kubernetes API on a local port, for kubectl, client libraries and
// operators in other processes, with the cluster's controllers running in process.
//
// It runs on real threads and the real clock (ThreadPoolExecutor): the same components that tests
// drive in virtual time. It prints one line, `fakekube: serving on http://HOST:PORT`, once the
// server accepts connections (scripts wait for it), then serves until SIGINT or SIGTERM, and
// stops in order: HTTP first (no new requests), then the controllers, then the store.
#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "controllers/coscheduling/internal/coscheduling.h"
#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/internal/gateway_api.h"
#include "controllers/ray/internal/operator_rbac.h"
#include "controllers/ray/ray_operator.h"
#include "controllers/ray/sim/internal/gateway_controller.h"
#include "controllers/ray/sim/ray_simulation.h"
#include "controllers/volcano/internal/volcano_scheduler.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/client/kubeconfig.h"
#include "fakekube/cluster/cluster.h"
#include "fakekube/http/http_server.h"
#include "fakekube/http/tls_certificate.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/thread_pool_executor.h"
#include "tools/cli/commands.h"
#include "tools/cli/stop_signals.h"

namespace fakekube::cli {
namespace {

int serveError(const std::string& message) {
  std::fprintf(stderr, "fakekube serve: %s\n", message.c_str());
  return 1;
}

// "HOST:PORT", "[v6]:PORT" or ":PORT" (loopback).
bool parseListen(const std::string& listen, std::string& host, int& port) {
  auto colon = listen.rfind(':');
  if (colon == std::string::npos) return false;
  host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) host = "127.0.0.1";
  const std::string portText = listen.substr(colon + 1);
  if (portText.empty() || portText.size() > 5) return false;
  for (char c : portText) {
    if (c < '0' || c > '9') return false;
  }
  port = std::stoi(portText);
  return port <= 65535;
}

// The simulated Gateway API implementation's name in --controllers.
constexpr std::string_view kGatewayControllerName = "gateway";

// --controllers: the cluster's parts, the KubeRay operator's controllers and the simulated
// Gateway API implementation in one list.
struct Controllers {
  std::set<std::string> cluster;
  std::set<std::string> ray;
  bool gateway = false;
};

Result<Controllers> splitControllers(const std::string& list) {
  Controllers controllers;
  if (list.empty() || list == "all") {
    auto cluster = parseClusterComponents("");
    if (!cluster) return tl::unexpected(cluster.error());
    controllers.cluster = *cluster;
    controllers.ray = {ray::rayControllerNames().begin(), ray::rayControllerNames().end()};
    controllers.gateway = true;
    return controllers;
  }
  const auto& clusterNames = clusterComponentNames();
  std::stringstream names(list);
  for (std::string name; std::getline(names, name, ',');) {
    if (name.empty()) continue;
    if (ray::isRayControllerName(name)) {
      controllers.ray.insert(name);
    } else if (name == kGatewayControllerName) {
      controllers.gateway = true;
    } else if (std::find(clusterNames.begin(), clusterNames.end(), name) != clusterNames.end()) {
      controllers.cluster.insert(name);
    } else {
      return tl::unexpected(Status::badRequest(fmt::format(
          "unknown controller \"{}\" (known: {}, {}, {})", name, fmt::join(clusterNames, ", "),
          fmt::join(ray::rayControllerNames(), ", "), kGatewayControllerName)));
    }
  }
  return controllers;
}

}  // namespace

namespace {

// The flags' values, checked; the address to listen on.
Result<void> checkServeOptions(const ServeOptions& options, std::string& host, int& port) {
  if (!parseListen(options.listen, host, port)) {
    return tl::unexpected(Status::badRequest(fmt::format(
        "--listen \"{}\": expected HOST:PORT (port 0 picks a free one)", options.listen)));
  }
  if (options.authorizationMode != "RBAC" && options.authorizationMode != "AlwaysAllow") {
    return tl::unexpected(Status::badRequest(fmt::format(
        "--authorization-mode \"{}\": expected RBAC or AlwaysAllow", options.authorizationMode)));
  }
  if (options.nodes < 0 || options.nodes > 10000) {
    return tl::unexpected(
        Status::badRequest(fmt::format("--nodes {}: expected 0..10000", options.nodes)));
  }
  if (options.retainedRevisions < 0) {
    return tl::unexpected(Status::badRequest(
        fmt::format("--retained-revisions {}: expected 0 or more", options.retainedRevisions)));
  }
  if (!(options.timeScale >= 1 && options.timeScale <= 1000)) {
    return tl::unexpected(
        Status::badRequest(fmt::format("--time-scale {}: expected 1..1000", options.timeScale)));
  }
  return {};
}

// The HTTP server's options: the address, the token, the cluster's network and logs, the
// metrics of the managers' controllers, and TLS with --token or --tls.
Result<HttpServerOptions> httpServerOptions(const ServeOptions& options, const std::string& host,
                                            int port, Cluster& cluster,
                                            std::vector<Manager*> managers) {
  HttpServerOptions httpOptions;
  httpOptions.host = host;
  httpOptions.port = port;
  httpOptions.bearerToken = options.token;
  httpOptions.network = &cluster.network();
  httpOptions.containerLogs = &cluster.containerLogs();
  // /metrics: the API server's request metrics, then the controllers' (controller-runtime's
  // names), as a kube-apiserver, a controller manager, the KubeRay operator and the Volcano
  // scheduler would each serve theirs.
  httpOptions.extraMetrics = [managers = std::move(managers)] {
    std::string text;
    for (Manager* manager : managers) text += manager->renderMetrics();
    return text;
  };
  // Kubernetes clients send a token only over TLS: with --token (or --tls) serve HTTPS, with a
  // certificate made now and handed to clients as the kubeconfig's certificate authority.
  if (options.tls || !options.token.empty()) {
    std::vector<std::string> names = {host, "localhost", "127.0.0.1"};
    auto certificate = makeSelfSignedCertificate(names);
    if (!certificate) return tl::unexpected(certificate.error());
    httpOptions.tls = *certificate;
  }
  return httpOptions;
}

// --kubeconfig-out: a kubeconfig for the server (its CA with TLS), when asked for.
Result<void> writeKubeconfig(const ServeOptions& options, const std::string& url,
                             const HttpServerOptions& httpOptions) {
  if (options.kubeconfigOut.empty()) return {};
  std::ofstream out(options.kubeconfigOut, std::ios::trunc);
  out << renderKubeconfig(url, options.token,
                          httpOptions.tls ? httpOptions.tls->certificatePem : "");
  if (!out)
    return tl::unexpected(Status::internal(fmt::format("cannot write {}", options.kubeconfigOut)));
  return {};
}

// Pods in KubeRay's shape run the simulated Ray head, workers, submitter and autoscaler; the
// autoscaler reaches the API server through `autoscalerClient`.
void addRaySimulation(Cluster& cluster, Client& autoscalerClient) {
  ray::RaySimulationOptions simulation;
  simulation.autoscaler.client = &autoscalerClient;
  ray::addRayBehaviors(cluster.behaviors(), simulation);
}

// --controllers gateway: the Gateway API's Gateway and HTTPRoute definitions (kept when the Gateway
// API's own CRD files were applied first) and the simulated implementation reporting their status
// (Accepted, Programmed, ResolvedRefs), on a manager of its own as Istio's controller runs in its
// own pod: what KubeRay's incremental upgrade waits for.
Result<void> addGatewayImplementation(ApiServer& server, Manager& gateways) {
  InProcessClient admin(server);
  if (auto installed = ray::installGatewayApi(admin); !installed) return installed;
  return ray::addGatewayControllers(gateways);
}

// Watches that allow bookmarks get one a minute, as from a real API server: it lets a client
// that resumes after a dropped connection start from a recent revision. Dropping the answer ends
// them.
std::shared_ptr<std::function<void()>> scheduleBookmarks(Executor& executor, ApiServer& server) {
  auto bookmarks = std::make_shared<std::function<void()>>();
  *bookmarks = [&executor, &server, weak = std::weak_ptr(bookmarks)] {
    server.sendBookmarks();
    if (auto next = weak.lock()) executor.postAfter(std::chrono::minutes(1), *next);
  };
  executor.postAfter(std::chrono::minutes(1), *bookmarks);
  return bookmarks;
}

// The KubeRay operator's client. With --operator-service-account NS/NAME: KubeRay's CRDs and
// RBAC installed by the server's own identity, as `kubectl apply -k config/default` would, and
// every request of the operator made as system:serviceaccount:NS:NAME.
Result<std::unique_ptr<InProcessClient>> operatorClientFor(const ServeOptions& options,
                                                           ApiServer& server) {
  if (options.operatorServiceAccount.empty()) return std::make_unique<InProcessClient>(server);
  const std::string& text = options.operatorServiceAccount;
  const auto slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size() ||
      text.find('/', slash + 1) != std::string::npos) {
    return tl::unexpected(Status::badRequest(
        fmt::format("--operator-service-account \"{}\": expected NAMESPACE/NAME", text)));
  }
  const std::string ns = text.substr(0, slash);
  const std::string name = text.substr(slash + 1);
  InProcessClient admin(server);
  if (auto installed = ray::installCustomResourceDefinitions(admin); !installed) {
    return tl::unexpected(installed.error());
  }
  if (auto installed = ray::installOperatorRbac(admin, ns, name); !installed) {
    return tl::unexpected(installed.error());
  }
  return std::make_unique<InProcessClient>(server, serviceAccountUser(ns, name));
}

// The API server behind `fakekube serve`: on the executor's threads and clock, its store in
// --db (else in memory) keeping --retained-revisions, authorizing by --authorization-mode.
Result<std::unique_ptr<ApiServer>> openServedApiServer(const ServeOptions& options,
                                                       ThreadPoolExecutor& executor) {
  ApiServerOptions serverOptions;
  serverOptions.executor = &executor;
  if (!options.db.empty()) serverOptions.store.path = options.db;
  serverOptions.store.retainedRevisions = options.retainedRevisions;
  serverOptions.authorization = options.authorizationMode == "AlwaysAllow"
                                    ? AuthorizationMode::AlwaysAllow
                                    : AuthorizationMode::RBAC;
  return ApiServer::open(executor.clock(), serverOptions);
}

// --batch-scheduler volcano: Volcano's API, its default Queue and the simulated Volcano
// scheduler, on a manager of their own, as vc-scheduler runs in its own pod. scheduler-plugins:
// the PodGroup API and scheduler-plugins' scheduler with the coscheduling plugin (and the
// PodGroup controller), on a manager of their own, as the chart runs them in their own pods.
Result<void> startBatchScheduler(const ServeOptions& options, Manager& volcanoScheduler,
                                 Manager& schedulerPlugins) {
  if (options.batchScheduler == "volcano") {
    if (auto added = volcano::addVolcanoScheduler(volcanoScheduler); !added) {
      return tl::unexpected(Status::internal(
          fmt::format("cannot start the Volcano scheduler: {}", added.error().message)));
    }
    volcanoScheduler.start();
  }
  if (options.batchScheduler == "scheduler-plugins") {
    if (auto added = coscheduling::addCoschedulingScheduler(schedulerPlugins); !added) {
      return tl::unexpected(Status::internal(
          fmt::format("cannot start the scheduler-plugins scheduler: {}", added.error().message)));
    }
    schedulerPlugins.start();
  }
  return {};
}

// The KubeRay operator's `controllers` on `rayOperator`, configured from the environment as
// KubeRay's binary is; CRDs installed by the operator unless --operator-service-account had the
// server install them.
Result<void> addServedRayOperator(const ServeOptions& options,
                                  const std::set<std::string>& controllers, Cluster& cluster,
                                  Manager& rayOperator) {
  ray::OperatorOptions operatorOptions = ray::OperatorOptions::fromEnvironment();
  operatorOptions.installCustomResourceDefinitions = options.operatorServiceAccount.empty();
  operatorOptions.batchScheduler = options.batchScheduler;
  // In process, the RayJob and RayService controllers reach each Ray head's dashboard (and Serve
  // proxy) through the cluster's network, as a pod of the cluster would.
  operatorOptions.httpProxyClients = ray::inProcessHttpProxyClients(cluster.network());
  return ray::addRayOperator(rayOperator, controllers, operatorOptions,
                             ray::inProcessDashboardClients(cluster.network()));
}

}  // namespace

int runServe(const ServeOptions& options) {
  std::string host;
  int port = 0;
  if (auto checked = checkServeOptions(options, host, port); !checked) {
    return serveError(checked.error().message);
  }
  auto controllers = splitControllers(options.controllers);
  if (!controllers) return serveError(controllers.error().message);

  const sigset_t stopSignals = blockStopSignals();
  ThreadPoolExecutor executor(4, options.timeScale);
  auto opened = openServedApiServer(options, executor);
  if (!opened) return serveError(fmt::format("cannot open the store: {}", opened.error().message));
  std::unique_ptr<ApiServer> server = std::move(*opened);

  ClusterOptions clusterOptions;
  clusterOptions.enabled = controllers->cluster;
  clusterOptions.nodes = options.nodes;
  // The autoscaler containers of head pods reach the API server in process.
  InProcessClient autoscalerClient(*server);
  Cluster cluster(executor, *server, clusterOptions);
  addRaySimulation(cluster, autoscalerClient);
  if (auto started = cluster.start(); !started) {
    return serveError(fmt::format("cannot start the controllers: {}", started.error().message));
  }

  // The gang scheduler of --batch-scheduler, each on a manager of its own.
  Manager volcanoScheduler(executor, *server);
  Manager schedulerPlugins(executor, *server);
  if (auto started = startBatchScheduler(options, volcanoScheduler, schedulerPlugins); !started) {
    return serveError(started.error().message);
  }

  Manager gateways(executor, *server);
  if (controllers->gateway) {
    if (auto added = addGatewayImplementation(*server, gateways); !added) {
      return serveError(
          fmt::format("cannot start the gateway controller: {}", added.error().message));
    }
    gateways.start();
  }

  // The KubeRay operator runs beside the cluster on a manager of its own (its own cache and
  // queues), as it would in its own pod; with --operator-service-account, as that identity.
  auto operatorClient = operatorClientFor(options, *server);
  if (!operatorClient) return serveError(operatorClient.error().message);
  Manager rayOperator(executor, **operatorClient);
  if (auto added = addServedRayOperator(options, controllers->ray, cluster, rayOperator); !added) {
    return serveError(fmt::format("cannot start the KubeRay operator: {}", added.error().message));
  }
  rayOperator.start();

  auto httpOptions = httpServerOptions(
      options, host, port, cluster,
      {&cluster.manager(), &rayOperator, &volcanoScheduler, &schedulerPlugins, &gateways});
  if (!httpOptions) return serveError(httpOptions.error().message);
  HttpServer http(*server, *httpOptions);
  if (auto started = http.start(); !started) return serveError(started.error().message);
  if (auto written = writeKubeconfig(options, http.url(), *httpOptions); !written) {
    return serveError(written.error().message);
  }
  auto bookmarks = scheduleBookmarks(executor, *server);
  std::printf("fakekube: serving on %s\n", http.url().c_str());
  std::fflush(stdout);

  int signal = 0;
  sigwait(&stopSignals, &signal);
  std::fprintf(stderr, "fakekube: %s, stopping\n", signal == SIGINT ? "interrupted" : "terminated");
  http.stop();
  rayOperator.stop();
  if (options.batchScheduler == "volcano") volcanoScheduler.stop();
  if (options.batchScheduler == "scheduler-plugins") schedulerPlugins.stop();
  if (controllers->gateway) gateways.stop();
  cluster.stop();
  executor.shutdown();
  bookmarks.reset();
  return 0;
}

}  // namespace fakekube::cli
