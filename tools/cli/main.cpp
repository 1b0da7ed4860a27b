// fakekube: the command line. `fakekube demo` tells fakekube's stories on the embedded store;
// `fakekube serve` serves the Kubernetes API to kubectl and other clients; `fakekube operator`
// runs the KubeRay operator against any API server; `fakekube crashtest` crashes it at every
// write of a manifest's lifecycle and checks that it converges anyway.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "tools/cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"fakekube: an embeddable, in-process mini Kubernetes"};
  app.require_subcommand(1);

  fakekube::cli::DemoOptions demo;
  auto* demoCmd = app.add_subcommand(
      "demo", "Run the stories on the embedded in-memory store and print a timeline");
  demoCmd->add_flag("--color", demo.color, "Colour the timeline");
  demoCmd->add_option("--trace", demo.trace,
                      "Also write the chapters and every controller's reconciles as Chrome "
                      "trace-event JSON (Perfetto, chrome://tracing), the stories one after "
                      "another in virtual time");
#ifdef FAKEKUBE_CLI_CRASHTEST
  demoCmd->add_option("--timeline", demo.timeline,
                      "Also write them as a self-contained HTML page of lanes");
#endif

  fakekube::cli::ServeOptions serve;
  auto* serveCmd = app.add_subcommand(
      "serve", "Serve the Kubernetes API (for kubectl) with the cluster's controllers in process");
  serveCmd
      ->add_option("--listen", serve.listen,
                   "HOST:PORT to listen on; port 0 picks a free one (loopback by default)")
      ->capture_default_str();
  serveCmd->add_option("--db", serve.db, "SQLite file that keeps the state (default: in memory)");
  serveCmd->add_option("--kubeconfig-out", serve.kubeconfigOut,
                       "Write a kubeconfig for kubectl to this file");
  serveCmd->add_option("--token", serve.token,
                       "Require this bearer token on every request (serves HTTPS: clients send "
                       "tokens only over TLS)");
  serveCmd
      ->add_option("--authorization-mode", serve.authorizationMode,
                   "How requests are authorized: RBAC (the Roles and bindings stored in the "
                   "server decide; the kubeconfig's admin is in system:masters) or AlwaysAllow")
      ->capture_default_str();
  serveCmd->add_flag("--tls", serve.tls,
                     "Serve HTTPS with a self-signed certificate (written into --kubeconfig-out)");
  serveCmd->add_option("--controllers", serve.controllers,
                       "Comma-separated parts to run: gc, namespace, node-lifecycle, scheduler, "
                       "kubelet, job, ttl-after-finished, replicaset, deployment, endpoints, "
                       "endpointslice, serviceaccount, statefulset, daemonset, cronjob, "
                       "disruption, and the KubeRay operator's raycluster, rayjob, rayservice "
                       "(default: all)");
  serveCmd->add_option("--batch-scheduler", serve.batchScheduler,
                       "Gang scheduler: volcano (runs the simulated Volcano scheduler and hands "
                       "KubeRay's pods to it) or scheduler-plugins (runs scheduler-plugins' "
                       "scheduler with the coscheduling plugin)");
  serveCmd->add_option("--operator-service-account", serve.operatorServiceAccount,
                       "Run the KubeRay operator as this ServiceAccount (NAMESPACE/NAME), bound "
                       "to KubeRay's own ClusterRole and leader-election Role");
  serveCmd->add_option("--nodes", serve.nodes, "Simulated nodes to create (node-1 ... node-N)")
      ->capture_default_str();
  serveCmd
      ->add_option("--retained-revisions", serve.retainedRevisions,
                   "Revisions of history kept for watches; older ones answer 410 Gone "
                   "(0 keeps all)")
      ->capture_default_str();
  serveCmd
      ->add_option("--time-scale", serve.timeScale,
                   "Run the cluster's clock and timers N times faster than real time, for test "
                   "suites (timestamps run ahead of the wall clock)")
      ->capture_default_str();

  fakekube::cli::OperatorCommandOptions rayOperator;
  auto* operatorCmd = app.add_subcommand(
      "operator", "Run the KubeRay operator against the API server of a kubeconfig");
  operatorCmd->add_option("--kubeconfig", rayOperator.kubeconfig, "kubeconfig file")->required();
  operatorCmd->add_option("--context", rayOperator.context,
                          "kubeconfig context (default: its current context)");
  operatorCmd->add_option("--controllers", rayOperator.controllers,
                          "Comma-separated controllers to run: raycluster, rayjob, rayservice "
                          "(default: all)");
  operatorCmd->add_option("--batch-scheduler", rayOperator.batchScheduler,
                          "KubeRay's batch scheduler plug-in: volcano, scheduler-plugins");
  operatorCmd->add_option("--config", rayOperator.config,
                          "KubeRay's Configuration file (config.ray.io/v1alpha1): sidecar "
                          "containers and settings; it replaces the flags");
  operatorCmd
      ->add_option("--reconcile-concurrency", rayOperator.reconcileConcurrency,
                   "Reconciles each controller runs at once")
      ->capture_default_str();
  operatorCmd
      ->add_option("--time-scale", rayOperator.timeScale,
                   "As the server's --time-scale (the two must match)")
      ->capture_default_str();

