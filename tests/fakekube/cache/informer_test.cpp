// Informer: list, watch, handlers in event order, relist after 410, indexers, restriction, lag.
#include "fakekube/cache/informer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

#include "cache_fixture.h"
#include "fakekube/api/resources.h"

namespace fakekube::cachetest {
namespace {

using namespace std::chrono_literals;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

class InformerTest : public CacheTest {
 protected:
  // Hands the informer's events to `rec`, starts it and runs what is due (its first list).
  void startRecording(Informer& informer, Recorder& rec) {
    informer.addEventHandler(rec.handler());
    informer.start();
    ex.runUntilIdle();
  }
};

std::string rvOf(const Json& object) { return meta::resourceVersion(object); }

TEST_F(InformerTest, InitialListThenEventsReachHandlersInOrder) {
  Json a = create(kConfigMaps, configMap("a"));
  Json b = create(kConfigMaps, configMap("b"));

  Informer informer(*client, ex, kConfigMaps);
  Recorder rec;
  informer.addEventHandler(rec.handler());
  informer.start();
  EXPECT_FALSE(informer.hasSynced());  // nothing runs until the executor does
  ex.runUntilIdle();
  ASSERT_TRUE(informer.hasSynced());
  EXPECT_EQ(informer.lastSyncResourceVersion(), std::to_string(server->revision()));
  EXPECT_EQ(informer.listKind(), "ConfigMapList");
  EXPECT_THAT(rec.take(), ElementsAre("add default/a " + rvOf(a), "add default/b " + rvOf(b)));

  Json a2 = mergePatch(kConfigMaps, "default", "a", {{"data", {{"key", "v2"}}}});
  Json a3 = mergePatch(kConfigMaps, "default", "a", {{"data", {{"key", "v3"}}}});
  Json c = create(kConfigMaps, configMap("c"));
  EXPECT_THAT(rec.events, IsEmpty());  // nothing before the executor runs
  ex.runUntilIdle();
  EXPECT_THAT(rec.take(), ElementsAre("update default/a " + rvOf(a) + " -> " + rvOf(a2),
                                      "update default/a " + rvOf(a2) + " -> " + rvOf(a3),
                                      "add default/c " + rvOf(c)));
  EXPECT_EQ(informer.get("default/a")->dump(), a3.dump());
  EXPECT_EQ(state(informer), serverState(kConfigMaps));
}

TEST_F(InformerTest, UpdateHandlerGetsOldAndNewDocuments) {
  create(kConfigMaps, configMap("a"));
  Informer informer(*client, ex, kConfigMaps);
  ObjectPtr seenOld, seenNew;
  informer.addEventHandler({nullptr, [&](const ObjectPtr& o, const ObjectPtr& n) {
                              seenOld = o;
                              seenNew = n;
                            }});
  informer.start();
  ex.runUntilIdle();
  mergePatch(kConfigMaps, "default", "a", {{"data", {{"key", "new"}}}});
  ex.runUntilIdle();
  ASSERT_TRUE(seenOld && seenNew);
  EXPECT_EQ((*seenOld)["data"]["key"], "value");
  EXPECT_EQ((*seenNew)["data"]["key"], "new");
  EXPECT_EQ(seenNew, informer.get("default/a"));  // the very document the store holds
}

TEST_F(InformerTest, DeleteHandlerGetsTheFinalState) {
  create(kConfigMaps, configMap("a"));
  Informer informer(*client, ex, kConfigMaps);
  Recorder rec;
  startRecording(informer, rec);
  rec.take();

  must(client->deleteObject(kConfigMaps, "default", "a"));
  ex.runUntilIdle();
  // The DELETED event carries the deletion's resourceVersion.
  EXPECT_THAT(rec.take(), ElementsAre("delete default/a " + std::to_string(server->revision())));
  EXPECT_EQ(informer.get("default/a"), nullptr);
  EXPECT_EQ(informer.size(), 0u);
}

TEST_F(InformerTest, RelistsAfter410AndConvergesOnTheServersState) {
  open(/*watchBacklog=*/3);
  Json a = create(kConfigMaps, configMap("a"));
  Json b = create(kConfigMaps, configMap("b"));
  create(kConfigMaps, configMap("c"));

  Informer informer(*client, ex, kConfigMaps);
  Recorder rec;
  startRecording(informer, rec);
  ASSERT_EQ(informer.listCount(), 1u);
  rec.take();

  // More writes than the watch may fall behind by, with the informer not running: the server
  // ends its watch with 410 Expired.
  Json a2 = mergePatch(kConfigMaps, "default", "a", {{"data", {{"key", "v2"}}}});
  must(client->deleteObject(kConfigMaps, "default", "b"));
  Json d = create(kConfigMaps, configMap("d"));
  Json e = create(kConfigMaps, configMap("e"));
  Json f = create(kConfigMaps, configMap("f"));
  ex.runUntilIdle();

  EXPECT_EQ(informer.listCount(), 2u);
  EXPECT_EQ(state(informer), serverState(kConfigMaps));
  // The differences, as a reflector's Replace reports them: adds and updates in key order, then
  // deletions (with the last state the informer knew).
  EXPECT_THAT(rec.take(), ElementsAre("update default/a " + rvOf(a) + " -> " + rvOf(a2),
                                      "add default/d " + rvOf(d), "add default/e " + rvOf(e),
                                      "add default/f " + rvOf(f), "delete default/b " + rvOf(b)));

  // And it watches again from the new list.
  Json g = create(kConfigMaps, configMap("g"));
  ex.runUntilIdle();
  EXPECT_THAT(rec.take(), ElementsAre("add default/g " + rvOf(g)));
  EXPECT_EQ(informer.listCount(), 2u);
}

TEST_F(InformerTest, RelistWhileLaggingAppliesEarlierEventsFirst) {
  open(/*watchBacklog=*/2);
  Informer informer(*client, ex, kConfigMaps, {.deliveryDelay = 2s});
  Recorder rec;
  startRecording(informer, rec);

  Json a = create(kConfigMaps, configMap("a"));
  ex.runUntilIdle();  // taken from the watch, held back for 2 s
  EXPECT_THAT(rec.events, IsEmpty());
  Json b = create(kConfigMaps, configMap("b"));
  Json b2 = mergePatch(kConfigMaps, "default", "b", {{"data", {{"key", "v2"}}}});
  Json c = create(kConfigMaps, configMap("c"));
  ex.runUntilIdle();  // the watch overflowed: the relist waits behind a's event
  EXPECT_THAT(rec.events, IsEmpty());
  EXPECT_EQ(informer.listCount(), 1u);

  ex.advance(2s);
  EXPECT_THAT(rec.take(), ElementsAre("add default/a " + rvOf(a), "add default/b " + rvOf(b2),
                                      "add default/c " + rvOf(c)));
  EXPECT_EQ(informer.listCount(), 2u);
  EXPECT_EQ(state(informer), serverState(kConfigMaps));
}

TEST_F(InformerTest, ConvergesWhenTheStoreIsCompactedDuringTheGap) {
  // The informer watches from its list's revision in the same step, so it never resumes from a
  // compacted one by itself; what compaction can do is erase the history of a gap it fell into.
  // Overflow the watch, compact everything, write more, then let the informer catch up.
  open(/*watchBacklog=*/1);
  create(kConfigMaps, configMap("a"));
  Informer informer(*client, ex, kConfigMaps);
  informer.start();
  ex.runUntilIdle();
  create(kConfigMaps, configMap("b"));
  create(kConfigMaps, configMap("c"));
  must<std::int64_t>(server->compact(server->revision()));
  must(client->deleteObject(kConfigMaps, "default", "a"));
  ex.runUntilIdle();
  EXPECT_EQ(state(informer), serverState(kConfigMaps));
  EXPECT_EQ(informer.listCount(), 2u);
}

TEST_F(InformerTest, Indexers) {
  must(client->create(kNamespaces, apitest::namespaceObject("team")));
  Json owner = create(kConfigMaps, configMap("owner"));
  Json owned1 = labelled(pod("p1"), "app", "web");
  meta::addOwnerReference(owned1, meta::controllerRefTo(owner));
  Json owned2 = pod("p2", "team");
  meta::addOwnerReference(owned2, meta::controllerRefTo(owner));
  create(kPods, owned1);
  create(kPods, owned2);
  create(kPods, labelled(pod("p3", "team"), "app", "web"));

  Informer informer(*client, ex, kPods);
  informer.start();
  ex.runUntilIdle();

  EXPECT_THAT(names(informer.byIndex(kOwnerUidIndex, meta::uid(owner))),
              ElementsAre("default/p1", "team/p2"));
  EXPECT_THAT(names(informer.byIndex(kNamespaceIndex, "team")), ElementsAre("team/p2", "team/p3"));
  EXPECT_THAT(names(informer.byIndex(kLabelIndex, "app=web")),
              ElementsAre("default/p1", "team/p3"));
  EXPECT_THAT(informer.byIndex("no-such-index", "x"), IsEmpty());

  // Changes move objects between index values.
  mergePatch(kPods, "team", "p3", {{"metadata", {{"labels", {{"app", "db"}}}}}});
  must(client->deleteObject(kPods, "default", "p1", {.gracePeriodSeconds = 0}));
  ex.runUntilIdle();
  EXPECT_THAT(names(informer.byIndex(kLabelIndex, "app=web")), IsEmpty());
  EXPECT_THAT(names(informer.byIndex(kLabelIndex, "app=db")), ElementsAre("team/p3"));
  EXPECT_THAT(names(informer.byIndex(kOwnerUidIndex, meta::uid(owner))), ElementsAre("team/p2"));

  // An indexer added later indexes what is already cached.
  informer.addIndexer("image", [](const Json& p) {
    std::vector<std::string> images;
    for (const auto& c : p["spec"]["containers"]) images.push_back(c.value("image", ""));
    return images;
  });
  EXPECT_THAT(names(informer.byIndex("image", "nginx:1.27")), ElementsAre("team/p2", "team/p3"));
}

// InformerOptions::defaultIndexes false: no namespace, owner or label index is kept (byIndex
// answers nothing), while the store, the handlers and an indexer added later work as ever.
TEST_F(InformerTest, WithoutTheDefaultIndexesOnlyAddedIndexersAnswer) {
  create(kPods, labelled(pod("p1"), "app", "web"));
  InformerOptions options;
  options.defaultIndexes = false;
  Informer informer(*client, ex, kPods, options);
  Recorder rec;
  startRecording(informer, rec);
  EXPECT_EQ(rec.take().size(), 1u);
  EXPECT_THAT(names(informer.list()), ElementsAre("default/p1"));
  EXPECT_THAT(informer.byIndex(kNamespaceIndex, "default"), IsEmpty());
  EXPECT_THAT(informer.byIndex(kLabelIndex, "app=web"), IsEmpty());
  EXPECT_EQ(informer.countByIndex(kLabelIndex, "app=web"), 0u);

  informer.addIndexer(
      "app", [](const Json& p) { return std::vector<std::string>{meta::label(p, "app")}; });
  EXPECT_THAT(names(informer.byIndex("app", "web")), ElementsAre("default/p1"));
}

// indexValues answers the values objects are filed under, by prefix; an update that keeps some
// of an object's values and changes others moves only those, and one that changes none of them
// (a status write) leaves the index as it was.
TEST_F(InformerTest, IndexValuesFollowPartialAndNoOpUpdates) {
  must(client->create(kNamespaces, apitest::namespaceObject("team")));
  Json p1 = labelled(pod("p1"), "app", "web");
  p1["metadata"]["labels"]["tier"] = "front";
  create(kPods, p1);
  create(kPods, labelled(pod("p2", "team"), "app", "web"));

  Informer informer(*client, ex, kPods);
  informer.start();
  ex.runUntilIdle();
  EXPECT_THAT(informer.indexValues(kLabelIndex), ElementsAre("app=web", "tier=front"));
  EXPECT_THAT(informer.indexValues(kLabelIndex, "tier"), ElementsAre("tier=front"));
  EXPECT_THAT(informer.indexValues(kLabelIndex, "zone"), IsEmpty());
  EXPECT_THAT(informer.indexValues("no-such-index"), IsEmpty());

  // app stays, tier changes: p1 stays under app=web and moves from tier=front to tier=back.
  mergePatch(kPods, "default", "p1", {{"metadata", {{"labels", {{"tier", "back"}}}}}});
  ex.runUntilIdle();
  EXPECT_THAT(names(informer.byIndex(kLabelIndex, "app=web")),
              ElementsAre("default/p1", "team/p2"));
  EXPECT_THAT(informer.indexValues(kLabelIndex), ElementsAre("app=web", "tier=back"));
  EXPECT_EQ(informer.countByIndex(kLabelIndex, "tier=back"), 1u);

  // A status write keeps every value.
  must(server->patch(kPods, "team", "p2", PatchType::Merge,
                     Json{{"status", {{"phase", "Running"}}}}.dump(), {}, "status"));
  ex.runUntilIdle();
  EXPECT_EQ(informer.get("team/p2")->at("status").value("phase", ""), "Running");
  EXPECT_THAT(names(informer.byIndex(kLabelIndex, "app=web")),
              ElementsAre("default/p1", "team/p2"));
  EXPECT_THAT(names(informer.byIndex(kNamespaceIndex, "team")), ElementsAre("team/p2"));
}

// An index declared to read one member (addIndexer's `reads`) runs its function on an update only
// when that member changed: a status write leaves it alone; a change of the member refiles.
TEST_F(InformerTest, IndexReadingOneMemberRunsOnlyWhenThatMemberChanges) {
  Json a = configMap("a");
  a["data"]["zone"] = "east";
  create(kConfigMaps, a);
  Informer informer(*client, ex, kConfigMaps);
  int calls = 0;
  informer.addIndexer("zone",
                      [&calls](const Json& c) {
                        ++calls;
                        const std::string zone = c["data"].value("zone", "");
                        return zone.empty() ? std::vector<std::string>{}
                                            : std::vector<std::string>{zone};
                      },
                      {"data", "zone"});
  informer.start();
  ex.runUntilIdle();
  const int afterList = calls;
  EXPECT_EQ(afterList, 1);
  EXPECT_THAT(names(informer.byIndex("zone", "east")), ElementsAre("default/a"));

  // Another member changes: the function does not run, the object stays filed.
  mergePatch(kConfigMaps, "default", "a", {{"data", {{"other", "x"}}}});
  ex.runUntilIdle();
  EXPECT_EQ(calls, afterList);
  EXPECT_EQ(informer.get("default/a")->at("data").value("other", ""), "x");
  EXPECT_THAT(names(informer.byIndex("zone", "east")), ElementsAre("default/a"));

  // The member changes: it runs on the old and the new object, and the object moves.
  mergePatch(kConfigMaps, "default", "a", {{"data", {{"zone", "west"}}}});
  ex.runUntilIdle();
  EXPECT_EQ(calls, afterList + 2);
  EXPECT_THAT(informer.byIndex("zone", "east"), IsEmpty());
  EXPECT_THAT(names(informer.byIndex("zone", "west")), ElementsAre("default/a"));
}

TEST_F(InformerTest, LabelRestrictedInformerSeesOnlyMatchingObjects) {
  create(kConfigMaps, configMap("plain"));
  create(kConfigMaps, labelled(configMap("managed"), "ray.io/managed", "true"));

  Informer informer(*client, ex, kConfigMaps, {.labelSelector = "ray.io/managed=true"});
  Recorder rec;
  startRecording(informer, rec);
  EXPECT_THAT(state(informer), ElementsAre(::testing::StartsWith("default/managed ")));
  rec.take();

  create(kConfigMaps, configMap("other"));  // never matches: never seen
  Json starts = mergePatch(kConfigMaps, "default", "plain",
                           {{"metadata", {{"labels", {{"ray.io/managed", "true"}}}}}});
  ex.runUntilIdle();
  // An object that starts matching arrives as an add.
  EXPECT_THAT(rec.take(), ElementsAre("add default/plain " + rvOf(starts)));
  EXPECT_EQ(informer.get("default/other"), nullptr);

  // One that stops matching leaves as a delete.
  mergePatch(kConfigMaps, "default", "managed",
             {{"metadata", {{"labels", {{"ray.io/managed", nullptr}}}}}});
  ex.runUntilIdle();
  auto events = rec.take();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_THAT(events[0], ::testing::StartsWith("delete default/managed "));
  EXPECT_THAT(names(informer.list()), ElementsAre("default/plain"));
}

TEST_F(InformerTest, NamespaceRestrictedInformer) {
  must(client->create(kNamespaces, apitest::namespaceObject("team")));
  create(kConfigMaps, configMap("a", "team"));
  create(kConfigMaps, configMap("b"));
  Informer informer(*client, ex, kConfigMaps, {.namespace_ = "team"});
  informer.start();
  ex.runUntilIdle();
  create(kConfigMaps, configMap("c", "team"));
  create(kConfigMaps, configMap("d"));
  ex.runUntilIdle();
  EXPECT_THAT(names(informer.list()), ElementsAre("team/a", "team/c"));
}

TEST_F(InformerTest, DeliveryDelayHoldsEventsBackInOrder) {
  Informer informer(*client, ex, kConfigMaps, {.deliveryDelay = 2s});
  Recorder rec;
  startRecording(informer, rec);
  ASSERT_TRUE(informer.hasSynced());  // the list itself is not delayed

  Json a = create(kConfigMaps, configMap("a"));
  ex.advance(1s);
  Json b = create(kConfigMaps, configMap("b"));
  ex.advance(999ms);
  EXPECT_THAT(rec.events, IsEmpty());
  EXPECT_EQ(informer.get("default/a"), nullptr);
  ex.advance(1ms);
  EXPECT_THAT(rec.take(), ElementsAre("add default/a " + rvOf(a)));
  ex.advance(1s);
  EXPECT_THAT(rec.take(), ElementsAre("add default/b " + rvOf(b)));

  // Shrinking the delay never lets a later event overtake an earlier one.
  Json c = create(kConfigMaps, configMap("c"));
  ex.runUntilIdle();
  informer.setDeliveryDelay(0s);
  Json d = create(kConfigMaps, configMap("d"));
  ex.runUntilIdle();
  EXPECT_THAT(rec.events, IsEmpty());
  ex.advance(2s);
  EXPECT_THAT(rec.take(), ElementsAre("add default/c " + rvOf(c), "add default/d " + rvOf(d)));
}

TEST_F(InformerTest, WithoutCatchUpOnReadAWriteIsSeenOnlyOnceTheExecutorRuns) {
  Informer informer(*client, ex, kConfigMaps);
  informer.start();
  ex.runUntilIdle();
  create(kConfigMaps, configMap("a"));
  EXPECT_EQ(informer.get("default/a"), nullptr);
  EXPECT_EQ(informer.countByIndex(kNamespaceIndex, "default"), 0u);
  ex.runUntilIdle();
  EXPECT_NE(informer.get("default/a"), nullptr);
}

TEST_F(InformerTest, CatchUpOnReadAppliesDueEventsBeforeEveryKindOfRead) {
  must(client->create(kNamespaces, apitest::namespaceObject("team")));
  Informer informer(*client, ex, kConfigMaps, {.catchUpOnRead = true});
  Recorder rec;
  startRecording(informer, rec);

  // Each read, without the executor running, sees the write made just before it.
  Json a = create(kConfigMaps, configMap("a"));
  ASSERT_NE(informer.get("default/a"), nullptr);
  EXPECT_EQ(rvOf(*informer.get("default/a")), rvOf(a));
  EXPECT_THAT(rec.take(), ElementsAre("add default/a " + rvOf(a)));  // the handlers, once
  create(kConfigMaps, configMap("b"));
  EXPECT_THAT(names(informer.list()), ElementsAre("default/a", "default/b"));
  create(kConfigMaps, configMap("c"));
  EXPECT_EQ(informer.byIndex(kNamespaceIndex, "default").size(), 3u);
  create(kConfigMaps, configMap("d"));
  EXPECT_EQ(informer.countByIndex(kNamespaceIndex, "default"), 4u);
  create(kConfigMaps, configMap("e"));
  EXPECT_EQ(informer.size(), 5u);
  create(kConfigMaps, configMap("f", "team"));
  EXPECT_THAT(informer.indexValues(kNamespaceIndex), ElementsAre("default", "team"));

  // The delivery tasks the watch posted find nothing left: no handler is told twice.
  rec.take();
  ex.runUntilIdle();
  EXPECT_THAT(rec.events, IsEmpty());
  EXPECT_EQ(state(informer), serverState(kConfigMaps));
}

TEST_F(InformerTest, CatchUpOnReadStillWaitsForTheDeliveryDelay) {
  Informer informer(*client, ex, kConfigMaps, {.deliveryDelay = 2s, .catchUpOnRead = true});
  informer.start();
  ex.runUntilIdle();
  create(kConfigMaps, configMap("a"));
  EXPECT_EQ(informer.get("default/a"), nullptr);
  ex.advance(1s);
  EXPECT_EQ(informer.get("default/a"), nullptr);
  ex.advance(1s);
  EXPECT_NE(informer.get("default/a"), nullptr);
}

TEST_F(InformerTest, AReadFromAHandlerDoesNotCatchUp) {
  // Both events are taken from the watch at once; while the handlers hear about `a`, `b` is due
  // too, but applying it then would tell the second handler about `b` before `a`.
  Informer informer(*client, ex, kConfigMaps, {.catchUpOnRead = true});
  std::vector<std::string> order;
  bool bSeenFromTheHandlerOfA = false;
  informer.addEventHandler({[&](const ObjectPtr& o) {
                              order.push_back("first " + meta::name(*o));
                              if (meta::name(*o) == "a") {
                                bSeenFromTheHandlerOfA = informer.get("default/b") != nullptr;
                              }
                            },
                            nullptr, nullptr});
  informer.addEventHandler(
      {[&](const ObjectPtr& o) { order.push_back("second " + meta::name(*o)); }, nullptr, nullptr});
  informer.start();
  ex.runUntilIdle();
  create(kConfigMaps, configMap("a"));
  create(kConfigMaps, configMap("b"));
  ex.runUntilIdle();
  EXPECT_FALSE(bSeenFromTheHandlerOfA);
  EXPECT_THAT(order, ElementsAre("first a", "second a", "first b", "second b"));
}

TEST(InformerSeededTest, EventsKeepTheirOrderUnderEverySeed) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SimExecutor ex(SimExecutor::Options{seed});
    auto server = must(ApiServer::open(ex.clock(), {.seed = 42}));
    InProcessClient client(*server);
    Informer informer(client, ex, kConfigMaps, {.deliveryDelay = 500ms});
    std::vector<std::int64_t> seen;
    auto record = [&](const ObjectPtr& o) {
      seen.push_back(std::stoll(meta::resourceVersion(*o)));
    };
    informer.addEventHandler(
        {record, [&](const ObjectPtr&, const ObjectPtr& n) { record(n); }, record});
    informer.start();
    ex.runUntilIdle();
    must(client.create(kConfigMaps, configMap("a")));
    for (int i = 0; i < 10; ++i) {
      must(client.patch(kConfigMaps, "default", "a", PatchType::Merge,
                        Json{{"data", {{"key", std::to_string(i)}}}}.dump()));
      if (i % 3 == 0) ex.advance(100ms);
    }
    must(client.deleteObject(kConfigMaps, "default", "a"));
    ex.advance(1s);
    ASSERT_EQ(seen.size(), 12u) << "seed " << seed;
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end())) << "seed " << seed;
  }
}

