// `fakekube crashtest --explore`: the fixtures' Explorer (fixtures/explorer.h) on the scenario
// `fakekube crashtest` builds from its manifests, and the exploration's replay and merge.
//
//   --explore stale,unobserved,intermediate   the kinds of plans (any of them)
//   --depth 2                                 also every pair of plans that passed alone; a
//                                             failing pair is shrunk (delta debugging)
//   --compare status.jobStatus                a field the end state must share with the
//                                             reference run (repeatable)
//   --shard I/N                               run plan i only when i % N == I - 1
//   --report FILE                             the report as JSON (what --merge reads)
//   --merge A.json B.json ...                 the shards' reports as one
//   --replay-dir DIR                          a replay file per failing plan
//   --replay FILE                             rerun one replay file's plan exactly
//   --quiet                                   no progress bar (none on a pipe either)
// The output is the report's text (ExploreReport::str): a header, a line per plan as it
// finishes (with each violation and the plan as JSON), then the summary per kind.
#pragma once

#include <iosfwd>

#include "fixtures/crash_point_runner.h"
#include "tools/cli/commands.h"

namespace fakekube::cli {

// Whether the options ask for an exploration (or its replay) rather than crash points.
bool wantsExploration(const CrashtestOptions& options);
// The exploration of `scenario` (built by runCrashtest from the options). Exit codes as
// runCrashtest's.
int runExploration(const CrashtestOptions& options, CrashScenario scenario, std::ostream& out,
                   std::ostream& err);
// --merge: no scenario to run, only reports to read.
int runMerge(const CrashtestOptions& options, std::ostream& out, std::ostream& err);
// --replay FILE: the options the file records, with its plan, through runCrashtest.
int runReplay(const CrashtestOptions& options, std::ostream& out, std::ostream& err);

}  // namespace fakekube::cli
