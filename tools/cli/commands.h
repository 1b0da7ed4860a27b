// The subcommands of the `fakekube` CLI.
#pragma once

namespace fakekube::cli {

struct DemoOptions {
  bool color = false;
};

// `fakekube demo`: the stories on the embedded in-memory store, printed as a timeline.
int runDemo(const DemoOptions& options);

}  // namespace fakekube::cli
