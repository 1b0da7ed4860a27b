// The Serve side of the RayService controller, as free functions its tests reach (KubeRay's
// getAndCheckServeStatus and checkIfNeedSubmitServeApplications, and the conversion of
// spec.serveConfigV2 that updateServeDeployment sends).
//
// When the controller sends the Serve config (PUT /api/serve/applications/) to a cluster, in
// checkIfNeedSubmitServeApplications' order:
//   1. nothing is cached for the cluster (the operator never sent it, or restarted since):
//      "Nothing has been cached for the cluster."
//   2. the cluster reports no application (its head restarted without GCS fault tolerance):
//      "No Serve application found in the RayCluster. A possible reason is that the head Pod
//      crashed and GCS FT was not enabled."
//   3. the cached config differs from spec.serveConfigV2: "Current V2 Serve config doesn't match
//      cached Serve config."
// Otherwise not ("Current V2 Serve config matches cached Serve config."). The cache lives in the
// operator's memory only, so a restarted operator sends each cluster's config once more.
#pragma once

#include <string>
#include <utility>

#include "controllers/ray/dashboard_client.h"
#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube::ray {

// Whether to send the config, and why.
std::pair<bool, std::string> checkIfNeedSubmitServeApplications(const std::string& cached,
                                                                const std::string& serveConfigV2,
                                                                const Json& applications);

// The cluster's applications as status.*ServiceStatus.applicationStatuses holds them ({name:
// {status, message, serveDeploymentStatuses: {name: {status, message}}}}; Ray's "" application
// is "default"), and whether it is ready to take traffic: at least one application and all of
// them RUNNING. An error of the dashboard is wrapped as upstream words it.
struct ServeStatus {
  bool ready = false;
  Json applications = Json::object();
};
Result<ServeStatus> getAndCheckServeStatus(RayDashboardClientInterface& dashboard);

// spec.serveConfigV2 (YAML) as the JSON body of the PUT; a 400 when it is not a YAML mapping.
Result<std::string> serveConfigJson(const std::string& serveConfigV2);

// A failed PUT of the config as upstream words it ("fail to create / update Serve applications.
// If you observe this error consistently, ... err: <dashboard's error>").
Status serveUpdateError(const Status& dashboardError);

}  // namespace fakekube::ray
