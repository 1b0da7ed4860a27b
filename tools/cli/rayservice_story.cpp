// The RayService story of `fakekube demo`: a blue/green upgrade of a RayService.
//
// Everything runs on one SimExecutor: the cluster's parts and the KubeRay operator (the RayCluster
// and RayService controllers) on a manager of its own, with the simulated Ray head (its dashboard
// and Ray Serve) and workers (their Serve proxies) as the pods' containers. The story creates the
// RayService and later changes its rayVersion; every other line is told from watch events on
// RayServices, RayClusters, Services and Events, in the order of the writes they show.
#include "tools/cli/rayservice_story.h"

#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/internal/rayservice_types.h"
#include "controllers/ray/ray_operator.h"
#include "controllers/ray/sim/ray_simulation.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/api/yaml.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/cluster/cluster.h"
#include "fakekube/sim/sim_executor.h"
#include "tools/cli/narrator.h"
#include "tools/cli/ray_story.h"
#include "tools/cli/timeline.h"

namespace fakekube::cli {
namespace {

using std::chrono::seconds;

constexpr const char* kDemoService = R"(
apiVersion: ray.io/v1
kind: RayService
metadata:
  name: demo-service
  namespace: default
spec:
  serveConfigV2: |
    applications:
      - name: fruit_app
        import_path: fruit.deployment_graph
        route_prefix: /fruit
  rayClusterConfig:
    rayVersion: "2.52.0"
    headGroupSpec:
      rayStartParams: {}
      template:
        spec:
          containers:
          - name: ray-head
            image: rayproject/ray:2.52.0
            resources: {requests: {cpu: "1", memory: 2Gi}}
    workerGroupSpecs:
    - replicas: 1
      minReplicas: 1
      maxReplicas: 1
      groupName: small-group
      rayStartParams: {}
      template:
        spec:
          containers:
          - name: ray-worker
            image: rayproject/ray:2.52.0
            resources: {requests: {cpu: "1", memory: 1Gi}}
)";

std::string textAt(const Json& object, std::initializer_list<std::string_view> path) {
  const Json& v = jsonAt(object, path);
  return v.is_string() ? v.get<std::string>() : "";
}

class RayServiceNarrator : public Narrator {
 public:
  using Narrator::Narrator;

 private:
  void tell(WatchEventType type, const Json& object) override {
    const std::string kind = meta::kind(object);
    if (kind == "RayService") onRayService(object);
    if (kind == "RayCluster") onRayCluster(type, object);
    if (kind == "Service") onService(type, object);
    if (kind == "Event") onEvent(type, object);
  }

  void onRayService(const Json& service) {
    const Json* ready = ray::findRayServiceCondition(service, ray::kRayServiceReady);
    const Json* upgrade = ray::findRayServiceCondition(service, ray::kUpgradeInProgress);
    auto condition = [](const Json* c) {
      return c == nullptr ? std::string("-")
                          : fmt::format("{} ({})", c->value("status", ""), c->value("reason", ""));
    };
    const std::string told = fmt::format(
        "active \"{}\", pending \"{}\", Ready {}, UpgradeInProgress {}, {} serve endpoints",
        ray::activeClusterName(service), ray::pendingClusterName(service), condition(ready),
        condition(upgrade),
        jsonAt(service, {"status", "numServeEndpoints"}).is_number()
            ? jsonAt(service, {"status", "numServeEndpoints"}).get<int>()
            : 0);
    if (told == serviceTold_ || jsonAt(service, {"status"}).is_null()) return;
    serviceTold_ = told;
    t_.line(revisionOf(service), "RayService status: " + told);
  }

  void onRayCluster(WatchEventType type, const Json& cluster) {
    const std::string name = meta::name(cluster);
    if (type == WatchEventType::Added) {
      t_.line(revisionOf(cluster), fmt::format("RayCluster {} created by the RayService "
                                               "controller (rayVersion {})",
                                               name, textAt(cluster, {"spec", "rayVersion"})));
    } else if (type == WatchEventType::Deleted) {
      t_.line(revisionOf(cluster), fmt::format("RayCluster {} deleted", name));
    } else if (textAt(cluster, {"status", "state"}) == "ready" && !ready_[name]) {
      ready_[name] = true;
      t_.line(revisionOf(cluster), fmt::format("RayCluster {} ready", name));
    }
  }

