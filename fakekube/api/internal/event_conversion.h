// The Event kind served in two group-versions over one storage, as kube-apiserver serves it: the
// core/v1 Event (what the objects are stored as) and the events.k8s.io/v1 Event (a view of the
// same objects). Upstream converts both through the internal core.Event
// (pkg/apis/events/v1/conversion.go); here the two served forms convert into each other directly:
//
//   events.k8s.io/v1           core/v1
//   regarding                  involvedObject
//   note                       message
//   deprecatedSource           source
//   deprecatedFirstTimestamp   firstTimestamp
//   deprecatedLastTimestamp    lastTimestamp
//   deprecatedCount            count
//   reportingController        reportingComponent
//   eventTime, series, reportingInstance, action, reason, related, type: the same names
//
// Each direction answers the document kube-apiserver's JSON encoder writes for the target type:
// members Go marshals even when unset are present (events.k8s.io/v1: eventTime and the deprecated
// timestamps as null, regarding and deprecatedSource as {}; core/v1: eventTime and the timestamps
// as null, involvedObject and source as {}, reportingComponent and reportingInstance as ""), and
// members it omits when empty ("" strings, 0 counts, null series and related) are left out.
// Members neither type has are dropped, as decoding into the Go type drops them.
#pragma once

#include <optional>
#include <string_view>

#include "fakekube/api/json.h"
#include "fakekube/api/resource_registry.h"

namespace fakekube {

// A core/v1 Event as the events.k8s.io/v1 Event it is served as.
Json eventsV1EventFromCore(const Json& coreEvent);
// An events.k8s.io/v1 Event as the core/v1 Event it is stored as.
Json coreEventFromEventsV1(const Json& eventsV1Event);

// The field label of an events.k8s.io/v1 selector as the core/v1 label it selects on
// (AddFieldLabelConversionsForEvent): "regarding.name" is "involvedObject.name",
// "reportingController" is "reportingComponent"; the label itself for reason, source, type and
// metadata.name/namespace.
std::string_view coreEventFieldLabel(std::string_view eventsV1Label);

// A selectable field of a stored (core/v1) Event (EventToSelectableFields): "source" is
// source.component, or reportingComponent when that is empty; every other label is its JSON path.
std::optional<std::string_view> eventSelectableField(const Json& coreEvent, std::string_view label);

// The storage conversion of the events.k8s.io/v1 Event (ResourceInfo::conversion).
const StorageConversion& eventsV1EventConversion();

// The field selectors each Event view supports beyond metadata.name and metadata.namespace.
const std::vector<std::string>& coreEventFieldSelectors();
const std::vector<std::string>& eventsV1EventFieldSelectors();

}  // namespace fakekube
