// Shared fixture of the scheduler, kubelet, node and network tests: an API server on a
// SimExecutor's virtual clock, a Manager over it running the scheduler, the kubelet simulation
// and the node lifecycle controller, a simulated network, and builders for nodes and pods.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fakekube/api/conditions.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/fixture.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/cluster/container_behavior.h"
#include "fakekube/cluster/kubelet.h"
#include "fakekube/cluster/network.h"
#include "fakekube/cluster/node_lifecycle_controller.h"
#include "fakekube/cluster/nodes.h"
#include "fakekube/cluster/scheduler.h"
#include "fakekube/runtime/manager.h"

namespace fakekube::clustertest {

using namespace apitest;  // NOLINT: builders and must()
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

// A container with an image and optional cpu / memory requests.
inline Json container(const std::string& name, const std::string& image,
                      const std::string& cpu = "", const std::string& memory = "") {
  Json c = {{"name", name}, {"image", image}};
  if (!cpu.empty()) c["resources"]["requests"]["cpu"] = cpu;
  if (!memory.empty()) c["resources"]["requests"]["memory"] = memory;
  return c;
}

// A pod with these containers (and init containers).
inline Json podWith(const std::string& name, std::vector<Json> containers,
                    std::vector<Json> initContainers = {}, const std::string& ns = "default") {
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", ns}}},
              {"spec", {{"containers", containers}}}};
  if (!initContainers.empty()) pod["spec"]["initContainers"] = initContainers;
  return pod;
}

class PodLifecycleTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    client = std::make_unique<InProcessClient>(*server);
    manager = std::make_unique<Manager>(ex, *server);
    network = std::make_unique<Network>(manager->client());
    start = ex.now();
  }

  void TearDown() override {
    kubelet.reset();
    manager.reset();
    scheduler.reset();
  }

  // Starts the scheduler, the kubelet and the node lifecycle controller (each unless switched
  // off) and lets the caches sync.
  void startCluster(bool withKubelet = true, bool withLifecycle = true) {
    scheduler = must(addScheduler(*manager, schedulerOptions), "addScheduler");
    if (withKubelet) {
      KubeletOptions options = kubeletOptions;
      options.behaviors = &behaviors;
      options.network = network.get();
      kubelet = must(addKubelet(*manager, options), "addKubelet");
    }
    if (withLifecycle) {
      ASSERT_TRUE(addNodeLifecycleController(*manager, lifecycleOptions).has_value());
    }
    manager->start();
    ex.runUntilIdle();
  }

  Json addNode(const std::string& name, const std::string& cpu = "8",
               const std::string& memory = "32Gi") {
    NodeConfig config;
    config.name = name;
    config.cpu = cpu;
    config.memory = memory;
    return addNode(config);
  }
  Json addNode(const NodeConfig& config) {
    return must(fakekube::addNode(*client, ex.clock(), config), "addNode");
  }

  Json createPod(Json pod) { return create(kPods, std::move(pod)); }
  // A pod of one container "main" running `image`, created, and what is due now run.
  Json runPod(const std::string& name, const std::string& image,
              const std::string& restartPolicy = "Always") {
    Json p = podWith(name, {container("main", image)});
    p["spec"]["restartPolicy"] = restartPolicy;
    Json created = createPod(p);
    runUntilIdle();
    return created;
  }
  // The pod as the server holds it now.
  Json getPod(const std::string& name, const std::string& ns = "default") {
    return get(kPods, ns, name);
  }
  bool podExists(const std::string& name, const std::string& ns = "default") {
    return server->get(kPods, ns, name).has_value();
  }

  // Lets `d` of virtual time pass.
  void run(Duration d) { ex.advance(d); }
  // Runs everything due now; time stays put.
  void runUntilIdle() { ex.runUntilIdle(); }

  // The virtual time `d` after the test started, as the API writes timestamps.
  std::string at(Duration d) const { return formatRfc3339(start + d); }

  // The condition of this type (null when absent).
  static Json condition(const Json& object, const std::string& type) {
    const Json* c = findCondition(object, type);
    return c ? *c : Json();
  }
  // The status of one container (null when absent).
  static Json containerStatus(const Json& pod, const std::string& name,
                              const char* list = "containerStatuses") {
    for (const auto& s : pod["status"].value(list, Json::array())) {
      if (s.value("name", "") == name) return s;
    }
    return Json();
  }

  std::unique_ptr<InProcessClient> client;
  std::unique_ptr<Manager> manager;
  std::unique_ptr<Network> network;
  BehaviorRegistry behaviors;
  SchedulerOptions schedulerOptions;
  KubeletOptions kubeletOptions;
  NodeLifecycleControllerOptions lifecycleOptions;
  std::unique_ptr<Scheduler> scheduler;
  std::unique_ptr<Kubelet> kubelet;
  TimePoint start;
};

}  // namespace fakekube::clustertest
