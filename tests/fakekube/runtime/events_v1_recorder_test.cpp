// The events.k8s.io/v1 recorder as client-go's tools/events writes (recorder.go makeEvent,
// event_broadcaster.go recordToSink, getKey, finishSeries; eventseries_test.go's cases).
#include "fakekube/runtime/internal/events_v1_recorder.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "fakekube/api/resources.h"
#include "fakekube/apiserver/fixture.h"
#include "fakekube/client/in_process_client.h"

namespace fakekube {
namespace {

using apitest::configMap;
using apitest::must;
using std::chrono::minutes;
using std::chrono::seconds;

const GroupVersionResource kEventsV1{"events.k8s.io", "v1", "events"};

class EventsV1RecorderTest : public apitest::ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    client = std::make_unique<InProcessClient>(*server);
    recorder = std::make_unique<EventsV1Recorder>(*client, ex.clock(), "raycluster-controller",
                                                  "kuberay-operator-7c9f");
    cm = must(client->create(kConfigMaps, configMap("cm1")), "create");
  }

  Json events() { return list(kEventsV1, "default")["items"]; }
  Json record(std::string_view type, std::string_view reason, std::string_view action,
              std::string_view note) {
    return must(recorder->event(cm, type, reason, action, note), "event");
  }

  std::unique_ptr<InProcessClient> client;
  std::unique_ptr<EventsV1Recorder> recorder;
  Json cm;
};

TEST_F(EventsV1RecorderTest, MakeEventWritesTheEventsV1EventWithItsActionAndReportingInstance) {
  Json stored = record("Normal", "CreatedService", "Create", "Created service default/svc");

  Json items = events();
  ASSERT_EQ(items.size(), 1u);
  Json e = items[0];
  EXPECT_EQ(e["metadata"]["name"],
            fmt::format("cm1.{:x}", kSimulatedEpoch.time_since_epoch().count()));
  EXPECT_EQ(e["metadata"]["namespace"], "default");
  EXPECT_EQ(e["metadata"]["uid"], stored["metadata"]["uid"]);
  EXPECT_EQ(e["eventTime"], "2024-01-01T00:00:00.000000Z");
  EXPECT_EQ(e["reportingController"], "raycluster-controller");
  EXPECT_EQ(e["reportingInstance"], "raycluster-controller-kuberay-operator-7c9f");
  EXPECT_EQ(e["action"], "Create");
  EXPECT_EQ(e["reason"], "CreatedService");
  EXPECT_EQ(e["note"], "Created service default/svc");
  EXPECT_EQ(e["type"], "Normal");
  EXPECT_EQ(e["regarding"], Json({{"apiVersion", "v1"},
                                  {"kind", "ConfigMap"},
                                  {"name", "cm1"},
                                  {"namespace", "default"},
                                  {"uid", cm["metadata"]["uid"]},
                                  {"resourceVersion", cm["metadata"]["resourceVersion"]}}));
  EXPECT_FALSE(e.contains("series"));
  // The same object through core/v1, as `kubectl describe` reads it.
  Json core = get(kEvents, "default", e["metadata"]["name"].get<std::string>());
  EXPECT_EQ(core["message"], "Created service default/svc");
  EXPECT_EQ(core["reportingComponent"], "raycluster-controller");
  EXPECT_EQ(core["involvedObject"]["name"], "cm1");
}

// eventseries_test.go: an isomorphic event (same type, action, reason, reporter and object; the
// note is not compared) patches the first into a series of 2; later ones are counted without a
// write until client-go's refresh.
TEST_F(EventsV1RecorderTest, AnIsomorphicRepeatPatchesASeriesAndLaterOnesAreCountedInMemory) {
  Json first = record("Warning", "FailedToCreateWorkerPod", "Create", "quota exceeded");
  ex.advance(seconds(10));
  Json second = record("Warning", "FailedToCreateWorkerPod", "Create", "quota still exceeded");
  EXPECT_EQ(second["metadata"]["name"], first["metadata"]["name"]);
  EXPECT_EQ(second["series"],
            Json({{"count", 2}, {"lastObservedTime", "2024-01-01T00:00:10.000000Z"}}));
  EXPECT_EQ(second["note"], "quota exceeded");
  const std::string revision = second["metadata"]["resourceVersion"];

  ex.advance(seconds(10));
  Json third = record("Warning", "FailedToCreateWorkerPod", "Create", "quota exceeded");
  EXPECT_EQ(third["series"]["count"], 3);
  Json items = events();
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0]["metadata"]["resourceVersion"], revision);  // no third write
  EXPECT_EQ(items[0]["series"]["count"], 2);
}

