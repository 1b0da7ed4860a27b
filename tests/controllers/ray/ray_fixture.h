// The fixture of the KubeRay operator's tests (controllers_ray_test): one API server on virtual
// time, and the three ways the tests drive it.
//
//   RayClusterTest     KubeRay's CRDs and the operator's Manager with the RayCluster controller;
//                      optionally a Cluster (scheduler, kubelets of simulated nodes, garbage
//                      collector) so that pods really go Pending -> Running -> Ready. Without the
//                      Cluster the tests play the kubelet themselves, as KubeRay's envtest suites
//                      do (envtest has no pod lifecycle): they write pod status through the status
//                      subresource (setPodRunningAndReady).
//   RayJobTest         KubeRay's CRDs, a Cluster of six nodes running the Ray simulation (heads
//                      with the Jobs API, workers, the submitter's real script), and the operator
//                      with both Ray controllers, asking dashboards through the cluster's network.
//                      Nobody plays the kubelet or the dashboard: pods start, heads answer,
//                      submitters submit and Jobs complete on their own, on the executor's clock.
//   RaySimulationTest  no operator and no CRDs: a Cluster of two nodes with the Ray simulation,
//                      and the objects KubeRay would create, built here (headPod, headService,
//                      workerPod, submitterJob), to test the simulation itself.
//
// What they share (RayTest): the executor, the server and a client over it, the Cluster and the
// operator's Manager when they run; reads from the server (get, exists, list, pods: never the
// operator's cache), creates, and time (run, runUntil). Arguments name the namespace before the
// name, as Client does.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "controllers/ray/constants.h"
#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/dashboard_client.h"
#include "controllers/ray/internal/raycluster_controller.h"
#include "controllers/ray/internal/submitter_command.h"
#include "controllers/ray/operator_options.h"
#include "controllers/ray/ray_operator.h"
#include "controllers/ray/sim/ray_simulation.h"
#include "fakekube/api/conditions.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/cluster/cluster.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube::ray::testing {

using std::chrono::seconds;

// A container of KubeRay's samples: image rayproject/ray:2.46.0, 1 CPU and `memory` as both
// limit and request.
inline Json sampleRayContainer(const std::string& name, const std::string& memory) {
  return {{"name", name},
          {"image", "rayproject/ray:2.46.0"},
          {"resources",
           {{"limits", {{"cpu", "1"}, {"memory", memory}}},
            {"requests", {{"cpu", "1"}, {"memory", memory}}}}}};
}

// A pod template of one container.
inline Json podTemplateOf(Json container) {
  return {{"spec", {{"containers", Json::array({std::move(container)})}}}};
}

// The head group of KubeRay's samples: container ray-head with the ports gcs-server 6379,
// dashboard 8265, client 10001.
inline Json sampleHeadGroupSpec(const std::string& memory, Json rayStartParams) {
  Json container = sampleRayContainer("ray-head", memory);
  container["ports"] = Json::array({{{"containerPort", 6379}, {"name", "gcs-server"}},
                                    {{"containerPort", 8265}, {"name", "dashboard"}},
                                    {{"containerPort", 10001}, {"name", "client"}}});
  return {{"rayStartParams", std::move(rayStartParams)}, {"template", podTemplateOf(container)}};
}

// A worker group of the templates of KubeRay's controller tests: `replicas` of one container,
// between 0 and 10000.
inline Json upstreamWorkerGroupSpec(const std::string& group, int replicas, Json container) {
  return {{"groupName", group},
          {"replicas", replicas},
          {"minReplicas", 0},
          {"maxReplicas", 10000},
          {"rayStartParams", Json::object()},
          {"template", podTemplateOf(std::move(container))}};
}

