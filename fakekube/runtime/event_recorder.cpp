#include "fakekube/runtime/event_recorder.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "fakekube/api/internal/json_build.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/client/client.h"

namespace fakekube {

namespace {

// The ObjectReference client-go's reference.GetReference builds; empty fields are omitted, as
// Go's omitempty does.
Json referenceTo(const Json& object) {
  Json ref = Json::object();
  auto put = [&](const char* key, std::string value) {
    if (!value.empty()) ref[key] = std::move(value);
  };
  put("kind", meta::kind(object));
  put("namespace", meta::namespace_(object));
  put("name", meta::name(object));
  put("uid", meta::uid(object));
  put("apiVersion", meta::apiVersion(object));
  put("resourceVersion", meta::resourceVersion(object));
  return ref;
}

// client-go's EventCorrelator keys identical events on the source, the involved object, type,
// reason and message. The separator cannot occur in any of them.
std::string aggregationKey(std::string_view component, const Json& ref, std::string_view type,
                           std::string_view reason, std::string_view message) {
  auto field = [&](const char* key) { return ref.value(key, std::string()); };
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", component,
                     field("apiVersion"), field("kind"), field("namespace"), field("name"),
                     field("uid"), type, reason, message);
}

// The core/v1 Event the recorder creates, named by the caller (metadata.name).
Json eventObject(std::string_view component, const std::string& ns, const Json& ref,
                 std::string_view type, std::string_view reason, std::string_view message,
                 const std::string& firstTimestamp, const std::string& lastTimestamp,
                 std::int64_t count) {
  return jsonObject("apiVersion", "v1", "kind", "Event", "metadata", jsonObject("namespace", ns),
                    "involvedObject", ref, "reason", reason, "message", message, "type", type,
                    "source", jsonObject("component", component), "reportingComponent", component,
                    "firstTimestamp", firstTimestamp, "lastTimestamp", lastTimestamp, "count",
                    count);
}

}  // namespace

EventRecorder::EventRecorder(Client& client, Clock& clock, std::string component)
    : client_(client), clock_(clock), component_(std::move(component)) {}

std::string EventRecorder::nextName(std::string_view objectName, TimePoint now) {
  // client-go: "%v.%x" of the name and the time in Unix nanoseconds. Virtual time often stands
  // still between events, so the suffix also moves past the last one this recorder used.
  const std::int64_t nanos = now.time_since_epoch().count();
  lastSuffix_ = std::max(nanos, lastSuffix_ + 1);
  return fmt::format("{}.{:x}", objectName, lastSuffix_);
}

Result<ObjectPtr> EventRecorder::event(const Json& involvedObject, std::string_view type,
                                       std::string_view reason, std::string_view message) {
  if (type != "Normal" && type != "Warning") {
    return tl::unexpected(Status::badRequest(fmt::format("unsupported event type: '{}'", type)));
  }
  const Json ref = referenceTo(involvedObject);
  const std::string objectName = meta::name(involvedObject);
  if (objectName.empty()) {
    return tl::unexpected(Status::badRequest("an event needs an involved object with a name"));
  }
  std::string ns = meta::namespace_(involvedObject);
  if (ns.empty()) ns = "default";  // where client-go puts events about cluster-scoped objects

  std::lock_guard lock(mu_);
  const TimePoint now = clock_.now();
  const std::string stamp = formatRfc3339(now);
  const std::string key = aggregationKey(component_, ref, type, reason, message);

  if (auto it = seen_.find(key); it != seen_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);
    Seen& seen = lru_.front();
    const std::int64_t count = seen.count + 1;
    const Json patch = {{"count", count}, {"lastTimestamp", stamp}};
    auto patched = client_.patch(kEvents, seen.ns, seen.name, PatchType::Merge, patch.dump());
    if (patched) {
      seen.count = count;
      return std::make_shared<const Json>(std::move(*patched));
    }
    if (!isNotFound(patched.error())) return tl::unexpected(std::move(patched.error()));
    // The Event was deleted (or expired) meanwhile: client-go creates it again under the same
    // name, keeping its count and first timestamp.
    Json event = eventObject(component_, seen.ns, ref, type, reason, message, seen.firstTimestamp,
                             stamp, count);
    event["metadata"]["name"] = seen.name;
    auto created = client_.createShared(kEvents, std::move(event));
    if (created) seen.count = count;
    return created;
  }

  // A name can collide with another recorder's Event for the same object at the same instant;
  // the next suffix is free. (The body goes to the write as it is; the rare retry builds it
  // again.)
  constexpr int kAttempts = 3;
  for (int attempt = 1;; ++attempt) {
    Json event = eventObject(component_, ns, ref, type, reason, message, stamp, stamp, 1);
    event["metadata"]["name"] = nextName(objectName, now);
    auto created = client_.createShared(kEvents, std::move(event));
    if (!created) {
      if (attempt < kAttempts && isAlreadyExists(created.error())) continue;
      return created;
    }
    lru_.push_front(Seen{key, ns, meta::name(**created), 1, stamp});
    seen_[key] = lru_.begin();
    if (lru_.size() > kMaxRemembered) {
      seen_.erase(lru_.back().key);
      lru_.pop_back();
    }
    return created;
  }
}

}  // namespace fakekube
