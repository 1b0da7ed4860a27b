// The watch hub is the API server's watch cache: resume from a resourceVersion exactly once and
// in order (from memory or from the store's log), the initial state of an RV-0 or
// sendInitialEvents watch, selector transitions turned into ADDED/DELETED, the 410 Expired ERROR
// event of a compacted resourceVersion, bookmarks, and the bounded queue that cuts off a slow
// watcher without ever blocking a writer. Driven straight from a Store; no API server, no sleeps.
#include "fakekube/apiserver/internal/watch_hub.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/resource_registry.h"
#include "fakekube/apiserver/watch.h"
#include "fakekube/store/internal/store.h"

namespace fakekube {
namespace {

using std::chrono::milliseconds;

// "ADDED default/a 3": type, namespaced name and resourceVersion, which is what the ordering
// and exactly-once assertions care about.
std::string describe(const WatchEvent& e) {
  std::string out = watchEventTypeName(e.type);
  if (e.type == WatchEventType::Error) return out + " " + e.object->dump();
  if (e.type != WatchEventType::Bookmark) out += " " + meta::namespacedName(*e.object);
  return out + " " + meta::resourceVersion(*e.object);
}

std::vector<WatchEvent> drain(Watch& w) {
  std::vector<WatchEvent> events;
  while (auto e = w.tryNext()) events.push_back(std::move(*e));
  return events;
}

std::vector<std::string> drainDescribed(Watch& w) {
  std::vector<std::string> out;
  for (const auto& e : drain(w)) out.push_back(describe(e));
  return out;
}

class WatchHubTest : public ::testing::Test {
 protected:
  void SetUp() override { open(); }

  // A fresh in-memory store whose writes feed `hubs` (hub plus any extra() hubs).
  void open(std::size_t maxBacklog = 10000, std::size_t ringCapacity = 10000,
            std::int64_t retainedRevisions = 0) {
    hubs.clear();
    hub = &extra(maxBacklog, ringCapacity);
    StoreOptions options;
    options.retainedRevisions = retainedRevisions;  // compaction only when a test asks
    auto opened = Store::open(options);
    if (!opened) throw std::runtime_error("Store::open: " + opened.error().str());
    store = std::move(*opened);
    store->setObserver([this](const StoredEvent& e) {
      for (auto& h : hubs) h->onEvent(e);
    });
  }

  WatchHub& extra(std::size_t maxBacklog, std::size_t ringCapacity) {
    hubs.push_back(std::make_unique<WatchHub>(maxBacklog, ringCapacity));
    return *hubs.back();
  }

  static std::string key(const std::string& name, const std::string& ns) {
    return "/configmaps/" + ns + "/" + name;
  }

  std::int64_t create(const std::string& name, const std::string& ns = "default",
                      const Json& labels = nullptr) {
    Json cm = {{"apiVersion", "v1"},
               {"kind", "ConfigMap"},
               {"metadata", {{"name", name}, {"namespace", ns}}},
               {"data", {{"k", "v"}}}};
    if (!labels.is_null()) cm["metadata"]["labels"] = labels;
    return check(store->put(key(name, ns), std::move(cm), EventType::Added));
  }

  std::int64_t update(const std::string& name, const std::function<void(Json&)>& change,
                      const std::string& ns = "default") {
    ObjectPtr current = store->get(key(name, ns));
    if (!current) throw std::runtime_error("no object " + name);
    Json next = *current;
    change(next);
    return check(store->put(key(name, ns), std::move(next), EventType::Modified));
  }

  std::int64_t setData(const std::string& name, const std::string& value,
                       const std::string& ns = "default") {
    return update(
        name, [&](Json& o) { o["data"]["k"] = value; }, ns);
  }

  std::int64_t remove(const std::string& name, const std::string& ns = "default") {
    ObjectPtr current = store->get(key(name, ns));
    if (!current) throw std::runtime_error("no object " + name);
    return check(store->remove(key(name, ns), *current));
  }

  std::int64_t createNamespace(const std::string& name) {
    Json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
    return check(store->put("/namespaces//" + name, std::move(ns), EventType::Added));
  }

