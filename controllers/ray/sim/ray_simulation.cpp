#include "controllers/ray/sim/ray_simulation.h"

#include <nlohmann/json.hpp>

#include "controllers/ray/constants.h"

namespace fakekube::ray {

void addRayBehaviors(BehaviorRegistry& registry, RaySimulationOptions options) {
  registry.on(
      [](const Json&, const Json& container, bool init) {
        return !init &&
               BehaviorRegistry::commandLine(container).find("ray start") != std::string::npos;
      },
      behavior::runForever());
  registry.on(
      [](const Json&, const Json& container, bool init) {
        const std::string line = BehaviorRegistry::commandLine(container);
        return !init && line.find("ray start") != std::string::npos &&
               line.find("--head") != std::string::npos;
      },
      rayHead(options.head));
  registry.on(
      [](const Json&, const Json& container, bool init) {
        return init && (container.value("name", "") == kWaitGcsReadyInitContainerName ||
                        BehaviorRegistry::commandLine(container).find("ray health-check") !=
                            std::string::npos);
      },
      waitGcsReady(options.cli));
  registry.on(
      [](const Json&, const Json& container, bool init) {
        return !init &&
               (container.value("name", "") == kSubmitterContainerName ||
                BehaviorRegistry::commandLine(container).find("ray job ") != std::string::npos);
      },
      rayShellProcess(options.cli));
}

}  // namespace fakekube::ray
