#include "controllers/ray/sim/entrypoint.h"

#include <fmt/format.h>

#include <optional>

#include "controllers/ray/sim/internal/shell.h"

namespace fakekube::ray {

void EntrypointRegistry::onCommand(std::string pattern, EntrypointCommand command) {
  std::regex compiled(pattern, std::regex::ECMAScript);
  std::lock_guard lock(mu_);
  rules_.push_back({std::move(compiled), std::move(command)});
}

std::optional<EntrypointCommand> EntrypointRegistry::match(const std::string& commandLine) const {
  std::lock_guard lock(mu_);
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
    if (std::regex_search(commandLine, it->pattern)) return it->command;
  }
  return std::nullopt;
}

struct EntrypointRunner {
  static void startScript(const std::shared_ptr<EntrypointRun>& self, std::string_view text,
                          std::shared_ptr<const EntrypointRegistry> registry,
                          std::shared_ptr<EntrypointRun::Hooks> hooks,
                          std::function<void(int)> done) {
    auto script = parseShell(text);
    if (!script) {
      hooks->log(fmt::format("bash: -c: line 1: {}", script.error().message));
      done(2);
      return;
    }
    ShellOptions options;
    options.after = hooks->after;
    options.print = hooks->log;
    std::weak_ptr<EntrypointRun> weak = self;
    options.command = [weak, registry, hooks](ShellRun& run, const ShellCall& call,
                                              std::function<void(int)> commandDone) {
      auto owner = weak.lock();
      if (!owner) return;
      const std::string line = fmt::format("{}", fmt::join(call.argv, " "));
      if (registry) {
        if (auto registered = registry->match(line)) {
          std::shared_ptr<ShellRun> alive = run.shared_from_this();
          run.after(registered->duration, [alive, registered = *registered, call, commandDone] {
            for (const auto& logLine : registered.logLines) alive->print(call, logLine);
            commandDone(registered.exitCode);
          });
          return;
        }
      }
      if (run.runBuiltin(call, commandDone)) return;
      const std::string& name = call.argv[0];
      if ((name == "bash" || name == "sh" || name == "/bin/bash" || name == "/bin/sh") &&
          call.argv.size() >= 3 && call.argv[1] == "-c") {
        startScript(owner, call.argv[2], registry, hooks, commandDone);
        return;
      }
      std::shared_ptr<ShellRun> alive = run.shared_from_this();
      run.after(kSimulatedCommandDuration, [alive, call, line, commandDone] {
        alive->print(call, fmt::format("fakekube: simulated \"{}\" ({}s, exit 0)", line,
                                       kSimulatedCommandDuration.count()));
        commandDone(0);
      });
    };
    std::shared_ptr<ShellRun> run;
    {
      std::lock_guard lock(self->mu_);
      if (self->cancelled_) return;
    }
    run = ShellRun::start(*script, std::move(options), std::move(done));
    std::lock_guard lock(self->mu_);
    if (self->cancelled_) {
      run->cancel();
      return;
    }
    if (!run->finished()) self->runs_.push_back(std::move(run));
  }
};

std::shared_ptr<EntrypointRun> EntrypointRun::start(
    std::string_view entrypoint, std::shared_ptr<const EntrypointRegistry> registry, Hooks hooks) {
  auto self = std::make_shared<EntrypointRun>();
  auto shared = std::make_shared<Hooks>(std::move(hooks));
  std::weak_ptr<EntrypointRun> weak = self;
  EntrypointRunner::startScript(self, entrypoint, std::move(registry), shared,
                                [weak, shared](int code) {
                                  auto owner = weak.lock();
                                  if (!owner) return;
                                  {
                                    std::lock_guard lock(owner->mu_);
                                    if (owner->cancelled_) return;
                                    owner->runs_.clear();
                                  }
                                  if (shared->done) shared->done(code);
                                });
  return self;
}

void EntrypointRun::cancel() {
  std::vector<std::shared_ptr<ShellRun>> runs;
  {
    std::lock_guard lock(mu_);
    cancelled_ = true;
    runs.swap(runs_);
  }
  for (auto& run : runs) run->cancel();
}

}  // namespace fakekube::ray
