// The RayJob story of `fakekube demo`: demo-job from apply to cleanup.
//
// Everything runs on one SimExecutor: the cluster's parts (scheduler, kubelets, Job controller,
// garbage collector) and the KubeRay operator (RayCluster and RayJob controllers) on a manager of
// its own, with the simulated Ray head, workers and submitter as the pods' containers. The story
// creates the RayJob; every other line is told from watch events on RayJobs, RayClusters, Jobs,
// Services and Pods, drained after every executor task, in the order of the writes they show.
#include "tools/cli/rayjob_story.h"

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

std::string text(const Json& object, std::initializer_list<std::string_view> path) {
  const Json& v = jsonAt(object, path);
  return v.is_string() ? v.get<std::string>() : "";
}

Json rayContainer(const std::string& name, const std::string& cpu, const std::string& memory) {
  return {{"name", name},
          {"image", "rayproject/ray:2.52.0"},
          {"resources", {{"requests", {{"cpu", cpu}, {"memory", memory}}}}}};
}

std::string ownerText(const Json& object) {
  auto owner = meta::controllerOf(object);
  return owner ? fmt::format("{} {}", owner->kind, owner->name) : "nobody";
}

class RayJobNarrator : public Narrator {
 public:
  using Narrator::Narrator;

 private:
  void tell(WatchEventType type, const Json& object) override {
    const std::string kind = meta::kind(object);
    if (kind == "RayJob") onRayJob(type, object);
    if (kind == "RayCluster") onRayCluster(type, object);
    if (kind == "Job") onJob(type, object);
    if (kind == "Service") onService(type, object);
    if (kind == "Pod") onPod(type, object);
  }

  void onRayJob(WatchEventType type, const Json& job) {
    const std::int64_t rv = revisionOf(job);
    if (type == WatchEventType::Deleted) {
      t_.line(rv, "RayJob demo-job deleted");
      return;
    }
    if (!finalizerTold_ && meta::hasFinalizer(job, "ray.io/rayjob-finalizer")) {
      finalizerTold_ = true;
      t_.line(rv, "RayJob demo-job: the RayJob controller added finalizer ray.io/rayjob-finalizer");
    }
    const std::string deployment = text(job, {"status", "jobDeploymentStatus"});
    const std::string jobStatus = text(job, {"status", "jobStatus"});
    if (!tellRayJobProgress(t_, rv, deployment, jobStatus, jobTold_)) return;
    if (deployment == "Initializing" && !namesTold_) {
      namesTold_ = true;
      t_.more(fmt::format("jobId {}, rayClusterName {}, startTime {}",
                          text(job, {"status", "jobId"}), text(job, {"status", "rayClusterName"}),
                          text(job, {"status", "startTime"})));
    }
    if (deployment == "Running" && !urlTold_) {
      urlTold_ = true;
      t_.more(fmt::format("dashboardURL {}", text(job, {"status", "dashboardURL"})));
    }
    if (deployment == "Complete") {
      t_.more(fmt::format("endTime {}; the RayCluster goes at endTime + ttlSecondsAfterFinished 60",
                          text(job, {"status", "endTime"})));
    }
  }

  void onRayCluster(WatchEventType type, const Json& cluster) {
    const std::int64_t rv = revisionOf(cluster);
    const std::string name = meta::name(cluster);
    if (type == WatchEventType::Added) {
      t_.line(rv, fmt::format("RayCluster {} created by {}", name, ownerText(cluster)));
    }
    if (type == WatchEventType::Deleted) {
      t_.line(rv, fmt::format("RayCluster {} deleted", name));
      return;
    }
    if (meta::isDeleting(cluster) && !clusterDeleting_) {
      clusterDeleting_ = true;
      t_.line(rv,
              fmt::format("RayCluster {} terminating (deleted by the RayJob controller)", name));
    }
    const std::string state = text(cluster, {"status", "state"});
    if (state == "ready" && !clusterReady_) {
      clusterReady_ = true;
      t_.line(rv, fmt::format("RayCluster {} state ready (every pod Running and Ready): the "
                              "RayJob controller Owns RayClusters, so demo-job is enqueued",
                              name));
    }
  }

  void onJob(WatchEventType type, const Json& job) {
    const std::int64_t rv = revisionOf(job);
    if (type == WatchEventType::Added) {
      const Json& container = jsonAt(job, {"spec", "template", "spec", "containers"})[0];
      t_.line(rv,
              fmt::format("Job {} (the submitter) created by {}, backoffLimit {}", meta::name(job),
                          ownerText(job), jsonAt(job, {"spec", "backoffLimit"}).dump()));
      const std::string args = container["args"][0].get<std::string>();
      const auto submit = args.find("then ray job submit");
      t_.more(submit == std::string::npos ? args : args.substr(submit + 5));
    }
    for (const auto& c : jsonAt(job, {"status", "conditions"})) {
      const std::string type_ = c.value("type", "");
      if (c.value("status", "") == "True" && (type_ == "Complete" || type_ == "Failed") &&
          !jobFinished_) {
        jobFinished_ = true;
        t_.line(rv, fmt::format("Job {} {}: the submitter's `ray job logs --follow` ended",
                                meta::name(job), type_));
      }
    }
  }

  void onService(WatchEventType type, const Json& service) {
    if (type == WatchEventType::Added) {
      t_.line(revisionOf(service),
              fmt::format("Service {} created by {}", meta::name(service), ownerText(service)));
    }
    if (type == WatchEventType::Deleted) {
      t_.line(revisionOf(service),
              fmt::format("Service {} deleted by the garbage collector", meta::name(service)));
    }
  }