// A RayCluster in the shape of KubeRay's config/samples/ray-cluster.sample.yaml: head container
// ray-head (ports gcs-server 6379, dashboard 8265, client 10001; 1 CPU, 2G), one worker group
// `workergroup` with replicas/min/max as given.
inline Json sampleRayCluster(const std::string& name, int replicas = 1, int minReplicas = 1,
                             int maxReplicas = 5, const std::string& ns = "default") {
  Json worker = {{"groupName", "workergroup"},
                 {"replicas", replicas},
                 {"minReplicas", minReplicas},
                 {"maxReplicas", maxReplicas},
                 {"numOfHosts", 1},
                 {"rayStartParams", Json::object()},
                 {"template", podTemplateOf(sampleRayContainer("ray-worker", "1G"))}};
  return {{"apiVersion", "ray.io/v1"},
          {"kind", "RayCluster"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec",
           {{"rayVersion", "2.46.0"},
            {"headGroupSpec", sampleHeadGroupSpec("2G", Json::object())},
            {"workerGroupSpecs", Json::array({worker})}}}};
}

// KubeRay's RayJob test shape (rayjob_controller_test.go's rayJobTemplate): K8sJobMode,
// shutdownAfterJobFinishes, a head `ray-head` (ports gcs-server, dashboard, client) and one worker
// group `small-group` of `workers` replicas.
inline Json rayJobTemplate(const std::string& name, const std::string& entrypoint = "sleep 999",
                           int workers = 3, const std::string& group = "small-group") {
  Json worker = upstreamWorkerGroupSpec(group, workers, sampleRayContainer("ray-worker", "1Gi"));
  return {{"apiVersion", "ray.io/v1"},
          {"kind", "RayJob"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"entrypoint", entrypoint},
            {"shutdownAfterJobFinishes", true},
            {"rayClusterSpec",
             {{"rayVersion", "2.46.0"},
              {"headGroupSpec", sampleHeadGroupSpec("2Gi", {{"dashboard-host", "0.0.0.0"}})},
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

inline constexpr const char* kRayImage = "rayproject/ray:2.46.0";

// KubeRay's head pod of RayCluster `cluster`: its labels, and the ray container's
// `ulimit -n 65536; ray start --head ...` command and ports.
inline Json headPod(const std::string& cluster, const std::string& ns = "default") {
  Json labels = {{std::string(kRayClusterLabelKey), cluster},
                 {std::string(kRayNodeTypeLabelKey), std::string(kHeadNode)},
                 {std::string(kRayNodeGroupLabelKey), std::string(kHeadGroupName)},
                 {std::string(kRayNodeLabelKey), "yes"},
                 {std::string(kKubernetesApplicationNameLabelKey), std::string(kApplicationName)},
                 {std::string(kKubernetesCreatedByLabelKey), std::string(kComponentName)}};
  Json container = {
      {"name", "ray-head"},
      {"image", kRayImage},
      {"command", Json::array({"/bin/bash", "-c", "--"})},
      {"args", Json::array({"ulimit -n 65536; ray start --head --block "
                            "--dashboard-agent-listen-port=52365 --dashboard-host=0.0.0.0 "
                            "--metrics-export-port=8080 --num-cpus=1 "})},
      {"ports",
       Json::array({{{"containerPort", 6379}, {"name", "gcs-server"}, {"protocol", "TCP"}},
                    {{"containerPort", 8265}, {"name", "dashboard"}, {"protocol", "TCP"}},
                    {{"containerPort", 10001}, {"name", "client"}, {"protocol", "TCP"}}})}};
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", cluster + "-head-x7k2p"}, {"namespace", ns}, {"labels", labels}}},
          {"spec", {{"containers", Json::array({container})}, {"restartPolicy", "Always"}}}};
}

// The head Service KubeRay creates: headless by default, its ports sorted by name.
inline Json headService(const std::string& cluster, const std::string& ns = "default") {
  return {
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata", {{"name", cluster + "-head-svc"}, {"namespace", ns}}},
      {"spec",
       {{"clusterIP", "None"},
        {"selector",
         {{std::string(kRayClusterLabelKey), cluster},
          {std::string(kRayNodeTypeLabelKey), std::string(kHeadNode)}}},
        {"ports", Json::array({{{"name", "client"}, {"port", 10001}, {"targetPort", 10001}},
                               {{"name", "dashboard"}, {"port", 8265}, {"targetPort", 8265}},
                               {{"name", "gcs-server"}, {"port", 6379}, {"targetPort", 6379}},
                               {{"name", "metrics"}, {"port", 8080}, {"targetPort", 8080}}})}}}};
}

// A worker pod with KubeRay's wait-gcs-ready init container (its health-check address) and
// `ray start --address=...` container.
inline Json workerPod(const std::string& cluster, const std::string& name,
                      const std::string& ns = "default") {
  const std::string gcs = fmt::format("{}-head-svc.{}.svc.cluster.local:6379", cluster, ns);
  Json init = {
      {"name", "wait-gcs-ready"},
      {"image", kRayImage},
      {"command", Json::array({"/bin/bash", "-lc", "--"})},
      {"args", Json::array({fmt::format(
                   "SECONDS=0\nwhile true; do\n  if (( SECONDS <= 120 )); then\n    if ray "
                   "health-check --address {} > /dev/null 2>&1; then\n      echo \"GCS is "
                   "ready.\"\n      break\n    fi\n  fi\n  sleep 5\ndone",
                   gcs)})}};
  Json container = {
      {"name", "ray-worker"},
      {"image", kRayImage},
      {"command", Json::array({"/bin/bash", "-c", "--"})},
      {"args", Json::array({fmt::format("ulimit -n 65536; ray start --address={} --block", gcs)})}};
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", ns},
            {"labels",
             {{std::string(kRayClusterLabelKey), cluster},
              {std::string(kRayNodeTypeLabelKey), std::string(kWorkerNode)}}}}},
          {"spec",
           {{"initContainers", Json::array({init})},
            {"containers", Json::array({container})},
            {"restartPolicy", "Always"}}}};
}

