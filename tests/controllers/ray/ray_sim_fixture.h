// Shared fixture of the Ray simulation tests: a real Cluster (two nodes, scheduler, kubelet, Job
// controller, garbage collector) on virtual time with the Ray behaviours installed, and builders
// for what KubeRay creates: a head pod and its head Service, a worker pod with wait-gcs-ready, and
// the submitter Job with BuildJobSubmitCommand's script.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "controllers/ray/constants.h"
#include "controllers/ray/dashboard_client.h"
#include "controllers/ray/sim/ray_simulation.h"
#include "controllers/ray/submitter_command.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/cluster/cluster.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube::ray::simtest {

using std::chrono::seconds;

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

class RaySimulationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = ApiServer::open(ex.clock());
    ASSERT_TRUE(opened.has_value());
    server = std::move(*opened);
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

  void TearDown() override {
    cluster->stop();
    ex.runUntilIdle();
  }

  Json create(const GroupVersionResource& gvr, const Json& object) {
    auto created = server->create(gvr, meta::namespace_(object), object);
    EXPECT_TRUE(created.has_value()) << (created ? "" : created.error().str());
    return created ? **created : Json();
  }
  Json get(const GroupVersionResource& gvr, const std::string& ns, const std::string& name) {
    auto got = server->get(gvr, ns, name);
    return got ? **got : Json();
  }
  std::vector<Json> podsWithLabel(const std::string& selector) {
    ListOptions options;
    options.labelSelector = selector;
    std::vector<Json> out;
    auto pods = server->list(kPods, "default", options);
    if (pods) {
      for (const auto& p : pods->items) out.push_back(*p);
    }
    return out;
  }

  // A head pod (and its Service, unless it exists), Ready and reachable.
  Json startHead(const std::string& clusterName) {
    if (get(kServices, "default", clusterName + "-head-svc").is_null()) {
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

  SimExecutor ex;
  std::unique_ptr<ApiServer> server;
  std::unique_ptr<Cluster> cluster;
  std::shared_ptr<EntrypointRegistry> entrypoints = std::make_shared<EntrypointRegistry>();
  RayHeadOptions headOptions;
  std::mutex outputMu;
  std::vector<ContainerOutput> output;
};

}  // namespace fakekube::ray::simtest
