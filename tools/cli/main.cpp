// fakekube: the command line. `fakekube demo` tells fakekube's stories on the embedded store;
// `fakekube serve` serves the Kubernetes API to kubectl and other clients; `fakekube operator`
// runs the KubeRay operator against any API server; `fakekube crashtest` crashes it at every
// write of a manifest's lifecycle and checks that it converges anyway.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "tools/cli/commands.h"

namespace fakekube::cli {
namespace {

CLI::App* addDemoCommand(CLI::App& app, DemoOptions& demo) {
  auto* command = app.add_subcommand(
      "demo", "Run the stories on the embedded in-memory store and print a timeline");
  command->add_flag("--color", demo.color, "Colour the timeline");
  command->add_option("--trace", demo.trace,
                      "Also write the chapters and every controller's reconciles as Chrome "
                      "trace-event JSON (Perfetto, chrome://tracing), the stories one after "
                      "another in virtual time");
#ifdef FAKEKUBE_CLI_CRASHTEST
  command->add_option("--timeline", demo.timeline,
                      "Also write them as a self-contained HTML page of lanes");
#endif
  return command;
}

CLI::App* addServeCommand(CLI::App& app, ServeOptions& serve) {
  auto* command = app.add_subcommand(
      "serve", "Serve the Kubernetes API (for kubectl) with the cluster's controllers in process");
  command
      ->add_option("--listen", serve.listen,
                   "HOST:PORT to listen on; port 0 picks a free one (loopback by default)")
      ->capture_default_str();
  command->add_option("--db", serve.db, "SQLite file that keeps the state (default: in memory)");
  command->add_option("--kubeconfig-out", serve.kubeconfigOut,
                      "Write a kubeconfig for kubectl to this file");
  command->add_option("--token", serve.token,
                      "Require this bearer token on every request (serves HTTPS: clients send "
                      "tokens only over TLS)");
  command
      ->add_option("--authorization-mode", serve.authorizationMode,
                   "How requests are authorized: RBAC (the Roles and bindings stored in the "
                   "server decide; the kubeconfig's admin is in system:masters) or AlwaysAllow")
      ->capture_default_str();
  command->add_flag("--tls", serve.tls,
                    "Serve HTTPS with a self-signed certificate (written into --kubeconfig-out)");
  command->add_option("--controllers", serve.controllers,
                      "Comma-separated parts to run: gc, namespace, node-lifecycle, scheduler, "
                      "kubelet, job, ttl-after-finished, replicaset, deployment, endpoints, "
                      "endpointslice, serviceaccount, statefulset, daemonset, cronjob, "
                      "disruption, the KubeRay operator's raycluster, rayjob, rayservice, and "
                      "gateway (the Gateway API and a simulated implementation) (default: all)");
  command->add_option("--batch-scheduler", serve.batchScheduler,
                      "Gang scheduler: volcano (runs the simulated Volcano scheduler and hands "
                      "KubeRay's pods to it) or scheduler-plugins (runs scheduler-plugins' "
                      "scheduler with the coscheduling plugin)");
  command->add_option("--operator-service-account", serve.operatorServiceAccount,
                      "Run the KubeRay operator as this ServiceAccount (NAMESPACE/NAME), bound "
                      "to KubeRay's own ClusterRole and leader-election Role");
  command->add_option("--nodes", serve.nodes, "Simulated nodes to create (node-1 ... node-N)")
      ->capture_default_str();
  command
      ->add_option("--retained-revisions", serve.retainedRevisions,
                   "Revisions of history kept for watches; older ones answer 410 Gone "
                   "(0 keeps all)")
      ->capture_default_str();
  command
      ->add_option("--time-scale", serve.timeScale,
                   "Run the cluster's clock and timers N times faster than real time, for test "
                   "suites (timestamps run ahead of the wall clock)")
      ->capture_default_str();
  return command;
}

CLI::App* addOperatorCommand(CLI::App& app, OperatorCommandOptions& rayOperator) {
  auto* command = app.add_subcommand(
      "operator", "Run the KubeRay operator against the API server of a kubeconfig");
  command->add_option("--kubeconfig", rayOperator.kubeconfig, "kubeconfig file")->required();
  command->add_option("--context", rayOperator.context,
                      "kubeconfig context (default: its current context)");
  command->add_option("--controllers", rayOperator.controllers,
                      "Comma-separated controllers to run: raycluster, rayjob, rayservice "
                      "(default: all)");
  command->add_option("--batch-scheduler", rayOperator.batchScheduler,
                      "KubeRay's batch scheduler plug-in: volcano, scheduler-plugins");
  command->add_option("--config", rayOperator.config,
                      "KubeRay's Configuration file (config.ray.io/v1alpha1): sidecar "
                      "containers and settings; it replaces the flags");
  command
      ->add_option("--reconcile-concurrency", rayOperator.reconcileConcurrency,
                   "Reconciles each controller runs at once")
      ->capture_default_str();
  command
      ->add_option("--time-scale", rayOperator.timeScale,
                   "As the server's --time-scale (the two must match)")
      ->capture_default_str();
  return command;
}

#ifdef FAKEKUBE_CLI_CRASHTEST
constexpr const char* kCrashtestHelp = R"(
The files' objects start a seeded in-process cluster (simulated nodes, Ray pods, the garbage
collector) with the KubeRay operator. A clean run records the operator's writes
until the goal; then each write K is rerun under each fault: crash before the write commits
(before), crash after it commits (after), the write commits but its response is lost (lost). The
crashed operator restarts with nothing kept in memory. Every run must reach the goal within
--timeout of virtual time and keep: one head pod per RayCluster and no more worker pods than a
group asks for; one RayCluster, one submitter Job and one Ray submission (in the head's job
table) per RayJob; RayJob counters matching its end (Complete: succeeded 1; Failed: succeeded 0);
after the files' objects are deleted (unless --no-teardown), they are gone and nothing they owned
is left.

--batch-scheduler volcano runs the simulated Volcano scheduler beside the operator, which hands
it its pods (KubeRay's volcano plug-in; a RayJob names its queue with the label
volcano.sh/queue-name); scheduler-plugins runs KubeRay's scheduler-plugins plug-in and a second
scheduler profile for its pods (the plug-in refuses RayJobs, as upstream). Every run also keeps:
one PodGroup per RayJob or RayCluster, every pod of the operator in its owner's group.

Goal (--until, repeatable, all must hold). Default: every RayJob of the files has
status.jobDeploymentStatus Complete or Failed and every RayCluster status.state ready.
  KIND/NAME=VALUE           raycluster: .status.state, rayjob: .status.jobDeploymentStatus,
                            pod: .status.phase       e.g. raycluster/raycluster-kuberay=ready
  KIND/NAME:{.PATH}=VALUE   any field                e.g. rayjob/demo:{.status.succeeded}=1
  KIND/NAMESPACE/NAME...    an explicit namespace (else the object's in the files, else default)

Two phases (--then FILE, repeatable: the files make one manifest). Once the goal holds, the
files are applied as `kubectl apply` applies objects it did not create (an existing object gets
its manifest as a JSON merge patch, a missing one is created), and the run goes on to the second
goal: --then-until (repeatable, as --until), else every RayCluster and RayJob of the files as
above and, for a RayService, its upgrade: Ready, the active cluster on the files' rayVersion and
the only RayCluster it owns (the old one deleted after rayClusterDeletionDelaySeconds), nothing
pending, both Services selecting it. --timeout bounds each goal from its apply. The crash points
are the operator's writes of the whole run (both phases). Not with --replay, --merge, --explore.
  crashtest -f ray-service.sample.yaml --then ray-service.new-version.yaml
With a RayService (either phase) every run also keeps, after every committed write: its head
and serve Services each select the active or the pending cluster; at the goal and after it:
both select the same one (KubeRay switches them in two writes), and no cluster received the
Serve config more than once plus once per restart of the operator.

The operator reads KubeRay's environment variables as `fakekube operator` does, e.g.
  ENABLE_DETERMINISTIC_HEAD_POD_NAME=true crashtest -f ray-service.sample.yaml --then ...

Output: one line per crash point (k, verb, object, fault, outcome), a violation's details and its
replay command, then `N crash points, N converged, N violations`. Exit 0 when nothing was
violated, 1 otherwise, 2 on bad input.

Exploration (--explore intermediate,stale,unobserved): plans generated from the fault-free
reference run: intermediate (the crash points), stale (the operator restarts with caches from
the revision before one of its deletes, catching up later), unobserved (an event withheld until
a later one supersedes it). Each run is also compared with the reference run's end state
(objects per kind and owner, --compare fields) and writes per object. --depth 2 adds pairs and
shrinks a failing pair to the perturbations that matter. --shard I/N and --report FILE split an
exploration; --merge FILES joins the reports. --replay-dir DIR writes a file per failing plan;
--replay FILE reruns it. --trace FILE.json draws a failing plan's run (else the reference run) for
Perfetto or chrome://tracing, --timeline FILE.html as a page of lanes. See
docs/exploring-states.md.)";

// crashtest's options as parsed: --point and --no-teardown become options only once parsed.
struct ParsedCrashtest {
  CrashtestOptions options;
  bool noTeardown = false;
  std::uint64_t pointValue = 0;
  CLI::Option* point = nullptr;
  CLI::App* command = nullptr;

