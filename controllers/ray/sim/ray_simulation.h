// The Ray side of the simulation, installed into a cluster's BehaviorRegistry in one call:
//
//   Cluster cluster(executor, *server, {.nodes = 2});
//   auto entrypoints = std::make_shared<ray::EntrypointRegistry>();
//   ray::addRayBehaviors(cluster.behaviors(), {.head = {.entrypoints = entrypoints}});
//   cluster.start();
//
// It adds, for the containers KubeRay creates (matched by their command lines and names):
//   `ray start --head ...`                 the Ray head (ray_head.h): GCS, dashboard, Jobs API,
//                                          and what `ray start --head` prints in its log
//   `ray start --address=...`              a worker: runs until stopped (printing what Ray
//                                          prints when a node starts)
//   init container `wait-gcs-ready`, or an init container running `ray health-check`
//                                          waits for GCS (ray_job_cli.h)
//   container `ray-job-submitter`, or any container whose command runs `ray job ...`
//                                          the submitter's script (ray_job_cli.h)
//   container `autoscaler`, or a command running `ray kuberay-autoscaler`
//                                          Ray's autoscaler (ray_autoscaler.h)
// Rules added later to the registry (a test's own) still win over these.
#pragma once

#include "controllers/ray/sim/ray_autoscaler.h"
#include "controllers/ray/sim/ray_head.h"
#include "controllers/ray/sim/ray_job_cli.h"
#include "fakekube/cluster/container_behavior.h"

namespace fakekube::ray {

struct RaySimulationOptions {
  RayHeadOptions head;
  RayCliOptions cli;
  RayAutoscalerOptions autoscaler;
};

void addRayBehaviors(BehaviorRegistry& registry, RaySimulationOptions options = {});

}  // namespace fakekube::ray
