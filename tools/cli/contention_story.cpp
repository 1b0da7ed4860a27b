// The contention story of `fakekube demo` (contention_story.h).
//
// Each variant runs on its own SimExecutor and API server: the cluster's parts, the KubeRay
// operator and (in the second) the Volcano scheduler, each on a manager of its own as in their
// own pods. The story creates the RayJobs and node-2; every other line is told from watch events
// on RayJobs, RayClusters, Pods and PodGroups, in the order of the writes they show.
#include "tools/cli/contention_story.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/ray_operator.h"
#include "controllers/ray/sim/ray_simulation.h"
#include "controllers/volcano/internal/volcano_api.h"
#include "controllers/volcano/internal/volcano_scheduler.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/cluster/cluster.h"
#include "fakekube/cluster/nodes.h"
#include "fakekube/sim/sim_executor.h"
#include "tools/cli/narrator.h"
#include "tools/cli/timeline.h"

namespace fakekube::cli {
// A namespace of its own: the CLI is built as one unity batch, and the other stories have
// helpers of the same names.
namespace contention {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

std::string text(const Json& object, std::initializer_list<std::string_view> path) {
  const Json& v = jsonAt(object, path);
  return v.is_string() ? v.get<std::string>() : "";
}

Json member(const std::string& name) {
  return {{"name", name},
          {"image", "rayproject/ray:2.46.0"},
          {"resources", {{"requests", {{"cpu", "4"}, {"memory", "4Gi"}}}}}};
}

// A RayJob whose cluster is a head and two workers of 4 cpu; the Ray job runs 30 s and the
// cluster goes 30 s after it finished.
Json contendingJob(const std::string& name, bool volcano) {
  Json head = member("ray-head");
  head["ports"] = Json::array({{{"containerPort", 6379}, {"name", "gcs-server"}},
                               {{"containerPort", 8265}, {"name", "dashboard"}},
                               {{"containerPort", 10001}, {"name", "client"}}});
  Json worker = {{"groupName", "workers"},
                 {"replicas", 2},
                 {"minReplicas", 2},
                 {"maxReplicas", 2},
                 {"rayStartParams", Json::object()},
                 {"template", {{"spec", {{"containers", Json::array({member("ray-worker")})}}}}}};
  Json job = {{"apiVersion", "ray.io/v1"},
              {"kind", "RayJob"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec",
               {{"entrypoint", "sleep 30"},
                {"shutdownAfterJobFinishes", true},
                {"ttlSecondsAfterFinished", 30},
                {"rayClusterSpec",
                 {{"rayVersion", "2.46.0"},
                  {"headGroupSpec",
                   {{"rayStartParams", Json::object()},
                    {"template", {{"spec", {{"containers", Json::array({head})}}}}}}},
                  {"workerGroupSpecs", Json::array({worker})}}}}}};
  if (volcano) job["metadata"]["labels"] = {{"volcano.sh/queue-name", "default"}};
  return job;
}

// The job a pod serves: the RayJob its RayCluster (or its submitter Job) came from.
std::string jobOf(const Json& pod) {
  const std::string& cluster = meta::label(pod, "ray.io/cluster");
  const std::string& job = cluster.empty() ? meta::label(pod, "job-name") : cluster;
  const auto dash = job.rfind('-');
  return cluster.empty() || dash == std::string::npos ? job : job.substr(0, dash);
}

std::string roleOf(const Json& pod) {
  const std::string& type = meta::label(pod, "ray.io/node-type");
  return type.empty() ? "submitter" : type;
}

class ContentionNarrator : public Narrator {
 public:
  using Narrator::Narrator;

  // Members (head and workers) Running per job, and whether both jobs ever had some at once.
  std::map<std::string, std::set<std::string>> running;

 private:
  void tell(WatchEventType type, const Json& object) override {
    const std::string kind = meta::kind(object);
    if (kind == "RayJob") onRayJob(object);
    if (kind == "RayCluster") onRayCluster(type, object);
    if (kind == "Pod") onPod(type, object);
    if (kind == "PodGroup") onPodGroup(object);
  }

