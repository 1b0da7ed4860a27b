// A chapter of `fakekube demo`'s RayJob story: restart recovery. demo-job (rayjob_story.h) runs
// again from apply to cleanup, and the KubeRay operator is killed at each stage of its life and
// restarted as a new process (nothing kept in memory, other random names drawn):
//
//   Initializing saved   jobId and rayClusterName chosen, no RayCluster yet
//   RayCluster created   none of its pods ready yet
//   Running saved        the submitter Job created; the operator stays down until it completes
//   Complete saved       the operator stays down through half of ttlSecondsAfterFinished
//
// Each restarted operator finds what its predecessor made by name (status.rayClusterName, the
// submitter Job named as the RayJob) and label (ray.io/originated-from-cr-name=demo-job) instead
// of creating it again: one RayCluster and one submitter Job over the whole life, the Ray job
// SUCCEEDED, the RayCluster deleted 60 s after endTime. Printed on the timeline; what it showed
// is answered too, for the tests.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tools/cli/story_trace.h"

namespace fakekube::cli {

// One kill and restart, as checked at the next stage (or at the end).
struct OperatorRestart {
  std::string stage;  // "Initializing saved", ...
  // Objects of demo-job (labelled ray.io/originated-from-cr-name=demo-job) at that check.
  std::size_t rayClusters = 0;
  std::size_t submitterJobs = 0;
  // status.jobId and status.rayClusterName are the ones saved before the kill.
  bool namesKept = false;
  // The RayCluster and submitter Job that existed at the kill still exist with the same uid
  // (or are gone only by the TTL's deletion of the RayCluster).
  bool objectsKept = false;
};

struct RestartRecoveryOutcome {
  int exitCode = 1;
  std::vector<OperatorRestart> restarts;
  // Creations seen over the whole life (watch events ADDED).
  std::size_t rayClustersCreated = 0;
  std::size_t submitterJobsCreated = 0;
  std::string jobDeploymentStatus;  // at the end
  std::string jobStatus;
  // Seconds from endTime to the RayCluster's deletion (ttlSecondsAfterFinished 60).
  long long clusterDeletedAfterEnd = -1;
};

RestartRecoveryOutcome restartRecoveryStory(const StoryOptions& story);

}  // namespace fakekube::cli