  std::shared_ptr<Watch> watch(const WatchOptions& options, const std::string& ns = "",
                               WatchHub* on = nullptr) {
    auto w = (on ? on : hub)->watch(*configMaps, ns, options, *store);
    if (!w) throw std::runtime_error("watch: " + w.error().str());
    return *w;
  }

  std::shared_ptr<Watch> watchFrom(const std::string& rv, WatchHub* on = nullptr) {
    WatchOptions options;
    options.resourceVersion = rv;
    return watch(options, "", on);
  }

  static std::int64_t check(const Result<ObjectPtr>& r) {
    if (!r) throw std::runtime_error(r.error().str());
    return std::stoll(meta::resourceVersion(**r));
  }

  ResourceRegistry registry;
  ResourceInfoPtr configMaps = registry.find("", "configmaps");
  ResourceInfoPtr namespaces = registry.find("", "namespaces");
  std::vector<std::unique_ptr<WatchHub>> hubs;
  WatchHub* hub = nullptr;
  std::unique_ptr<Store> store;
};

TEST_F(WatchHubTest, ResumeFromResourceVersionDeliversLaterEventsOnceInOrder) {
  create("a");        // 1
  create("b");        // 2
  create("c");        // 3
  setData("a", "2");  // 4
  remove("b");        // 5
  auto w = watchFrom("2");
  create("d");  // 6
  EXPECT_EQ(drainDescribed(*w),
            (std::vector<std::string>{"ADDED default/c 3", "MODIFIED default/a 4",
                                      "DELETED default/b 5", "ADDED default/d 6"}));
  setData("c", "x");  // 7
  EXPECT_EQ(drainDescribed(*w), (std::vector<std::string>{"MODIFIED default/c 7"}));
  EXPECT_EQ(w->lastResourceVersion(), 7);
}

TEST_F(WatchHubTest, ReplayFromTheStoreMatchesReplayFromMemory) {
  WatchHub& tiny = extra(10000, 2);  // remembers only the last two events
  create("a");                       // 1
  create("b");                       // 2
  setData("a", "1");                 // 3
  remove("b");                       // 4
  create("c");                       // 5
  setData("c", "1");                 // 6
  auto fromRing = watchFrom("1");
  auto fromStore = watchFrom("1", &tiny);
  create("e");  // 7, live for both
  const std::vector<std::string> want = {"ADDED default/b 2",    "MODIFIED default/a 3",
                                         "DELETED default/b 4",  "ADDED default/c 5",
                                         "MODIFIED default/c 6", "ADDED default/e 7"};
  EXPECT_EQ(drainDescribed(*fromRing), want);
  EXPECT_EQ(drainDescribed(*fromStore), want);
  // Inside the tiny ring's window it replays from memory, with the same result.
  auto recent = watchFrom("5", &tiny);
  EXPECT_EQ(drainDescribed(*recent),
            (std::vector<std::string>{"MODIFIED default/c 6", "ADDED default/e 7"}));
}

TEST_F(WatchHubTest, HubStartedAfterWritesReplaysEarlierEventsFromTheStore) {
  create("a");  // 1, before any hub saw anything
  create("b");  // 2
  hubs.push_back(std::make_unique<WatchHub>());
  WatchHub& late = *hubs.back();
  create("c");  // 3: the late hub's memory starts here
  auto w = watchFrom("1", &late);
  EXPECT_EQ(drainDescribed(*w),
            (std::vector<std::string>{"ADDED default/b 2", "ADDED default/c 3"}));
}

TEST_F(WatchHubTest, TwoWatchersSeeTheSameEventsInTheSameOrder) {
  create("seed");
  auto first = watchFrom("1");
  auto second = watchFrom("1");
  for (int i = 0; i < 20; ++i) {
    const std::string name = "cm" + std::to_string(i % 5);
    if (i < 5) {
      create(name, i % 2 == 0 ? "default" : "other");
    } else if (i < 15) {
      setData(name, std::to_string(i), (i % 5) % 2 == 0 ? "default" : "other");
    } else {
      remove(name, (i % 5) % 2 == 0 ? "default" : "other");
    }
  }
  auto a = drainDescribed(*first);
  auto b = drainDescribed(*second);
  ASSERT_EQ(a.size(), 20u);
  EXPECT_EQ(a, b);
}

TEST_F(WatchHubTest, ResourceVersionZeroStartsWithTheCurrentObjectsThenLive) {
  create("b");
  create("c", "other");
  create("a");
  for (const std::string rv : {"0", ""}) {
    SCOPED_TRACE("resourceVersion=\"" + rv + "\"");
    auto w = watchFrom(rv);
    // Synthetic ADDED in key order, each object at its own resourceVersion.
    EXPECT_EQ(
        drainDescribed(*w),
        (std::vector<std::string>{"ADDED default/a 3", "ADDED default/b 1", "ADDED other/c 2"}));
    EXPECT_EQ(w->lastResourceVersion(), store->revision());
    w->stop();
  }
  auto w = watchFrom("0");
  drain(*w);
  const std::int64_t rv = create("d");
  EXPECT_EQ(drainDescribed(*w),
            (std::vector<std::string>{"ADDED default/d " + std::to_string(rv)}));
}

TEST_F(WatchHubTest, LabelSelectorTransitionsBecomeAddedAndDeleted) {
  WatchOptions options;
  options.labelSelector = "app=web";
  auto w = watch(options);

  create("plain");                                                      // 1: never matches
  create("x", "default", {{"app", "web"}});                             // 2: ADDED
  setData("x", "2");                                                    // 3: MODIFIED
  update("x", [](Json& o) { o["metadata"]["labels"]["app"] = "db"; });  // 4: DELETED
  setData("x", "3");  // 5: nothing (does not match)
  update("x", [](Json& o) { o["metadata"]["labels"]["app"] = "web"; });  // 6: ADDED
  remove("x");                                                           // 7: DELETED

  auto events = drain(*w);
  std::vector<std::string> got;
  for (const auto& e : events) got.push_back(describe(e));
  ASSERT_EQ(got, (std::vector<std::string>{"ADDED default/x 2", "MODIFIED default/x 3",
                                           "DELETED default/x 4", "ADDED default/x 6",
                                           "DELETED default/x 7"}));
  // "Stopped matching" carries the state the watcher last saw, at the event's resourceVersion.
  const Json& gone = *events[2].object;
  EXPECT_EQ(meta::label(gone, "app"), "web");
  EXPECT_EQ(gone["data"]["k"], "2");
  // The stamp went on a copy: the MODIFIED event's shared document still says 3.
  EXPECT_EQ(meta::resourceVersion(*events[1].object), "3");
}

TEST_F(WatchHubTest, LabelSelectorTransitionsReplayedFromTheStore) {
  open(10000, /*ringCapacity=*/0);
  create("x", "default", {{"app", "web"}});                              // 1
  update("x", [](Json& o) { o["metadata"]["labels"]["app"] = "db"; });   // 2: DELETED
  update("x", [](Json& o) { o["metadata"]["labels"]["app"] = "web"; });  // 3: ADDED
  setData("x", "4");                                                     // 4: MODIFIED
  create("y", "default", {{"app", "web"}});                              // 5: ADDED
  update("y", [](Json& o) { o["metadata"]["labels"].erase("app"); });    // 6: DELETED
  WatchOptions options;
  options.labelSelector = "app=web";
  options.resourceVersion = "1";
  auto w = watch(options);
  auto events = drain(*w);
  std::vector<std::string> got;
  for (const auto& e : events) got.push_back(describe(e));
  EXPECT_EQ(got, (std::vector<std::string>{"DELETED default/x 2", "ADDED default/x 3",
                                           "MODIFIED default/x 4", "ADDED default/y 5",
                                           "DELETED default/y 6"}));
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(meta::label(*events[0].object, "app"), "web");
  EXPECT_EQ(meta::label(*events[4].object, "app"), "web");
}

TEST_F(WatchHubTest, FieldSelectorOnMetadataName) {
  WatchOptions options;
  options.fieldSelector = "metadata.name=b";
  auto w = watch(options);
  create("a");
  create("b");
  setData("a", "1");
  setData("b", "1");
  remove("b");
  EXPECT_EQ(drainDescribed(*w),
            (std::vector<std::string>{"ADDED default/b 2", "MODIFIED default/b 4",
                                      "DELETED default/b 5"}));
}

TEST_F(WatchHubTest, BadSelectorsAreRejected) {
  WatchOptions options;
  options.fieldSelector = "spec.nodeName=n1";
  auto unsupported = hub->watch(*configMaps, "", options, *store);
  ASSERT_FALSE(unsupported);
  EXPECT_EQ(unsupported.error().code, 400);
  EXPECT_EQ(unsupported.error().message, "field label not supported: spec.nodeName");

  options = {};
  options.labelSelector = "app in (";
  auto badLabels = hub->watch(*configMaps, "", options, *store);
  ASSERT_FALSE(badLabels);
  EXPECT_EQ(badLabels.error().code, 400);

  options = {};
  options.resourceVersion = "abc";
  auto badRv = hub->watch(*configMaps, "", options, *store);
  ASSERT_FALSE(badRv);
  EXPECT_EQ(badRv.error().code, 400);
  EXPECT_EQ(hub->watcherCount(), 0u);
}

TEST_F(WatchHubTest, NamespaceScoping) {
  create("a", "default");
  create("b", "other");
  createNamespace("team");  // another resource: no configmap watcher sees it
  WatchOptions options;
  options.resourceVersion = "0";
  auto inDefault = watch(options, "default");
  auto everywhere = watch(options, "");
  auto ns = hub->watch(*namespaces, "ignored-for-cluster-scope", options, *store);
  ASSERT_TRUE(ns);
  create("c", "other");
  create("d", "default");
  createNamespace("dev");
  EXPECT_EQ(drainDescribed(*inDefault),
            (std::vector<std::string>{"ADDED default/a 1", "ADDED default/d 5"}));
  EXPECT_EQ(drainDescribed(*everywhere),
            (std::vector<std::string>{"ADDED default/a 1", "ADDED other/b 2", "ADDED other/c 4",
                                      "ADDED default/d 5"}));
  EXPECT_EQ(drainDescribed(**ns), (std::vector<std::string>{"ADDED team 3", "ADDED dev 6"}));
}

TEST_F(WatchHubTest, CompactedResourceVersionGivesOneExpiredErrorThenEnds) {
  WatchHub& noRing = extra(10000, /*ringCapacity=*/0);
  for (int i = 0; i < 6; ++i) create("cm" + std::to_string(i));
  ASSERT_EQ(*store->compact(4), 4);
  // The same answer whether the events are still in memory or not.
  auto fromStore = watchFrom("2", &noRing);
  EXPECT_EQ(drainDescribed(*fromStore), drainDescribed(*watchFrom("2")));
  auto w = watchFrom("2");
  auto e = w->tryNext();
  ASSERT_TRUE(e);
  EXPECT_EQ(e->type, WatchEventType::Error);
  const Json want = {{"kind", "Status"},
                     {"apiVersion", "v1"},
                     {"metadata", Json::object()},
                     {"status", "Failure"},
                     {"message", "too old resource version: 2 (4)"},
                     {"reason", "Expired"},
                     {"code", 410}};
  EXPECT_EQ(*e->object, want);
  EXPECT_FALSE(w->tryNext());
  EXPECT_TRUE(w->ended());
  EXPECT_EQ(hub->watcherCount(), 0u);
  create("later");
  EXPECT_FALSE(w->tryNext());

  // At the compaction mark itself the log is complete.
  auto atMark = watchFrom("4");
  EXPECT_EQ(drainDescribed(*atMark),
            (std::vector<std::string>{"ADDED default/cm4 5", "ADDED default/cm5 6",
                                      "ADDED default/later 7"}));
}

TEST_F(WatchHubTest, SendInitialEventsEndsTheInitialStateWithABookmark) {
  create("b");
  create("a");
  WatchOptions options;
  options.sendInitialEvents = true;
  options.resourceVersionMatch = "NotOlderThan";
  options.allowWatchBookmarks = true;
  auto w = watch(options);
  auto events = drain(*w);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(describe(events[0]), "ADDED default/a 2");
  EXPECT_EQ(describe(events[1]), "ADDED default/b 1");
  EXPECT_EQ(events[2].type, WatchEventType::Bookmark);
  const Json want = {
      {"kind", "ConfigMap"},
      {"apiVersion", "v1"},
      {"metadata",
       {{"resourceVersion", "2"}, {"annotations", {{"k8s.io/initial-events-end", "true"}}}}}};
  EXPECT_EQ(*events[2].object, want);
  create("c");
  EXPECT_EQ(drainDescribed(*w), (std::vector<std::string>{"ADDED default/c 3"}));

  // sendInitialEvents=false: live events only, even from resourceVersion 0.
  options.sendInitialEvents = false;
  options.resourceVersion = "0";
  auto live = watch(options);
  EXPECT_TRUE(drain(*live).empty());
}

TEST_F(WatchHubTest, SendInitialEventsWithoutItsRequiredOptionsIs422) {
  auto fails = [&](const WatchOptions& options, const std::string& field,
                   const std::string& message) {
    auto w = hub->watch(*configMaps, "", options, *store);
    ASSERT_FALSE(w);
    const Status& s = w.error();
    EXPECT_EQ(s.code, 422);
    EXPECT_EQ(s.reason, "Invalid");
    EXPECT_EQ(s.details.kind, "ListOptions");
    EXPECT_EQ(s.details.group, "meta.k8s.io");
    ASSERT_EQ(s.details.causes.size(), 1u);
    EXPECT_EQ(s.details.causes[0].field, field);
    EXPECT_EQ(s.message,
              "ListOptions.meta.k8s.io \"\" is invalid: " + field + ": Forbidden: " + message);
  };
  WatchOptions options;
  options.sendInitialEvents = true;
  options.allowWatchBookmarks = true;
  fails(options, "resourceVersionMatch",
        "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan");

  options.resourceVersionMatch = "NotOlderThan";
  options.allowWatchBookmarks = false;
  fails(options, "allowWatchBookmarks",
        "sendInitialEvents requires setting allowWatchBookmarks to true");

  options = {};
  options.resourceVersionMatch = "NotOlderThan";
  fails(options, "resourceVersionMatch",
        "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided");
  EXPECT_EQ(hub->watcherCount(), 0u);
}

TEST_F(WatchHubTest, BookmarksGoOnlyToWatchersThatAllowedThem) {
  WatchOptions withBookmarks;
  withBookmarks.allowWatchBookmarks = true;
  withBookmarks.resourceVersion = "0";
  auto allowed = watch(withBookmarks);
  auto plain = watchFrom("0");
  create("a");  // 1
  drain(*allowed);
  drain(*plain);

  hub->sendBookmarks(store->revision());
  auto events = drain(*allowed);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, WatchEventType::Bookmark);
  const Json want = {
      {"kind", "ConfigMap"}, {"apiVersion", "v1"}, {"metadata", {{"resourceVersion", "1"}}}};
  EXPECT_EQ(*events[0].object, want);
  EXPECT_TRUE(drain(*plain).empty());