  void onRayJob(const Json& job) {
    const std::string name = meta::name(job);
    std::string state = text(job, {"status", "jobDeploymentStatus"});
    const std::string jobStatus = text(job, {"status", "jobStatus"});
    if (!jobStatus.empty()) state += ", Ray job " + jobStatus;
    if (state.empty() || told_[name] == state) return;
    told_[name] = state;
    t_.line(revisionOf(job), fmt::format("RayJob {} {}", name, state));
  }

  void onRayCluster(WatchEventType type, const Json& cluster) {
    if (type == WatchEventType::Deleted) {
      t_.line(revisionOf(cluster), fmt::format("RayCluster {} deleted", meta::name(cluster)));
    }
  }

  void onPod(WatchEventType type, const Json& pod) {
    const std::string name = meta::name(pod);
    const std::string who = fmt::format("{} {}", jobOf(pod), roleOf(pod));
    if (type == WatchEventType::Deleted) {
      running[jobOf(pod)].erase(name);
      return;
    }
    if (type == WatchEventType::Added) {
      t_.line(revisionOf(pod), fmt::format("Pod {} ({}) created, Pending", name, who));
      return;
    }
    const std::string node = podNodeName(pod);
    if (!node.empty() && !bound_.count(name)) {
      bound_.insert(name);
      t_.line(revisionOf(pod), fmt::format("Pod {} ({}) bound to {} by {}", name, who, node,
                                           text(pod, {"spec", "schedulerName"})));
    }
    if (podPhase(pod) == "Running" && roleOf(pod) != "submitter") {
      running[jobOf(pod)].insert(name);
    } else {
      running[jobOf(pod)].erase(name);
    }
  }

  void onPodGroup(const Json& group) {
    const std::string name = meta::name(group);
    const std::string phase = text(group, {"status", "phase"});
    if (phase.empty() || groupTold_[name] == phase) return;
    groupTold_[name] = phase;
    const std::string cpu = text(group, {"spec", "minResources", "cpu"});
    std::string line =
        fmt::format("PodGroup {} {} (minMember {}, minResources cpu {})", name, phase,
                    jsonAt(group, {"spec", "minMember"}).dump(), cpu.empty() ? "none" : cpu);
    t_.line(revisionOf(group), line);
  }

