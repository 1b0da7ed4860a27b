// Entrypoint: a Ray job's entrypoint, run on the executor's clock instead of in a process.
//
// The Ray head runs each submitted job's entrypoint through this. The text is shell (shell.h):
// commands joined by `&&` (the next runs only after success), `||` and `;` (always), plus if /
// while / until when a test wants them. Each simple command is, in this order:
//   a command a test registered (EntrypointRegistry::onCommand, most recent first, matched by a
//   regular expression searched in the command line: its words joined by spaces)
//                       runs for the registered duration, appends the registered log lines,
//                       exits with the registered code
//   sleep N             waits N virtual seconds
//   exit K              ends the entrypoint with K (K != 0: the Ray job FAILED)
//   true, false, :      exit 0, 1, 0 at once
//   echo WORDS          appends the line WORDS to the job's logs
//   bash -c S, sh -c S  runs the script S the same way
//   anything else       (python /home/ray/samples/sample_code.py) runs 1 s, appends one line
//                       saying it was simulated, exits 0
// The entrypoint's status is its last command's, as a shell's is. Text that does not parse fails
// at once with bash's exit code 2 and its message in the logs.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/sim/clock.h"

namespace fakekube::ray {

class ShellRun;

// What a registered command does.
struct EntrypointCommand {
  Duration duration = std::chrono::seconds(1);
  int exitCode = 0;
  std::vector<std::string> logLines;
};

// How long an unregistered, non-builtin command runs.
inline constexpr std::chrono::seconds kSimulatedCommandDuration{1};

// Commands tests teach the simulation. Thread-safe.
class EntrypointRegistry {
 public:
  // Commands whose command line `pattern` (ECMAScript regex) is found in behave as `command`.
  // Throws std::regex_error on a malformed pattern (a test's mistake).
  void onCommand(std::string pattern, EntrypointCommand command);
  // The most recently registered match, if any.
  std::optional<EntrypointCommand> match(const std::string& commandLine) const;

 private:
  struct Rule {
    std::regex pattern;
    EntrypointCommand command;
  };
  mutable std::mutex mu_;
  std::vector<Rule> rules_;
};

// One running entrypoint.
class EntrypointRun {
 public:
  struct Hooks {
    // Runs fn after `delay` (the head's ProcessContext::after: nothing runs once the head is gone).
    std::function<void(Duration, std::function<void()>)> after;
    // Appends one line to the job's logs.
    std::function<void(std::string)> log;
    // The entrypoint ended with `exitCode` (not called after cancel()).
    std::function<void(int exitCode)> done;
  };

  // Starts `entrypoint` now (its first command runs inside this call). `registry` may be null.
  static std::shared_ptr<EntrypointRun> start(std::string_view entrypoint,
                                              std::shared_ptr<const EntrypointRegistry> registry,
                                              Hooks hooks);
  // Stops it (the job was stopped): nothing more is logged, done is not called.
  void cancel();

 private:
  std::mutex mu_;
  std::vector<std::shared_ptr<ShellRun>> runs_;  // the script and any nested `bash -c`
  bool cancelled_ = false;
  friend struct EntrypointRunner;
};

}  // namespace fakekube::ray