#ifdef FAKEKUBE_CLI_CRASHTEST
  fakekube::cli::CrashtestOptions crashtest;
  bool noTeardown = false;
  auto* crashtestCmd = app.add_subcommand(
      "crashtest",
      "Crash the KubeRay operator at every write of the manifests' lifecycle, on virtual time, "
      "and check that it converges anyway");
  crashtestCmd->footer(R"(
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
docs/exploring-states.md.)");
  // Required unless --replay or --merge (runCrashtest says so, as one line).
  crashtestCmd->add_option("-f,--filename", crashtest.files, "Manifest (YAML, multi-document)")
      ->allow_extra_args(false);
  crashtestCmd->add_option("--until", crashtest.until, "Goal condition (see below)")
      ->allow_extra_args(false);
  crashtestCmd->add_option("--seed", crashtest.seed, "Seed of every run")->capture_default_str();
  crashtestCmd
      ->add_option("--timeout", crashtest.timeout,
                   "Bound of virtual time to reach the goal (Go duration: 90s, 5m, 1h30m)")
      ->capture_default_str();
  crashtestCmd->add_option("--faults", crashtest.faults, "Faults to inject, comma-separated")
      ->capture_default_str();
  std::uint64_t point = 0;
  auto* pointOption = crashtestCmd->add_option(
      "--point", point, "Replay one run: crash at the operator's K-th write (with --fault)");
  crashtestCmd->add_option("--fault", crashtest.fault, "The fault of --point: before, after, lost");
  crashtestCmd->add_option("--nodes", crashtest.nodes, "Simulated nodes")->capture_default_str();
  crashtestCmd->add_option("--rbac", crashtest.rbac,
                           "Roles and bindings (YAML) to run the operator under, as "
                           "ray-system/kuberay-operator; prints what it used, lacked and never "
                           "used across every run");
  crashtestCmd
      ->add_option("-j,--jobs", crashtest.jobs,
                   "Runs at a time, each on a thread (0: one per core); the output is the same")
      ->capture_default_str();
  crashtestCmd->add_flag("--no-teardown", noTeardown,
                         "Skip deleting the files' objects at the end and the leak check");
  crashtestCmd->add_option("--batch-scheduler", crashtest.batchScheduler,
                           "Gang path: volcano (the simulated Volcano scheduler and KubeRay's "
                           "plug-in) or scheduler-plugins");
  // Exploration of stale, unobserved and intermediate states (tools/cli/explore.h).
  crashtestCmd->add_option("--explore", crashtest.explore,
                           "Explore these kinds of plans: intermediate,stale,unobserved");
  crashtestCmd->add_option("--depth", crashtest.depth, "1, or 2: also pairs of plans (shrunk)");
  crashtestCmd->add_option("--compare", crashtest.compare,
                           "A field the end state must share with the reference run");
  crashtestCmd->add_option("--shard", crashtest.shard, "Run only shard I/N of the plans");
  crashtestCmd->add_option("--report", crashtest.report, "Write the exploration's report (JSON)");
  crashtestCmd->add_option("--merge", crashtest.merge, "Merge shards' --report files into one");
  crashtestCmd->add_option("--replay", crashtest.replay, "Rerun a replay file's plan exactly");
  crashtestCmd->add_option("--replay-dir", crashtest.replayDir,
                           "Write a replay file per failing plan here");
  crashtestCmd->add_flag("--quiet", crashtest.quiet, "No progress bar");
  crashtestCmd->add_option("--trace", crashtest.trace,
                           "Write a failing plan's run (else the reference run) as Chrome "
                           "trace-event JSON (Perfetto, chrome://tracing)");
  crashtestCmd->add_option("--timeline", crashtest.timeline,
                           "Write the same run as a self-contained HTML page of lanes");
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
  if (crashtestCmd->parsed()) {
    crashtest.teardown = !noTeardown;
    if (pointOption->count() > 0) crashtest.point = point;
    return fakekube::cli::runCrashtest(crashtest);
  }
#endif
  if (demoCmd->parsed()) return fakekube::cli::runDemo(demo);
  if (serveCmd->parsed()) return fakekube::cli::runServe(serve);
  if (operatorCmd->parsed()) return fakekube::cli::runOperator(rayOperator);
  return 0;
}
