// The first story of `fakekube demo`: a Deployment on a simulated cluster.
#pragma once

#include "tools/cli/story_trace.h"

namespace fakekube::cli {

// `default/intro-deployment` with 2 replicas comes up on 2 nodes; one pod is deleted and a
// replacement is scheduled and becomes Ready, while a deleted bare pod is not replaced; the
// Deployment is deleted and the garbage collector removes its ReplicaSet and pods. Printed as a
// timeline on its own simulated cluster; answers the process exit code.
int deploymentStory(const StoryOptions& story);

}  // namespace fakekube::cli
