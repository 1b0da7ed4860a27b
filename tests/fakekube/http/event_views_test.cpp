// The core/v1 and events.k8s.io/v1 Events over HTTP: one storage behind /api/v1/.../events and
// /apis/events.k8s.io/v1/.../events, as kube-apiserver serves them
// (docs/multi-version-resources.md).
#include "http_fixture.h"

namespace fakekube::httptest {
namespace {

using EventViewsTest = HttpTest;

const std::string kCoreEventsPath = "/api/v1/namespaces/default/events";
const std::string kEventsV1Path = "/apis/events.k8s.io/v1/namespaces/default/events";

Json coreEvent(const std::string& name, const std::string& involved = "web") {
  return {{"apiVersion", "v1"},
          {"kind", "Event"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"involvedObject",
           {{"apiVersion", "v1"}, {"kind", "Pod"}, {"name", involved}, {"namespace", "default"}}},
          {"reason", "Started"},
          {"message", "Started container main"},
          {"source", {{"component", "kubelet"}}},
          {"firstTimestamp", "2024-01-01T00:00:00Z"},
          {"lastTimestamp", "2024-01-01T00:00:00Z"},
          {"count", 1},
          {"type", "Normal"}};
}

TEST_F(EventViewsTest, CoreEventIsServedUnderEventsK8sIoConverted) {
  auto created = post(kCoreEventsPath, coreEvent("web.1"));
  ASSERT_EQ(created->status, 201) << created->body;

  auto fetched = get(kEventsV1Path + "/web.1");
  ASSERT_EQ(fetched->status, 200) << fetched->body;
  Json event = parse(fetched->body);
  EXPECT_EQ(event["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ(event["note"], "Started container main");
  EXPECT_EQ(event["regarding"]["name"], "web");
  EXPECT_EQ(event["deprecatedSource"]["component"], "kubelet");
  EXPECT_EQ(event["deprecatedCount"], 1);
  EXPECT_TRUE(event["eventTime"].is_null());
  EXPECT_FALSE(event.contains("message"));
  EXPECT_EQ(event["metadata"]["resourceVersion"],
            parse(created->body)["metadata"]["resourceVersion"]);

  Json list = parse(get(kEventsV1Path + "?fieldSelector=regarding.name%3Dweb")->body);
  EXPECT_EQ(list["kind"], "EventList");
  EXPECT_EQ(list["apiVersion"], "events.k8s.io/v1");
  ASSERT_EQ(list["items"].size(), 1u);
  EXPECT_EQ(list["items"][0]["note"], "Started container main");
  // Each group-version accepts its own field labels.
  auto refused = get(kEventsV1Path + "?fieldSelector=involvedObject.name%3Dweb");
  ASSERT_EQ(refused->status, 400);
  EXPECT_EQ(status(refused)["message"], "field label not supported: involvedObject.name");
}

TEST_F(EventViewsTest, EventsK8sIoWatchStreamsCoreWritesConverted) {
  const std::string rv = parse(get(kEventsV1Path)->body)["metadata"]["resourceVersion"];
  WatchReader reader(http->port(), kEventsV1Path + "?watch=true&resourceVersion=" + rv +
                                       "&fieldSelector=regarding.name%3Dweb");
  ASSERT_TRUE(eventually([&] { return http->activeWatches() == 1; }));
  ASSERT_EQ(post(kCoreEventsPath, coreEvent("db.1", "db"))->status, 201);
  ASSERT_EQ(post(kCoreEventsPath, coreEvent("web.1"))->status, 201);
  ASSERT_EQ(client->Delete(kEventsV1Path + "/web.1")->status, 200);

  std::vector<Json> events = reader.waitForEvents(2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[1]["type"], "DELETED");
  for (const auto& e : events) {
    EXPECT_EQ(e["object"]["apiVersion"], "events.k8s.io/v1");
    EXPECT_EQ(e["object"]["metadata"]["name"], "web.1");
    EXPECT_EQ(e["object"]["note"], "Started container main");
  }
  EXPECT_EQ(get(kCoreEventsPath + "/web.1")->status, 404);
}

TEST_F(EventViewsTest, EventsK8sIoCreateIsValidatedByItsStrictRules) {
  Json event = {{"apiVersion", "events.k8s.io/v1"},
                {"kind", "Event"},
                {"metadata", {{"name", "web.2"}, {"namespace", "default"}}},
                {"eventTime", "2024-01-01T00:00:00.000000Z"},
                {"reason", "Scheduled"},
                {"note", "assigned"},
                {"type", "Normal"}};
  auto refused = post(kEventsV1Path, event);
  ASSERT_EQ(refused->status, 422) << refused->body;
  Json s = status(refused);
  EXPECT_EQ(s["details"]["kind"], "Event");
  EXPECT_EQ(s["details"]["causes"][0]["field"], "reportingController");
  EXPECT_EQ(get(kCoreEventsPath + "/web.2")->status, 404);

  event["reportingController"] = "default-scheduler";
  event["reportingInstance"] = "default-scheduler-node-1";
  event["action"] = "Binding";
  auto created = post(kEventsV1Path, event);
  ASSERT_EQ(created->status, 201) << created->body;
  Json core = parse(get(kCoreEventsPath + "/web.2")->body);
  EXPECT_EQ(core["message"], "assigned");
  EXPECT_EQ(core["reportingComponent"], "default-scheduler");
  EXPECT_TRUE(core["firstTimestamp"].is_null());
}

// printEvent: the table `kubectl get events` prints, the same through both group-versions (the
// server prints the internal Event).
TEST_F(EventViewsTest, BothGroupVersionsPrintTheEventTable) {
  const httplib::Headers tableAccept = {
      {"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}};
  Json counted = coreEvent("web.1");
  counted["count"] = 3;
  counted["source"]["host"] = "node-1";
  counted["lastTimestamp"] = "2024-01-01T00:00:30Z";
  counted["involvedObject"]["fieldPath"] = "spec.containers{main}";
  ASSERT_EQ(post(kCoreEventsPath, counted)->status, 201);
  Json scheduled = {{"apiVersion", "events.k8s.io/v1"},
                    {"kind", "Event"},
                    {"metadata", {{"name", "web.2"}, {"namespace", "default"}}},
                    {"eventTime", "2024-01-01T00:00:50.000000Z"},
                    {"reportingController", "default-scheduler"},
                    {"reportingInstance", "default-scheduler-node-1"},
                    {"action", "Binding"},
                    {"reason", "Scheduled"},
                    {"regarding", {{"kind", "Pod"}, {"name", "web"}, {"namespace", "default"}}},
                    {"note", "Successfully assigned default/web to node-1"},
                    {"type", "Normal"}};
  ASSERT_EQ(post(kEventsV1Path, scheduled)->status, 201);
  clock.advance(std::chrono::seconds(60));

  const Json expectedRows = Json::array(
      {Json::array({"30s", "Normal", "Started", "pod/web", "spec.containers{main}",
                    "kubelet, node-1", "Started container main", "60s", 3, "web.1"}),
       Json::array({"10s", "Normal", "Scheduled", "pod/web", "",
                    "default-scheduler, default-scheduler-node-1",
                    "Successfully assigned default/web to node-1", "10s", 1, "web.2"})});
  for (const std::string& path : {kCoreEventsPath, kEventsV1Path}) {
    auto response = get(path, tableAccept);
    ASSERT_EQ(response->status, 200) << response->body;
    Json table = parse(response->body);
    std::vector<std::string> columns;
    for (const auto& c : table["columnDefinitions"]) columns.push_back(c["name"]);
    EXPECT_EQ(columns,
              (std::vector<std::string>{"Last Seen", "Type", "Reason", "Object", "Subobject",
                                        "Source", "Message", "First Seen", "Count", "Name"}));
    Json rows = Json::array();
    for (const auto& row : table["rows"]) rows.push_back(row["cells"]);
    EXPECT_EQ(rows, expectedRows) << path;
  }
}

}  // namespace
}  // namespace fakekube::httptest
