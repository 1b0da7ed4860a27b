// The restart-recovery chapter of `fakekube demo` (restart_recovery_story.h).
//
// One SimExecutor runs the cluster's parts and the KubeRay operator, as in the RayJob story. The
// operator runs on a Manager the chapter owns: killing it is Manager::crash() (queues, caches and
// whatever the reconcilers kept are gone, as with a process that dies), restarting it is a new
// Manager with the operator added again. Every line but the kills and restarts is told from
// watch events on RayJobs, RayClusters and Jobs, in the order of the writes they show.
#include "tools/cli/restart_recovery_story.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/ray_operator.h"
#include "controllers/ray/sim/ray_simulation.h"
#include "fakekube/api/conditions.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/cluster/cluster.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/clock.h"
#include "fakekube/sim/sim_executor.h"
#include "tools/cli/narrator.h"
#include "tools/cli/ray_story.h"
#include "tools/cli/rayjob_story.h"
#include "tools/cli/timeline.h"

namespace fakekube::cli {
// A namespace of its own: the CLI is built as one unity batch, and the other stories have
// helpers of the same names.
namespace restartrecovery {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

// What KubeRay labels demo-job's RayCluster and submitter Job with.
constexpr const char* kDemoJobObjects = "ray.io/originated-from-cr-name=demo-job";

std::string statusText(const Json& object, std::string_view field) {
  const Json& v = jsonAt(object, {"status", field});
  return v.is_string() ? v.get<std::string>() : "";
}

// RayJob deployment status changes, the RayCluster and the submitter Job coming and going.
class RecoveryNarrator : public Narrator {
 public:
  using Narrator::Narrator;

  std::size_t rayClustersCreated = 0;
  std::size_t submitterJobsCreated = 0;

 private:
  void tell(WatchEventType type, const Json& object) override {
    const std::string kind = meta::kind(object);
    const std::int64_t rv = revisionOf(object);
    if (kind == "RayJob" && type != WatchEventType::Deleted) onRayJob(rv, object);
    if (kind == "RayCluster") onRayCluster(type, rv, object);
    if (kind == "Job") onJob(type, rv, object);
  }

  void onRayJob(std::int64_t rv, const Json& job) {
    const std::string deployment = statusText(job, "jobDeploymentStatus");
    const std::string jobStatus = statusText(job, "jobStatus");
    tellRayJobProgress(t_, rv, deployment, jobStatus, jobTold_);
  }

  void onRayCluster(WatchEventType type, std::int64_t rv, const Json& cluster) {
    const std::string name = meta::name(cluster);
    if (type == WatchEventType::Added) {
      ++rayClustersCreated;
      t_.line(rv, fmt::format("RayCluster {} created (uid {})", name, meta::uid(cluster)));
    } else if (type == WatchEventType::Deleted) {
      t_.line(rv, fmt::format("RayCluster {} deleted", name));
    } else if (statusText(cluster, "state") == "ready" && !clusterReady_) {
      clusterReady_ = true;
      t_.line(rv, fmt::format("RayCluster {} state ready", name));
    }
  }

  void onJob(WatchEventType type, std::int64_t rv, const Json& job) {
    if (type == WatchEventType::Added) {
      ++submitterJobsCreated;
      t_.line(rv, fmt::format("Job {} (the submitter) created (uid {})", meta::name(job),
                              meta::uid(job)));
    } else if (isConditionTrue(job, "Complete") && !jobComplete_) {
      jobComplete_ = true;
      t_.line(rv, fmt::format("Job {} Complete", meta::name(job)));
    }
  }

  std::string jobTold_;
  bool clusterReady_ = false, jobComplete_ = false;
};

// What the operator had saved and made when it was killed.
struct AtKill {
  std::string stage;
  std::string jobId, rayClusterName, rayClusterUid, submitterUid;
};

// One stage of demo-job's life: when the operator is killed, and until when it stays down.
struct Stage {
  std::string name;
  std::function<bool()> reached;
  std::function<bool()> downUntil;
};

class Chapter {
 public:
  Chapter(SimExecutor& executor, ApiServer& server, Cluster& cluster, Timeline& t,
          const StoryOptions& story)
      : executor_(executor),
        server_(server),
        cluster_(cluster),
        t_(t),
        narrator_(executor, server, t),
        story_(story) {}

  RestartRecoveryOutcome tell();

 private:
  Result<void> startOperator();
  Json rayJob() const;
  std::string deploymentStatus() const { return statusText(rayJob(), "jobDeploymentStatus"); }
  std::size_t countOfDemoJob(const GroupVersionResource& resource) const;
  bool submitterComplete() const;
  std::vector<Stage> stages();
  bool killAt(const Stage& stage, RestartRecoveryOutcome& outcome);
  AtKill snapshot(const std::string& stage) const;
  void check(const AtKill& at, RestartRecoveryOutcome& outcome);
  bool finish(RestartRecoveryOutcome& outcome);

