// Shared fixture of the RayJob controller tests: an API server on virtual time with KubeRay's CRDs,
// a real Cluster (nodes, scheduler, kubelets, Job controller, garbage collector) running the Ray
// simulation (heads with the Jobs API, workers, the submitter's real script), and the operator's
// Manager with both Ray controllers, asking dashboards through the cluster's network. Unlike
// KubeRay's envtest suites, nobody plays the kubelet or the dashboard: pods start, heads answer,
// submitters submit and Jobs complete on their own, on the executor's clock.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/dashboard_client.h"
#include "controllers/ray/operator_options.h"
#include "controllers/ray/ray_operator.h"
#include "controllers/ray/sim/ray_simulation.h"
#include "fakekube/api/conditions.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/cluster/cluster.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube::ray::jobtest {

using std::chrono::seconds;

// KubeRay's RayJob test shape (rayjob_controller_test.go's rayJobTemplate): K8sJobMode,
// shutdownAfterJobFinishes, a head `ray-head` (ports gcs-server, dashboard, client) and one worker
// group `small-group` of `workers` replicas.
inline Json rayJobTemplate(const std::string& name, const std::string& entrypoint = "sleep 999",
                           int workers = 3, const std::string& group = "small-group") {
  Json head = {
      {"rayStartParams", {{"dashboard-host", "0.0.0.0"}}},
      {"template",
       {{"spec",
         {{"containers",
           Json::array(
               {{{"name", "ray-head"},
                 {"image", "rayproject/ray:2.46.0"},
                 {"resources",
                  {{"limits", {{"cpu", "1"}, {"memory", "2Gi"}}},
                   {"requests", {{"cpu", "1"}, {"memory", "2Gi"}}}}},
                 {"ports", Json::array({{{"containerPort", 6379}, {"name", "gcs-server"}},
                                        {{"containerPort", 8265}, {"name", "dashboard"}},
                                        {{"containerPort", 10001}, {"name", "client"}}})}}})}}}}}};
  Json worker = {
      {"groupName", group},
      {"replicas", workers},
      {"minReplicas", 0},
      {"maxReplicas", 10000},
      {"rayStartParams", Json::object()},
      {"template",
       {{"spec",
         {{"containers", Json::array({{{"name", "ray-worker"},
                                       {"image", "rayproject/ray:2.46.0"},
                                       {"resources",
                                        {{"limits", {{"cpu", "1"}, {"memory", "1Gi"}}},
                                         {"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}}}}})}}}}}};
  return {{"apiVersion", "ray.io/v1"},
          {"kind", "RayJob"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"entrypoint", entrypoint},
            {"shutdownAfterJobFinishes", true},
            {"rayClusterSpec",
             {{"rayVersion", "2.46.0"},
              {"headGroupSpec", head},
              {"workerGroupSpecs", Json::array({worker})}}}}}};
}

inline std::string stringOr(const Json& v, const std::string& otherwise = "") {
  return v.is_string() ? v.get<std::string>() : otherwise;
}

// A dashboard transport that refuses connections while `down` is set, as an unreachable head.
class SwitchableTransport : public DashboardTransport {
 public:
  SwitchableTransport(std::shared_ptr<DashboardTransport> inner, const bool* down)
      : inner_(std::move(inner)), down_(down) {}
  Result<HttpResponse> send(const HttpRequest& request) override {
    if (*down_) {
      return tl::unexpected(Status::internal(fmt::format(
          "Get \"http://dashboard{}\": dial tcp: connect: connection refused", request.path)));
    }
    return inner_->send(request);
  }

 private:
  std::shared_ptr<DashboardTransport> inner_;
  const bool* down_;
};

class RayJobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ApiServerOptions serverOptions;
    serverOptions.seed = 42;
    server = std::move(ApiServer::open(ex.clock(), serverOptions).value());
    client = std::make_unique<InProcessClient>(*server);
    ASSERT_TRUE(installCustomResourceDefinitions(*client).has_value());
    ClusterOptions clusterOptions;
    clusterOptions.nodes = 6;
    cluster = std::make_unique<Cluster>(ex, *server, clusterOptions);
    RaySimulationOptions simulation;
    simulation.head.entrypoints = entrypoints;
    addRayBehaviors(cluster->behaviors(), simulation);
    ASSERT_TRUE(cluster->start().has_value());
    ex.runUntilIdle();
  }

  void TearDown() override {
    manager.reset();
    if (cluster) cluster->stop();
    ex.runUntilIdle();
  }

  // The operator: RayCluster and RayJob controllers on one manager.
  void startOperator(OperatorOptions options = {}) {
    if (!options.randomSeed) options.randomSeed = 7;
    operatorOptions = options;
    manager = std::make_unique<Manager>(ex, *server);
    DashboardClientFactory dashboards =
        [this](const Json&, const std::string& url) -> Result<std::unique_ptr<DashboardClient>> {
      return std::make_unique<DashboardClient>(std::make_shared<SwitchableTransport>(
          networkTransport(cluster->network(), url), &dashboardDown));
    };
    auto added = addRayOperator(*manager, {"raycluster", "rayjob"}, options, dashboards);
    ASSERT_TRUE(added.has_value()) << added.error().message;
    manager->start();
    ex.runUntilIdle();
    ASSERT_TRUE(manager->running());
  }
  // An operator that crashes (its queues, caches and in-memory state are gone) and a new one.
  void restartOperator() {
    manager->crash();
    manager.reset();
    ex.runUntilIdle();
    startOperator(operatorOptions);
  }

  void run(Duration time) {
    ex.advance(time);
    ex.runUntilIdle();
  }
  bool runUntil(const std::function<bool()>& done, Duration limit = seconds(300)) {
    return ex.runUntil(done, limit);
  }

  Json create(const GroupVersionResource& gvr, Json object) {
    auto created = client->create(gvr, std::move(object));
    EXPECT_TRUE(created.has_value()) << created.error().message;
    return created ? *created : Json();
  }
  Json get(const GroupVersionResource& gvr, const std::string& name,
           const std::string& ns = "default") {
    auto got = client->get(gvr, ns, name);
    return got ? *got : Json();
  }
  bool exists(const GroupVersionResource& gvr, const std::string& name) {
    return client->get(gvr, "default", name).has_value();
  }
  Json rayJob(const std::string& name) { return get(kRayJobs, name); }
  std::string statusOf(const std::string& name, const char* field) {
    const Json job = rayJob(name);
    return stringOr(jsonAt(job, {"status", field}));
  }
  std::string deploymentStatus(const std::string& name) {
    return statusOf(name, "jobDeploymentStatus");
  }
  std::int64_t counterOf(const std::string& name, const char* field) {
    const Json job = rayJob(name);
    const Json& v = jsonAt(job, {"status", field});
    return v.is_number_integer() ? v.get<std::int64_t>() : -1;
  }
  bool runUntilDeploymentStatus(const std::string& name, std::string_view status,
                                Duration limit = seconds(300)) {
    return runUntil([&] { return deploymentStatus(name) == status; }, limit);
  }
  // Changes the RayJob's spec with `change` (retrying on conflicts).
  void updateSpec(const std::string& name, const std::function<void(Json&)>& change) {
    for (int i = 0; i < 5; ++i) {
      Json j = rayJob(name);
      change(j["spec"]);
      if (client->update(kRayJobs, j)) return;
    }
    ADD_FAILURE() << "could not update " << name;
  }

  std::vector<Json> list(const GroupVersionResource& gvr, const std::string& selector = "") {
    ListOptions options;
    options.labelSelector = selector;
    std::vector<Json> out;
    auto l = client->list(gvr, "default", options);
    if (!l) return out;
    for (const Json& item : (*l)["items"]) out.push_back(item);
    return out;
  }
  std::vector<std::string> eventReasons(const std::string& involvedName) {
    std::vector<std::string> out;
    for (const Json& e : list(kEvents)) {
      if (jsonAt(e, {"involvedObject", "name"}) == involvedName)
        out.push_back(e.value("reason", ""));
    }
    return out;
  }
  DashboardClient dashboardOf(const std::string& rayJobName) {
    return DashboardClient(
        networkTransport(cluster->network(), statusOf(rayJobName, "dashboardURL")));
  }

  SimExecutor ex;
  std::unique_ptr<ApiServer> server;
  std::unique_ptr<InProcessClient> client;
  std::unique_ptr<Cluster> cluster;
  std::shared_ptr<EntrypointRegistry> entrypoints = std::make_shared<EntrypointRegistry>();
  std::unique_ptr<Manager> manager;
  OperatorOptions operatorOptions;
  // While true, every dashboard call of the operator fails as a refused connection.
  bool dashboardDown = false;
};

}  // namespace fakekube::ray::jobtest
