// fakekube: the command line. `fakekube demo` tells fakekube's stories on the embedded store;
// `fakekube serve` (see serve.cpp once present) serves the Kubernetes API to kubectl.
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

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (demoCmd->parsed()) return fakekube::cli::runDemo(demo);
  return 0;
}
