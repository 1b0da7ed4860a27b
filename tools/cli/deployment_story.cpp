// The first story of `fakekube demo`: a Deployment on a simulated cluster of
// two nodes, with every part a real cluster runs (Deployment and ReplicaSet controllers, the
// scheduler, the kubelets, the garbage collector) on one SimExecutor.
//
// The story's own requests (create, delete) are printed with their answers; everything the
// cluster does is told from watch events on Deployments, ReplicaSets and Pods, drained after
// every executor task so each line carries the virtual instant of the write it shows and that
// write's resourceVersion. Who did what is read off the change: a pod whose controller reference
// names a ReplicaSet was created by it, spec.nodeName is set only by a binding (the scheduler),
// pod status is written by the kubelet.
#include "tools/cli/deployment_story.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fakekube/api/conditions.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/cluster/cluster.h"
#include "fakekube/sim/sim_executor.h"
#include "tools/cli/narrator.h"
#include "tools/cli/timeline.h"

namespace fakekube::cli {

namespace {

using std::chrono::seconds;

// The story's Deployment: app: intro, two replicas of a web container whose readiness probe starts
// checking 5 s after the container started.
Json introDeployment() {
  Json labels = {{"app", "intro"}};
  Json web = {
      {"name", "web"},
      {"image", "nginx:1.27"},
      {"resources", {{"requests", {{"cpu", "250m"}, {"memory", "256Mi"}}}}},
      {"readinessProbe", {{"httpGet", {{"path", "/"}, {"port", 80}}}, {"initialDelaySeconds", 5}}}};
  return {
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata", {{"name", "intro-deployment"}}},
      {"spec",
       {{"replicas", 2},
        {"selector", {{"matchLabels", labels}}},
        {"template",
         {{"metadata", {{"labels", labels}}}, {"spec", {{"containers", Json::array({web})}}}}}}}};
}

// A pod nobody owns, with labels no ReplicaSet selects.
Json barePod() {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", "bare-pod"}, {"labels", {{"app", "bare"}}}}},
          {"spec", {{"containers", {{{"name", "web"}, {"image", "nginx:1.27"}}}}}}};
}

std::string selectorText(const Json& object) {
  std::string text;
  for (const auto& [key, value] : object["spec"]["selector"]["matchLabels"].items()) {
    text += (text.empty() ? "" : ",") + key + "=" + value.get<std::string>();
  }
  return text;
}

// Turns the watch events of the default namespace into timeline lines.
class DeploymentNarrator : public Narrator {
 public:
  using Narrator::Narrator;

 private:
  // What was last told about a pod, to tell only what a later event changed.
  struct PodSeen {
    std::string node;
    std::string phase;
    bool ready = false;
    bool deleting = false;
  };

  void tell(WatchEventType type, const Json& object) override {
    const std::string kind = meta::kind(object);
    if (kind == "Pod") onPod(type, object);
    if (kind == "ReplicaSet") onReplicaSet(type, object);
    if (kind == "Deployment") onDeployment(type, object);
  }

  void onDeployment(WatchEventType type, const Json& d) {
    const std::int64_t rv = revisionOf(d);
    if (type == WatchEventType::Deleted) {
      t_.line(rv, fmt::format("Deployment {} deleted", meta::name(d)));
      return;
    }
    if (findCondition(d, "Available") == nullptr) return;
    const Json& status = d["status"];
    std::string told =
        fmt::format("{}/{} ready, {} available; {}", status.value("readyReplicas", 0),
                    d["spec"].value("replicas", 0), status.value("availableReplicas", 0),
                    conditionText(d, "Available"));
    if (told == deploymentTold_) return;
    deploymentTold_ = told;
    t_.line(rv, fmt::format("Deployment {}: {}", meta::name(d), told));
  }

  void onReplicaSet(WatchEventType type, const Json& rs) {
    const std::int64_t rv = revisionOf(rs);
    auto owner = meta::controllerOf(rs);
    if (type == WatchEventType::Added) {
      t_.line(rv,
              fmt::format("ReplicaSet {} created by {} {}: replicas {}, selector {}",
                          meta::name(rs), owner ? owner->kind : "nobody", owner ? owner->name : "",
                          rs["spec"].value("replicas", 0), selectorText(rs)));
    } else if (type == WatchEventType::Deleted) {
      bool ownerGone = owner && !server_.get(kDeployments, "default", owner->name);
      t_.line(rv, fmt::format("ReplicaSet {} deleted{}", meta::name(rs),
                              ownerGone ? fmt::format(" by the garbage collector: its owner {} {} "
                                                      "no longer exists",
                                                      owner->kind, owner->name)
                                        : ""));
    }
  }