  // Untaken bookmarks do not pile up: the newest replaces the older one.
  setData("a", "2");  // 2
  hub->sendBookmarks(2);
  createNamespace("x");  // 3, not a configmap
  hub->sendBookmarks(3);
  EXPECT_EQ(drainDescribed(*allowed),
            (std::vector<std::string>{"MODIFIED default/a 2", "BOOKMARK 3"}));
  EXPECT_EQ(allowed->lastResourceVersion(), 3);
}

TEST_F(WatchHubTest, SlowWatcherIsEndedWith410WhileOthersKeepReceiving) {
  open(/*maxBacklog=*/3);
  auto slow = watchFrom("0");
  auto fast = watchFrom("0");
  std::vector<std::string> fastGot;
  for (int i = 1; i <= 10; ++i) {
    create("cm" + std::to_string(i));  // never blocks, whatever the slow watcher does
    for (auto& e : drainDescribed(*fast)) fastGot.push_back(e);
  }
  ASSERT_EQ(fastGot.size(), 10u);
  EXPECT_EQ(fastGot.back(), "ADDED default/cm10 10");
  EXPECT_EQ(hub->watcherCount(), 1u);

  auto events = drain(*slow);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, WatchEventType::Error);
  const Status s = Status::fromJson(*events[0].object);
  EXPECT_EQ(s.code, 410);
  EXPECT_EQ(s.reason, "Expired");
  EXPECT_EQ(s.message, "too old resource version: 0 (4)");
  EXPECT_TRUE(slow->ended());
}

