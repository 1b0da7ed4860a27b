// EventsV1Recorder: the EventRecorder of events.k8s.io/v1 Events (client-go's
// events.EventRecorder behind its EventBroadcaster, which controller-runtime's GetEventRecorder
// hands a controller; event_recorder.h). kube-scheduler and KubeRay record with it, and RBAC
// must grant `events` create and patch in API group events.k8s.io for it.
//
// The Event it creates is client-go's makeEvent:
//
//   metadata   name "<regarding name>.<hex>" (the time in Unix nanoseconds), namespace of the
//              object, "default" for a cluster-scoped one
//   eventTime  the time of the event (metav1.MicroTime)
//   reportingController  the recorder's component; reportingInstance "<component>-<hostname>"
//   action, reason, note, type ("Normal" | "Warning")
//   regarding  {kind, namespace, name, uid, apiVersion, resourceVersion} of the object
//
// Repeats become an EventSeries, as the broadcaster's recordToSink makes them: events are
// isomorphic when their type, action, reason, reporting controller and instance and regarding
// object (its resourceVersion included) are the same; the note is not compared, and a repeat
// keeps the first one's. The first repeat patches the Event (strategic merge) with
// series {count: 2, lastObservedTime}; later repeats only count in memory, as client-go's do
// until its refresh every 30 minutes and the end of the series 6 minutes after the last repeat.
// Those two timed writes are not modelled: the Event keeps count 2. An event whose isomorphic
// one was recorded more than 6 minutes earlier (its series ended, or it had none) starts a new
// Event, as after client-go's finishSeries. If the Event was deleted before its first repeat,
// the repeat creates it again with its series. A name another writer holds at the same instant
// (virtual time stands still where client-go's nanoseconds move) is passed for the next suffix.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "fakekube/api/json.h"
#include "fakekube/api/object.h"
#include "fakekube/api/status.h"
#include "fakekube/runtime/event_recorder.h"
#include "fakekube/sim/clock.h"

namespace fakekube {

class Client;

class EventsV1Recorder : public EventRecorder {
 public:
  // client-go's finishTime: a series ends, and a singleton is forgotten, this long after it was
  // last seen.
  static constexpr Duration kFinishTime = std::chrono::minutes(6);

  // `client` and `clock` must outlive the recorder. `component` is the reportingController;
  // `hostname` the host the controller runs on (client-go's os.Hostname()), which names the
  // reportingInstance.
  EventsV1Recorder(Client& client, Clock& clock, std::string component, std::string hostname);

  using EventRecorder::event;
  // Answers the Event as stored (its first repeat: as patched), the Event a later repeat was
  // counted in (as this recorder knows it), or the server's error. The server refuses an Event
  // without an action (events.k8s.io/v1 requires one).
  Result<ObjectPtr> event(const Json& regarding, std::string_view type, std::string_view reason,
                          std::string_view action, std::string_view note) override;

  const std::string& reportingInstance() const { return reportingInstance_; }

 private:
  // An Event the broadcaster's cache holds (client-go's eventCache entry).
  struct Isomorphic {
    Json event;  // as recorded: name, namespace and, once repeated, its series
    TimePoint eventTime{};
    std::int64_t seriesCount = 0;  // 0: no series yet
    TimePoint lastObservedTime{};
    // finishSeries has ended its series, or forgotten it as a singleton, by `now`.
    bool finishedBy(TimePoint now) const;
  };

  void finishSeries(TimePoint now);

  Result<ObjectPtr> createEvent(Json event);
  Result<ObjectPtr> recordRepeat(Isomorphic& cached, TimePoint now);

  Client& client_;
  Clock& clock_;
  const std::string reportingInstance_;
  std::mutex mu_;
  std::map<std::string, Isomorphic> cache_;  // by the isomorphism key
  TimePoint lastFinish_{};
};

}  // namespace fakekube
