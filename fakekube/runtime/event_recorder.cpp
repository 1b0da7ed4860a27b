#include "fakekube/runtime/event_recorder.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "fakekube/api/object_meta.h"
#include "fakekube/runtime/internal/event_regarding.h"

namespace fakekube {

Result<EventRegarding> eventRegardingOf(const Json& object, std::string_view type) {
  if (type != "Normal" && type != "Warning") {
    return tl::unexpected(Status::badRequest(fmt::format("unsupported event type: '{}'", type)));
  }
  EventRegarding regarding{Json::object(), meta::name(object), meta::namespace_(object)};
  if (regarding.name.empty()) {
    return tl::unexpected(Status::badRequest("an event needs an object with a name"));
  }
  Json& ref = regarding.reference;
  auto put = [&](const char* key, std::string value) {
    if (!value.empty()) ref[key] = std::move(value);
  };
  put("kind", meta::kind(object));
  put("namespace", regarding.eventNamespace);
  put("name", regarding.name);
  put("uid", meta::uid(object));
  put("apiVersion", meta::apiVersion(object));
  put("resourceVersion", meta::resourceVersion(object));
  // Where client-go puts the events about cluster-scoped objects.
  if (regarding.eventNamespace.empty()) regarding.eventNamespace = "default";
  return regarding;
}

std::string EventRecorder::nextEventName(std::string_view objectName, TimePoint now) {
  const std::int64_t nanos = now.time_since_epoch().count();
  lastSuffix_ = std::max(nanos, lastSuffix_ + 1);
  return fmt::format("{}.{:x}", objectName, lastSuffix_);
}

}  // namespace fakekube
