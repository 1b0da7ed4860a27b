// The RayCluster story of `fakekube demo`: a RayCluster whose last worker turns Ready.
//
// Everything runs on one SimExecutor: the cluster's parts (scheduler, kubelets, garbage
// collector) and the KubeRay operator on a manager of its own, with the simulated Ray head and
// workers as the pods' containers. The story creates the RayCluster; every other line is told
// from watch events on RayClusters, Services and Pods, drained after every executor task, in the
// order of the writes they show. Who did what is read off the change, as in the Deployment story:
// an object whose controller reference names the RayCluster was created by the RayCluster
// controller, and a pod status change of a pod owned by a RayCluster enqueues that RayCluster (the
// controller Owns Pods), whose status write follows.
#include "tools/cli/raycluster_story.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/ray_operator.h"
#include "controllers/ray/sim/ray_simulation.h"
#include "fakekube/api/conditions.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/cluster/cluster.h"
#include "fakekube/sim/sim_executor.h"
#include "tools/cli/narrator.h"
#include "tools/cli/ray_story.h"
#include "tools/cli/timeline.h"

namespace fakekube::cli {
namespace {

using std::chrono::seconds;

Json rayClusterContainer(const std::string& name, const std::string& cpu,
                         const std::string& memory) {
  return {{"name", name},
          {"image", "rayproject/ray:2.52.0"},
          {"resources", {{"requests", {{"cpu", cpu}, {"memory", memory}}}}}};
}

// The story's cluster: one head, the worker group `compute` of two.
Json demoCluster() {
  Json head = rayClusterContainer("ray-head", "1", "2Gi");
  head["ports"] = Json::array({{{"containerPort", 6379}, {"name", "gcs-server"}},
                               {{"containerPort", 8265}, {"name", "dashboard"}},
                               {{"containerPort", 10001}, {"name", "client"}}});
  return {{"apiVersion", "ray.io/v1"},
          {"kind", "RayCluster"},
          {"metadata", {{"name", "demo-cluster"}, {"namespace", "default"}}},
          {"spec",
           {{"rayVersion", "2.52.0"},
            {"headGroupSpec",
             {{"rayStartParams", Json::object()},
              {"template", {{"spec", {{"containers", Json::array({head})}}}}}}},
            {"workerGroupSpecs",
             Json::array({{{"groupName", "compute"},
                           {"replicas", 2},
                           {"minReplicas", 2},
                           {"maxReplicas", 2},
                           {"rayStartParams", Json::object()},
                           {"template",
                            {{"spec",
                              {{"containers", Json::array({rayClusterContainer("ray-worker", "1",
                                                                               "1Gi")})}}}}}}})}}}};
}

std::string labelOf(const Json& object, const std::string& key) {
  const Json& value = jsonAt(object, {"metadata", "labels", key});
  return value.is_string() ? value.get<std::string>() : "";
}

class RayClusterNarrator : public Narrator {
 public:
  using Narrator::Narrator;

 private:
  struct PodSeen {
    std::string node;
    std::string phase;
    bool initialized = false;
    bool ready = false;
    bool deleting = false;
  };

  void tell(WatchEventType type, const Json& object) override {
    const std::string kind = meta::kind(object);
    if (kind == "Pod") onPod(type, object);
    if (kind == "Service") onService(type, object);
    if (kind == "RayCluster") onRayCluster(type, object);
  }

  void onService(WatchEventType type, const Json& service) {
    if (type != WatchEventType::Added) return;
    auto owner = meta::controllerOf(service);
    std::string ports;
    for (const auto& port : jsonAt(service, {"spec", "ports"})) {
      ports += fmt::format("{}{} {}", ports.empty() ? "" : ", ", port.value("name", ""),
                           port.value("port", 0));
    }
    t_.line(revisionOf(service),
            fmt::format("Service {} created by {} {}: clusterIP {}, ports {}", meta::name(service),
                        owner ? owner->kind : "nobody", owner ? owner->name : "",
                        jsonAt(service, {"spec", "clusterIP"}).is_string()
                            ? jsonAt(service, {"spec", "clusterIP"}).get<std::string>()
                            : "",
                        ports));
  }

  void onRayCluster(WatchEventType type, const Json& cluster) {
    if (type == WatchEventType::Deleted) return;
    const Json& status = jsonAt(cluster, {"status"});
    if (!status.is_object()) return;
    const Json& state = jsonAt(status, {"state"});
    std::string told = fmt::format(
        "state {}, workers ready {}/{} (available {}), {}, {}",
        state.is_string() ? state.get<std::string>() : "(none)",
        status.value("readyWorkerReplicas", 0), status.value("desiredWorkerReplicas", 0),
        status.value("availableWorkerReplicas", 0), conditionText(cluster, "HeadPodReady"),
        conditionText(cluster, "RayClusterProvisioned"));
    if (told == clusterTold_) return;
    clusterTold_ = told;
    t_.line(revisionOf(cluster), fmt::format("RayCluster {} status written by calculateStatus: {}",
                                             meta::name(cluster), told));
  }

