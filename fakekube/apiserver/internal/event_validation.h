// The Event's validation (pkg/apis/core/validation/events.go), one rule set for both of its views.
//
// kube-apiserver validates the internal Event, whichever group-version the request came through,
// so the field paths are core/v1's (message, involvedObject, source, count) but for the reporting
// controller (reportingComponent through core/v1, reportingController through events.k8s.io), and
// the group-version decides how strict:
//
//   every request   legacyValidateEvent: without eventTime, involvedObject.namespace matches the
//                   Event's namespace (or is empty in "default"); with eventTime, the reporting
//                   controller (a qualified name), reportingInstance, action and reason are
//                   required, each at most 128 characters, the message at most 1024
//   events.k8s.io   create: eventTime required, type Normal or Warning, the deprecated core
//                   fields (firstTimestamp, lastTimestamp, count, source) unset, a series counts at
//                   least 2 with a lastObservedTime; update: every field but the series immutable
//
// Called from strategy.cpp with the object in the form the request is served in.
#pragma once

#include "fakekube/api/json.h"
#include "fakekube/api/resource_registry.h"
#include "fakekube/api/status.h"

namespace fakekube::strategy {

// Whether `info` is a view of the Events (core/v1 or events.k8s.io/v1).
bool isEvent(const ResourceInfo& info);

// ValidateEventCreate and ValidateEventUpdate for a request to `info`'s group-version.
void validateEventCreate(const ResourceInfo& info, const Json& event, FieldErrors& errors);
void validateEventUpdate(const ResourceInfo& info, const Json& updated, const Json& old,
                         FieldErrors& errors);

}  // namespace fakekube::strategy
