// fakekube: the command line. `fakekube demo` tells fakekube's stories on the embedded store;
// `fakekube serve` serves the Kubernetes API to kubectl and other clients.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "tools/cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"fakekube: an embeddable, in-process mini Kubernetes"};
  app.require_subcommand(1);

  fakekube::cli::DemoOptions demo;
  auto* demoCmd = app.add_subcommand(
      "demo", "Run the stories on the embedded in-memory store and print a timeline");
  demoCmd->add_flag("--color", demo.color, "Colour the timeline");

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
  serveCmd->add_flag("--tls", serve.tls,
                     "Serve HTTPS with a self-signed certificate (written into --kubeconfig-out)");
  serveCmd->add_option("--controllers", serve.controllers,
                       "Comma-separated parts to run: gc, namespace, node-lifecycle, scheduler, "
                       "kubelet, job, ttl-after-finished, replicaset, deployment, endpoints, "
                       "endpointslice, serviceaccount, statefulset, daemonset, cronjob, "
                       "disruption (default: all)");
  serveCmd->add_option("--nodes", serve.nodes, "Simulated nodes to create (node-1 ... node-N)")
      ->capture_default_str();
  serveCmd
      ->add_option("--retained-revisions", serve.retainedRevisions,
                   "Revisions of history kept for watches; older ones answer 410 Gone "
                   "(0 keeps all)")
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (demoCmd->parsed()) return fakekube::cli::runDemo(demo);
  if (serveCmd->parsed()) return fakekube::cli::runServe(serve);
  return 0;
}
