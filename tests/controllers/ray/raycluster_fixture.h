// Shared fixture of the RayCluster controller tests: an API server on virtual time with KubeRay's
// CRDs installed, the operator's Manager running the RayCluster controller, and optionally a
// Cluster (scheduler, kubelets of simulated nodes, garbage collector) so that pods really go
// Pending -> Running -> Ready. Without the Cluster the tests play the kubelet themselves, as
// KubeRay's envtest suites do (envtest has no pod lifecycle): they write pod status through the
// status subresource.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/operator_options.h"
#include "controllers/ray/raycluster_controller.h"
#include "fakekube/api/conditions.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/cluster/cluster.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube::ray::testing {

// A RayCluster in the shape of KubeRay's config/samples/ray-cluster.sample.yaml: head container
// ray-head (ports gcs-server 6379, dashboard 8265, client 10001; 1 CPU, 2G), one worker group
// `workergroup` with replicas/min/max as given.
inline Json sampleRayCluster(const std::string& name, int replicas = 1, int minReplicas = 1,
                             int maxReplicas = 5, const std::string& ns = "default") {
  Json head = {
      {"rayStartParams", Json::object()},
      {"template",
       {{"spec",
         {{"containers",
           Json::array(
               {{{"name", "ray-head"},
                 {"image", "rayproject/ray:2.46.0"},
                 {"resources",
                  {{"limits", {{"cpu", "1"}, {"memory", "2G"}}},
                   {"requests", {{"cpu", "1"}, {"memory", "2G"}}}}},
                 {"ports", Json::array({{{"containerPort", 6379}, {"name", "gcs-server"}},
                                        {{"containerPort", 8265}, {"name", "dashboard"}},
                                        {{"containerPort", 10001}, {"name", "client"}}})}}})}}}}}};
  Json worker = {
      {"groupName", "workergroup"},
      {"replicas", replicas},
      {"minReplicas", minReplicas},
      {"maxReplicas", maxReplicas},
      {"numOfHosts", 1},
      {"rayStartParams", Json::object()},
      {"template",
       {{"spec",
         {{"containers", Json::array({{{"name", "ray-worker"},
                                       {"image", "rayproject/ray:2.46.0"},
                                       {"resources",
                                        {{"limits", {{"cpu", "1"}, {"memory", "1G"}}},
                                         {"requests", {{"cpu", "1"}, {"memory", "1G"}}}}}}})}}}}}};
  return {{"apiVersion", "ray.io/v1"},
          {"kind", "RayCluster"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec",
           {{"rayVersion", "2.46.0"},
            {"headGroupSpec", head},
            {"workerGroupSpecs", Json::array({worker})}}}};
}

class RayClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ApiServerOptions serverOptions;
    serverOptions.seed = 42;
    server = std::move(ApiServer::open(ex.clock(), serverOptions).value());
    client = std::make_unique<InProcessClient>(*server);
    ASSERT_TRUE(installCustomResourceDefinitions(*client).has_value());
  }

  void TearDown() override {
    manager.reset();
    cluster.reset();
  }

  // Scheduler, kubelets, garbage collector and the rest on `nodes` simulated nodes.
  // `enabled` picks the parts (e.g. {"scheduler"}: pods are bound but stay Pending).
  void startCluster(int nodes = 2, std::set<std::string> enabled = {}) {
    ClusterOptions options;
    options.nodes = nodes;
    if (!enabled.empty()) options.enabled = std::move(enabled);
    cluster = std::make_unique<Cluster>(ex, *server, options);
    ASSERT_TRUE(cluster->start().has_value());
    ex.runUntilIdle();
  }

  // The operator: a manager of its own with the RayCluster controller.
  void startOperator(OperatorOptions options = {}, ManagerOptions managerOptions = {}) {
    operatorOptions = options;
    manager = std::make_unique<Manager>(ex, *server, std::move(managerOptions));
    auto added = addRayClusterController(*manager, options);
    ASSERT_TRUE(added.has_value()) << added.error().message;
    controller = *added;
    manager->start();
    ex.runUntilIdle();
    ASSERT_TRUE(manager->running());
  }

  void run(Duration time = Duration{0}) {
    ex.advance(time);
    ex.runUntilIdle();
  }

  Json createCluster(Json rayCluster) {
    auto created = client->create(kRayClusters, std::move(rayCluster));
    EXPECT_TRUE(created.has_value()) << created.error().message;
    return created ? *created : Json();
  }

  Json getCluster(const std::string& name, const std::string& ns = "default") {
    auto got = client->get(kRayClusters, ns, name);
    EXPECT_TRUE(got.has_value()) << got.error().message;
    return got ? *got : Json();
  }

  // Pods of the server (not the cache) matching `selector`, terminating ones included unless
  // `activeOnly`.
  std::vector<Json> pods(const std::string& selector, bool activeOnly = false,
                         const std::string& ns = "default") {
    ListOptions options;
    options.labelSelector = selector;
    auto list = client->list(kPods, ns, options);
    std::vector<Json> out;
    if (!list) return out;
    for (const Json& pod : (*list)["items"]) {
      if (activeOnly && meta::isDeleting(pod)) continue;
      out.push_back(pod);
    }
    return out;
  }
  std::vector<Json> workerPods(const std::string& cluster, bool activeOnly = true) {
    return pods("ray.io/cluster=" + cluster + ",ray.io/node-type=worker", activeOnly);
  }
  std::vector<Json> headPods(const std::string& cluster, bool activeOnly = true) {
    return pods("ray.io/cluster=" + cluster + ",ray.io/node-type=head", activeOnly);
  }

  // What a kubelet would report: Running, and Ready True.
  void setPodRunningAndReady(const Json& pod, bool ready = true) {
    Json updated = client->get(kPods, meta::namespace_(pod), meta::name(pod)).value();
    updated["status"]["phase"] = "Running";
    updated["status"]["podIP"] = "10.0.0." + std::to_string(++podIpCounter);
    updated["status"]["conditions"] =
        Json::array({{{"type", "Ready"},
                      {"status", ready ? "True" : "False"},
                      {"lastTransitionTime", "2026-01-01T00:00:00Z"}}});
    auto written = client->updateStatus(kPods, updated);
    ASSERT_TRUE(written.has_value()) << written.error().message;
  }
  void setPodPhase(const Json& pod, const std::string& phase) {
    Json updated = client->get(kPods, meta::namespace_(pod), meta::name(pod)).value();
    updated["status"]["phase"] = phase;
    auto written = client->updateStatus(kPods, updated);
    ASSERT_TRUE(written.has_value()) << written.error().message;
  }
  void setAllPodsRunningAndReady(const std::string& cluster) {
    for (const Json& pod : pods("ray.io/cluster=" + cluster, true)) setPodRunningAndReady(pod);
  }

  // Events of the RayCluster with this reason.
  std::vector<Json> events(const std::string& reason, const std::string& ns = "default") {
    std::vector<Json> out;
    auto list = client->list(kEvents, ns);
    if (!list) return out;
    for (const Json& e : (*list)["items"]) {
      if (e.value("reason", "") == reason) out.push_back(e);
    }
    return out;
  }

  static std::string state(const Json& rayCluster) {
    if (!rayCluster.contains("status")) return "";
    return rayCluster["status"].value("state", "");
  }

  SimExecutor ex;
  std::unique_ptr<ApiServer> server;
  std::unique_ptr<InProcessClient> client;
  std::unique_ptr<Cluster> cluster;
  std::unique_ptr<Manager> manager;
  Controller* controller = nullptr;
  OperatorOptions operatorOptions;
  int podIpCounter = 0;
};

}  // namespace fakekube::ray::testing
