#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "fakekube/api/resources.h"
#include "fakekube/apiserver/fixture.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/runtime/internal/core_event_recorder.h"

namespace fakekube {
namespace {

using apitest::configMap;
using apitest::must;
using apitest::namespaceObject;
using std::chrono::seconds;

class EventRecorderTest : public apitest::ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    client = std::make_unique<InProcessClient>(*server);
    recorder = std::make_unique<CoreEventRecorder>(*client, ex.clock(), "widget-controller");
    cm = must(client->create(kConfigMaps, configMap("cm1")), "create");
  }

  Json events(const std::string& ns = "default") { return list(kEvents, ns)["items"]; }
  Json record(const Json& object, std::string_view type, std::string_view reason,
              std::string_view message) {
    return must(recorder->event(object, type, reason, message), "event");
  }
  static std::string hexNanos(TimePoint t) {
    return fmt::format("{:x}", t.time_since_epoch().count());
  }

  std::unique_ptr<InProcessClient> client;
  std::unique_ptr<CoreEventRecorder> recorder;
  Json cm;
};

TEST_F(EventRecorderTest, TheFirstEventIsCreatedWithCountOne) {
  Json stored = record(cm, "Normal", "Synced", "ConfigMap synced");

  Json items = events();
  ASSERT_EQ(items.size(), 1u);
  Json e = items[0];
  EXPECT_EQ(e, stored);
  EXPECT_EQ(e["metadata"]["name"], "cm1." + hexNanos(kSimulatedEpoch));
  EXPECT_EQ(e["metadata"]["namespace"], "default");
  EXPECT_EQ(e["involvedObject"], Json({{"apiVersion", "v1"},
                                       {"kind", "ConfigMap"},
                                       {"name", "cm1"},
                                       {"namespace", "default"},
                                       {"uid", cm["metadata"]["uid"]},
                                       {"resourceVersion", cm["metadata"]["resourceVersion"]}}));
  EXPECT_EQ(e["type"], "Normal");
  EXPECT_EQ(e["reason"], "Synced");
  EXPECT_EQ(e["message"], "ConfigMap synced");
  EXPECT_EQ(e["source"], Json({{"component", "widget-controller"}}));
  EXPECT_EQ(e["reportingComponent"], "widget-controller");
  EXPECT_EQ(e["firstTimestamp"], "2024-01-01T00:00:00Z");
  EXPECT_EQ(e["lastTimestamp"], "2024-01-01T00:00:00Z");
  EXPECT_EQ(e["count"], 1);
}

TEST_F(EventRecorderTest, ARepeatBumpsTheCountOfTheSameEvent) {
  Json first = record(cm, "Warning", "SyncFailed", "boom");
  ex.advance(seconds(30));
  // The object changed meanwhile; it is still the same event.
  cm = mergePatch(kConfigMaps, "default", "cm1", {{"data", {{"k", "v2"}}}});
  Json second = record(cm, "Warning", "SyncFailed", "boom");
  ex.advance(seconds(30));
  Json third = record(cm, "Warning", "SyncFailed", "boom");

  Json items = events();
  ASSERT_EQ(items.size(), 1u);
  Json e = items[0];
  EXPECT_EQ(e, third);
  EXPECT_EQ(e["metadata"]["name"], first["metadata"]["name"]);
  EXPECT_EQ(second["count"], 2);
  EXPECT_EQ(second["lastTimestamp"], "2024-01-01T00:00:30Z");
  EXPECT_EQ(e["count"], 3);
  EXPECT_EQ(e["firstTimestamp"], "2024-01-01T00:00:00Z");
  EXPECT_EQ(e["lastTimestamp"], "2024-01-01T00:01:00Z");
}

TEST_F(EventRecorderTest, ADifferentReasonMessageOrTypeIsAnotherEvent) {
  Json a = record(cm, "Normal", "Synced", "ok");
  Json b = record(cm, "Normal", "Created", "ok");  // same instant: the names still differ
  Json c = record(cm, "Normal", "Synced", "ok again");
  Json d = record(cm, "Warning", "Synced", "ok");
  record(cm, "Normal", "Synced", "ok");  // aggregated into `a`

  Json items = events();
  ASSERT_EQ(items.size(), 4u);
  std::set<std::string> names;
  for (const Json& e : items) names.insert(e["metadata"]["name"].get<std::string>());
  EXPECT_EQ(names.size(), 4u);
  EXPECT_EQ(get(kEvents, "default", a["metadata"]["name"].get<std::string>())["count"], 2);
  EXPECT_EQ(b["count"], 1);
  EXPECT_EQ(c["count"], 1);
  EXPECT_EQ(d["count"], 1);
}

