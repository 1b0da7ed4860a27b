#include "tools/cli/story_trace.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

namespace fakekube::cli {

namespace {

constexpr std::int64_t kMinimumSliceMicros = 1000;
constexpr std::int64_t kGapBetweenStoriesMicros = 1'000'000;

}  // namespace

std::int64_t StoryTrace::at(SimExecutor& executor) {
  const std::int64_t now =
      std::chrono::duration_cast<std::chrono::microseconds>(executor.now() - kSimulatedEpoch)
          .count();
  if (now < storyNow_) offset_ = last_ + kGapBetweenStoriesMicros;  // the next story's clock
  storyNow_ = now;
  last_ = std::max(last_, offset_ + now);
  return offset_ + now;
}

void StoryTrace::chapter(SimExecutor& executor, const std::string& title) {
  const std::int64_t now = at(executor);
  chapters_.push_back({"chapters", title, now, now});
}

ReconcileObserver StoryTrace::observer(SimExecutor& executor, const std::string& component) {
  // The reconcile running on the manager (one at a time on a SimExecutor).
  auto open = std::make_shared<std::size_t>(0);
  ReconcileObserver observer;
  observer.onBegin = [this, &executor, component, open](Controller& controller,
                                                        const ReconcileRequest& request) {
    const std::int64_t now = at(executor);
    *open = reconciles_.size();
    reconciles_.push_back(
        {component + "/" + controller.name(), "reconcile " + request.key(), now, now});
  };
  observer.onEnd = [this, &executor, open](Controller&, const ReconcileRequest&,
                                           const ReconcileOutcome*) {
    if (*open < reconciles_.size()) reconciles_[*open].end = at(executor);
  };
  return observer;
}

Json StoryTrace::chromeTrace() const {
  Json events = Json::array();
  events.push_back(
      {{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", "fakekube demo"}}}});
  std::map<std::string, int> tracks;
  auto track = [&](const std::string& name) {
    auto it = tracks.find(name);
    if (it != tracks.end()) return it->second;
    const int id = static_cast<int>(tracks.size()) + 1;
    tracks.emplace(name, id);
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"tid", id},
                      {"args", {{"name", name}}}});
    events.push_back({{"name", "thread_sort_index"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"tid", id},
                      {"args", {{"sort_index", id}}}});
    return id;
  };
  track("chapters");
  // A chapter lasts until the next one begins (the last one, until the last thing recorded).
  for (std::size_t i = 0; i < chapters_.size(); ++i) {
    const std::int64_t begin = chapters_[i].begin;
    const std::int64_t end = i + 1 < chapters_.size() ? chapters_[i + 1].begin : last_;
    events.push_back({{"name", chapters_[i].name},
                      {"cat", "chapter"},
                      {"ph", "X"},
                      {"ts", begin},
                      {"dur", std::max(kMinimumSliceMicros, end - begin)},
                      {"pid", 1},
                      {"tid", track("chapters")}});
  }
  for (const auto& r : reconciles_) {
    events.push_back({{"name", r.name},
                      {"cat", "reconcile"},
                      {"ph", "X"},
                      {"ts", r.begin},
                      {"dur", std::max(kMinimumSliceMicros, r.end - r.begin)},
                      {"pid", 1},
                      {"tid", track(r.track)}});
  }
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}};
}

}  // namespace fakekube::cli
