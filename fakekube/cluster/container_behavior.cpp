#include "fakekube/cluster/container_behavior.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace fakekube {

namespace {

class FunctionProcess final : public Process {
 public:
  explicit FunctionProcess(std::function<void(std::shared_ptr<ProcessContext>)> fn)
      : fn_(std::move(fn)) {}
  void start(std::shared_ptr<ProcessContext> context) override { fn_(std::move(context)); }

 private:
  std::function<void(std::shared_ptr<ProcessContext>)> fn_;
};

std::string imageOf(const Json& container) { return container.value("image", ""); }

// "10s", "1.5s", "250ms".
std::string durationText(Duration d) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  if (ms < 1000) return fmt::format("{}ms", ms);
  if (ms % 1000 == 0) return fmt::format("{}s", ms / 1000);
  return fmt::format("{}s", static_cast<double>(ms) / 1000.0);
}

// The line a built-in behaviour prints when it starts: what was simulated, and how.
void printStarted(ProcessContext& context, std::string_view what) {
  const Json& container = context.container();
  std::string description = "image " + imageOf(container);
  if (std::string command = BehaviorRegistry::commandLine(container); !command.empty()) {
    description += ", command " + command;
  }
  context.print(fmt::format("fakekube: simulated container \"{}\" ({}): {}",
                            container.value("name", ""), description, what));
}

}  // namespace

namespace behavior {

ProcessFactory fromFunction(std::function<void(std::shared_ptr<ProcessContext>)> fn) {
  return [fn = std::move(fn)] { return std::make_unique<FunctionProcess>(fn); };
}

ProcessFactory runForever() {
  return fromFunction([](const std::shared_ptr<ProcessContext>& context) {
    printStarted(*context, "runs until stopped");
  });
}

ProcessFactory exitAfter(Duration duration, int code) {
  return fromFunction([duration, code](const std::shared_ptr<ProcessContext>& context) {
    printStarted(*context,
                 fmt::format("exits with code {} after {}", code, durationText(duration)));
    std::weak_ptr<ProcessContext> weak = context;
    context->after(duration, [weak, code] {
      if (auto c = weak.lock()) c->exit(code);
    });
  });
}

ProcessFactory crashLoop(Duration duration, int code) { return exitAfter(duration, code); }

ProcessFactory neverReady() {
  return fromFunction([](const std::shared_ptr<ProcessContext>& context) {
    printStarted(*context, "runs until stopped, never ready");
    context->setReady(false);
  });
}

}  // namespace behavior

BehaviorRegistry::BehaviorRegistry()
    : default_(behavior::runForever()),
      initDefault_(behavior::exitAfter(std::chrono::seconds(1), 0)) {}

void BehaviorRegistry::on(Matcher matcher, ProcessFactory factory) {
  rules_.push_back({std::move(matcher), std::move(factory)});
}

void BehaviorRegistry::onImage(std::string image, ProcessFactory factory) {
  on([image = std::move(image)](const Json&, const Json& c, bool) { return imageOf(c) == image; },
     std::move(factory));
}

void BehaviorRegistry::onImagePrefix(std::string prefix, ProcessFactory factory) {
  on([prefix = std::move(prefix)](const Json&, const Json& c,
                                  bool) { return imageOf(c).starts_with(prefix); },
     std::move(factory));
}

void BehaviorRegistry::onCommand(std::string substring, ProcessFactory factory) {
  on(
      [substring = std::move(substring)](const Json&, const Json& c, bool) {
        return commandLine(c).find(substring) != std::string::npos;
      },
      std::move(factory));
}

void BehaviorRegistry::setDefault(ProcessFactory factory) { default_ = std::move(factory); }
void BehaviorRegistry::setInitDefault(ProcessFactory factory) { initDefault_ = std::move(factory); }

ProcessFactory BehaviorRegistry::match(const Json& pod, const Json& container, bool init) const {
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
    if (it->matcher(pod, container, init)) return it->factory;
  }
  return init ? initDefault_ : default_;
}

std::string BehaviorRegistry::commandLine(const Json& container) {
  std::string line;
  for (const char* field : {"command", "args"}) {
    if (!container.contains(field) || !container[field].is_array()) continue;
    for (const auto& part : container[field]) {
      if (!part.is_string()) continue;
      if (!line.empty()) line += ' ';
      line += part.get<std::string>();
    }
  }
  return line;
}

}  // namespace fakekube
