// The invariants `fakekube crashtest` checks in every run of the KubeRay operator, besides the
// fixtures' generic ones (noDuplicateControlled, noOrphans). Each reads the API server, and the
// last one the simulated Ray heads, through the TestCluster.
#pragma once

#include "fixtures/invariant.h"

namespace fakekube::cli {

// At most one live head pod per RayCluster; no worker group with more live pods than it asks
// for (replicas within minReplicas..maxReplicas, times numOfHosts; 0 when suspended).
Invariant rayClusterPods();

// A RayJob's counters agree with where it ended: Complete has succeeded 1 and failed within
// backoffLimit, Failed has succeeded 0 and failed within backoffLimit + 1, no RayJob succeeded
// twice.
Invariant rayJobCounters();

// One Ray submission per RayJob: the job table of its RayCluster's head (GET /api/jobs/ on the
// simulated dashboard, port 8265) holds at most one job whose submission id is the RayJob's
// status.jobId or starts with "<rayjob>-" (as KubeRay generates ids).
Invariant oneRaySubmissionPerRayJob();

}  // namespace fakekube::cli
