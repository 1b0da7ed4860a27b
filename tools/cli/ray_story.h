// What the KubeRay stories of `fakekube demo` share. runRayStory(): the world a story is told in,
// a seeded executor and in-memory server (so that the story prints the same every time), a
// cluster of simulated nodes whose containers behave as Ray's (the simulated head and workers),
// and a manager for the KubeRay operator; startClusterAndRayOperator(): the start every story
// makes; tellRayJobProgress(): a RayJob's line as its status moves.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <set>
#include <string>

#include "controllers/ray/ray_operator.h"
#include "controllers/ray/sim/ray_simulation.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/cluster/cluster.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/sim_executor.h"
#include "tools/cli/story_trace.h"
#include "tools/cli/timeline.h"

namespace fakekube::cli {

// A story: its exit code.
using RayStoryTeller = int (*)(SimExecutor& executor, ApiServer& server, Cluster& cluster,
                               Manager& rayOperator, const StoryOptions& story);

inline int runRayStory(const StoryOptions& story, int nodes, RayStoryTeller tell) {
  SimExecutor executor(SimExecutor::Options{.seed = 1});
  auto server = openStoryServer(executor);
  if (server == nullptr) return 1;
  ClusterOptions options;
  options.nodes = nodes;
  options.manager = story.manager(executor, "cluster");
  Cluster cluster(executor, *server, options);
  ray::addRayBehaviors(cluster.behaviors());
  Manager rayOperator(executor, *server, story.manager(executor, "kuberay"));
  return tell(executor, *server, cluster, rayOperator, story);
}

// Tells "RayJob demo-job <jobDeploymentStatus>, Ray job <jobStatus>" when either changed since
// `told` (the pair last told, updated); false when there was nothing new to tell.
inline bool tellRayJobProgress(Timeline& t, std::int64_t rv, const std::string& deployment,
                               const std::string& jobStatus, std::string& told) {
  const std::string now = deployment + "/" + jobStatus;
  if (deployment.empty() || now == told) return false;
  told = now;
  std::string line = fmt::format("RayJob demo-job {}", deployment);
  if (!jobStatus.empty()) line += fmt::format(", Ray job {}", jobStatus);
  t.line(rv, line);
  return true;
}

// Starts the cluster, then the KubeRay operator's `controllers` (reaching the simulated Ray heads
// through the cluster's in-process network), and runs until both run; false (the error printed)
// when either cannot start.
inline bool startClusterAndRayOperator(SimExecutor& executor, Cluster& cluster,
                                       Manager& rayOperator,
                                       const std::set<std::string>& controllers,
                                       const ray::OperatorOptions& options) {
  if (auto started = cluster.start(); !started) {
    std::fprintf(stderr, "fakekube: %s\n", started.error().message.c_str());
    return false;
  }
  if (auto added = ray::addRayOperator(rayOperator, controllers, options,
                                       ray::inProcessDashboardClients(cluster.network()));
      !added) {
    std::fprintf(stderr, "fakekube: %s\n", added.error().message.c_str());
    return false;
  }
  rayOperator.start();
  executor.runUntil([&] { return cluster.manager().running() && rayOperator.running(); },
                    std::chrono::seconds(1));
  return true;
}

}  // namespace fakekube::cli
