#include "fakekube/api/internal/event_conversion.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fakekube/api/field_selector.h"

namespace fakekube {

namespace {

// Whether Go's encoder leaves a member out under `omitempty`: a missing or null member, "" and 0.
bool omittedWhenEmpty(const Json& value) {
  if (value.is_null()) return true;
  if (value.is_string()) return value.get_ref<const std::string&>().empty();
  if (value.is_number()) return value == 0;
  return false;
}

const Json& eventMember(const Json& object, std::string_view name) {
  static const Json kNull;
  auto it = object.find(name);
  return it == object.end() ? kNull : *it;
}

// The members a conversion writes: `to` from `from`, left out when unset (omitempty).
void copyUnlessEmpty(Json::object_t& out, const char* to, const Json& in, std::string_view from) {
  const Json& value = eventMember(in, from);
  if (!omittedWhenEmpty(value)) out.emplace(to, value);
}

// A member Go always writes: the value, or the type's zero (`zero`) when unset.
void copyOrGoZero(Json::object_t& out, const char* to, const Json& in, std::string_view from,
                  Json zero) {
  const Json& value = eventMember(in, from);
  out.emplace(to, value.is_null() ? std::move(zero) : value);
}

// A string member Go always writes ("" when unset).
void copyStringOrEmpty(Json::object_t& out, const char* to, const Json& in, std::string_view from) {
  const Json& value = eventMember(in, from);
  out.emplace(to, value.is_null() ? Json("") : value);
}

// apiVersion, kind and metadata, the members both types share.
Json eventWithTypeMeta(const char* apiVersion, const Json& in) {
  Json out = Json::object();
  auto& members = out.get_ref<Json::object_t&>();
  members.emplace("apiVersion", apiVersion);
  members.emplace("kind", "Event");
  if (auto metadata = in.find("metadata"); metadata != in.end()) {
    members.emplace("metadata", *metadata);
  }
  return out;
}

Json eventsV1ToStorage(const Json& served) { return coreEventFromEventsV1(served); }
Json eventsV1FromStorage(const Json& stored) { return eventsV1EventFromCore(stored); }

}  // namespace

Json eventsV1EventFromCore(const Json& core) {
  Json out = eventWithTypeMeta("events.k8s.io/v1", core);
  if (!core.is_object()) return out;
  auto& members = out.get_ref<Json::object_t&>();
  copyOrGoZero(members, "eventTime", core, "eventTime", nullptr);
  copyUnlessEmpty(members, "series", core, "series");
  copyUnlessEmpty(members, "reportingController", core, "reportingComponent");
  copyUnlessEmpty(members, "reportingInstance", core, "reportingInstance");
  copyUnlessEmpty(members, "action", core, "action");
  copyUnlessEmpty(members, "reason", core, "reason");
  copyOrGoZero(members, "regarding", core, "involvedObject", Json::object());
  copyUnlessEmpty(members, "related", core, "related");
  copyUnlessEmpty(members, "note", core, "message");
  copyUnlessEmpty(members, "type", core, "type");
  copyOrGoZero(members, "deprecatedSource", core, "source", Json::object());
  copyOrGoZero(members, "deprecatedFirstTimestamp", core, "firstTimestamp", nullptr);
  copyOrGoZero(members, "deprecatedLastTimestamp", core, "lastTimestamp", nullptr);
  copyUnlessEmpty(members, "deprecatedCount", core, "count");
  return out;
}

Json coreEventFromEventsV1(const Json& events) {
  Json out = eventWithTypeMeta("v1", events);
  if (!events.is_object()) return out;
  auto& members = out.get_ref<Json::object_t&>();
  copyOrGoZero(members, "involvedObject", events, "regarding", Json::object());
  copyUnlessEmpty(members, "reason", events, "reason");
  copyUnlessEmpty(members, "message", events, "note");
  copyOrGoZero(members, "source", events, "deprecatedSource", Json::object());
  copyOrGoZero(members, "firstTimestamp", events, "deprecatedFirstTimestamp", nullptr);
  copyOrGoZero(members, "lastTimestamp", events, "deprecatedLastTimestamp", nullptr);
  copyUnlessEmpty(members, "count", events, "deprecatedCount");
  copyUnlessEmpty(members, "type", events, "type");
  copyOrGoZero(members, "eventTime", events, "eventTime", nullptr);
  copyUnlessEmpty(members, "series", events, "series");
  copyUnlessEmpty(members, "action", events, "action");
  copyUnlessEmpty(members, "related", events, "related");
  copyStringOrEmpty(members, "reportingComponent", events, "reportingController");
  copyStringOrEmpty(members, "reportingInstance", events, "reportingInstance");
  return out;
}

std::string_view coreEventFieldLabel(std::string_view label) {
  if (label == "reportingController") return "reportingComponent";
  constexpr std::string_view kRegarding = "regarding.";
  if (label.starts_with(kRegarding)) {
    static const std::vector<std::string> kInvolved = {
        "involvedObject.kind",     "involvedObject.namespace",  "involvedObject.name",
        "involvedObject.uid",      "involvedObject.apiVersion", "involvedObject.resourceVersion",
        "involvedObject.fieldPath"};
    const std::string_view field = label.substr(kRegarding.size());
    for (const std::string& involved : kInvolved) {
      if (std::string_view(involved).substr(std::string_view("involvedObject.").size()) == field) {
        return involved;
      }
    }
  }
  return label;
}

std::optional<std::string_view> eventSelectableField(const Json& coreEvent,
                                                     std::string_view label) {
  if (label != "source") return fieldValueAtPath(coreEvent, label);
  auto component = fieldValueAtPath(coreEvent, "source.component");
  if (component && !component->empty()) return component;
  return fieldValueAtPath(coreEvent, "reportingComponent");
}

const StorageConversion& eventsV1EventConversion() {
  static const StorageConversion kConversion{
      {"", "events"}, "v1", &eventsV1ToStorage, &eventsV1FromStorage, &coreEventFieldLabel};
  return kConversion;
}

const std::vector<std::string>& coreEventFieldSelectors() {
  static const std::vector<std::string> kFields = {"involvedObject.kind",
                                                   "involvedObject.namespace",
                                                   "involvedObject.name",
                                                   "involvedObject.uid",
                                                   "involvedObject.apiVersion",
                                                   "involvedObject.resourceVersion",
                                                   "involvedObject.fieldPath",
                                                   "reason",
                                                   "reportingComponent",
                                                   "source",
                                                   "type"};
  return kFields;
}

const std::vector<std::string>& eventsV1EventFieldSelectors() {
  static const std::vector<std::string> kFields = {"regarding.kind",
                                                   "regarding.namespace",
                                                   "regarding.name",
                                                   "regarding.uid",
                                                   "regarding.apiVersion",
                                                   "regarding.resourceVersion",
                                                   "regarding.fieldPath",
                                                   "reason",
                                                   "reportingController",
                                                   "source",
                                                   "type"};
  return kFields;
}

}  // namespace fakekube