TEST_F(WatchHubTest, InitialStateDoesNotCountAgainstTheBacklog) {
  open(/*maxBacklog=*/2);
  for (int i = 0; i < 5; ++i) create("cm" + std::to_string(i));
  auto w = watchFrom("0");
  create("more1");
  create("more2");
  auto events = drain(*w);
  ASSERT_EQ(events.size(), 7u);
  EXPECT_EQ(describe(events.back()), "ADDED default/more2 7");
  EXPECT_FALSE(w->ended());
}

TEST_F(WatchHubTest, StopRemovesTheWatcher) {
  auto w = watchFrom("0");
  auto other = watchFrom("0");
  EXPECT_EQ(hub->watcherCount(), 2u);
  create("a");
  w->stop();
  EXPECT_EQ(hub->watcherCount(), 1u);
  EXPECT_TRUE(w->ended());
  EXPECT_FALSE(w->tryNext());  // the queued event was dropped with the watch
  create("b");
  EXPECT_FALSE(w->tryNext());
  EXPECT_EQ(drainDescribed(*other),
            (std::vector<std::string>{"ADDED default/a 1", "ADDED default/b 2"}));
}

TEST_F(WatchHubTest, NextReturnsAQueuedEventAndNothingOnceEnded) {
  create("a");
  auto w = watchFrom("0");
  auto e = w->next(milliseconds(60000));  // already queued: returns at once
  ASSERT_TRUE(e);
  EXPECT_EQ(describe(*e), "ADDED default/a 1");
  create("b");
  hub->closeAll();
  EXPECT_FALSE(w->ended());  // ended, but "b" is still to be taken
  e = w->next(milliseconds(60000));
  ASSERT_TRUE(e);
  EXPECT_EQ(describe(*e), "ADDED default/b 2");
  EXPECT_TRUE(w->ended());
  EXPECT_FALSE(w->next(milliseconds(60000)));  // ended and drained: no wait
  EXPECT_EQ(hub->watcherCount(), 0u);
}

