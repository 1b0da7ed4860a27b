// A story of `fakekube demo`: the RayJob demo-job from apply to cleanup, with
// the KubeRay operator on a simulated cluster.
#pragma once

#include "fakekube/api/json.h"
#include "tools/cli/story_trace.h"

namespace fakekube::cli {

// default/demo-job, the RayJob the story applies (and the restart-recovery chapter again).
Json demoJobManifest();

// `default/demo-job` (entrypoint `python /app/main.py`, K8sJobMode, shutdownAfterJobFinishes,
// ttlSecondsAfterFinished 60, one head and the worker group `compute` of two) on three nodes:
// the RayJob controller adds its finalizer, stores the job id and cluster name and goes
// Initializing; creates the RayCluster, whose controller creates the head Service and pods; once
// the cluster is ready it records the dashboard URL and creates the submitter Job, whose pod runs
// KubeRay's script (wait for the dashboard, `ray job submit --submission-id ...`, follow the
// logs); Running; the Ray job SUCCEEDED and the submitter Job complete -> Complete with endTime;
// 60 s later the RayCluster is deleted (the garbage collector takes its pods and Service) while
// the RayJob and the submitter Job stay. Printed as a timeline; answers the process exit code.
int rayJobStory(const StoryOptions& story);

}  // namespace fakekube::cli
