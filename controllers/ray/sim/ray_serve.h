// RayServe: Ray Serve in the simulated Ray head (ray_head.h), as the RayService controller sees
// it through the dashboard, and the Serve proxies the serve Service sends traffic to.
//
// The head's dashboard serves Serve's REST API (Ray's JSON shapes):
//   PUT /api/serve/applications/     a config {"applications": [{"name", "route_prefix",
//                                    "import_path", "deployments": [{"name", ...}], ...}], ...}
//                                    -> 200 ""; an application that is new or whose config
//                                    changed starts over (NOT_STARTED); applications the config
//                                    no longer names are DELETING, then gone. A body that is not
//                                    such a config -> 400.
//   GET  /api/serve/applications/?api_type=declarative
//                                    ServeInstanceDetails: {"deploy_mode", "proxy_location",
//                                    "controller_info", "proxies", "target_capacity" (the
//                                    config's, null without), "applications": {name: {"name",
//                                    "route_prefix", "docs_path", "status", "message",
//                                    "last_deployed_time_s", "deployed_app_config",
//                                    "deployments": {name: {"name", "status", "message",
//                                    "status_trigger", "replicas"}}}}}
// Each application goes NOT_STARTED -> DEPLOYING (after startDelay) -> RUNNING (after
// deployDelay), its deployments UPDATING -> HEALTHY, on the head's clock. An application can be
// made to end DEPLOY_FAILED or to turn UNHEALTHY some time after it ran (a deployment then
// UNHEALTHY), from C++ (RayServeOptions::applications) or, for kubectl users, from the head pod's
// annotation `fakekube.io/ray-serve-simulation`, a JSON object by application name:
//   {"app1": {"deploySeconds": 20, "status": "DEPLOY_FAILED", "message": "...",
//             "unhealthyAfterSeconds": 60}}
// (set it in the RayService's rayClusterConfig.headGroupSpec.template.metadata.annotations).
//
// Serve lives in the head's process: a head container that restarts has no applications (Ray
// without GCS fault tolerance), and the RayService controller sends its config again.
//
// Proxies. Once Serve started (the first config), the head listens on its serve port (the Ray
// container's port named "serve", else 8000; before, nothing answers there): GET /-/healthz
// answers 200 "success" while some application is RUNNING, else 503 "This node is being
// drained."; GET /-/routes lists the route prefixes; any other path is answered by the RUNNING
// application whose route_prefix it starts with (200 "<application>: hello from <pod>") or 404.
// A RayService's workers (whose readiness probe checks the proxy, KubeRay's `wget ...
// localhost:8000/-/healthz`) run a proxy of their own, healthy by the same rule, which learns the
// applications' state by asking the head's dashboard every readiness period; a worker is Ready
// only while its proxy is healthy (ray_simulation.h).
//
// Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/cluster/container_behavior.h"
#include "fakekube/sim/clock.h"

namespace fakekube::ray {

// How one application's deployment goes.
struct ServeApplicationBehavior {
  // NOT_STARTED -> DEPLOYING, DEPLOYING -> the final status.
  Duration startDelay = std::chrono::seconds(1);
  Duration deployDelay = std::chrono::seconds(5);
  // RUNNING or DEPLOY_FAILED.
  std::string finalStatus = "RUNNING";
  // The application's message in its final status ("" gives Ray's for a failure).
  std::string message;
  // A RUNNING application turns UNHEALTHY this long after it ran (zero: never).
  Duration unhealthyAfter{0};
};

struct RayServeOptions {
  // Every application not named below.
  ServeApplicationBehavior defaults;
  std::map<std::string, ServeApplicationBehavior> applications;
};

// The annotation of the head pod read as per-application behaviours (see the top of this file).
inline constexpr std::string_view kRayServeSimulationAnnotation =
    "fakekube.io/ray-serve-simulation";

// Serve's state in one head process.
class RayServe : public std::enable_shared_from_this<RayServe> {
 public:
  // `podAnnotations` may hold kRayServeSimulationAnnotation; its entries win over `options`.
  RayServe(RayServeOptions options, std::shared_ptr<ProcessContext> context,
           const Json& podAnnotations);

  // The dashboard's /api/serve/applications/ (path without the query).
  HttpResponse dashboard(const HttpRequest& request);
  // The proxy on the serve port.
  HttpResponse proxy(const HttpRequest& request);
  // Some application is RUNNING.
  bool proxiesHealthy() const;

 private:
  struct Application {
    std::uint64_t generation = 0;  // bumped by every (re)deploy, so that stale timers do nothing
    // Behind a pointer: this header names Json without defining it (api/json.h), as every
    // public header does. Set whenever the application is deployed.
    std::shared_ptr<const Json> config;
    std::string status = "NOT_STARTED";
    std::string message;
    std::string deploymentStatus = "UPDATING";
    std::int64_t lastDeployed = 0;
    bool deleting = false;
  };

  HttpResponse applyConfig(const std::string& body);
  // Serve starts with the first config: the head's proxy listens on the serve port from then on.
  void startProxy();
  Json details() const;
  const ServeApplicationBehavior& behaviorFor(const std::string& name) const;
  void schedule(const std::string& name, std::uint64_t generation);
  void advance(const std::string& name, std::uint64_t generation, std::string_view from);

  RayServeOptions options_;
  std::shared_ptr<ProcessContext> context_;
  mutable std::mutex mu_;
  std::map<std::string, Application> applications_;
  std::uint64_t nextGeneration_ = 0;
  // The config's target_capacity (none: null), which scales every deployment's replicas in Ray;
  // here only reported back, as KubeRay's incremental upgrade reads it. Behind a pointer: this
  // header only declares Json.
  std::shared_ptr<const Json> targetCapacity_;
  bool proxyStarted_ = false;
};

// The serve port of a container: its port named "serve", else 8000.
int servePort(const Json& container);

// A RayService worker's proxy: checks the head's Serve every `period` (asking the dashboard at
// `dashboardHost:dashboardPort`), answers /-/healthz on `port`, and sets the container's
// readiness by it. Call from the worker's start().
void startWorkerServeProxy(const std::shared_ptr<ProcessContext>& context,
                           std::string dashboardHost, int dashboardPort, int port, Duration period);

}  // namespace fakekube::ray
