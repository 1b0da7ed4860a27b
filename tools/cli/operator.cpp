// `fakekube operator`: the KubeRay operator alone, against any API server a kubeconfig names —
// `fakekube serve` in another process, or a real cluster. It reaches the server only through the
// REST client, with its own informers, as KubeRay's operator pod does.
//
// `--config FILE` reads KubeRay's Configuration (operator_configuration.h): the head and worker
// sidecar containers, reconcileConcurrency and the other settings it names replace the flags'.
//
// It prints `fakekube operator: running against URL` once its caches synced and the controllers
// started (scripts wait for it), then runs until SIGINT or SIGTERM.
#include <fmt/format.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "controllers/ray/internal/operator_configuration.h"
#include "controllers/ray/ray_operator.h"
#include "fakekube/client/kubeconfig.h"
#include "fakekube/client/rest_client.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/thread_pool_executor.h"
#include "tools/cli/commands.h"
#include "tools/cli/stop_signals.h"

namespace fakekube::cli {
namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "fakekube operator: %s\n", message.c_str());
  return 1;
}

}  // namespace

int runOperator(const OperatorCommandOptions& options) {
  if (options.kubeconfig.empty()) return fail("--kubeconfig FILE is required");
  if (!(options.timeScale >= 1 && options.timeScale <= 1000)) {
    return fail(fmt::format("--time-scale {}: expected 1..1000", options.timeScale));
  }
  if (options.reconcileConcurrency < 1 || options.reconcileConcurrency > 1000) {
    return fail(
        fmt::format("--reconcile-concurrency {}: expected 1..1000", options.reconcileConcurrency));
  }
  std::set<std::string> controllers;
  if (options.controllers.empty() || options.controllers == "all") {
    controllers = {ray::rayControllerNames().begin(), ray::rayControllerNames().end()};
  } else {
    std::stringstream names(options.controllers);
    for (std::string name; std::getline(names, name, ',');) {
      if (!name.empty()) controllers.insert(name);
    }
  }
  for (const auto& name : controllers) {
    if (!ray::isRayControllerName(name)) {
      return fail(fmt::format("unknown controller \"{}\" (known: {})", name,
                              fmt::join(ray::rayControllerNames(), ", ")));
    }
  }
  ray::OperatorOptions operatorOptions = ray::OperatorOptions::fromEnvironment();
  operatorOptions.reconcileConcurrency = options.reconcileConcurrency;
  operatorOptions.batchScheduler = options.batchScheduler;
  // As KubeRay's --config: the Configuration file replaces the flags.
  if (!options.config.empty()) {
    if (auto loaded = ray::loadOperatorConfiguration(options.config, operatorOptions); !loaded) {
      return fail(loaded.error().message);
    }
  }
  // Out of process, the Ray dashboards are reached through the API server's service proxy.
  operatorOptions.useKubernetesProxy = true;
  auto config = loadKubeconfig(options.kubeconfig, options.context);
  if (!config) return fail(config.error().message);
  auto client = RestClient::create(*config);
  if (!client) return fail(client.error().message);

  const sigset_t stopSignals = blockStopSignals();

  ThreadPoolExecutor executor(4, options.timeScale);
  {
    Manager manager(executor, **client);
    if (auto added = ray::addRayOperator(manager, controllers, operatorOptions); !added) {
      return fail(added.error().message);
    }
    manager.start();
    // Wait (on this thread, which runs no executor work) until the caches synced.
    for (int waited = 0; !manager.running(); ++waited) {
      if (waited == 3000) return fail("the caches did not sync within 30 s");
      struct timespec tick = {0, 10'000'000};
      nanosleep(&tick, nullptr);
    }
    std::printf("fakekube operator: running against %s\n", config->server.c_str());
    std::fflush(stdout);

    int signal = 0;
    sigwait(&stopSignals, &signal);
    std::fprintf(stderr, "fakekube operator: %s, stopping\n",
                 signal == SIGINT ? "interrupted" : "terminated");
    manager.stop();
    executor.shutdown();
  }
  return 0;
}

}  // namespace fakekube::cli
