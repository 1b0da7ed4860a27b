#include "controllers/ray/sim/ray_simulation.h"

#include <nlohmann/json.hpp>

#include "controllers/ray/constants.h"
#include "controllers/ray/sim/ray_serve.h"
#include "fakekube/api/json_lookup.h"

namespace fakekube::ray {

namespace {

// The serve port a RayService worker's readiness probe checks (KubeRay appends
// `wget ... http://localhost:<port>/-/healthz` to it), or 0 for any other worker.
int probedServePort(const Json& container) {
  const Json& command = jsonAt(container, {"readinessProbe", "exec", "command"});
  if (!command.is_array()) return 0;
  for (const Json& part : command) {
    if (!part.is_string()) continue;
    const std::string& text = part.get_ref<const std::string&>();
    const auto at = text.find("/-/healthz");
    if (at == std::string::npos) continue;
    const auto colon = text.rfind(':', at);
    if (colon == std::string::npos) return 0;
    return std::atoi(text.substr(colon + 1, at - colon - 1).c_str());
  }
  return 0;
}

// The host of `--address=<host>:<port>` in a worker's command line.
std::string gcsHost(const std::string& commandLine) {
  const auto at = commandLine.find("--address=");
  if (at == std::string::npos) return "";
  std::string address = commandLine.substr(at + 10);
  address = address.substr(0, address.find_first_of(" ;'\"\n"));
  if (!address.empty() && (address.front() == '\'' || address.front() == '"')) {
    address.erase(0, 1);
  }
  return address.substr(0, address.rfind(':'));
}

// A worker's `ray start --address=... --block`: runs until stopped, printing what Ray prints. A
// RayService worker also runs a Serve proxy (ray_serve.h), and is Ready while it is healthy.
ProcessFactory rayWorker() {
  return behavior::fromFunction([](const std::shared_ptr<ProcessContext>& context) {
    context->print("Local node IP: " + context->podIp() +
                   "\n\n--------------------\nRay runtime started.\n--------------------\n\n"
                   "To terminate the Ray runtime, run\n  ray stop\n"
                   "--block\n"
                   "  This command will now block forever until terminated by a signal.");
    const int port = probedServePort(context->container());
    if (port <= 0) return;
    const Json& period = jsonAt(context->container(), {"readinessProbe", "periodSeconds"});
    startWorkerServeProxy(context, gcsHost(BehaviorRegistry::commandLine(context->container())),
                          kDefaultDashboardPort, port,
                          std::chrono::seconds(period.is_number_integer() ? period.get<int>() : 5));
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
