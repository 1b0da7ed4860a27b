// A story of `fakekube demo`: how a worker's Ready turns into a ready
// RayCluster, with the KubeRay operator on a simulated cluster.
#pragma once

#include "tools/cli/story_trace.h"

namespace fakekube::cli {

// `default/demo-cluster`, one head and the worker group `compute` of two, comes up on two nodes:
// the RayCluster controller creates the head Service and the pods, the scheduler binds them, the
// kubelets run the simulated Ray head and workers (whose init container waits for GCS); each
// pod's Ready change enqueues the RayCluster through its controller owner reference, and
// calculateStatus sets `ready` only once the last worker is Ready. Then a worker is deleted and
// the controller replaces it. Printed as a timeline; answers the process exit code.
int rayClusterStory(const StoryOptions& story);

}  // namespace fakekube::cli
