// The subcommands of the `fakekube` CLI.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "fakekube/api/status.h"

namespace fakekube {
class Manager;
}

namespace fakekube::cli {

struct DemoOptions {
  bool color = false;
  std::string trace;  // --trace: the stories as Chrome trace-event JSON (tools/cli/story_trace.h)
  std::string timeline;  // --timeline: the same as an HTML page of lanes
};

// `fakekube demo`: the stories on the embedded in-memory store, printed as a timeline.
int runDemo(const DemoOptions& options);

struct ServeOptions {
  std::string listen = "127.0.0.1:0";
  std::string db;  // "" = in memory
  std::string kubeconfigOut;
  std::string token;
  bool tls = false;         // HTTPS even without a token (always with one)
  std::string controllers;  // "" = all
  int nodes = 1;
  long long retainedRevisions = 10000;
  double timeScale = 1;  // >1: the cluster's clock and timers run that many times faster
  // "volcano": the simulated Volcano scheduler runs and the operator hands it its pods;
  // "scheduler-plugins": scheduler-plugins' scheduler with the coscheduling plugin runs and the
  // operator hands it its pods; "" = none.
  std::string batchScheduler;
  // "NAMESPACE/NAME": the KubeRay operator runs as that ServiceAccount, bound to KubeRay's own
  // roles (controllers/ray/internal/operator_rbac.h); "" = as the server's own identity.
  std::string operatorServiceAccount;
  // kube-apiserver's --authorization-mode: "RBAC" (the stored Roles and bindings decide) or
  // "AlwaysAllow" (every request is allowed).
  std::string authorizationMode = "RBAC";
};

// `fakekube serve`: the Kubernetes API for kubectl, until SIGINT / SIGTERM.
int runServe(const ServeOptions& options);

struct OperatorCommandOptions {
  std::string kubeconfig;
  std::string context;      // "" = the kubeconfig's current context
  std::string controllers;  // "" = all of the operator's
  int reconcileConcurrency = 1;
  double timeScale = 1;        // as `fakekube serve --time-scale`: must match the server's
  std::string config;          // KubeRay's Configuration file ("" = none: the flags)
  std::string batchScheduler;  // --batch-scheduler: volcano, scheduler-plugins, "" = none
};

// `fakekube operator`: the KubeRay operator against the API server of a kubeconfig, until
// SIGINT / SIGTERM.
int runOperator(const OperatorCommandOptions& options);

struct CrashtestOptions {
  std::vector<std::string> files;  // -f, in order
  std::vector<std::string> until;  // --until conditions (all must hold); none: the default goal
  // --then FILE...: applied as `kubectl apply` would once the goal holds (an upgrade), awaited
  // by --then-until's conditions, or by the default goal of its objects.
  std::vector<std::string> then;
  std::vector<std::string> thenUntil;
  std::uint64_t seed = 1;
  std::string timeout = "5m";  // the goal's bound of virtual time, a Go duration
  std::string faults = "before,after,lost";
  std::optional<std::uint64_t> point;  // --point K --fault F: replay that one run
  std::string fault;
  int nodes = 2;
  // Runs at a time, each on its own thread (0: one per core). The rows and the summary are the
  // same whatever the number: every run is its own seeded cluster.
  int jobs = 0;
  bool teardown = true;  // delete the files' objects at the end and look for leftovers
  // --batch-scheduler: volcano, scheduler-plugins, "" = none
  // (tools/cli/crashtest_batch_scheduler.h)
  std::string batchScheduler;
  // Exploration of stale, unobserved and intermediate states (tools/cli/explore.h).
  std::string explore;  // "stale,unobserved,intermediate"; "" = crash points
  int depth = 1;
  std::vector<std::string> compare;
  std::string shard;   // "I/N"
  std::string report;  // JSON report file
  std::vector<std::string> merge;
  std::string replay;      // a replay file
  std::string replayDir;   // where failing plans' replay files go
  std::string replayPlan;  // set from a replay file: the plan (JSON) to run alone
  bool quiet = false;
  std::string trace;     // Chrome trace-event JSON of a failing plan (or the reference run)
  std::string timeline;  // the same run as an HTML page of lanes
  // --rbac FILE...: the operator runs as system:serviceaccount:ray-system:kuberay-operator bound
  // to the files' roles, and the access report across every run follows the rows.
  std::vector<std::string> rbac;
  // Tests only: the operator under test instead of KubeRay's (its crash points are enumerated).
  std::function<Result<void>(Manager& manager)> operatorFactory;
  // Where the rows, the summary and the errors go (stdout and stderr when null).
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;
};

// `fakekube crashtest`: crash-point enumeration of the KubeRay operator on manifests. 0 when
// every run converged, 1 on a violation (with the command that replays it), 2 on bad input.
int runCrashtest(const CrashtestOptions& options);

}  // namespace fakekube::cli