// A RayJob document as the RayJob controller holds it when it creates the submitter.
inline Json rayJobFor(const std::string& cluster, const std::string& jobId,
                      const std::string& entrypoint, const std::string& ns = "default") {
  return {{"apiVersion", "ray.io/v1"},
          {"kind", "RayJob"},
          {"metadata", {{"name", "demo-job"}, {"namespace", ns}}},
          {"spec", {{"entrypoint", entrypoint}}},
          {"status",
           {{"jobId", jobId},
            {"dashboardURL", fmt::format("{}-head-svc.{}.svc.cluster.local:8265", cluster, ns)}}}};
}

// The submitter Job the RayJob controller creates in K8sJobMode.
inline Json submitterJob(const std::string& name, const Json& rayJob, int backoffLimit = 2) {
  auto tokens = buildJobSubmitCommand(rayJob, "K8sJobMode");
  EXPECT_TRUE(tokens.has_value());
  Json container = {
      {"name", std::string(kSubmitterContainerName)},
      {"image", kRayImage},
      {"command", Json::array({"/bin/bash", "-ce", "--"})},
      {"args", Json::array({joinCommand(tokens.value_or(std::vector<std::string>{}))})},
      {"env", Json::array({{{"name", "PYTHONUNBUFFERED"}, {"value", "1"}},
                           {{"name", std::string(kRayDashboardAddressEnv)},
                            {"value", rayJob["status"]["dashboardURL"]}},
                           {{"name", std::string(kRayJobSubmissionIdEnv)},
                            {"value", rayJob["status"]["jobId"]}}})}};
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata", {{"name", name}, {"namespace", meta::namespace_(rayJob)}}},
          {"spec",
           {{"backoffLimit", backoffLimit},
            {"template",
             {{"spec", {{"containers", Json::array({container})}, {"restartPolicy", "Never"}}}}}}}};
}

// What the three fixtures share; see the top of this file.
class RayTest : public ::testing::Test {
 protected:
  void TearDown() override {
    manager.reset();
    if (cluster) {
      cluster->stop();
      ex.runUntilIdle();
    }
  }

  // The server (seeded: its uids and generated names repeat from run to run) and the client;
  // KubeRay's CRDs when `crds`.
  void openServer(std::optional<std::uint64_t> seed, bool crds) {
    ApiServerOptions serverOptions;
    serverOptions.seed = seed;
    auto opened = ApiServer::open(ex.clock(), serverOptions);
    ASSERT_TRUE(opened.has_value()) << opened.error().str();
    server = std::move(*opened);
    client = std::make_unique<InProcessClient>(*server);
    if (crds) ASSERT_TRUE(installCustomResourceDefinitions(*client).has_value());
  }

