// What both event recorders (event_recorder.h) check and read of an event first: its type
// ("Normal" or "Warning", else 400 as client-go's ValidateEventType refuses it), the
// ObjectReference client-go's reference.GetReference builds of the object (kind, namespace, name,
// uid, apiVersion, resourceVersion, the empty ones left out), its name (400 without one), and the
// namespace the Event goes to (the object's, "default" for a cluster-scoped one).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {

struct EventRegarding {
  Json reference;
  std::string name;
  std::string eventNamespace;
};

Result<EventRegarding> eventRegardingOf(const Json& object, std::string_view type);

}  // namespace fakekube