  void onPod(WatchEventType type, const Json& p) {
    const std::int64_t rv = revisionOf(p);
    const std::string name = meta::name(p);
    PodSeen& seen = pods_[name];
    auto owner = meta::controllerOf(p);
    const std::string nodeType = labelOf(p, "ray.io/node-type");
    if (type == WatchEventType::Added) {
      std::string init;
      for (const auto& container : jsonAt(p, {"spec", "initContainers"}))
        init += fmt::format(", init container {}", container.value("name", ""));
      t_.line(rv, fmt::format("Pod {} ({}, group {}) created by {} {}{}", name, nodeType,
                              labelOf(p, "ray.io/group"), owner ? owner->kind : "nobody",
                              owner ? owner->name : "", init));
    }
    if (type == WatchEventType::Deleted) {
      t_.line(rv, fmt::format("Pod {} deleted", name));
      pods_.erase(name);
      return;
    }
    const std::string node = podNodeName(p);
    if (!node.empty() && seen.node.empty()) {
      seen.node = node;
      t_.line(rv, fmt::format("Pod {} bound to {} by the scheduler", name, node));
    }
    if (meta::isDeleting(p) && !seen.deleting) {
      seen.deleting = true;
      t_.line(rv, fmt::format("Pod {} terminating", name));
    }
    if (seen.deleting) return;
    if (!seen.initialized && conditionStatus(p, "Initialized") == "True" &&
        jsonAt(p, {"spec", "initContainers"}).is_array()) {
      seen.initialized = true;
      t_.line(rv, fmt::format("Pod {}: init container wait-gcs-ready finished (GCS of the head "
                              "answered)",
                              name));
    }
    const std::string phase = podPhase(p);
    if (phase != seen.phase && phase == "Running") {
      seen.phase = phase;
      t_.line(rv, fmt::format("Pod {} Running on {}, IP {}", name, node,
                              jsonAt(p, {"status", "podIP"}).is_string()
                                  ? jsonAt(p, {"status", "podIP"}).get<std::string>()
                                  : ""));
    }
    if (isPodReady(p) && !seen.ready) {
      seen.ready = true;
      t_.line(rv, fmt::format("Pod {} Ready: the RayCluster controller Owns Pods, so its owner "
                              "RayCluster {} is enqueued",
                              name, owner ? owner->name : "?"));
    }
  }

  std::map<std::string, PodSeen> pods_;
  std::string clusterTold_;
};

bool clusterReady(ApiServer& server) {
  auto cluster = server.get(ray::kRayClusters, "default", "demo-cluster");
  if (!cluster) return false;
  const Json& state = jsonAt(**cluster, {"status", "state"});
  return state.is_string() && state == "ready";
}

int tellRayClusterStory(SimExecutor& executor, ApiServer& server, Cluster& cluster,
                        Manager& rayOperator, const StoryOptions& story) {
  Timeline t(executor, server, story);
  t.heading("A worker's Ready turns into a ready RayCluster");
  t.chapter("2.1 demo-cluster: one head, the group compute of two workers, on two nodes");
  if (auto started = cluster.start(); !started) {
    std::fprintf(stderr, "fakekube: %s\n", started.error().message.c_str());
    return 1;
  }
  if (auto added = ray::addRayOperator(rayOperator, {"raycluster"}, {}); !added) {
    std::fprintf(stderr, "fakekube: %s\n", added.error().message.c_str());
    return 1;
  }
  rayOperator.start();
  executor.runUntil([&] { return cluster.manager().running() && rayOperator.running(); },
                    seconds(1));
  RayClusterNarrator narrator(executor, server, t);
  if (auto opened = narrator.open({&ray::kRayClusters, &kServices, &kPods}); !opened) {
    std::fprintf(stderr, "fakekube: %s\n", opened.error().message.c_str());
    return 1;
  }
  auto created = server.create(ray::kRayClusters, "default", demoCluster());
  if (!created) {
    t.error("create RayCluster default/demo-cluster", created.error());
    return 1;
  }
  const Json& group = (**created)["spec"]["workerGroupSpecs"][0];
  t.line(revisionOf(**created),
         fmt::format("create RayCluster default/demo-cluster: head + group {} replicas {} (min "
                     "{}, max {}, numOfHosts {})",
                     group.value("groupName", ""), group.value("replicas", 0),
                     group.value("minReplicas", 0), group.value("maxReplicas", 0),
                     group.value("numOfHosts", 1)));
  if (!narrator.runUntil([&] { return clusterReady(server); }, std::chrono::minutes(2))) {
    t.line("demo-cluster did not become ready within 2 virtual minutes");
    return 1;
  }
  narrator.runFor(seconds(5));

  t.chapter("2.2 A worker is deleted: the controller sees 1 of 2 and creates a replacement");
  std::string victim;
  auto pods = server.list(kPods, "default");
  for (const auto& p : pods->items) {
    if (labelOf(*p, "ray.io/node-type") == "worker") victim = meta::name(*p);
  }
  server.deleteObject(kPods, "default", victim);
  t.line(fmt::format("delete Pod {}", victim));
  auto workersReady = [&] {
    int ready = 0;
    auto pods = server.list(kPods, "default");
    for (const auto& p : pods->items) {
      if (labelOf(*p, "ray.io/node-type") == "worker" && isPodReady(*p)) ++ready;
    }
    return ready == 2 && !server.get(kPods, "default", victim);
  };
  narrator.runUntil(workersReady, std::chrono::minutes(2));
  narrator.runFor(seconds(5));
  printStoryTotals(executor, server);
  return 0;
}

}  // namespace

int rayClusterStory(const StoryOptions& story) {
  return runRayStory(story, 2, tellRayClusterStory);
}

}  // namespace fakekube::cli
