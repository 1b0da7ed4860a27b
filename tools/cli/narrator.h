// Narrator: how a story of `fakekube demo` turns what the cluster does into timeline lines.
//
// A story opens watches on the resources it tells about (in the default namespace, from the
// store's current revision), then lets virtual time pass with `runUntil` / `runFor` / `runTo`.
// After every executor task the narrator drains all its watches, sorts the events by the
// resourceVersion of the write each shows, and hands them to the story's `tell`: so the lines come
// out in the order the writes happened, whichever watch delivered them first. Every line a story
// prints is the outcome of a real watch event or request; the narrator itself prints nothing.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fakekube/api/conditions.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/status.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/sim/sim_executor.h"
#include "tools/cli/timeline.h"

namespace fakekube::cli {

// A condition as a story line shows it: "Ready=True", "Ready=False (ContainersNotReady)", or
// "Ready absent".
inline std::string conditionText(const Json& object, const std::string& type) {
  const Json* c = findCondition(object, type);
  if (c == nullptr) return type + " absent";
  std::string text = fmt::format("{}={}", type, c->value("status", ""));
  if (!c->value("reason", "").empty()) text += fmt::format(" ({})", c->value("reason", ""));
  return text;
}

// The store revision of the write an object (or a watch event's object) shows.
inline std::int64_t revisionOf(const Json& object) {
  return std::stoll(meta::resourceVersion(object));
}

class Narrator {
 public:
  Narrator(SimExecutor& executor, ApiServer& server, Timeline& timeline)
      : executor_(executor), server_(server), t_(timeline) {}
  virtual ~Narrator() {
    for (auto& watch : watches_) watch->stop();
  }
  Narrator(const Narrator&) = delete;
  Narrator& operator=(const Narrator&) = delete;

  // Watches `resources` in the default namespace from the store's current revision.
  Result<void> open(std::initializer_list<const GroupVersionResource*> resources) {
    WatchOptions fromNow;
    fromNow.resourceVersion = std::to_string(server_.revision());
    for (const auto* resource : resources) {
      auto watch = server_.watch(*resource, "default", fromNow);
      if (!watch) return tl::unexpected(watch.error());
      watches_.push_back(std::move(*watch));
    }
    return {};
  }

  // Runs until `done` holds, at most `limit` of virtual time, telling what happens.
  bool runUntil(const std::function<bool()>& done, Duration limit) {
    bool reached = executor_.runUntil(
        [&] {
          drain();
          return done();
        },
        limit);
    drain();
    return reached;
  }
  // Lets `d` of virtual time pass, telling what happens.
  void runFor(Duration d) {
    runUntil([] { return false; }, d);
    executor_.runUntilIdle();
    drain();
  }
  // Runs until `at` of virtual time since the start of the run.
  void runTo(Duration at) { runFor(kSimulatedEpoch + at - executor_.now()); }

 protected:
  // One watch event, in the order of the writes; the story prints what it means.
  virtual void tell(WatchEventType type, const Json& object) = 0;

  SimExecutor& executor_;
  ApiServer& server_;
  Timeline& t_;

 private:
  // Takes the events of every watch, in the order of the writes they show.
  void drain() {
    std::vector<WatchEvent> events;
    for (auto& watch : watches_) {
      while (auto event = watch->tryNext()) events.push_back(std::move(*event));
    }
    std::stable_sort(events.begin(), events.end(), [](const WatchEvent& a, const WatchEvent& b) {
      return revisionOf(*a.object) < revisionOf(*b.object);
    });
    for (const auto& event : events) tell(event.type, *event.object);
  }

  std::vector<std::shared_ptr<Watch>> watches_;
};

}  // namespace fakekube::cli
