// CoreEventRecorder: the EventRecorder of core/v1 Events (client-go's record.EventRecorder, which
// controller-runtime's GetEventRecorderFor hands a controller; event_recorder.h).
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
// A core/v1 Event has no action: the one event() is given is not written.
//
// Identical events are aggregated, as client-go's EventCorrelator does: a repeat of the same
// (object, type, reason, message) from this recorder does not create a new Event; it patches the
// one it created with count + 1 and a new lastTimestamp. A controller that fails the same way on
// every retry leaves one Event with a growing count, not thousands. The recorder remembers the
// last 4096 distinct events (client-go's LRU size); one it forgot starts a new Event. If the
// Event it remembers was deleted meanwhile, the repeat creates it again, keeping the count.
//
// Not modelled: client-go's grouping of *similar* events (same reason, different messages:
// "combined from similar events") and its per-object spam filter.
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
#include "fakekube/runtime/event_recorder.h"
#include "fakekube/sim/clock.h"

namespace fakekube {

class Client;

class CoreEventRecorder : public EventRecorder {
 public:
  // client-go's maxLruCacheEntries.
  static constexpr std::size_t kMaxRemembered = 4096;

  // `client` and `clock` must outlive the recorder. `component` is the controller's name, as
  // controller-runtime's GetEventRecorderFor(name) takes it.
  CoreEventRecorder(Client& client, Clock& clock, std::string component);

  using EventRecorder::event;
  // Answers the Event as stored (shared, as the *Shared writes answer: a controller records one
  // for most writes it makes and seldom reads it), or the server's error.
  Result<ObjectPtr> event(const Json& involvedObject, std::string_view type,
                          std::string_view reason, std::string_view action,
                          std::string_view message) override;

 private:
  // What the recorder remembers of an Event it wrote, to aggregate a repeat into it.
  struct Seen {
    std::string key;  // the aggregation key, for eviction
    std::string ns;
    std::string name;
    std::int64_t count = 0;
    std::string firstTimestamp;
  };

  Client& client_;
  Clock& clock_;
  std::mutex mu_;
  // Most recently used first.
  std::list<Seen> lru_;
  std::unordered_map<std::string, std::list<Seen>::iterator> seen_;
};

}  // namespace fakekube