  void onPod(WatchEventType type, const Json& p) {
    const std::int64_t rv = revisionOf(p);
    const std::string name = meta::name(p);
    PodSeen& seen = pods_[name];
    auto owner = meta::controllerOf(p);

    if (type == WatchEventType::Added) {
      t_.line(rv,
              fmt::format("Pod {} created by {}: Pending, no node yet", name,
                          owner ? owner->kind + " " + owner->name : "the user, owned by nobody"));
    }
    if (type == WatchEventType::Deleted) {
      t_.line(rv,
              seen.node.empty()
                  ? fmt::format("Pod {} deleted at once: never bound, no kubelet to wait for", name)
                  : fmt::format("Pod {} deleted: the kubelet on {} stopped it and confirmed with "
                                "gracePeriodSeconds 0",
                                name, seen.node));
      pods_.erase(name);
      return;
    }
    const std::string node = podNodeName(p);
    if (!node.empty() && seen.node.empty()) {
      seen.node = node;
      t_.line(rv, fmt::format("Pod {} bound to {} by the scheduler: {}", name, node,
                              conditionText(p, "PodScheduled")));
    }
    const std::string phase = podPhase(p);
    if (meta::isDeleting(p) && !seen.deleting) {
      seen.deleting = true;
      TimePoint deadline{};
      parseRfc3339(meta::deletionTimestamp(p), &deadline);
      bool ownerGone = owner && !server_.get(kReplicaSets, "default", owner->name);
      t_.line(rv,
              fmt::format("Pod {} terminating{}: deletionTimestamp +{}s (grace {}s)", name,
                          ownerGone ? fmt::format(" (the garbage collector deleted it: its "
                                                  "owner {} {} is gone)",
                                                  owner->kind, owner->name)
                                    : "",
                          std::chrono::duration_cast<seconds>(deadline - kSimulatedEpoch).count(),
                          meta::deletionGracePeriodSeconds(p).value_or(0)));
    }
    if (seen.deleting) return;  // the kubelet is stopping it; its next step is the delete
    if (phase != seen.phase && !node.empty() && p["status"].contains("containerStatuses")) {
      seen.phase = phase;
      const Json& container = p["status"]["containerStatuses"][0];
      if (phase == "Pending") {
        std::string waiting = container["state"].contains("waiting")
                                  ? container["state"]["waiting"].value("reason", "")
                                  : "";
        t_.line(rv, fmt::format("Pod {} on {}: Pending, container {} {}; {}", name, node,
                                container.value("name", ""), waiting, conditionText(p, "Ready")));
      } else if (phase == "Running") {
        seen.ready = isPodReady(p);  // told here when Running and Ready come together
        t_.line(rv,
                fmt::format("Pod {} Running on {}, IP {}; container {} started, {}", name, node,
                            p["status"].value("podIP", ""), container.value("name", ""),
                            isPodReady(p) ? "Ready=True" : conditionText(p, "ContainersReady")));
      } else {
        t_.line(rv, fmt::format("Pod {} {}", name, phase));
      }
    }
    if (isPodReady(p) && !seen.ready) {
      seen.ready = true;
      t_.line(rv, fmt::format("Pod {} Ready: {}, {}", name, conditionText(p, "ContainersReady"),
                              conditionText(p, "Ready")));
    }
  }

