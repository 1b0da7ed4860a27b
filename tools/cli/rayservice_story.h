// A story of `fakekube demo`: a RayService's zero-downtime upgrade, with the KubeRay operator on a
// simulated cluster.
#pragma once

#include "tools/cli/story_trace.h"

namespace fakekube::cli {

// `default/demo-service` (one head and one worker, one Serve application) comes up: the RayService
// controller commits a pending cluster's name, creates it, sends the Serve config to its head once
// it is ready, and points the head and serve Services at it when the application runs. Then its
// rayVersion changes: a new pending cluster is prepared beside the serving one, the Services'
// selectors switch to it once its application runs (keeping their clusterIPs), and the old
// cluster is deleted 60 s later. Printed as a timeline; answers the process exit code.
int rayServiceStory(const StoryOptions& story);

}  // namespace fakekube::cli
