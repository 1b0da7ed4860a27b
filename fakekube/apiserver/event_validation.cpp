#include "fakekube/apiserver/internal/event_validation.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/json_writer.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/validation.h"

namespace fakekube::strategy {

namespace {

constexpr std::size_t kReportingInstanceLengthLimit = 128;
constexpr std::size_t kActionLengthLimit = 128;
constexpr std::size_t kReasonLengthLimit = 128;
constexpr std::size_t kNoteLengthLimit = 1024;

// A string member of the core/v1 Event ("" when missing or not a string: Go's zero).
std::string_view eventString(const Json& event, std::initializer_list<std::string_view> path) {
  const Json& value = jsonAt(event, path);
  return value.is_string() ? std::string_view(value.get_ref<const std::string&>())
                           : std::string_view();
}

// Whether a metav1.Time or MicroTime member is Go's zero time (unset).
bool zeroTime(const Json& event, std::string_view field) {
  const Json& value = jsonAt(event, {field});
  return value.is_null() || (value.is_string() && value.get_ref<const std::string&>().empty());
}

// A member as Go compares it: unset ("", 0, null, {}) is the zero value whatever its spelling.
const Json& goValue(const Json& event, std::string_view field) {
  static const Json kZero;
  const Json& value = jsonAt(event, {field});
  if (value.is_string() && value.get_ref<const std::string&>().empty()) return kZero;
  if (value.is_number() && value == 0) return kZero;
  if (value.is_object() && value.empty()) return kZero;
  return value;
}

void checkLength(FieldErrors& errors, const char* field, std::string_view value,
                 std::size_t limit) {
  if (value.size() > limit) {
    errors.push_back(
        FieldError::invalidString(field, "", fmt::format("can have at most {} characters", limit)));
  }
}

// legacyValidateEvent: what every Event must satisfy, whichever version wrote it. The reporting
// controller is named as the request's version names it.
void legacyValidateEvent(const ResourceInfo& info, const Json& event, FieldErrors& errors) {
  const std::string_view ns = meta::namespace_(event);
  const std::string_view involvedNamespace = eventString(event, {"involvedObject", "namespace"});
  auto namespaceMismatch = [&] {
    errors.push_back(FieldError::invalidString("involvedObject.namespace", involvedNamespace,
                                               "does not match event.namespace"));
  };
  if (zeroTime(event, "eventTime")) {
    // An old-style Event: its namespace is its object's (or "default" for a cluster-scoped one).
    if (involvedNamespace.empty()) {
      if (!ns.empty() && ns != "default") namespaceMismatch();
    } else if (ns != involvedNamespace) {
      namespaceMismatch();
    }
    return;
  }
  if (involvedNamespace.empty() && ns != "default" && ns != "kube-system") namespaceMismatch();
  const char* controllerField =
      info.conversion == nullptr ? "reportingComponent" : "reportingController";
  const std::string_view controller = eventString(event, {"reportingComponent"});
  if (controller.empty()) errors.push_back(FieldError::required(controllerField));
  for (const std::string& message : isQualifiedName(controller)) {
    errors.push_back(FieldError::invalidString(controllerField, controller, message));
  }
  const std::string_view instance = eventString(event, {"reportingInstance"});
  if (instance.empty()) errors.push_back(FieldError::required("reportingInstance"));
  checkLength(errors, "reportingInstance", instance, kReportingInstanceLengthLimit);
  const std::string_view action = eventString(event, {"action"});
  if (action.empty()) errors.push_back(FieldError::required("action"));
  checkLength(errors, "action", action, kActionLengthLimit);
  const std::string_view reason = eventString(event, {"reason"});
  if (reason.empty()) errors.push_back(FieldError::required("reason"));
  checkLength(errors, "reason", reason, kReasonLengthLimit);
  checkLength(errors, "message", eventString(event, {"message"}), kNoteLengthLimit);
}

// validateV1EventSeries.
void validateSeries(const Json& event, FieldErrors& errors) {
  const Json& series = jsonAt(event, {"series"});
  if (series.is_null()) return;
  const Json& count = jsonAt(series, {"count"});
  if (!count.is_number_integer() || count.get<std::int64_t>() < 2) {
    errors.push_back(FieldError::invalidString("series.count", "", "should be at least 2"));
  }
  if (zeroTime(series, "lastObservedTime")) {
    errors.push_back(FieldError::required("series.lastObservedTime"));
  }
}

// The Event as kube-apiserver validates it: in its core/v1 form (the internal type's names).
Json coreForm(const ResourceInfo& info, const Json& event) {
  return info.conversion != nullptr ? info.conversion->toStorage(event) : event;
}

}  // namespace

bool isEvent(const ResourceInfo& info) {
  return info.kind == "Event" && info.storedGroup().empty() && info.storedResource() == "events";
}

void validateEventCreate(const ResourceInfo& info, const Json& served, FieldErrors& errors) {
  const Json event = coreForm(info, served);
  legacyValidateEvent(info, event, errors);
  // core/v1 keeps the legacy rules only, for the clients that wrote Events before eventTime.
  if (info.conversion == nullptr) return;
  validateSeries(event, errors);
  if (zeroTime(event, "eventTime")) errors.push_back(FieldError::required("eventTime"));
  const std::string_view type = eventString(event, {"type"});
  if (type != "Normal" && type != "Warning") {
    errors.push_back(
        FieldError::invalidString("type", "", fmt::format("has invalid value: {}", type)));
  }
  constexpr std::string_view kUnset = "needs to be unset";
  if (!zeroTime(event, "firstTimestamp")) {
    errors.push_back(FieldError::invalidString("firstTimestamp", "", std::string(kUnset)));
  }
  if (!zeroTime(event, "lastTimestamp")) {
    errors.push_back(FieldError::invalidString("lastTimestamp", "", std::string(kUnset)));
  }
  if (!goValue(event, "count").is_null()) {
    errors.push_back(FieldError::invalidString("count", "", std::string(kUnset)));
  }
  if (!eventString(event, {"source", "component"}).empty() ||
      !eventString(event, {"source", "host"}).empty()) {
    errors.push_back(FieldError::invalidString("source", "", std::string(kUnset)));
  }
}

void validateEventUpdate(const ResourceInfo& info, const Json& servedUpdated, const Json& servedOld,
                         FieldErrors& errors) {
  const Json updated = coreForm(info, servedUpdated);
  legacyValidateEvent(info, updated, errors);
  if (info.conversion == nullptr) return;
  const Json old = coreForm(info, servedOld);
  if (jsonAt(updated, {"series"}) != jsonAt(old, {"series"})) validateSeries(updated, errors);
  // ValidateEventUpdate checks reason twice, and reports it twice.
  for (std::string_view field : {"involvedObject", "reason", "message", "source", "firstTimestamp",
                                 "lastTimestamp", "count", "reason", "type", "eventTime", "action",
                                 "related", "reportingComponent", "reportingInstance"}) {
    const Json& now = goValue(updated, field);
    if (now == goValue(old, field)) continue;
    const std::string path =
        field == "reportingComponent" ? "reportingController" : std::string(field);
    errors.push_back(FieldError::invalid(
        path, now.is_string() ? goQuote(now.get_ref<const std::string&>()) : toJsonText(now),
        "field is immutable"));
  }
}

}  // namespace fakekube::strategy