  CrashtestOptions finished() {
    options.teardown = !noTeardown;
    if (point->count() > 0) options.point = pointValue;
    return options;
  }
};

void addCrashtestCommand(CLI::App& app, ParsedCrashtest& parsed) {
  auto* command = app.add_subcommand(
      "crashtest",
      "Crash the KubeRay operator at every write of the manifests' lifecycle, on virtual time, "
      "and check that it converges anyway");
  command->footer(kCrashtestHelp);
  // Required unless --replay or --merge (runCrashtest says so, as one line).
  command->add_option("-f,--filename", parsed.options.files, "Manifest (YAML, multi-document)")
      ->allow_extra_args(false);
  command->add_option("--until", parsed.options.until, "Goal condition (see below)")
      ->allow_extra_args(false);
  command
      ->add_option("--then", parsed.options.then,
                   "Manifest applied (as kubectl apply) once the goal holds, e.g. an upgrade")
      ->allow_extra_args(false);
  command
      ->add_option("--then-until", parsed.options.thenUntil,
                   "Goal condition after --then (as --until; default: see below)")
      ->allow_extra_args(false);
  command->add_option("--seed", parsed.options.seed, "Seed of every run")->capture_default_str();
  command
      ->add_option("--timeout", parsed.options.timeout,
                   "Bound of virtual time to reach the goal (Go duration: 90s, 5m, 1h30m)")
      ->capture_default_str();
  command->add_option("--faults", parsed.options.faults, "Faults to inject, comma-separated")
      ->capture_default_str();
  parsed.point =
      command->add_option("--point", parsed.pointValue,
                          "Replay one run: crash at the operator's K-th write (with --fault)");
  command->add_option("--fault", parsed.options.fault, "The fault of --point: before, after, lost");
  command->add_option("--nodes", parsed.options.nodes, "Simulated nodes")->capture_default_str();
  command->add_option("--rbac", parsed.options.rbac,
                      "Roles and bindings (YAML) to run the operator under, as "
                      "ray-system/kuberay-operator; prints what it used, lacked and never "
                      "used across every run");
  command
      ->add_option("-j,--jobs", parsed.options.jobs,
                   "Runs at a time, each on a thread (0: one per core); the output is the same")
      ->capture_default_str();
  command->add_flag("--no-teardown", parsed.noTeardown,
                    "Skip deleting the files' objects at the end and the leak check");
  command->add_option("--batch-scheduler", parsed.options.batchScheduler,
                      "Gang path: volcano (the simulated Volcano scheduler and KubeRay's "
                      "plug-in) or scheduler-plugins");
  // Exploration of stale, unobserved and intermediate states (tools/cli/explore.h).
  command->add_option("--explore", parsed.options.explore,
                      "Explore these kinds of plans: intermediate,stale,unobserved");
  command->add_option("--depth", parsed.options.depth, "1, or 2: also pairs of plans (shrunk)");
  command->add_option("--compare", parsed.options.compare,
                      "A field the end state must share with the reference run");
  command->add_option("--shard", parsed.options.shard, "Run only shard I/N of the plans");
  command->add_option("--report", parsed.options.report, "Write the exploration's report (JSON)");
  command->add_option("--merge", parsed.options.merge, "Merge shards' --report files into one");
  command->add_option("--replay", parsed.options.replay, "Rerun a replay file's plan exactly");
  command->add_option("--replay-dir", parsed.options.replayDir,
                      "Write a replay file per failing plan here");
  command->add_flag("--quiet", parsed.options.quiet, "No progress bar");
  command->add_option("--trace", parsed.options.trace,
                      "Write a failing plan's run (else the reference run) as Chrome "
                      "trace-event JSON (Perfetto, chrome://tracing)");
  command->add_option("--timeline", parsed.options.timeline,
                      "Write the same run as a self-contained HTML page of lanes");
  parsed.command = command;
}
#endif

}  // namespace
}  // namespace fakekube::cli