  void onService(WatchEventType type, const Json& service) {
    const std::string name = meta::name(service);
    if (name != "demo-service-head-svc" && name != "demo-service-serve-svc") return;
    const std::string selects = textAt(service, {"spec", "selector", "ray.io/cluster"});
    if (type == WatchEventType::Deleted || selects == selected_[name]) return;
    t_.line(revisionOf(service),
            fmt::format("Service {} {} RayCluster {} (clusterIP {})", name,
                        selected_[name].empty() ? "created, selecting" : "now selects", selects,
                        textAt(service, {"spec", "clusterIP"})));
    selected_[name] = selects;
  }

  void onEvent(WatchEventType type, const Json& event) {
    if (type != WatchEventType::Added ||
        textAt(event, {"involvedObject", "kind"}) != "RayService") {
      return;
    }
    const std::string reason = event.value("reason", "");
    if (reason != "UpdatedServeApplications" && reason != "DeletedRayCluster") return;
    t_.line(revisionOf(event), fmt::format("Event {}: {}", reason, event.value("message", "")));
  }

  std::string serviceTold_;
  std::map<std::string, bool> ready_;
  std::map<std::string, std::string> selected_;
};

bool isReadyOn(ApiServer& server, const std::string& version) {
  auto service = server.get(ray::kRayServices, "default", "demo-service");
  if (!service || !ray::isRayServiceConditionTrue(**service, ray::kRayServiceReady)) return false;
  const std::string active = ray::activeClusterName(**service);
  if (active.empty() || !ray::pendingClusterName(**service).empty()) return false;
  auto cluster = server.get(ray::kRayClusters, "default", active);
  return cluster && textAt(**cluster, {"spec", "rayVersion"}) == version;
}

int tellRayServiceStory(SimExecutor& executor, ApiServer& server, Cluster& cluster,
                        Manager& rayOperator, const StoryOptions& story) {
  Timeline t(executor, server, story);
  t.heading("A RayService's zero-downtime upgrade");
  t.chapter("3.1 demo-service comes up: a pending cluster, the Serve config, the Services");
  ray::OperatorOptions options;
  options.randomSeed = 1;
  options.httpProxyClients = ray::inProcessHttpProxyClients(cluster.network());
  if (!startClusterAndRayOperator(executor, cluster, rayOperator, {"raycluster", "rayservice"},
                                  options)) {
    return 1;
  }
  RayServiceNarrator narrator(executor, server, t);
  if (auto opened = narrator.open({&ray::kRayServices, &ray::kRayClusters, &kServices, &kEvents});
      !opened) {
    std::fprintf(stderr, "fakekube: %s\n", opened.error().message.c_str());
    return 1;
  }
  auto created = server.create(ray::kRayServices, "default", decodeYaml(kDemoService).value());
  if (!created) {
    t.error("create RayService default/demo-service", created.error());
    return 1;
  }
  t.line(revisionOf(**created),
         "create RayService default/demo-service: rayVersion 2.52.0, "
         "application fruit_app");
  if (!narrator.runUntil([&] { return isReadyOn(server, "2.52.0"); }, std::chrono::minutes(3))) {
    t.line("demo-service did not become Ready within 3 virtual minutes");
    return 1;
  }

  t.chapter("3.2 rayVersion 2.53.0: a pending cluster beside the serving one, then the switch");
  Json changed = **server.get(ray::kRayServices, "default", "demo-service");
  changed["spec"]["rayClusterConfig"]["rayVersion"] = "2.53.0";
  auto updated = server.update(ray::kRayServices, "default", changed);
  if (!updated) {
    t.error("update RayService default/demo-service", updated.error());
    return 1;
  }
  t.line(revisionOf(**updated), "update RayService default/demo-service: rayVersion 2.53.0");
  if (!narrator.runUntil([&] { return isReadyOn(server, "2.53.0"); }, std::chrono::minutes(3))) {
    t.line("demo-service did not switch within 3 virtual minutes");
    return 1;
  }

  t.chapter("3.3 The old cluster goes rayClusterDeletionDelaySeconds (60 s) after the switch");
  auto oneCluster = [&] {
    auto clusters = server.list(ray::kRayClusters, "default");
    return clusters && clusters->items.size() == 1;
  };
  if (!narrator.runUntil(oneCluster, std::chrono::minutes(2))) {
    t.line("the old cluster was not deleted within 2 virtual minutes");
    return 1;
  }
  narrator.runFor(seconds(5));
  printStoryTotals(executor, server);
  return 0;
}

}  // namespace

int rayServiceStory(const StoryOptions& story) {
  return runRayStory(story, 2, tellRayServiceStory);
}

}  // namespace fakekube::cli
