#include "fakekube/runtime/internal/events_v1_recorder.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <utility>

#include "fakekube/api/internal/json_build.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/client/client.h"
#include "fakekube/runtime/internal/event_regarding.h"

namespace fakekube {

namespace {

const GroupVersionResource kEventsV1Resource{"events.k8s.io", "v1", "events"};

// client-go's getKey: type, action, reason, the reporting controller and instance, and the
// whole regarding reference (no related object here). The separator cannot occur in any of them.
std::string isomorphicEventKey(std::string_view type, std::string_view action,
                               std::string_view reason, std::string_view controller,
                               std::string_view instance, const Json& regarding) {
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", type, action, reason, controller, instance,
                     regarding.dump());
}

}  // namespace

EventsV1Recorder::EventsV1Recorder(Client& client, Clock& clock, std::string component,
                                   std::string hostname)
    : EventRecorder(std::move(component)),
      client_(client),
      clock_(clock),
      reportingInstance_(this->component() + "-" + hostname) {}

bool EventsV1Recorder::Isomorphic::finishedBy(TimePoint now) const {
  return now - (seriesCount > 0 ? lastObservedTime : eventTime) > kFinishTime;
}

// finishSeries, run every kFinishTime by client-go: forgets what it finished, so that the
// cache holds only the events of the last minutes.
void EventsV1Recorder::finishSeries(TimePoint now) {
  std::erase_if(cache_, [&](const auto& entry) { return entry.second.finishedBy(now); });
  lastFinish_ = now;
}

Result<ObjectPtr> EventsV1Recorder::createEvent(Json event) {
  return client_.createShared(kEventsV1Resource, std::move(event));
}

// recordToSink for an isomorphic event: the first repeat starts the series and patches it in
// (createPatchBytesForSeries: the series is all that differs), creating the Event again if it
// is gone; a later repeat is counted in memory only.
Result<ObjectPtr> EventsV1Recorder::recordRepeat(Isomorphic& cached, TimePoint now) {
  cached.lastObservedTime = now;
  cached.event["series"] = {{"count", cached.seriesCount > 0 ? cached.seriesCount + 1 : 2},
                            {"lastObservedTime", formatRfc3339Micro(now)}};
  if (cached.seriesCount > 0) {
    ++cached.seriesCount;
    return std::make_shared<const Json>(cached.event);
  }
  cached.seriesCount = 2;
  const Json patch = {{"series", cached.event["series"]}};
  auto patched = client_.patch(kEventsV1Resource, meta::namespace_(cached.event),
                               meta::name(cached.event), PatchType::StrategicMerge, patch.dump());
  if (patched) return std::make_shared<const Json>(std::move(*patched));
  if (!isNotFound(patched.error())) return tl::unexpected(std::move(patched.error()));
  return createEvent(cached.event);
}

Result<ObjectPtr> EventsV1Recorder::event(const Json& regarding, std::string_view type,
                                          std::string_view reason, std::string_view action,
                                          std::string_view note) {
  auto target = eventRegardingOf(regarding, type);
  if (!target) return tl::unexpected(std::move(target.error()));

  std::lock_guard lock(mu_);
  const TimePoint now = clock_.now();
  const std::string key =
      isomorphicEventKey(type, action, reason, component(), reportingInstance_, target->reference);
  if (now - lastFinish_ >= kFinishTime) finishSeries(now);
  if (auto it = cache_.find(key); it != cache_.end()) {
    if (!it->second.finishedBy(now)) return recordRepeat(it->second, now);
    cache_.erase(it);
  }
  Json event = jsonObject("apiVersion", "events.k8s.io/v1", "kind", "Event", "metadata",
                          jsonObject("namespace", target->eventNamespace), "eventTime",
                          formatRfc3339Micro(now), "reportingController", component(),
                          "reportingInstance", reportingInstance_, "action", action, "reason",
                          reason, "regarding", target->reference, "note", note, "type", type);
  // Virtual time stands still: another recorder's Event about an object of the same name (the
  // Job a RayJob names after itself) can hold the name at the same instant, where client-go's
  // nanoseconds would differ. The next suffix is free.
  constexpr int kAttempts = 3;
  Result<ObjectPtr> created;
  for (int attempt = 1; attempt <= kAttempts; ++attempt) {
    event["metadata"]["name"] = nextEventName(target->name, now);
    created = createEvent(event);
    if (created || !isAlreadyExists(created.error())) break;
  }
  // Cached whatever the answer, as the broadcaster caches an event before it tries the write.
  cache_.emplace(key, Isomorphic{std::move(event), now, 0, now});
  return created;
}

}  // namespace fakekube