int main(int argc, char** argv) {
  using namespace fakekube::cli;
  CLI::App app{"fakekube: an embeddable, in-process mini Kubernetes"};
  app.require_subcommand(1);
  DemoOptions demo;
  CLI::App* demoCommand = addDemoCommand(app, demo);
  ServeOptions serve;
  CLI::App* serveCommand = addServeCommand(app, serve);
  OperatorCommandOptions rayOperator;
  CLI::App* operatorCommand = addOperatorCommand(app, rayOperator);
#ifdef FAKEKUBE_CLI_CRASHTEST
  ParsedCrashtest crashtest;
  addCrashtestCommand(app, crashtest);
#endif

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
#ifdef FAKEKUBE_CLI_CRASHTEST
    // crashtest's bad input is exit 2 with one line, whatever CLI11 would answer.
    if (e.get_exit_code() != 0 && argc > 1 && std::string_view(argv[1]) == "crashtest") {
      std::fprintf(stderr, "fakekube crashtest: %s\n", e.what());
      return 2;
    }
#endif
    return app.exit(e);
  }
#ifdef FAKEKUBE_CLI_CRASHTEST
  if (crashtest.command->parsed()) return runCrashtest(crashtest.finished());
#endif
  if (demoCommand->parsed()) return runDemo(demo);
  if (serveCommand->parsed()) return runServe(serve);
  if (operatorCommand->parsed()) return runOperator(rayOperator);
  return 0;
}