  // Scheduler, kubelets and the rest on six simulated nodes whose Ray containers run
  // `simulation`.
  void startRaySimulatedCluster(const RaySimulationOptions& simulation) {
    ClusterOptions clusterOptions;
    clusterOptions.nodes = 6;
    cluster = std::make_unique<Cluster>(ex, *server, clusterOptions);
    addRayBehaviors(cluster->behaviors(), simulation);
    ASSERT_TRUE(cluster->start().has_value());
    ex.runUntilIdle();
  }

  // The operator: `controllers` on one manager of its own (random seed 7 unless `options` names
  // one), reaching the dashboards through `dashboards`.
  void startRayOperator(const std::set<std::string>& controllers, OperatorOptions options,
                        DashboardClientFactory dashboards) {
    if (!options.randomSeed) options.randomSeed = 7;
    operatorOptions = options;
    manager = std::make_unique<Manager>(ex, *server);
    auto added = addRayOperator(*manager, controllers, options, std::move(dashboards));
    ASSERT_TRUE(added.has_value()) << added.error().message;
    manager->start();
    ex.runUntilIdle();
    ASSERT_TRUE(manager->running());
  }
  // The operator crashes: its queues, caches and in-memory state are gone.
  void crashOperator() {
    manager->crash();
    manager.reset();
    ex.runUntilIdle();
  }

  // Lets `time` of virtual time pass (none: runs what is due now).
  void run(Duration time = Duration{0}) {
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
  // The object as the server holds it now (null when it is not there).
  Json get(const GroupVersionResource& gvr, const std::string& ns, const std::string& name) {
    auto got = client->get(gvr, ns, name);
    return got ? *got : Json();
  }
  bool exists(const GroupVersionResource& gvr, const std::string& ns, const std::string& name) {
    return client->get(gvr, ns, name).has_value();
  }
  // The objects of a namespace matching `selector`, from the server.
  std::vector<Json> list(const GroupVersionResource& gvr, const std::string& selector = "",
                         const std::string& ns = "default") {
    ListOptions options;
    options.labelSelector = selector;
    std::vector<Json> out;
    auto listed = client->list(gvr, ns, options);
    if (!listed) return out;
    for (const Json& item : (*listed)["items"]) out.push_back(item);
    return out;
  }
  // Pods matching `selector`, terminating ones included unless `activeOnly`.
  std::vector<Json> pods(const std::string& selector, bool activeOnly = false,
                         const std::string& ns = "default") {
    std::vector<Json> out;
    for (Json& pod : list(kPods, selector, ns)) {
      if (activeOnly && meta::isDeleting(pod)) continue;
      out.push_back(std::move(pod));
    }
    return out;
  }

  SimExecutor ex;
  std::unique_ptr<ApiServer> server;
  std::unique_ptr<InProcessClient> client;
  std::unique_ptr<Cluster> cluster;
  std::unique_ptr<Manager> manager;
  OperatorOptions operatorOptions;
};

class RayClusterTest : public RayTest {
 protected:
  void SetUp() override { openServer(42, /*crds=*/true); }

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

  Json createCluster(Json rayCluster) { return create(kRayClusters, std::move(rayCluster)); }
  // The operator, then `rayCluster`, and a second for the operator's first rounds.
  void startOperatorWithCluster(Json rayCluster) {
    startOperator();
    createCluster(std::move(rayCluster));
    run(seconds(1));
  }

  Json getCluster(const std::string& name, const std::string& ns = "default") {
    auto got = client->get(kRayClusters, ns, name);
    EXPECT_TRUE(got.has_value()) << got.error().message;
    return got ? *got : Json();
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
    for (Json& e : list(kEvents, "", ns)) {
      if (e.value("reason", "") == reason) out.push_back(std::move(e));
    }
    return out;
  }
  // How often Events of `reason` were recorded, as the server holds them: KubeRay records
  // events.k8s.io/v1 Events, whose repeats (same object version, action and reason) are one
  // Event with a series; a series shows its first repeat's count (2) until client-go's refresh.
  std::int64_t timesRecorded(const std::string& reason, const std::string& ns = "default") {
    std::int64_t times = 0;
    for (const Json& e : events(reason, ns)) {
      const Json& count = jsonAt(e, {"series", "count"});
      times += count.is_number_integer() ? count.get<std::int64_t>() : 1;
    }
    return times;
  }

