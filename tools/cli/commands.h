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

}  // namespace fakekube::cli