  SimExecutor& executor_;
  ApiServer& server_;
  Cluster& cluster_;
  Timeline& t_;
  RecoveryNarrator narrator_;
  const StoryOptions& story_;
  std::unique_ptr<Manager> operator_;
  int starts_ = 0;
  std::optional<AtKill> pending_;  // the last kill, checked at the next stage
  TimePoint killedAt_;
};

Result<void> Chapter::startOperator() {
  operator_ = std::make_unique<Manager>(executor_, server_, story_.manager(executor_, "kuberay"));
  ray::OperatorOptions options;
  // A new process draws other random names than the one before it.
  options.randomSeed = 1 + starts_++;
  if (auto added = ray::addRayOperator(*operator_, {"raycluster", "rayjob"}, options,
                                       ray::inProcessDashboardClients(cluster_.network()));
      !added) {
    return added;
  }
  operator_->start();
  return {};
}

Json Chapter::rayJob() const {
  auto job = server_.get(ray::kRayJobs, "default", "demo-job");
  return job ? **job : Json();
}

std::size_t Chapter::countOfDemoJob(const GroupVersionResource& resource) const {
  ListOptions selector;
  selector.labelSelector = kDemoJobObjects;
  auto listed = server_.list(resource, "default", selector);
  return listed ? listed->items.size() : 0;
}

bool Chapter::submitterComplete() const {
  auto job = server_.get(kJobs, "default", "demo-job");
  return job && isConditionTrue(**job, "Complete");
}

std::vector<Stage> Chapter::stages() {
  auto clusterExists = [this] {
    return server_.get(ray::kRayClusters, "default", statusText(rayJob(), "rayClusterName"))
        .has_value();
  };
  auto downFor = [this](Duration d) {
    return [this, d] { return executor_.now() >= killedAt_ + d; };
  };
  return {
      {"Initializing saved (jobId and rayClusterName chosen, no RayCluster yet)",
       [=, this] { return deploymentStatus() == "Initializing" && !clusterExists(); },
       downFor(seconds(5))},
      {"RayCluster created, none of its pods ready yet",
       [=, this] {
         auto cluster =
             server_.get(ray::kRayClusters, "default", statusText(rayJob(), "rayClusterName"));
         return cluster && statusText(**cluster, "state") != "ready";
       },
       downFor(seconds(5))},
      {"Running saved (the submitter Job created); down until the submitter completes",
       [this] { return deploymentStatus() == "Running"; },
       [=, this] { return submitterComplete() && downFor(seconds(2))(); }},
      {"Complete saved; down through half of ttlSecondsAfterFinished (60 s)",
       [this] { return deploymentStatus() == "Complete"; }, downFor(seconds(30))},
  };
}

AtKill Chapter::snapshot(const std::string& stage) const {
  AtKill at;
  at.stage = stage;
  const Json job = rayJob();
  at.jobId = statusText(job, "jobId");
  at.rayClusterName = statusText(job, "rayClusterName");
  if (auto cluster = server_.get(ray::kRayClusters, "default", at.rayClusterName)) {
    at.rayClusterUid = meta::uid(**cluster);
  }
  if (auto submitter = server_.get(kJobs, "default", "demo-job")) {
    at.submitterUid = meta::uid(**submitter);
  }
  return at;
}

// Kills the operator once the stage is reached, lets it stay down, restarts it.
bool Chapter::killAt(const Stage& stage, RestartRecoveryOutcome& outcome) {
  if (!narrator_.runUntil(stage.reached, minutes(3))) {
    t_.line(fmt::format("demo-job never reached the stage: {}", stage.name));
    return false;
  }
  if (pending_) check(*pending_, outcome);
  pending_ = snapshot(stage.name);
  operator_->crash();
  operator_.reset();
  killedAt_ = executor_.now();
  t_.line(fmt::format("the KubeRay operator is killed: {}", stage.name));
  if (!pending_->jobId.empty()) {
    t_.more(fmt::format("saved: jobId {}, rayClusterName {}", pending_->jobId,
                        pending_->rayClusterName));
  }
  if (!narrator_.runUntil(stage.downUntil, minutes(3))) return false;
  if (auto started = startOperator(); !started) {
    t_.error("restart the KubeRay operator", started.error());
    return false;
  }
  t_.line("the KubeRay operator restarts: a new process, nothing in memory, other random names");
  return true;
}

// What the restarted operator did with its predecessor's objects.
void Chapter::check(const AtKill& at, RestartRecoveryOutcome& outcome) {
  const AtKill now = snapshot(at.stage);
  OperatorRestart restart;
  restart.stage = at.stage;
  restart.rayClusters = countOfDemoJob(ray::kRayClusters);
  restart.submitterJobs = countOfDemoJob(kJobs);
  restart.namesKept =
      at.jobId.empty() || (now.jobId == at.jobId && now.rayClusterName == at.rayClusterName);
  restart.objectsKept = (at.rayClusterUid.empty() || now.rayClusterUid == at.rayClusterUid) &&
                        (at.submitterUid.empty() || now.submitterUid == at.submitterUid);
  outcome.restarts.push_back(restart);
  t_.line(fmt::format("after the restart: {} RayCluster and {} submitter Job labelled {}",
                      restart.rayClusters, restart.submitterJobs, kDemoJobObjects));
  std::vector<std::string> found;
  if (!at.jobId.empty()) {
    found.push_back(
        fmt::format("jobId and rayClusterName {}", restart.namesKept ? "kept" : "drawn again"));
  }
  auto foundByName = [&](const char* what, const std::string& before, const std::string& now) {
    if (before.empty()) return;
    found.push_back(before == now ? fmt::format("the {} found by name (same uid)", what)
                                  : fmt::format("the {} replaced (uid {})", what, now));
  };
  foundByName("RayCluster", at.rayClusterUid, now.rayClusterUid);
  foundByName("submitter Job", at.submitterUid, now.submitterUid);
  if (!found.empty()) {
    t_.more(fmt::format("{}: {}", fmt::join(found, ", "),
                        restart.namesKept && restart.objectsKept ? "nothing created twice"
                                                                 : "NOT what it had made"));
  }
}

// After the last restart: the TTL deletes the RayCluster 60 s after endTime.
bool Chapter::finish(RestartRecoveryOutcome& outcome) {
  narrator_.runFor(seconds(5));
  if (pending_) check(*pending_, outcome);
  const std::string clusterName = statusText(rayJob(), "rayClusterName");
  if (!narrator_.runUntil(
          [&] { return !server_.get(ray::kRayClusters, "default", clusterName).has_value(); },
          minutes(2))) {
    t_.line("the RayCluster was not deleted within 2 virtual minutes");
    return false;
  }
  const Json job = rayJob();
  outcome.jobDeploymentStatus = statusText(job, "jobDeploymentStatus");
  outcome.jobStatus = statusText(job, "jobStatus");
  if (TimePoint end; parseRfc3339(statusText(job, "endTime"), &end)) {
    outcome.clusterDeletedAfterEnd =
        std::chrono::duration_cast<seconds>(executor_.now() - end).count();
  }
  outcome.rayClustersCreated = narrator_.rayClustersCreated;
  outcome.submitterJobsCreated = narrator_.submitterJobsCreated;
  t_.line(
      fmt::format("{} restarts: {} RayCluster and {} submitter Job created in all; "
                  "demo-job {}, Ray job {}; the RayCluster went {} s after endTime",
                  outcome.restarts.size(), outcome.rayClustersCreated, outcome.submitterJobsCreated,
                  outcome.jobDeploymentStatus, outcome.jobStatus, outcome.clusterDeletedAfterEnd));
  return true;
}

RestartRecoveryOutcome Chapter::tell() {
  RestartRecoveryOutcome outcome;
  if (auto started = startOperator(); !started) {
    t_.error("start the KubeRay operator", started.error());
    return outcome;
  }
  executor_.runUntil([&] { return cluster_.manager().running() && operator_->running(); },
                     seconds(1));
  if (auto opened = narrator_.open({&ray::kRayJobs, &ray::kRayClusters, &kJobs}); !opened) {
    t_.error("watch", opened.error());
    return outcome;
  }
  auto created = server_.create(ray::kRayJobs, "default", demoJobManifest());
  if (!created) {
    t_.error("create RayJob default/demo-job", created.error());
    return outcome;
  }
  t_.line(revisionOf(**created), "create RayJob default/demo-job");
  for (const Stage& stage : stages()) {
    if (!killAt(stage, outcome)) return outcome;
  }
  if (!finish(outcome)) return outcome;
  outcome.exitCode = outcome.rayClustersCreated == 1 && outcome.submitterJobsCreated == 1 &&
                             outcome.jobDeploymentStatus == "Complete"
                         ? 0
                         : 1;
  return outcome;
}

}  // namespace
}  // namespace restartrecovery

RestartRecoveryOutcome restartRecoveryStory(const StoryOptions& story) {
  SimExecutor executor(SimExecutor::Options{.seed = 1});
  auto server = openStoryServer(executor);
  if (server == nullptr) return {};
  ClusterOptions options;
  options.nodes = 3;
  options.manager = story.manager(executor, "cluster");
  Cluster cluster(executor, *server, options);
  ray::addRayBehaviors(cluster.behaviors());
  Timeline t(executor, *server, story);
  t.chapter(
      "1.3 Restart recovery: demo-job again, the KubeRay operator killed at each stage and "
      "restarted");
  if (auto started = cluster.start(); !started) {
    std::fprintf(stderr, "fakekube: %s\n", started.error().message.c_str());
    return {};
  }
  restartrecovery::Chapter chapter(executor, *server, cluster, t, story);
  RestartRecoveryOutcome outcome = chapter.tell();
  cluster.stop();
  printStoryTotals(executor, *server);
  return outcome;
}

}  // namespace fakekube::cli