  static std::string state(const Json& rayCluster) {
    if (!rayCluster.contains("status")) return "";
    return rayCluster["status"].value("state", "");
  }

  Controller* controller = nullptr;
  int podIpCounter = 0;
};

class RayJobTest : public RayTest {
 protected:
  void SetUp() override {
    openServer(42, /*crds=*/true);
    RaySimulationOptions simulation;
    simulation.head.entrypoints = entrypoints;
    startRaySimulatedCluster(simulation);
  }

  // The operator: RayCluster and RayJob controllers on one manager.
  void startOperator(OperatorOptions options = {}) {
    DashboardClientFactory dashboards =
        [this](const Json&, const std::string& url) -> Result<std::unique_ptr<DashboardClient>> {
      return std::make_unique<DashboardClient>(std::make_shared<SwitchableTransport>(
          networkTransport(cluster->network(), url), &dashboardDown));
    };
    startRayOperator({"raycluster", "rayjob"}, std::move(options), std::move(dashboards));
  }
  // An operator that crashes (its queues, caches and in-memory state are gone) and a new one.
  void restartOperator() {
    crashOperator();
    startOperator(operatorOptions);
  }

  Json rayJob(const std::string& name) { return get(kRayJobs, "default", name); }
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

  // Runs until the RayCluster `clusterName` and the submitter Job of the RayJob `rayJob` are
  // both gone.
  bool runUntilClusterAndSubmitterDeleted(const std::string& clusterName,
                                          const std::string& rayJob) {
    return runUntil(
        [&] {
          return !exists(kRayClusters, "default", clusterName) && !exists(kJobs, "default", rayJob);
        },
        seconds(60));
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

  std::shared_ptr<EntrypointRegistry> entrypoints = std::make_shared<EntrypointRegistry>();
  // While true, every dashboard call of the operator fails as a refused connection.
  bool dashboardDown = false;
};

class RaySimulationTest : public RayTest {
 protected:
  void SetUp() override {
    openServer(std::nullopt, /*crds=*/false);
    cluster = std::make_unique<Cluster>(ex, *server, ClusterOptions{.nodes = 2});
    RaySimulationOptions options;
    options.head = headOptions;
    options.head.entrypoints = entrypoints;
    options.cli.output = [this](const ContainerOutput& out) {
      std::lock_guard lock(outputMu);
      output.push_back(out);
    };
    addRayBehaviors(cluster->behaviors(), options);
    ASSERT_TRUE(cluster->start().has_value());
    ex.advance(seconds(1));
  }

  // A head pod (and its Service, unless it exists), Ready and reachable.
  Json startHead(const std::string& clusterName) {
    if (!exists(kServices, "default", clusterName + "-head-svc")) {
      create(kServices, headService(clusterName));
    }
    Json pod = create(kPods, headPod(clusterName));
    const std::string name = meta::name(pod);
    EXPECT_TRUE(ex.runUntil([&] { return isPodReady(get(kPods, "default", name)); }, seconds(60)));
    // The network sees pods through the cluster's cache, which follows the server in tasks.
    EXPECT_TRUE(ex.runUntil(
        [&] {
          return cluster->network()
              .call("default", clusterName + "-head-svc", 8265,
                    HttpRequest{.path = "/api/gcs_healthz"})
              .has_value();
        },
        seconds(5)));
    return get(kPods, "default", name);
  }

  DashboardClient dashboard(const std::string& clusterName) {
    return DashboardClient(
        networkTransport(cluster->network(),
                         fmt::format("{}-head-svc.default.svc.cluster.local:8265", clusterName)));
  }

  // Lines a pod's container printed, in order.
  std::vector<std::string> printed(const std::string& pod) {
    std::lock_guard lock(outputMu);
    std::vector<std::string> lines;
    for (const auto& out : output) {
      if (out.pod == pod) lines.push_back(out.line);
    }
    return lines;
  }

  std::shared_ptr<EntrypointRegistry> entrypoints = std::make_shared<EntrypointRegistry>();
  RayHeadOptions headOptions;
  std::mutex outputMu;
  std::vector<ContainerOutput> output;
};

}  // namespace fakekube::ray::testing
