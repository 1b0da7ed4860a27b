#include "controllers/ray/sim/ray_simulation.h"

#include <nlohmann/json.hpp>

#include "controllers/ray/constants.h"

namespace fakekube::ray {

namespace {

// A worker's `ray start --address=... --block`: runs until stopped, printing what Ray prints.
ProcessFactory rayWorker() {
  return behavior::fromFunction([](const std::shared_ptr<ProcessContext>& context) {
    context->print("Local node IP: " + context->podIp() +
                   "\n\n--------------------\nRay runtime started.\n--------------------\n\n"
                   "To terminate the Ray runtime, run\n  ray stop\n"
                   "--block\n"
                   "  This command will now block forever until terminated by a signal.");
  });
}

}  // namespace

void addRayBehaviors(BehaviorRegistry& registry, RaySimulationOptions options) {
  registry.on(
      [](const Json&, const Json& container, bool init) {
        return !init &&
               BehaviorRegistry::commandLine(container).find("ray start") != std::string::npos;
      },
      rayWorker());
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
  registry.on(
      [](const Json&, const Json& container, bool init) {
        return !init && (container.value("name", "") == "autoscaler" ||
                         BehaviorRegistry::commandLine(container).find("ray kuberay-autoscaler") !=
                             std::string::npos);
      },
      rayAutoscaler(options.autoscaler));
}

}  // namespace fakekube::ray
