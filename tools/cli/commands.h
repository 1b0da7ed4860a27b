// The subcommands of the `fakekube` CLI.
#pragma once

#include <string>

namespace fakekube::cli {

struct DemoOptions {
  bool color = false;
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
};

// `fakekube serve`: the Kubernetes API for kubectl, until SIGINT / SIGTERM.
int runServe(const ServeOptions& options);

struct OperatorCommandOptions {
  std::string kubeconfig;
  std::string context;      // "" = the kubeconfig's current context
  std::string controllers;  // "" = all of the operator's
  int reconcileConcurrency = 1;
};

// `fakekube operator`: the KubeRay operator against the API server of a kubeconfig, until
// SIGINT / SIGTERM.
int runOperator(const OperatorCommandOptions& options);

}  // namespace fakekube::cli
