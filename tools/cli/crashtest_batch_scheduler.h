// `fakekube crashtest --batch-scheduler NAME`: the crash points of the KubeRay operator over the
// gang path, with its batch-scheduler plug-in (controllers/ray/batchscheduler/) and the scheduler
// its pods are handed to, as `fakekube serve --batch-scheduler` runs them.
//
//   volcano            the operator's Volcano plug-in and the simulated vc-scheduler
//                      (controllers/volcano/), an operator of its own in every run (its writes
//                      are not enumerated: the KubeRay operator's are);
//   scheduler-plugins  the operator's scheduler-plugins plug-in, and a second kube-scheduler
//                      profile named scheduler-plugins-scheduler that places its pods (as the
//                      scheduler-plugins install runs one; the simulation has no coscheduling
//                      gang semantics), with the scheduling.x-k8s.io PodGroup definition served.
//                      KubeRay's plug-in refuses a RayJob ("currently only RayCluster is
//                      supported"), as upstream: only RayClusters get through.
//
// Besides the crashtest's invariants, every run keeps, at the goal and after settling: one
// PodGroup per owner (no duplicate created by a restarted operator), and every pod the operator
// made (a RayCluster's, a RayJob's submitter's) in its owner's group with the plug-in's
// schedulerName; after the teardown, no PodGroup is left whose owner is gone.
#pragma once

#include <string>
#include <string_view>

#include "fakekube/api/status.h"
#include "fixtures/crash_point_runner.h"

namespace fakekube::cli {

// "" (none), "volcano", "scheduler-plugins"; anything else is a 400 "--batch-scheduler "x":
// expected volcano or scheduler-plugins".
Result<void> validateCrashtestBatchScheduler(std::string_view name);

// Adds to `scenario` what `name` needs (definitions, the scheduler's operator, invariants) and
// makes the KubeRay operator the one whose writes are enumerated. The KubeRay operator's factory
// sets OperatorOptions::batchScheduler itself. Nothing for "".
void addCrashtestBatchScheduler(std::string_view name, CrashScenario& scenario);

// Every live pod controlled by a RayCluster, or by a Job a RayJob controls, is handed to the
// plug-in's scheduler and names its owner's group, and that group exists: for volcano the
// annotation scheduling.k8s.io/group-name is ray-<RayJob or RayCluster>-pg; for
// scheduler-plugins, on a RayCluster labelled ray.io/gang-scheduling-enabled, the label
// scheduling.x-k8s.io/pod-group is the cluster's name.
Invariant podsInTheirGangs(std::string batchScheduler);

}  // namespace fakekube::cli