  std::map<std::string, std::string> told_, groupTold_;
  std::set<std::string> bound_;
};

// The cluster, with the Volcano scheduler in the volcano variant, and the KubeRay operator's
// RayCluster and RayJob controllers (handing their pods to Volcano in that variant).
Result<void> startContenders(bool volcano, SimExecutor& executor, Cluster& cluster,
                             Manager& volcanoScheduler, Manager& rayOperator) {
  if (auto started = cluster.start(); !started) return tl::unexpected(started.error());
  if (volcano) {
    if (auto added = volcano::addVolcanoScheduler(volcanoScheduler); !added) {
      return tl::unexpected(added.error());
    }
    volcanoScheduler.start();
  }
  ray::OperatorOptions options;
  options.randomSeed = 1;
  if (volcano) options.batchScheduler = "volcano";
  if (auto added = ray::addRayOperator(rayOperator, {"raycluster", "rayjob"}, options,
                                       ray::inProcessDashboardClients(cluster.network()));
      !added) {
    return tl::unexpected(added.error());
  }
  rayOperator.start();
  executor.runUntil([&] { return rayOperator.running(); }, seconds(1));
  return {};
}

std::string jobDeploymentStatusOf(ApiServer& server, const char* job) {
  auto got = server.get(ray::kRayJobs, "default", job);
  return got ? text(**got, {"status", "jobDeploymentStatus"}) : "";
}

// The default scheduler's end: each job holds part of its members, neither is submitted.
int tellDeadlock(ApiServer& server, Timeline& t, ContentionNarrator& narrator, const char* first,
                 const char* second) {
  narrator.runTo(minutes(10));
  const std::size_t firstMembers = narrator.running[first].size();
  const std::size_t secondMembers = narrator.running[second].size();
  t.line(
      fmt::format("after 10 minutes: {} holds {} of 3 members and its submitter has no room; "
                  "{} holds {} of 3; neither Ray job was submitted: the deadlock",
                  first, firstMembers, second, secondMembers));
  return firstMembers == 3 && secondMembers == 1 &&
                 jobDeploymentStatusOf(server, second) == "Initializing"
             ? 0
             : 1;
}

// Volcano's end: the gangs run one after the other, never two clusters at once.
int tellGangsTakeTurns(ApiServer& server, Timeline& t, ContentionNarrator& narrator,
                       const char* first, const char* second) {
  bool both = false;
  const bool done = narrator.runUntil(
      [&] {
        both |= !narrator.running[first].empty() && !narrator.running[second].empty();
        return jobDeploymentStatusOf(server, second) == "Complete";
      },
      minutes(10));
  t.line(done ? "both jobs succeeded, one after the other; no two clusters ever ran at once"
              : "batch-inference did not complete within 10 virtual minutes");
  return done && !both ? 0 : 1;
}

// One variant from the start to its end; 0 when it shows what it should.
int tellVariant(bool volcano, const StoryOptions& story) {
  SimExecutor executor(SimExecutor::Options{.seed = 1});
  auto server = openStoryServer(executor);
  if (server == nullptr) return 1;
  Timeline t(executor, *server, story);
  if (!volcano) {
    t.heading("The contention story: two jobs of three members, room for four");
    t.chapter("1. The default scheduler alone: each job gets part of what it needs");
  } else {
    t.chapter("2. KubeRay hands its pods to Volcano (batchScheduler: volcano): a gang at a time");
  }
  ClusterOptions clusterOptions;
  clusterOptions.nodes = 1;
  clusterOptions.manager = story.manager(executor, "cluster");
  Cluster cluster(executor, *server, clusterOptions);
  ray::addRayBehaviors(cluster.behaviors());
  Manager volcanoScheduler(executor, *server, story.manager(executor, "volcano"));
  Manager rayOperator(executor, *server, story.manager(executor, "kuberay"));
  auto fail = [](const Status& error) {
    std::fprintf(stderr, "fakekube: %s\n", error.message.c_str());
    return 1;
  };
  if (auto started = startContenders(volcano, executor, cluster, volcanoScheduler, rayOperator);
      !started) {
    return fail(started.error());
  }

  ContentionNarrator narrator(executor, *server, t);
  if (volcano) {
    if (auto opened =
            narrator.open({&ray::kRayJobs, &ray::kRayClusters, &kPods, &volcano::kPodGroups});
        !opened) {
      return fail(opened.error());
    }
  } else if (auto opened = narrator.open({&ray::kRayJobs, &ray::kRayClusters, &kPods}); !opened) {
    return fail(opened.error());
  }
  const char* kFirst = "llm-finetune";
  const char* kSecond = "batch-inference";
  for (const char* job : {kFirst, kSecond}) {
    auto created = server->create(ray::kRayJobs, "default", contendingJob(job, volcano));
    if (!created) return fail(created.error());
    t.line(revisionOf(**created),
           fmt::format("create RayJob {} (head + 2 workers, 4 cpu each)", job));
    narrator.runFor(job == kFirst ? seconds(20) : seconds(10));
  }
  InProcessClient client(*server);
  auto node = addNode(client, executor.clock(), NodeConfig{.name = "node-2"});
  if (!node) return fail(node.error());
  t.line(revisionOf(*node), "node-2 (8 cpu) is up: the machines now hold four members");

  return volcano ? tellGangsTakeTurns(*server, t, narrator, kFirst, kSecond)
                 : tellDeadlock(*server, t, narrator, kFirst, kSecond);
}

}  // namespace
}  // namespace contention

int contentionStory(const StoryOptions& story) {
  if (int failed = contention::tellVariant(false, story); failed != 0) return failed;
  return contention::tellVariant(true, story);
}

}  // namespace fakekube::cli
