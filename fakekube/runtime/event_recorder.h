// EventRecorder: what a controller tells humans about an object, as core/v1 Events (client-go's
// record.EventRecorder, which controller-runtime's manager hands every controller).
//
// `kubectl describe` shows these Events, so their shape is client-go's:
//
//   metadata   name "<object name>.<hex>" (client-go's hex is the event time in Unix
//              nanoseconds), namespace of the object, "default" for a cluster-scoped one
//   involvedObject  {apiVersion, kind, name, namespace, uid, resourceVersion} of the object
//   reason, message, type ("Normal" | "Warning")
//   source.component and reportingComponent: the recorder's component
//   firstTimestamp, lastTimestamp (RFC 3339, whole seconds), count
//
// Identical events are aggregated, as client-go's EventCorrelator does: a repeat of the same
// (object, type, reason, message) from this recorder does not create a new Event; it patches the
// one it created with count + 1 and a new lastTimestamp. A controller that fails the same way on
// every retry leaves one Event with a growing count, not thousands. The recorder remembers the
// last 4096 distinct events (client-go's LRU size); one it forgot starts a new Event. If the
// Event it remembers was deleted meanwhile, the repeat creates it again, keeping the count.
//
// Not modelled: client-go's grouping of *similar* events (same reason, different messages:
// "combined from similar events") and its per-object spam filter. Recording is synchronous (the
// Event exists when event() returns) where client-go's is asynchronous and best effort; the
// result is returned so a test can look at it, and a caller that does not care ignores it.
//
// Thread-safety: event() may be called from any thread.
#pragma once

#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "fakekube/api/group_version.h"
#include "fakekube/api/json.h"
#include "fakekube/api/object.h"
#include "fakekube/api/status.h"
#include "fakekube/sim/clock.h"

namespace fakekube {

class Client;

class EventRecorder {
 public:
  // client-go's maxLruCacheEntries.
  static constexpr std::size_t kMaxRemembered = 4096;

  // `client` and `clock` must outlive the recorder. `component` is the controller's name, as
  // controller-runtime's GetEventRecorderFor(name) takes it.
  EventRecorder(Client& client, Clock& clock, std::string component);

  // Records an event about `involvedObject` (the object as read: apiVersion, kind, metadata).
  // `type` is "Normal" or "Warning". Answers the Event as stored (shared, as the *Shared writes
  // answer: a controller records one for most writes it makes and seldom reads it), or the
  // server's error.
  Result<ObjectPtr> event(const Json& involvedObject, std::string_view type,
                          std::string_view reason, std::string_view message);

  const std::string& component() const { return component_; }

 private:
  // What the recorder remembers of an Event it wrote, to aggregate a repeat into it.
  struct Seen {
    std::string key;  // the aggregation key, for eviction
    std::string ns;
    std::string name;
    std::int64_t count = 0;
    std::string firstTimestamp;
  };

  // A fresh Event name for the object, unique at least among this recorder's events.
  std::string nextName(std::string_view objectName, TimePoint now);

  Client& client_;
  Clock& clock_;
  const std::string component_;
  std::mutex mu_;
  // Most recently used first.
  std::list<Seen> lru_;
  std::unordered_map<std::string, std::list<Seen>::iterator> seen_;
  std::int64_t lastSuffix_ = 0;
};

}  // namespace fakekube
