// A story of `fakekube demo`: resource contention, and gang scheduling as its remedy.
#pragma once

#include "tools/cli/story_trace.h"

namespace fakekube::cli {

// Two RayJobs, llm-finetune and then batch-inference, each a Ray cluster of three members (a head
// and two workers of 4 cpu); the machines hold four members (node-1 at the start, node-2 coming
// up 10 s after the second job). Told twice: with the default scheduler alone (each job gets
// part of what it needs and both wait forever: shown after 10 virtual minutes), then with KubeRay
// handing its pods to the simulated Volcano scheduler (one PodGroup is admitted and runs, its job
// succeeds and its RayCluster goes after the TTL, then the other group is admitted and runs).
// Printed as a timeline with the PodGroup phases; answers the process exit code.
int contentionStory(const StoryOptions& story);

}  // namespace fakekube::cli