  void onPod(WatchEventType type, const Json& p) {
    const std::int64_t rv = revisionOf(p);
    const std::string name = meta::name(p);
    if (type == WatchEventType::Added) {
      t_.line(rv, fmt::format("Pod {} created by {}", name, ownerText(p)));
      return;
    }
    if (type == WatchEventType::Deleted) {
      t_.line(rv, fmt::format("Pod {} deleted", name));
      return;
    }
    if (isPodReady(p) && !ready_[name]) {
      ready_[name] = true;
      t_.line(rv, fmt::format("Pod {} Ready on {}", name, podNodeName(p)));
    }
    const std::string phase = podPhase(p);
    if (phase == "Succeeded" && !succeeded_[name]) {
      succeeded_[name] = true;
      t_.line(rv, fmt::format("Pod {} Succeeded", name));
    }
  }

  std::map<std::string, bool> ready_, succeeded_;
  std::string jobTold_;
  bool finalizerTold_ = false, namesTold_ = false, urlTold_ = false, clusterReady_ = false,
       clusterDeleting_ = false, jobFinished_ = false;
};

int tell(SimExecutor& executor, ApiServer& server, Cluster& cluster, Manager& rayOperator,
         const StoryOptions& story) {
  Timeline t(executor, server, story);
  t.heading("The RayJob story: demo-job from apply to cleanup");
  t.chapter(
      "1.1 demo-job: entrypoint python /app/main.py, K8sJobMode, TTL 60 s, head + compute x2");
  ray::OperatorOptions options;
  options.randomSeed = 1;
  if (!startClusterAndRayOperator(executor, cluster, rayOperator, {"raycluster", "rayjob"},
                                  options)) {
    return 1;
  }
  RayJobNarrator narrator(executor, server, t);
  if (auto opened = narrator.open({&ray::kRayJobs, &ray::kRayClusters, &kJobs, &kServices, &kPods});
      !opened) {
    std::fprintf(stderr, "fakekube: %s\n", opened.error().message.c_str());
    return 1;
  }
  auto created = server.create(ray::kRayJobs, "default", demoJobManifest());
  if (!created) {
    t.error("create RayJob default/demo-job", created.error());
    return 1;
  }
  t.line(revisionOf(**created), "create RayJob default/demo-job");
  auto deployment = [&] {
    auto job = server.get(ray::kRayJobs, "default", "demo-job");
    return job ? text(**job, {"status", "jobDeploymentStatus"}) : "";
  };
  if (!narrator.runUntil([&] { return deployment() == "Complete"; }, std::chrono::minutes(3))) {
    t.line("demo-job did not complete within 3 virtual minutes");
    return 1;
  }
  t.chapter("1.2 ttlSecondsAfterFinished: the RayCluster goes 60 s after endTime");
  auto job = server.get(ray::kRayJobs, "default", "demo-job");
  const std::string clusterName = text(**job, {"status", "rayClusterName"});
  auto clusterGone = [&] {
    if (server.get(ray::kRayClusters, "default", clusterName)) return false;
    ListOptions selector;
    selector.labelSelector = "ray.io/cluster=" + clusterName;
    auto pods = server.list(kPods, "default", selector);
    return pods && pods->items.empty();
  };
  if (!narrator.runUntil(clusterGone, std::chrono::minutes(2))) {
    t.line("the RayCluster was not deleted within 2 virtual minutes");
    return 1;
  }
  const bool rayJobStays = server.get(ray::kRayJobs, "default", "demo-job").has_value();
  const bool submitterStays = server.get(kJobs, "default", "demo-job").has_value();
  t.line(fmt::format("RayJob demo-job {}, submitter Job demo-job {}",
                     rayJobStays ? "remains" : "is gone", submitterStays ? "remains" : "is gone"));
  printStoryTotals(executor, server);
  return rayJobStays && submitterStays ? 0 : 1;
}

}  // namespace

Json demoJobManifest() {
  Json head = rayContainer("ray-head", "1", "2Gi");
  head["ports"] = Json::array({{{"containerPort", 6379}, {"name", "gcs-server"}},
                               {{"containerPort", 8265}, {"name", "dashboard"}},
                               {{"containerPort", 10001}, {"name", "client"}}});
  Json worker = {
      {"groupName", "compute"},
      {"replicas", 2},
      {"minReplicas", 2},
      {"maxReplicas", 2},
      {"rayStartParams", Json::object()},
      {"template",
       {{"spec", {{"containers", Json::array({rayContainer("ray-worker", "1", "1Gi")})}}}}}};
  return {{"apiVersion", "ray.io/v1"},
          {"kind", "RayJob"},
          {"metadata", {{"name", "demo-job"}, {"namespace", "default"}}},
          {"spec",
           {{"entrypoint", "python /app/main.py"},
            {"submissionMode", "K8sJobMode"},
            {"shutdownAfterJobFinishes", true},
            {"ttlSecondsAfterFinished", 60},
            {"rayClusterSpec",
             {{"rayVersion", "2.52.0"},
              {"headGroupSpec",
               {{"rayStartParams", Json::object()},
                {"template", {{"spec", {{"containers", Json::array({head})}}}}}}},
              {"workerGroupSpecs", Json::array({worker})}}}}}};
}

int rayJobStory(const StoryOptions& story) { return runRayStory(story, 3, tell); }

}  // namespace fakekube::cli
