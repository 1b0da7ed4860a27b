// Timeline: how `fakekube demo` prints its stories. Each line carries the virtual time since the
// start of the simulated run and a store revision, then what was observed:
//
//   [+  6s rv=41 ] Pod default/intro-deployment-5d8f7-x2k9q Ready
//
// The timeline only prints; every caller passes the outcome of a real request or watch event.
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "fakekube/api/status.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/sim/sim_executor.h"
#include "tools/cli/story_trace.h"

namespace fakekube::cli {

// The in-memory API server a story runs on, seeded like the story's executor so that the story
// prints the same every time; null (the error printed) if it cannot open.
inline std::unique_ptr<ApiServer> openStoryServer(SimExecutor& executor) {
  ApiServerOptions options;
  options.seed = 1;
  auto server = ApiServer::open(executor.clock(), options);
  if (!server) {
    std::fprintf(stderr, "fakekube: %s\n", server.error().message.c_str());
    return nullptr;
  }
  return std::move(*server);
}

// A story's last line: how many writes it made in how much virtual time.
inline void printStoryTotals(SimExecutor& executor, ApiServer& server) {
  std::printf(
      "\n%lld writes in %.0f virtual seconds; every line above is a real request or watch "
      "event.\n",
      static_cast<long long>(server.revision()),
      std::chrono::duration<double>(executor.now() - kSimulatedEpoch).count());
}

class Timeline {
 public:
  Timeline(SimExecutor& executor, ApiServer& server, const StoryOptions& story)
      : executor_(executor), server_(server), color_(story.color), trace_(story.trace) {}

  void heading(const std::string& text) {
    std::printf("\n%s\n", color_ ? fmt::format("\033[1;4m{}\033[0m", text).c_str() : text.c_str());
  }

  void chapter(const std::string& title) {
    if (trace_ != nullptr) trace_->chapter(executor_, title);
    std::printf("\n%s\n", color_ ? fmt::format("\033[1m{}\033[0m", title).c_str() : title.c_str());
  }

  // One line at the store's current revision.
  void line(const std::string& text) { line(server_.revision(), text); }
  // One line at `revision` (a watched object's resourceVersion: the write it shows).
  void line(std::int64_t revision, const std::string& text) {
    auto elapsed =
        std::chrono::duration_cast<std::chrono::seconds>(executor_.now() - kSimulatedEpoch);
    std::printf("  [+%3llds rv=%-3lld] %s\n", static_cast<long long>(elapsed.count()),
                static_cast<long long>(revision), text.c_str());
  }
  // A line continued without time and revision.
  void more(const std::string& text) { std::printf("  %17s %s\n", "", text.c_str()); }

  void error(const std::string& what, const Status& status) {
    line(fmt::format("{} -> {} {}", what, status.code, status.reason));
    more(status.message);
  }

  void tick(int seconds = 1) { executor_.advance(std::chrono::seconds(seconds)); }

 private:
  SimExecutor& executor_;
  ApiServer& server_;
  bool color_;
  StoryTrace* trace_;  // --trace: the chapters go there too
};

}  // namespace fakekube::cli
