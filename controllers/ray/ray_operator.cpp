#include "controllers/ray/ray_operator.h"

#include <fmt/format.h>

#include <algorithm>

#include "controllers/ray/batchscheduler/internal/batch_scheduler.h"
#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/internal/raycluster_controller.h"
#include "controllers/ray/internal/rayjob_controller.h"
#include "controllers/ray/internal/rayservice_controller.h"
#include "fakekube/runtime/manager.h"

namespace fakekube::ray {

const std::vector<std::string>& rayControllerNames() {
  static const std::vector<std::string> names = {"raycluster", "rayjob", "rayservice"};
  return names;
}

bool isRayControllerName(std::string_view name) {
  const auto& names = rayControllerNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

Result<void> addRayOperator(Manager& manager, const std::set<std::string>& controllers,
                            const OperatorOptions& options, DashboardClientFactory dashboards) {
  for (const auto& name : controllers) {
    if (!isRayControllerName(name)) {
      return tl::unexpected(
          Status::badRequest(fmt::format("unknown KubeRay controller \"{}\" (known: {})", name,
                                         fmt::join(rayControllerNames(), ", "))));
    }
  }
  if (controllers.empty()) return {};
  // ValidateBatchSchedulerConfig: an unknown batch scheduler stops the operator at start.
  if (auto valid = batchscheduler::validateBatchSchedulerConfig(options.batchScheduler,
                                                                options.enableBatchScheduler);
      !valid) {
    return valid;
  }
  // RayCluster and RayJob always (a RayJob's cluster is a RayCluster); RayService with its
  // controller.
  std::vector<Json> definitions = {rayClusterCustomResourceDefinition(),
                                   rayJobCustomResourceDefinition()};
  if (controllers.contains("rayservice")) {
    definitions.push_back(rayServiceCustomResourceDefinition());
  }
  if (options.installCustomResourceDefinitions) {
    if (auto installed =
            installCustomResourceDefinitions(manager.client().underlyingClient(), definitions);
        !installed) {
      return tl::unexpected(installed.error());
    }
  }
  if (controllers.contains("raycluster")) {
    if (auto added = addRayClusterController(manager, options); !added)
      return tl::unexpected(added.error());
  }
  // The RayJob and RayService controllers reach Ray the same way (ray_clients.h).
  OperatorOptions rayOptions = options;
  if (dashboards) rayOptions.dashboardClients = std::move(dashboards);
  if (controllers.contains("rayjob")) {
    if (auto added = addRayJobController(manager, rayOptions); !added)
      return tl::unexpected(added.error());
  }
  if (controllers.contains("rayservice")) {
    if (auto added = addRayServiceController(manager, rayOptions); !added)
      return tl::unexpected(added.error());
  }
  return {};
}

Result<void> addRayOperator(Manager& manager, const std::set<std::string>& controllers) {
  return addRayOperator(manager, controllers, OperatorOptions{});
}

}  // namespace fakekube::ray
