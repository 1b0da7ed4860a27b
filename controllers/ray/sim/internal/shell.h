// Shell: the part of bash that the commands of Ray's pods use, run on the executor's clock.
//
// Two programs in the simulation are shell text: the submitter container's `/bin/bash -ce --
// SCRIPT` (KubeRay's BuildJobSubmitCommand, or a user's own submitter command) and a Ray job's
// entrypoint. Both are parsed here into a small syntax tree and run asynchronously: a command
// that takes time (sleep, a `ray job logs --follow`) finishes by calling its continuation later
// on the executor, so a script costs no wall-clock time and runs deterministically.
//
// Grammar (a subset of POSIX sh):
//   list      and-or ((';' | newline) and-or)*
//   and-or    pipeline (('&&' | '||') pipeline)*
//   pipeline  ['!'] command ('|' command)*      (a pipe runs its commands in turn; the status is
//                                                the last one's: no data flows between them)
//   command   if list then list [elif list then list]... [else list] fi
//             | until list do list done | while list do list done | { list ; } | simple
//   simple    words and redirections (>/dev/null, 2>&1, >file, <file: parsed and dropped, except
//             that a command whose standard output is redirected prints nothing)
// Words: single quotes, double quotes (\" \\ \$ \` escapes), backslash escapes, and expansion of
// $NAME, ${NAME} and ${NAME:-default} from the container's environment (no word splitting, no
// globbing, no command substitution). Reserved words count only in command position. Not
// simulated, and refused as a syntax error: `&` (background jobs), `( ... )` subshells, `;;`.
//
// Running. `exit [N]` ends the script; `true`, `false`, `:`, `echo`, `sleep N` are builtins the
// program's command handler may fall back to (runBuiltin); every other simple command goes to the
// handler. With errexit (bash -e), a failing command ends the script with its status, except in
// the condition of if/while/until, before the last && or ||, and after '!', as in bash. A script
// ends with the status of its last command.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/status.h"
#include "fakekube/sim/clock.h"

namespace fakekube::ray {

struct ShellList;

// A parsed script (immutable, shareable).
using ShellScript = std::shared_ptr<const ShellList>;

// Looks a variable up in the environment; nullptr when unset.
using ShellEnvironment = std::function<const std::string*(std::string_view name)>;

// Parses `text`. Syntax errors are 400 BadRequest ("syntax error near unexpected token `fi'").
Result<ShellScript> parseShell(std::string_view text, const ShellEnvironment& environment = {});

// One simple command as the handler sees it.
struct ShellCall {
  std::vector<std::string> argv;
  // Standard output is redirected (>/dev/null): the command prints nothing.
  bool quiet = false;
};

class ShellRun;

struct ShellOptions {
  // bash -e.
  bool errexit = false;
  // Runs fn after `delay` (e.g. ProcessContext::after); the shell waits on nothing else.
  std::function<void(Duration delay, std::function<void()> fn)> after;
  // Prints one line of the script's output.
  std::function<void(std::string line)> print;
  // Runs a simple command that is not `exit`; calls done(status) exactly once, now or later.
  std::function<void(ShellRun& run, const ShellCall& call, std::function<void(int)> done)> command;
};

// One run of a script. Created by start(); holds itself alive until it ends or is cancelled. Its
// steps run one at a time (each schedules the next); cancel() may be called from any thread.
class ShellRun : public std::enable_shared_from_this<ShellRun> {
 public:
  // Starts `script`; `done(status)` is called once when it ends (not after cancel()).
  static std::shared_ptr<ShellRun> start(ShellScript script, ShellOptions options,
                                         std::function<void(int)> done);

  // Stops the run: nothing further happens, done is not called.
  void cancel();
  bool finished() const { return finished_; }

  // Prints a line unless `call` is quiet.
  void print(const ShellCall& call, std::string line);
  // `true`, `false`, `:`, `echo WORDS`, `sleep N` (N seconds, fractions allowed). False when
  // argv[0] is none of them (done not called).
  bool runBuiltin(const ShellCall& call, const std::function<void(int)>& done);
  void after(Duration delay, std::function<void()> fn);

  // Internal: the tree walker.
  struct Walker;

 private:
  ShellRun(ShellScript script, ShellOptions options, std::function<void(int)> done);
  void finish(int status);

  ShellScript script_;
  ShellOptions options_;
  std::mutex mu_;  // done_: cancel() may come from another thread than the run's steps
  std::function<void(int)> done_;
  std::atomic<bool> finished_{false};
  friend struct Walker;
};

// Python's subprocess.list2cmdline, as `ray job submit -- ARGS...` joins its arguments into the
// entrypoint string.
std::string list2cmdline(const std::vector<std::string>& args);

}  // namespace fakekube::ray
