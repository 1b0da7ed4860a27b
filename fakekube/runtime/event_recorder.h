// EventRecorder: what a controller tells humans about an object, as Events.
//
// Kubernetes has two recorders, writing the same Events through two APIs, and a controller's
// RBAC must grant the one it uses:
//
//   core/v1 Events       client-go's record.EventRecorder, controller-runtime's
//                        GetEventRecorderFor (the Manager's eventRecorder()): needs `events`
//                        create and patch in API group "". Repeats of one event patch its
//                        `count` (internal/core_event_recorder.h).
//   events.k8s.io/v1     client-go's events.EventRecorder, controller-runtime's GetEventRecorder
//                        (the Manager's eventsV1Recorder()), what kube-scheduler and KubeRay
//                        record with: needs `events` create and patch in API group
//                        events.k8s.io. A repeat becomes an EventSeries
//                        (internal/events_v1_recorder.h).
//
// Both keep an Event in the object's namespace ("default" for a cluster-scoped object), named
// "<object name>.<hex>" (client-go's hex is the event time in Unix nanoseconds). Recording is
// synchronous (the Event exists when event() returns) where client-go's is asynchronous and best
// effort: the result is returned so that a test can look at it, and a caller that does not care
// ignores it.
//
// Thread-safety: event() may be called from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "fakekube/api/json.h"
#include "fakekube/api/object.h"
#include "fakekube/api/status.h"
#include "fakekube/sim/clock.h"

namespace fakekube {

class EventRecorder {
 public:
  virtual ~EventRecorder() = default;

  // events.EventRecorder's Eventf(regarding, nil, type, reason, action, note): an event about
  // `regarding` (the object as read: apiVersion, kind, metadata). `type` is "Normal" or
  // "Warning"; `action` is what the controller did or failed to do ("Create"), which an
  // events.k8s.io/v1 Event requires and a core/v1 Event has no place for. Answers the Event as
  // the server stored it, the one a repeat was folded into, or the server's error.
  virtual Result<ObjectPtr> event(const Json& regarding, std::string_view type,
                                  std::string_view reason, std::string_view action,
                                  std::string_view note) = 0;

  // record.EventRecorder's Event: no action.
  Result<ObjectPtr> event(const Json& involvedObject, std::string_view type,
                          std::string_view reason, std::string_view message) {
    return event(involvedObject, type, reason, std::string_view(), message);
  }

  // The controller's name, as controller-runtime's GetEventRecorderFor(name) and
  // GetEventRecorder(name) take it.
  const std::string& component() const { return component_; }

 protected:
  explicit EventRecorder(std::string component) : component_(std::move(component)) {}

  // A fresh Event name for the object: client-go's "%v.%x" of the name and the time in Unix
  // nanoseconds. Virtual time often stands still between events, so the suffix also moves past
  // the last one this recorder used. Not thread-safe: called under the recorder's lock.
  std::string nextEventName(std::string_view objectName, TimePoint now);

 private:
  const std::string component_;
  std::int64_t lastSuffix_ = 0;
};

}  // namespace fakekube
