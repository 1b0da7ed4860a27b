// The Event in its two group-versions over one storage, as kube-apiserver serves it: a core/v1
// Event and an events.k8s.io/v1 Event are the same object (pkg/apis/events/v1/conversion.go),
// readable, listable, watchable, selectable and deletable through either, with one
// resourceVersion sequence, and validated by the rules of the version a write came through
// (pkg/apis/core/validation/events.go).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fakekube/api/resources.h"
#include "tests/fakekube/apiserver/fixture.h"

namespace fakekube::apitest {
namespace {

const GroupVersionResource kEventsV1{"events.k8s.io", "v1", "events"};

// What client-go's legacy recorder (record.EventRecorder) writes through core/v1.
Json coreEvent(const std::string& name, const std::string& ns = "default") {
  return {{"apiVersion", "v1"},
          {"kind", "Event"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"involvedObject",
           {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"name", "web"},
            {"namespace", ns},
            {"uid", "pod-uid"}}},
          {"reason", "Pulled"},
          {"message", "Successfully pulled image"},
          {"source", {{"component", "kubelet"}, {"host", "node-1"}}},
          {"firstTimestamp", "2024-01-01T00:00:00Z"},
          {"lastTimestamp", "2024-01-01T00:00:05Z"},
          {"count", 3},
          {"type", "Normal"},
          {"reportingComponent", "kubelet"},
          {"reportingInstance", "node-1"}};
}

// What client-go's events.k8s.io recorder (tools/events) writes.
Json eventsV1Event(const std::string& name, const std::string& ns = "default") {
  return {
      {"apiVersion", "events.k8s.io/v1"},
      {"kind", "Event"},
      {"metadata", {{"name", name}, {"namespace", ns}}},
      {"eventTime", "2024-01-01T00:00:00.000000Z"},
      {"reportingController", "default-scheduler"},
      {"reportingInstance", "default-scheduler-node-1"},
      {"action", "Binding"},
      {"reason", "Scheduled"},
      {"regarding", {{"apiVersion", "v1"}, {"kind", "Pod"}, {"name", "web"}, {"namespace", ns}}},
      {"note", "Successfully assigned default/web to node-1"},
      {"type", "Normal"}};
}

// The object without its server-set metadata, to compare the converted members.
Json withoutMetadata(Json object) {
  object.erase("metadata");
  return object;
}

std::vector<std::string> namesOf(const Json& list) {
  std::vector<std::string> names;
  for (const auto& item : list["items"]) names.push_back(meta::name(item));
  return names;
}

class EventViewsTest : public ApiServerTest {
 protected:
  std::shared_ptr<Watch> startWatch(const GroupVersionResource& gvr, WatchOptions options = {}) {
    return must(server->watch(gvr, "default", options), "watch");
  }
};

TEST_F(EventViewsTest, CoreEventIsReadAsEventsV1WithTheConvertedFields) {
  Json created = create(kEvents, coreEvent("web.1"));
  Json read = get(kEventsV1, "default", "web.1");
  EXPECT_EQ(withoutMetadata(read),
            Json({{"apiVersion", "events.k8s.io/v1"},
                  {"kind", "Event"},
                  {"eventTime", nullptr},
                  {"reportingController", "kubelet"},
                  {"reportingInstance", "node-1"},
                  {"reason", "Pulled"},
                  {"regarding",
                   {{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"name", "web"},
                    {"namespace", "default"},
                    {"uid", "pod-uid"}}},
                  {"note", "Successfully pulled image"},
                  {"type", "Normal"},
                  {"deprecatedSource", {{"component", "kubelet"}, {"host", "node-1"}}},
                  {"deprecatedFirstTimestamp", "2024-01-01T00:00:00Z"},
                  {"deprecatedLastTimestamp", "2024-01-01T00:00:05Z"},
                  {"deprecatedCount", 3}}))
      << read.dump();
  // The same object: same uid, same resourceVersion.
  EXPECT_EQ(read["metadata"], created["metadata"]);
}

TEST_F(EventViewsTest, EventsV1EventIsReadAsCoreEventWithTheConvertedFields) {
  Json created = create(kEventsV1, eventsV1Event("web.2"));
  EXPECT_EQ(created["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ(created["note"], "Successfully assigned default/web to node-1");
  Json read = get(kEvents, "default", "web.2");
  EXPECT_EQ(
      withoutMetadata(read),
      Json({{"apiVersion", "v1"},
            {"kind", "Event"},
            {"involvedObject",
             {{"apiVersion", "v1"}, {"kind", "Pod"}, {"name", "web"}, {"namespace", "default"}}},
            {"reason", "Scheduled"},
            {"message", "Successfully assigned default/web to node-1"},
            {"source", Json::object()},
            {"firstTimestamp", nullptr},
            {"lastTimestamp", nullptr},
            {"type", "Normal"},
            {"eventTime", "2024-01-01T00:00:00.000000Z"},
            {"action", "Binding"},
            {"reportingComponent", "default-scheduler"},
            {"reportingInstance", "default-scheduler-node-1"}}))
      << read.dump();
  EXPECT_EQ(read["metadata"], created["metadata"]);
}

TEST_F(EventViewsTest, BothViewsWriteOneObjectWithOneResourceVersionSequence) {
  Json first = create(kEvents, coreEvent("web.1"));
  Json second = create(kEventsV1, eventsV1Event("web.2"));
  EXPECT_GT(rvNumber(second), rvNumber(first));
  // The name is taken whichever view asks, and the error names the resource the request did.
  EXPECT_TRUE(failsWith(server->create(kEventsV1, "", eventsV1Event("web.1")), 409, "AlreadyExists",
                        "events.events.k8s.io \"web.1\" already exists"));
  EXPECT_TRUE(failsWith(server->create(kEvents, "", coreEvent("web.2")), 409, "AlreadyExists",
                        "events \"web.2\" already exists"));
  // An update through the other view moves the same resourceVersion.
  Json patched =
      mergePatch(kEventsV1, "default", "web.1",
                 {{"series", {{"count", 2}, {"lastObservedTime", "2024-01-01T00:01:00.000000Z"}}}});
  EXPECT_GT(rvNumber(patched), rvNumber(second));
  Json core = get(kEvents, "default", "web.1");
  EXPECT_EQ(rv(core), rv(patched));
  EXPECT_EQ(core["series"]["count"], 2);
  EXPECT_EQ(core["count"], 3);  // deprecatedCount: untouched by the patch
}

TEST_F(EventViewsTest, ListThroughEitherViewShowsEveryEventInThatView) {
  create(kEvents, coreEvent("web.1"));
  create(kEventsV1, eventsV1Event("web.2"));
  Json v1 = list(kEventsV1, "default");
  EXPECT_EQ(v1["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ(v1["kind"], "EventList");
  EXPECT_EQ(namesOf(v1), (std::vector<std::string>{"web.1", "web.2"}));
  for (const auto& item : v1["items"]) {
    EXPECT_EQ(item["apiVersion"], "events.k8s.io/v1");
    EXPECT_TRUE(item.contains("regarding")) << item.dump();
    EXPECT_FALSE(item.contains("involvedObject")) << item.dump();
  }
  Json core = list(kEvents, "default");
  EXPECT_EQ(core["apiVersion"], "v1");
  EXPECT_EQ(namesOf(core), (std::vector<std::string>{"web.1", "web.2"}));
  EXPECT_EQ(core["items"][1]["message"], "Successfully assigned default/web to node-1");
  EXPECT_EQ(core["metadata"]["resourceVersion"], v1["metadata"]["resourceVersion"]);
}

TEST_F(EventViewsTest, WatchOfEventsV1SeesCoreWritesConvertedAndCoreWatchSeesEventsV1Writes) {
  auto v1Watch = startWatch(kEventsV1, {.resourceVersion = std::to_string(server->revision())});
  auto coreWatch = startWatch(kEvents, {.resourceVersion = std::to_string(server->revision())});
  create(kEvents, coreEvent("web.1"));
  create(kEventsV1, eventsV1Event("web.2"));
  remove(kEventsV1, "default", "web.1");

  std::vector<std::string> seen;
  while (auto e = v1Watch->tryNext()) {
    EXPECT_EQ((*e->object)["apiVersion"], "events.k8s.io/v1") << e->object->dump();
    seen.push_back(std::string(watchEventTypeName(e->type)) + " " + meta::name(*e->object) + " " +
                   (*e->object).value("note", ""));
  }
  EXPECT_EQ(seen,
            (std::vector<std::string>{"ADDED web.1 Successfully pulled image",
                                      "ADDED web.2 Successfully assigned default/web to node-1",
                                      "DELETED web.1 Successfully pulled image"}));
  seen.clear();
  while (auto e = coreWatch->tryNext()) {
    EXPECT_EQ((*e->object)["apiVersion"], "v1") << e->object->dump();
    seen.push_back(std::string(watchEventTypeName(e->type)) + " " + meta::name(*e->object) + " " +
                   (*e->object).value("message", ""));
  }
  EXPECT_EQ(seen,
            (std::vector<std::string>{"ADDED web.1 Successfully pulled image",
                                      "ADDED web.2 Successfully assigned default/web to node-1",
                                      "DELETED web.1 Successfully pulled image"}));
}

TEST_F(EventViewsTest, WatchOfEventsV1StartsWithTheCurrentEventsConverted) {
  create(kEvents, coreEvent("web.1"));
  auto watch = startWatch(kEventsV1);
  auto e = watch->tryNext();
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->type, WatchEventType::Added);
  EXPECT_EQ((*e->object)["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ((*e->object)["regarding"]["name"], "web");
}

TEST_F(EventViewsTest, DeleteThroughEitherViewRemovesTheOneObject) {
  create(kEvents, coreEvent("web.1"));
  create(kEventsV1, eventsV1Event("web.2"));
  Json status = remove(kEventsV1, "default", "web.1");
  EXPECT_EQ(status["kind"], "Status");
  EXPECT_EQ(status["details"]["group"], "events.k8s.io");
  EXPECT_TRUE(failsWith(server->get(kEvents, "default", "web.1"), 404, "NotFound",
                        "events \"web.1\" not found"));
  remove(kEvents, "default", "web.2");
  EXPECT_TRUE(failsWith(server->get(kEventsV1, "default", "web.2"), 404, "NotFound",
                        "events.events.k8s.io \"web.2\" not found"));
}

TEST_F(EventViewsTest, DeleteCollectionThroughEventsV1SelectsByTheConvertedLabels) {
  create(kEvents, coreEvent("web.1"));
  Json other = coreEvent("db.1");
  other["involvedObject"]["name"] = "db";
  create(kEvents, other);
  auto deleted = must(
      server->deleteCollection(kEventsV1, "default", {.fieldSelector = "regarding.name=web"}, {}),
      "deletecollection");
  ASSERT_EQ(deleted["items"].size(), 1u);
  EXPECT_EQ(deleted["items"][0]["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ(namesOf(list(kEvents, "default")), (std::vector<std::string>{"db.1"}));
}

// EventToSelectableFields and AddFieldLabelConversionsForEvent.
TEST_F(EventViewsTest, FieldSelectorsOfBothViewsSelectTheSameEvents) {
  create(kEvents, coreEvent("web.1"));        // source.component kubelet
  create(kEventsV1, eventsV1Event("web.2"));  // no source: "source" is reportingComponent
  Json db = coreEvent("db.1");
  db["involvedObject"]["name"] = "db";
  db["type"] = "Warning";
  create(kEvents, db);

  auto names = [&](const GroupVersionResource& gvr, const std::string& selector) {
    return namesOf(list(gvr, "default", {.fieldSelector = selector}));
  };
  using Names = std::vector<std::string>;
  EXPECT_EQ(names(kEvents, "involvedObject.name=web"), (Names{"web.1", "web.2"}));
  EXPECT_EQ(names(kEventsV1, "regarding.name=web"), (Names{"web.1", "web.2"}));
  EXPECT_EQ(names(kEventsV1, "regarding.kind=Pod,type=Warning"), (Names{"db.1"}));
  EXPECT_EQ(names(kEvents, "reportingComponent=default-scheduler"), (Names{"web.2"}));
  EXPECT_EQ(names(kEventsV1, "reportingController=default-scheduler"), (Names{"web.2"}));
  EXPECT_EQ(names(kEvents, "source=kubelet"), (Names{"db.1", "web.1"}));
  EXPECT_EQ(names(kEventsV1, "source=default-scheduler"), (Names{"web.2"}));
  EXPECT_EQ(names(kEventsV1, "reason=Scheduled"), (Names{"web.2"}));

  // Each view accepts its own labels only.
  EXPECT_TRUE(
      failsWith(server->list(kEventsV1, "default", {.fieldSelector = "involvedObject.name=web"}),
                400, "BadRequest", "field label not supported: involvedObject.name"));
  EXPECT_TRUE(failsWith(server->list(kEvents, "default", {.fieldSelector = "regarding.name=web"}),
                        400, "BadRequest", "field label not supported: regarding.name"));
}

TEST_F(EventViewsTest, WatchOfEventsV1SelectsByTheConvertedLabels) {
  auto watch = startWatch(kEventsV1, {.fieldSelector = "regarding.name=db",
                                      .resourceVersion = std::to_string(server->revision())});
  create(kEvents, coreEvent("web.1"));
  Json db = coreEvent("db.1");
  db["involvedObject"]["name"] = "db";
  create(kEvents, db);
  auto e = watch->tryNext();
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(meta::name(*e->object), "db.1");
  EXPECT_EQ((*e->object)["regarding"]["name"], "db");
  EXPECT_FALSE(watch->tryNext().has_value());
}

// ValidateEventCreate for events.k8s.io/v1: the strict rules, reported on the internal fields.
TEST_F(EventViewsTest, EventsV1CreateRequiresTheNewEventFields) {
  Json bare = {{"apiVersion", "events.k8s.io/v1"},
               {"kind", "Event"},
               {"metadata", {{"name", "bare"}, {"namespace", "default"}}},
               {"deprecatedCount", 2},
               {"deprecatedSource", {{"component", "kubelet"}}}};
  auto r = server->create(kEventsV1, "", bare);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, 422);
  EXPECT_EQ(r.error().message,
            "Event \"bare\" is invalid: [eventTime: Required value, type: Invalid value: \"\": "
            "has invalid value: , count: Invalid value: \"\": needs to be unset, source: Invalid "
            "value: \"\": needs to be unset]");

  Json missing = eventsV1Event("missing");
  missing.erase("reportingController");
  missing.erase("action");
  missing["series"] = {{"count", 1}};
  r = server->create(kEventsV1, "", missing);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(
      r.error().details.causes,
      (std::vector<StatusCause>{
          cause("FieldValueRequired", "Required value", "reportingController"),
          cause("FieldValueInvalid", "Invalid value: \"\": name part must be non-empty",
                "reportingController"),
          cause("FieldValueInvalid",
                "Invalid value: \"\": name part must consist of alphanumeric characters, "
                "'-', '_' or '.', and must start and end with an alphanumeric character "
                "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation "
                "is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
                "reportingController"),
          cause("FieldValueRequired", "Required value", "action"),
          cause("FieldValueInvalid", "Invalid value: \"\": should be at least 2", "series.count"),
          cause("FieldValueRequired", "Required value", "series.lastObservedTime")}));
  EXPECT_TRUE(failsWith(server->get(kEvents, "default", "missing"), 404, "NotFound",
                        "events \"missing\" not found"));
}

// core/v1 keeps the legacy rules only: an old-style Event needs nothing but a matching namespace.
TEST_F(EventViewsTest, CoreCreateChecksOnlyTheLegacyRules) {
  Json minimal = {{"apiVersion", "v1"},
                  {"kind", "Event"},
                  {"metadata", {{"name", "minimal"}, {"namespace", "default"}}}};
  create(kEvents, minimal);

  Json elsewhere = coreEvent("elsewhere");
  elsewhere["involvedObject"]["namespace"] = "kube-system";
  EXPECT_TRUE(failsWith(server->create(kEvents, "", elsewhere), 422, "Invalid",
                        "Event \"elsewhere\" is invalid: involvedObject.namespace: Invalid value: "
                        "\"kube-system\": does not match event.namespace"));

  // An eventTime makes it a new-style Event, whose reporting fields are required; core/v1 names
  // the controller reportingComponent.
  Json timed = coreEvent("timed");
  timed["eventTime"] = "2024-01-01T00:00:00.000000Z";
  timed.erase("reportingComponent");
  auto r = server->create(kEvents, "", timed);
  ASSERT_FALSE(r.has_value());
  ASSERT_GE(r.error().details.causes.size(), 2u);
  EXPECT_EQ(r.error().details.causes[0],
            cause("FieldValueRequired", "Required value", "reportingComponent"));
  EXPECT_EQ(r.error().details.causes.back(),
            cause("FieldValueRequired", "Required value", "action"));
}

// ValidateEventUpdate: through events.k8s.io/v1 everything but the series is immutable; through
// core/v1 only the legacy rules apply.
TEST_F(EventViewsTest, EventsV1UpdateMayChangeOnlyTheSeries) {
  create(kEventsV1, eventsV1Event("web.2"));
  auto r = server->patch(kEventsV1, "default", "web.2", PatchType::Merge,
                         Json({{"note", "rewritten"}}).dump());
  EXPECT_TRUE(failsWith(r, 422, "Invalid",
                        "Event \"web.2\" is invalid: message: Invalid value: \"rewritten\": field "
                        "is immutable"));
  Json series =
      mergePatch(kEventsV1, "default", "web.2",
                 {{"series", {{"count", 2}, {"lastObservedTime", "2024-01-01T00:01:00.000000Z"}}}});
  EXPECT_EQ(series["series"]["count"], 2);
  Json core = mergePatch(kEvents, "default", "web.2", {{"message", "rewritten"}});
  EXPECT_EQ(core["message"], "rewritten");
  EXPECT_EQ(get(kEventsV1, "default", "web.2")["note"], "rewritten");
}

}  // namespace
}  // namespace fakekube::apitest
