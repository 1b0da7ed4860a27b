#include "fakekube/runtime/internal/core_event_recorder.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "fakekube/api/internal/json_build.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/client/client.h"
#include "fakekube/runtime/internal/event_regarding.h"

namespace fakekube {

namespace {

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

CoreEventRecorder::CoreEventRecorder(Client& client, Clock& clock, std::string component)
    : EventRecorder(std::move(component)), client_(client), clock_(clock) {}

Result<ObjectPtr> CoreEventRecorder::event(const Json& involvedObject, std::string_view type,
                                           std::string_view reason, std::string_view /*action*/,
                                           std::string_view message) {
  auto read = eventRegardingOf(involvedObject, type);
  if (!read) return tl::unexpected(std::move(read.error()));
  const Json& ref = read->reference;
  const std::string& objectName = read->name;
  const std::string& ns = read->eventNamespace;

  std::lock_guard lock(mu_);
  const TimePoint now = clock_.now();
  const std::string stamp = formatRfc3339(now);
  const std::string key = aggregationKey(component(), ref, type, reason, message);

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
    Json event = eventObject(component(), seen.ns, ref, type, reason, message, seen.firstTimestamp,
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
    Json event = eventObject(component(), ns, ref, type, reason, message, stamp, stamp, 1);
    event["metadata"]["name"] = nextEventName(objectName, now);
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