  std::map<std::string, PodSeen> pods_;
  std::string deploymentTold_;
};

// "NAME READY STATUS NODE IP" for every pod, as `kubectl get pods -o wide` reads them.
void tellPods(Timeline& t, ApiServer& server, const std::string& what) {
  auto pods = server.list(kPods, "default");
  if (pods->items.empty()) {
    t.line(what + ": no pods");
    return;
  }
  t.line(what + ":");
  for (const auto& object : pods->items) {
    const Json& p = *object;
    t.more(fmt::format("  {:<36} {:<5} {:<8} {:<7} {}", meta::name(p),
                       isPodReady(p) ? "1/1" : "0/1",
                       meta::isDeleting(p) ? "Terminating" : podPhase(p), podNodeName(p),
                       p["status"].value("podIP", "")));
  }
}

bool introDeploymentAvailable(ApiServer& server) {
  auto d = server.get(kDeployments, "default", "intro-deployment");
  return d && (**d).value("status", Json::object()).value("availableReplicas", 0) == 2;
}

// 0.1: the nodes, then intro-deployment created and running its two pods.
bool tellDeploymentComesUp(ApiServer& server, Timeline& t, DeploymentNarrator& narrator) {
  auto nodes = server.list(kNodes, "");
  for (const auto& node : nodes->items) {
    const Json& n = *node;
    t.line(fmt::format("Node {}: {}, cpu {}, memory {}, pod range {}", meta::name(n),
                       conditionText(n, "Ready"), n["status"]["allocatable"].value("cpu", ""),
                       n["status"]["allocatable"].value("memory", ""),
                       n["spec"].value("podCIDR", "")));
  }
  auto created = server.create(kDeployments, "default", introDeployment());
  if (!created) {
    t.error("create Deployment default/intro-deployment", created.error());
    return false;
  }
  const Json& spec = (**created)["spec"];
  const Json& web = spec["template"]["spec"]["containers"][0];
  t.line(revisionOf(**created),
         fmt::format("create Deployment default/intro-deployment: replicas {}, selector {}, "
                     "container {} {} requesting {} cpu / {}, readiness probe from {} s after "
                     "start",
                     spec["replicas"].get<int>(), selectorText(**created),
                     web["name"].get<std::string>(), web["image"].get<std::string>(),
                     web["resources"]["requests"]["cpu"].get<std::string>(),
                     web["resources"]["requests"]["memory"].get<std::string>(),
                     web["readinessProbe"]["initialDelaySeconds"].get<int>()));
  narrator.runUntil([&] { return introDeploymentAvailable(server); }, std::chrono::minutes(1));
  tellPods(t, server, "get pods");
  return true;
}

// 0.2: a pod of the Deployment deleted and replaced; a bare pod deleted and not.
void tellPodsReplaced(ApiServer& server, Timeline& t, DeploymentNarrator& narrator) {
  narrator.runTo(seconds(10));
  std::string victim;
  auto pods = server.list(kPods, "default");
  for (const auto& p : pods->items) {
    if (podNodeName(*p) == "node-1") victim = meta::name(*p);
  }
  server.deleteObject(kPods, "default", victim);
  t.line(fmt::format("delete Pod {} (on node-1)", victim));
  narrator.runUntil(
      [&] { return introDeploymentAvailable(server) && !server.get(kPods, "default", victim); },
      std::chrono::minutes(1));
  narrator.runTo(seconds(20));
  auto bare = server.create(kPods, "default", barePod());
  t.line(revisionOf(**bare), "create Pod default/bare-pod, labels app=bare, no ownerReferences");
  narrator.runUntil(
      [&] {
        auto p = server.get(kPods, "default", "bare-pod");
        return p && isPodReady(**p);
      },
      std::chrono::minutes(1));
  narrator.runTo(seconds(30));
  server.deleteObject(kPods, "default", "bare-pod");
  t.line("delete Pod bare-pod");
  narrator.runFor(seconds(60));
  tellPods(t, server, "a minute later, get pods (nothing replaced bare-pod)");
}

// 0.3: the Deployment deleted, and the garbage collector removing what it owned.
void tellDeploymentDeleted(ApiServer& server, Timeline& t, DeploymentNarrator& narrator) {
  server.deleteObject(kDeployments, "default", "intro-deployment");
  t.line("delete Deployment intro-deployment (propagationPolicy Background, the default)");
  narrator.runUntil(
      [&] {
        return server.list(kPods, "default")->items.empty() &&
               server.list(kReplicaSets, "default")->items.empty();
      },
      std::chrono::minutes(1));
  narrator.runFor(seconds(60));
  t.line(fmt::format("a minute later: {} Deployments, {} ReplicaSets, {} Pods in default",
                     server.list(kDeployments, "default")->items.size(),
                     server.list(kReplicaSets, "default")->items.size(),
                     server.list(kPods, "default")->items.size()));
}

int tell(SimExecutor& executor, ApiServer& server, Cluster& cluster, const StoryOptions& story) {
  Timeline t(executor, server, story);
  DeploymentNarrator narrator(executor, server, t);
  if (auto opened = narrator.open({&kDeployments, &kReplicaSets, &kPods}); !opened) {
    std::fprintf(stderr, "fakekube: %s\n", opened.error().message.c_str());
    return 1;
  }

  t.heading("A Deployment on a simulated cluster of two nodes");
  t.chapter("0.1 intro-deployment with 2 replicas comes up on 2 nodes");
  if (auto started = cluster.start(); !started) {
    std::fprintf(stderr, "fakekube: %s\n", started.error().message.c_str());
    return 1;
  }
  // The controllers run once the manager's caches synced.
  executor.runUntil([&] { return cluster.manager().running(); }, seconds(1));
  if (!tellDeploymentComesUp(server, t, narrator)) return 1;
  t.chapter(
      "0.2 One pod is deleted: a replacement is scheduled and becomes Ready; "
      "a bare pod is not replaced");
  tellPodsReplaced(server, t, narrator);
  t.chapter("0.3 The Deployment is deleted: the garbage collector removes its ReplicaSet and pods");
  tellDeploymentDeleted(server, t, narrator);
  printStoryTotals(executor, server);
  return 0;
}

}  // namespace

int deploymentStory(const StoryOptions& story) {
  SimExecutor executor(SimExecutor::Options{.seed = 1});
  auto server = openStoryServer(executor);
  if (server == nullptr) return 1;
  ClusterOptions options;
  options.nodes = 2;
  options.manager = story.manager(executor, "cluster");
  Cluster cluster(executor, *server, options);
  return tell(executor, *server, cluster, story);
}

}  // namespace fakekube::cli
