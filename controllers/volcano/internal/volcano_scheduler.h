// VolcanoScheduler: a simulated vc-scheduler on the controller runtime. Every schedulePeriod
// (1 s) it opens a session over what its manager's cache holds — nodes, pods, PodGroups, Queues,
// PriorityClasses — runs Volcano's enqueue and allocate actions with the gang, priority,
// proportion, overcommit and predicates plugins (session.h), and writes the outcome through the
// manager's client: pods/binding for each pod placed (with a Normal event Scheduled
// "Successfully assigned <ns>/<pod> to <node>"), the PodGroups' and Queues' status, and the
// PodGroup events. On the executor's clock: on a SimExecutor sessions happen at whole virtual
// seconds after the start and a test decides when time moves.
//
//   Manager manager(executor, server);
//   auto added = volcano::addVolcanoScheduler(manager, {});   // CRDs, default Queue, scheduler
//   manager.start();
//
// It schedules only pods whose spec.schedulerName is "volcano" and that name a PodGroup in the
// annotation scheduling.k8s.io/group-name (Volcano's controllers give every other such pod a
// group of its own; this simulation does not, and leaves them Pending). The default scheduler
// leaves these pods alone (docs/scheduler.md), so both run side by side on one cluster.
//
// What a session decides depends only on the cache's content, ordered by name and creation
// time: the same seed gives the same run. A pod bound by the scheduler counts as bound in the
// next sessions until the cache shows it (the scheduler cache's assumed pods). An event with the
// same reason and message as the last one recorded for a PodGroup is not recorded again (the
// real scheduler repeats it every session; the API server's aggregation would only count it).
//
// The session is the reconcile of the `default` Queue (which addVolcanoScheduler creates, and the
// session creates again if it is deleted), requeued every schedulePeriod, so the manager's
// crash, restart and idle() apply to it as to any controller.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "controllers/volcano/internal/session.h"
#include "fakekube/api/status.h"
#include "fakekube/sim/clock.h"

namespace fakekube {
class Manager;
}

namespace fakekube::volcano {

struct VolcanoSchedulerOptions {
  // schedulePeriod.
  Duration schedulePeriod = std::chrono::seconds(1);
  SessionOptions session;
};

// Installs the PodGroup and Queue definitions and the default Queue (installVolcanoApi) and adds
// the scheduler's controller ("volcano-scheduler") to `manager`.
Result<void> addVolcanoScheduler(Manager& manager, VolcanoSchedulerOptions options = {});

}  // namespace fakekube::volcano