TEST_F(EventRecorderTest, EventsAboutDifferentObjectsAreNotAggregated) {
  Json other = must(client->create(kConfigMaps, configMap("cm2")), "create");
  record(cm, "Normal", "Synced", "ok");
  Json e = record(other, "Normal", "Synced", "ok");
  EXPECT_EQ(e["count"], 1);
  EXPECT_EQ(e["involvedObject"]["name"], "cm2");
  EXPECT_EQ(events().size(), 2u);
}

TEST_F(EventRecorderTest, EventsInTheObjectsNamespaceAndDefaultForClusterScoped) {
  Json ns = must(client->create(kNamespaces, namespaceObject("team-a")), "create");
  Json inTeam = must(client->create(kConfigMaps, configMap("cm", "team-a")), "create");

  Json e1 = record(inTeam, "Normal", "Synced", "ok");
  EXPECT_EQ(e1["metadata"]["namespace"], "team-a");
  EXPECT_EQ(events("team-a").size(), 1u);

  Json e2 = record(ns, "Normal", "Provisioned", "namespace ready");
  EXPECT_EQ(e2["metadata"]["namespace"], "default");
  EXPECT_EQ(e2["involvedObject"]["kind"], "Namespace");
  EXPECT_EQ(e2["involvedObject"]["name"], "team-a");
  EXPECT_FALSE(e2["involvedObject"].contains("namespace"));
  EXPECT_EQ(events("default").size(), 1u);
}

TEST_F(EventRecorderTest, ARepeatOfADeletedEventCreatesItAgainKeepingTheCount) {
  Json first = record(cm, "Normal", "Synced", "ok");
  const std::string name = first["metadata"]["name"];
  remove(kEvents, "default", name);
  ex.advance(seconds(5));

  Json again = record(cm, "Normal", "Synced", "ok");
  EXPECT_EQ(again["metadata"]["name"], name);
  EXPECT_EQ(again["count"], 2);
  EXPECT_EQ(again["firstTimestamp"], "2024-01-01T00:00:00Z");
  EXPECT_EQ(again["lastTimestamp"], "2024-01-01T00:00:05Z");
  EXPECT_EQ(events().size(), 1u);
}

// Another writer's Event already holds the name the recorder picks: the next suffix is tried,
// up to three names in all, and then the conflict is the answer.
TEST_F(EventRecorderTest, ANameTakenByAnotherEventMovesToTheNextSuffix) {
  const std::int64_t nanos = kSimulatedEpoch.time_since_epoch().count();
  auto takeName = [&](std::int64_t suffix) {
    Json other = {
        {"apiVersion", "v1"},
        {"kind", "Event"},
        {"metadata", {{"name", fmt::format("cm1.{:x}", suffix)}, {"namespace", "default"}}},
        {"involvedObject", {{"kind", "ConfigMap"}, {"name", "cm1"}}},
        {"reason", "Other"}};
    must(client->create(kEvents, std::move(other)), "create the other Event");
  };
  takeName(nanos);
  Json stored = record(cm, "Normal", "Synced", "ok");
  EXPECT_EQ(stored["metadata"]["name"], fmt::format("cm1.{:x}", nanos + 1));
  EXPECT_EQ(stored["reason"], "Synced");

  // The recorder's next names are nanos + 2, + 3 and + 4: all three taken.
  for (std::int64_t suffix : {nanos + 2, nanos + 3, nanos + 4}) takeName(suffix);
  auto refused = recorder->event(cm, "Normal", "Deleted", "gone");
  ASSERT_FALSE(refused.has_value());
  EXPECT_TRUE(isAlreadyExists(refused.error()));
  EXPECT_EQ(events().size(), 5u);
}

TEST_F(EventRecorderTest, RejectsAnUnknownTypeWithoutWriting) {
  auto r = recorder->event(cm, "Info", "Synced", "ok");
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(isBadRequest(r.error()));
  EXPECT_TRUE(events().empty());
}

}  // namespace
}  // namespace fakekube