TEST_F(EventsV1RecorderTest, ADifferentTypeActionReasonOrObjectVersionIsAnotherEvent) {
  record("Normal", "UpdatedService", "Update", "a");
  record("Warning", "UpdatedService", "Update", "a");
  record("Normal", "UpdatedService", "Reconcile", "a");
  record("Normal", "CreatedService", "Update", "a");
  cm = mergePatch(kConfigMaps, "default", "cm1", {{"data", {{"k", "v2"}}}});
  record("Normal", "UpdatedService", "Update", "a");  // regarding's resourceVersion changed
  Json items = events();
  ASSERT_EQ(items.size(), 5u);
  for (const Json& e : items) EXPECT_FALSE(e.contains("series")) << e.dump();
}

// finishSeries: a series quiet for six minutes ends, a singleton that old is forgotten; the
// next isomorphic event is a new Event.
TEST_F(EventsV1RecorderTest, AfterSixQuietMinutesAnIsomorphicEventIsANewEvent) {
  Json first = record("Normal", "DeletedWorkerPod", "Delete", "Deleted pod w1");
  ex.advance(minutes(6) + seconds(1));
  Json second = record("Normal", "DeletedWorkerPod", "Delete", "Deleted pod w2");
  EXPECT_NE(second["metadata"]["name"], first["metadata"]["name"]);
  EXPECT_FALSE(second.contains("series"));
  ex.advance(minutes(5));
  Json third = record("Normal", "DeletedWorkerPod", "Delete", "Deleted pod w3");
  EXPECT_EQ(third["metadata"]["name"], second["metadata"]["name"]);
  EXPECT_EQ(third["series"]["count"], 2);
  EXPECT_EQ(events().size(), 2u);
}

// recordEvent: the series' patch finds the Event gone (NotFound) and creates it, series and all.
TEST_F(EventsV1RecorderTest, ARepeatOfADeletedEventCreatesItWithItsSeries) {
  Json first = record("Normal", "CreatedWorkerPod", "Create", "Created pod w1");
  const std::string name = first["metadata"]["name"];
  remove(kEventsV1, "default", name);
  ex.advance(seconds(5));
  Json again = record("Normal", "CreatedWorkerPod", "Create", "Created pod w2");
  EXPECT_EQ(again["metadata"]["name"], name);
  EXPECT_EQ(again["series"]["count"], 2);
  EXPECT_EQ(again["note"], "Created pod w1");
  EXPECT_EQ(events().size(), 1u);
}

// Virtual time stands still: a core/v1 Event about a Job named as the RayJob holds the name at
// the same instant; the recorder takes the next suffix, as the core/v1 recorder does.
TEST_F(EventsV1RecorderTest, ANameTakenAtTheSameInstantMovesToTheNextSuffix) {
  const std::int64_t nanos = kSimulatedEpoch.time_since_epoch().count();
  Json other = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"name", fmt::format("cm1.{:x}", nanos)}, {"namespace", "default"}}},
                {"involvedObject", {{"kind", "Job"}, {"name", "cm1"}}},
                {"reason", "SuccessfulCreate"}};
  must(client->create(kEvents, std::move(other)), "create the other Event");
  Json stored = record("Normal", "DeletedRayCluster", "Delete", "Deleted cluster default/c");
  EXPECT_EQ(stored["metadata"]["name"], fmt::format("cm1.{:x}", nanos + 1));
  EXPECT_EQ(events().size(), 2u);
}

// The server validates what the recorder sends: events.k8s.io/v1 requires an action.
TEST_F(EventsV1RecorderTest, AnEventWithoutActionIsRefusedByTheServer) {
  auto refused = recorder->event(cm, "Normal", "Synced", "ok");
  ASSERT_FALSE(refused.has_value());
  EXPECT_TRUE(isInvalid(refused.error())) << refused.error().message;
  EXPECT_THAT(refused.error().message, ::testing::HasSubstr("action: Required value"));
  EXPECT_TRUE(events().empty());
}

TEST_F(EventsV1RecorderTest, RejectsAnUnknownTypeWithoutWriting) {
  auto refused = recorder->event(cm, "Info", "Synced", "Sync", "ok");
  ASSERT_FALSE(refused.has_value());
  EXPECT_TRUE(isBadRequest(refused.error()));
  EXPECT_TRUE(events().empty());
}

}  // namespace
}  // namespace fakekube