TEST_F(InformerTest, LateHandlerIsToldAboutWhatIsCached) {
  create(kConfigMaps, configMap("a"));
  create(kConfigMaps, configMap("b"));
  Informer informer(*client, ex, kConfigMaps);
  informer.start();
  ex.runUntilIdle();
  Recorder rec;
  informer.addEventHandler(rec.handler());
  ex.runUntilIdle();
  auto events = rec.take();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_THAT(events[0], ::testing::StartsWith("add default/a "));
  EXPECT_THAT(events[1], ::testing::StartsWith("add default/b "));
}

TEST_F(InformerTest, StopEndsProcessing) {
  Informer informer(*client, ex, kConfigMaps, {.deliveryDelay = 1s});
  Recorder rec;
  startRecording(informer, rec);
  create(kConfigMaps, configMap("a"));
  ex.runUntilIdle();
  informer.stop();
  create(kConfigMaps, configMap("b"));
  ex.advance(5s);
  EXPECT_THAT(rec.events, IsEmpty());
  EXPECT_EQ(informer.size(), 0u);
  EXPECT_EQ(ex.pending(), 0u);
}

TEST_F(InformerTest, DestroyedInformerLeavesNothingBehind) {
  {
    Informer informer(*client, ex, kConfigMaps, {.deliveryDelay = 1s});
    informer.start();
    ex.runUntilIdle();
    create(kConfigMaps, configMap("a"));
    ex.runUntilIdle();
  }
  create(kConfigMaps, configMap("b"));
  ex.advance(5s);  // posted work finds the informer gone
  SUCCEED();
}

TEST_F(InformerTest, ListFailureIsRetriedWithBackoff) {
  const GroupVersionResource widgets{"example.com", "v1", "widgets"};
  Informer informer(*client, ex, widgets);
  informer.start();
  ex.runUntilIdle();
  EXPECT_FALSE(informer.hasSynced());
  auto synced = informer.syncNow();
  ASSERT_FALSE(synced.has_value());
  EXPECT_EQ(synced.error().code, 404);

  must(client->create(kCustomResourceDefinitions, apitest::widgetCrd()));
  create(widgets, apitest::widget("w"));
  // Two failures so far: the next attempt comes 2 s after the second.
  ex.advance(1999ms);
  EXPECT_FALSE(informer.hasSynced());
  ex.advance(1ms);
  EXPECT_TRUE(informer.hasSynced());
  EXPECT_THAT(names(informer.list()), ElementsAre("default/w"));
}

}  // namespace
}  // namespace fakekube::cachetest