TEST_F(WatchHubTest, NotifyFiresWhenTheQueueBecomesNonEmptyAndAtTheEnd) {
  create("a");
  auto w = watchFrom("0");
  int calls = 0;
  w->setNotify([&] { ++calls; });
  EXPECT_EQ(calls, 1);  // the initial ADDED was already queued
  drain(*w);
  create("b");
  EXPECT_EQ(calls, 2);
  create("c");  // "b" not taken yet: the consumer already knows to drain
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(drain(*w).size(), 2u);
  hub->closeAll();
  EXPECT_EQ(calls, 3);
  EXPECT_TRUE(w->ended());
}

TEST_F(WatchHubTest, ResourceVersionNewerThanTheStoreWaitsForIt) {
  create("a");  // 1
  auto w = watchFrom("3");
  create("b");  // 2: not newer than 3
  create("c");  // 3
  create("d");  // 4
  EXPECT_EQ(drainDescribed(*w), (std::vector<std::string>{"ADDED default/d 4"}));
}

TEST_F(WatchHubTest, DeletedCarriesTheFinalStateAtTheDeletionRevision) {
  create("a");
  auto w = watchFrom("1");
  const std::int64_t rv = remove("a");
  auto events = drain(*w);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, WatchEventType::Deleted);
  EXPECT_EQ(meta::resourceVersion(*events[0].object), std::to_string(rv));
}

TEST(WatchEventTypeTest, WireNames) {
  EXPECT_STREQ(watchEventTypeName(WatchEventType::Added), "ADDED");
  EXPECT_STREQ(watchEventTypeName(WatchEventType::Modified), "MODIFIED");
  EXPECT_STREQ(watchEventTypeName(WatchEventType::Deleted), "DELETED");
  EXPECT_STREQ(watchEventTypeName(WatchEventType::Bookmark), "BOOKMARK");
  EXPECT_STREQ(watchEventTypeName(WatchEventType::Error), "ERROR");
}

}  // namespace
}  // namespace fakekube
