// The fixture of the RayService controller's tests: KubeRay's CRDs, a Cluster of six nodes
// running the Ray simulation (heads with the dashboard and Ray Serve, workers with their Serve
// proxies) and the operator with the RayCluster and RayService controllers, reaching dashboards
// and proxies through the cluster's network. Nobody plays the kubelet or the dashboard: pods
// start, Serve deploys the applications the controller sends, EndpointSlices follow the pods,
// all on the executor's clock. Upstream's env tests wait up to 60 s of real time for the same.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "controllers/ray/httpproxy_client.h"
#include "controllers/ray/internal/rayservice_controller.h"
#include "controllers/ray/internal/rayservice_types.h"
#include "ray_fixture.h"

namespace fakekube::ray::testing {

// rayservice_controller_test.go's serveConfigV2Template.
inline std::string serveConfigV2Template(const std::string& appName) {
  return fmt::format(R"(
applications:
- name: {}
  import_path: fruit.deployment_graph
  route_prefix: /fruit
  runtime_env:
    working_dir: "https://github.com/ray-project/test_dag/archive/41d09119cbdf8450599f993f51318e9e27c59098.zip"
  deployments:
    - name: MangoStand
      num_replicas: 1
      user_config:
        price: 3
      ray_actor_options:
        num_cpus: 0.1
    - name: OrangeStand
      num_replicas: 1
      user_config:
        price: 2
      ray_actor_options:
        num_cpus: 0.1
    - name: PearStand
      num_replicas: 1
      user_config:
        price: 1
      ray_actor_options:
        num_cpus: 0.1)",
                     appName);
}

// rayservice_controller_test.go's rayServiceTemplate: annotation foo=bar, upgrade type
// NewCluster, a head `ray-head` without ports (KubeRay's defaults, serve 8000 among them) and one
// worker group `small-group` of 3 replicas.
inline Json rayServiceTemplate(const std::string& name, const std::string& appName = "app1",
                               int workers = 3) {
  Json head = {{"rayStartParams", Json::object()},
               {"template", podTemplateOf({{"name", "ray-head"}, {"image", kRayImage}})}};
  Json worker = upstreamWorkerGroupSpec("small-group", workers,
                                        {{"name", "ray-worker"}, {"image", kRayImage}});
  return {
      {"apiVersion", "ray.io/v1"},
      {"kind", "RayService"},
      {"metadata", {{"name", name}, {"namespace", "default"}, {"annotations", {{"foo", "bar"}}}}},
      {"spec",
       {{"serveConfigV2", serveConfigV2Template(appName)},
        {"upgradeStrategy", {{"type", "NewCluster"}}},
        {"rayClusterConfig",
         {{"rayVersion", "2.46.0"},
          {"headGroupSpec", head},
          {"workerGroupSpecs", Json::array({worker})}}}}}};
}

class RayServiceTest : public RayTest {
 protected:
  void SetUp() override {
    openServer(42, /*crds=*/true);
    RaySimulationOptions simulation;
    simulation.head.serve = serveOptions;
    startRaySimulatedCluster(simulation);
  }

  // The operator: RayCluster and RayService controllers on one manager.
  void startOperator(OperatorOptions options = {}) {
    if (!options.httpProxyClients) {
      options.httpProxyClients = inProcessHttpProxyClients(cluster->network());
    }
    startRayOperator({"raycluster", "rayservice"}, std::move(options),
                     inProcessDashboardClients(cluster->network()));
  }
  // An operator that crashes (its queues, caches, Serve config cache and deletion schedule are
  // gone) and a new one.
  void restartOperator() {
    crashOperator();
    OperatorOptions options = operatorOptions;
    options.randomSeed = *options.randomSeed + 1;
    startOperator(options);
  }

  Json rayService(const std::string& name) { return get(kRayServices, "default", name); }
  std::string activeCluster(const std::string& name) { return activeClusterName(rayService(name)); }
  std::string pendingCluster(const std::string& name) {
    return pendingClusterName(rayService(name));
  }
  bool conditionTrue(const std::string& name, std::string_view type) {
    return isRayServiceConditionTrue(rayService(name), type);
  }
  std::string conditionReason(const std::string& name, std::string_view type) {
    const Json service = rayService(name);
    const Json* c = findRayServiceCondition(service, type);
    return c != nullptr ? c->value("reason", "") : "";
  }
  std::int64_t numServeEndpoints(const std::string& name) {
    const Json service = rayService(name);
    const Json& n = jsonAt(service, {"status", "numServeEndpoints"});
    return n.is_number_integer() ? n.get<std::int64_t>() : 0;
  }
  // Changes the RayService's spec with `change` (retrying on conflicts).
  void updateSpec(const std::string& name, const std::function<void(Json&)>& change) {
    for (int i = 0; i < 5; ++i) {
      Json j = rayService(name);
      change(j["spec"]);
      if (client->update(kRayServices, j)) return;
    }
    ADD_FAILURE() << "could not update " << name;
  }
  // Creates the RayService and runs until it is Ready with an active cluster.
  std::string createAndRunUntilReady(const Json& service, Duration limit = seconds(180)) {
    create(kRayServices, service);
    const std::string name = meta::name(service);
    EXPECT_TRUE(runUntil(
        [&] { return conditionTrue(name, kRayServiceReady) && !activeCluster(name).empty(); },
        limit))
        << rayService(name).dump(2);
    return activeCluster(name);
  }
  std::vector<std::string> rayClusterNames() {
    std::vector<std::string> names;
    for (const Json& c : list(kRayClusters)) {
      if (!meta::isDeleting(c)) names.push_back(meta::name(c));
    }
    return names;
  }
  // Reasons of the Events about `involvedName`, in order.
  std::vector<std::string> eventReasons(const std::string& involvedName) {
    std::vector<std::string> out;
    for (const Json& e : list(kEvents)) {
      if (jsonAt(e, {"involvedObject", "name"}) == involvedName) {
        out.push_back(e.value("reason", ""));
      }
    }
    return out;
  }
  // How many times Events of `reason` about `involvedName` were recorded (their counts).
  std::int64_t eventCount(const std::string& involvedName, const std::string& reason) {
    std::int64_t total = 0;
    for (const Json& e : list(kEvents)) {
      if (jsonAt(e, {"involvedObject", "name"}) != involvedName ||
          e.value("reason", "") != reason) {
        continue;
      }
      const Json& count = jsonAt(e, {"count"});
      total += count.is_number_integer() ? count.get<std::int64_t>() : 1;
    }
    return total;
  }
  std::string selectedCluster(const std::string& serviceName) {
    return stringOr(
        jsonAt(get(kServices, "default", serviceName), {"spec", "selector", "ray.io/cluster"}));
  }

  RayServeOptions serveOptions;
};

}  // namespace fakekube::ray::testing
