// The KubeRay operator: its CustomResourceDefinitions and its controllers on one Manager, as
// KubeRay's main.go sets them up.
//
//   Manager manager(executor, client);          // in process, or over a RestClient
//   auto added = ray::addRayOperator(manager, {"raycluster", "rayjob"}, options);
//   manager.start();
//
// The controllers read through the manager's cache and write through its client only, so the
// same operator runs inside `fakekube serve` and, as `fakekube operator`, against any API server.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "controllers/ray/dashboard_client_factory.h"
#include "controllers/ray/operator_options.h"
#include "fakekube/api/status.h"

namespace fakekube {
class Manager;
}

namespace fakekube::ray {

// The operator's controllers by the names `--controllers` takes: raycluster, rayjob, rayservice.
const std::vector<std::string>& rayControllerNames();
bool isRayControllerName(std::string_view name);

// Installs the CRDs (existing definitions are kept: RayCluster and RayJob, and RayService when
// its controller is named; not when options.installCustomResourceDefinitions is false) and adds
// each named controller to `manager`. Unknown names are a 400 error listing the known ones.
//
// The RayJob and RayService controllers ask Ray dashboards through `dashboards`, else through
// options.dashboardClients. Without either: with options.useKubernetesProxy and a manager over a
// RestClient, through that API server's service proxy (as KubeRay's --use-kubernetes-proxy);
// otherwise over HTTP to the dashboardURL. The RayService controller asks head pods' Serve
// proxies through options.httpProxyClients, else likewise through the API server's pods proxy or
// over HTTP to the pod IP.
Result<void> addRayOperator(Manager& manager, const std::set<std::string>& controllers,
                            const OperatorOptions& options,
                            DashboardClientFactory dashboards = nullptr);
// With the default OperatorOptions. (An overload, not a default argument: OperatorOptions holds
// Json documents, which this header names but does not define.)
Result<void> addRayOperator(Manager& manager, const std::set<std::string>& controllers);

}  // namespace fakekube::ray
