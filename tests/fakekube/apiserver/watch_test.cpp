// WATCH through the API server: every committed write reaches the watches, in revision order,
// with the server's own rules (finalizers, deletion, compaction) visible as events.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fakekube/api/resources.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

class WatchTest : public ApiServerTest {
 protected:
  std::shared_ptr<Watch> startWatch(const GroupVersionResource& gvr, std::string_view ns,
                                    WatchOptions options = {}) {
    auto w = server->watch(gvr, ns, options);
    if (!w) {
      ADD_FAILURE() << "watch: " << w.error().str();
      throw std::runtime_error("watch failed");
    }
    return *w;
  }

  // "TYPE name rv" for every queued event.
  static std::vector<std::string> drain(Watch& w) {
    std::vector<std::string> out;
    while (auto e = w.tryNext()) {
      out.push_back(std::string(watchEventTypeName(e->type)) + " " + meta::name(*e->object) + " " +
                    meta::resourceVersion(*e->object));
    }
    return out;
  }
};

TEST_F(WatchTest, ResumeFromAResourceVersionDeliversExactlyTheLaterWrites) {
  Json c1 = create(kConfigMaps, configMap("c1"));
  const std::string from = rv(c1);
  Json c2 = create(kConfigMaps, configMap("c2"));
  c1["data"]["key"] = "changed";
  Json c1b = update(kConfigMaps, c1);
  remove(kConfigMaps, "default", "c2");
  const std::string deletedAt = std::to_string(server->revision());

  WatchOptions options;
  options.resourceVersion = from;
  auto w = startWatch(kConfigMaps, "default", options);
  EXPECT_EQ(drain(*w), (std::vector<std::string>{"ADDED c2 " + rv(c2), "MODIFIED c1 " + rv(c1b),
                                                 "DELETED c2 " + deletedAt}));
  Json c3 = create(kConfigMaps, configMap("c3"));
  EXPECT_EQ(drain(*w), (std::vector<std::string>{"ADDED c3 " + rv(c3)}));
  EXPECT_TRUE(drain(*w).empty()) << "each event exactly once";
}

TEST_F(WatchTest, FinalizerDeletionIsAModifiedThenADeleted) {
  Json cm = configMap("held");
  cm["metadata"]["finalizers"] = {"example.com/hold"};
  Json held = create(kConfigMaps, cm);
  WatchOptions options;
  options.resourceVersion = rv(held);
  auto w = startWatch(kConfigMaps, "default", options);

  Json deleting = remove(kConfigMaps, "default", "held");
  meta::removeFinalizer(deleting, "example.com/hold");
  update(kConfigMaps, deleting);
  auto events = drain(*w);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].rfind("MODIFIED held", 0), 0u) << events[0];
  EXPECT_EQ(events[1], "DELETED held " + std::to_string(server->revision()));
}

TEST_F(WatchTest, CompactedResourceVersionAnswersOneExpiredErrorAndEnds) {
  Json c1 = create(kConfigMaps, configMap("c1"));
  create(kConfigMaps, configMap("c2"));
  const std::int64_t mark = server->revision();
  ASSERT_TRUE(server->compact(mark));
  WatchOptions options;
  options.resourceVersion = rv(c1);
  auto w = startWatch(kConfigMaps, "default", options);
  auto e = w->tryNext();
  ASSERT_TRUE(e);
  ASSERT_EQ(e->type, WatchEventType::Error);
  Status s = Status::fromJson(*e->object);
  EXPECT_EQ(s.code, 410);
  EXPECT_EQ(s.reason, "Expired");
  EXPECT_EQ(s.message, "too old resource version: " + rv(c1) + " (" + std::to_string(mark) + ")");
  EXPECT_FALSE(w->tryNext());
  EXPECT_TRUE(w->ended());
}

TEST_F(WatchTest, WatchOfAnUnservedKindIsNotFound) {
  EXPECT_TRUE(failsWith(server->watch(kWidgets, "default"), 404, "NotFound",
                        "the server could not find the requested resource"));
}

TEST_F(WatchTest, CustomResourcesAreWatchableOnceTheirDefinitionExists) {
  installWidgetCrd();
  auto w = startWatch(kWidgets, "");
  Json w1 = create(kWidgets, widget("w1"));
  EXPECT_EQ(drain(*w), (std::vector<std::string>{"ADDED w1 " + rv(w1)}));
}

TEST_F(WatchTest, BookmarksGoOnlyToWatchesThatAllowThem) {
  WatchOptions withBookmarks;
  withBookmarks.allowWatchBookmarks = true;
  withBookmarks.resourceVersion = std::to_string(server->revision());
  auto a = startWatch(kConfigMaps, "default", withBookmarks);
  WatchOptions plain;
  plain.resourceVersion = std::to_string(server->revision());
  auto b = startWatch(kConfigMaps, "default", plain);
  server->sendBookmarks();
  auto e = a->tryNext();
  ASSERT_TRUE(e);
  EXPECT_EQ(e->type, WatchEventType::Bookmark);
  EXPECT_EQ(meta::resourceVersion(*e->object), std::to_string(server->revision()));
  EXPECT_FALSE(b->tryNext());
}

TEST_F(WatchTest, TimeoutEndsTheWatchCleanlyAfterDeliveringWhatCameBefore) {
  WatchOptions options;
  options.resourceVersion = std::to_string(server->revision());
  options.timeoutSeconds = 5;
  auto w = startWatch(kConfigMaps, "default", options);
  ex.advance(std::chrono::seconds(1));
  Json before = create(kConfigMaps, configMap("before"));
  ex.advance(std::chrono::seconds(4));
  create(kConfigMaps, configMap("after"));
  EXPECT_EQ(drain(*w), (std::vector<std::string>{"ADDED before " + rv(before)}));
  EXPECT_TRUE(w->ended()) << "no ERROR: the stream just ends";
}

TEST_F(WatchTest, WithAnExecutorTheServerEndsATimedOutWatchByItself) {
  ApiServerOptions serverOptions;
  serverOptions.executor = &ex;
  auto timed = must(ApiServer::open(ex.clock(), serverOptions), "open");
  WatchOptions options;
  options.timeoutSeconds = 30;
  auto w = must<std::shared_ptr<Watch>>(timed->watch(kConfigMaps, "default", options));
  int notified = 0;
  w->setNotify([&] { ++notified; });
  ex.advance(std::chrono::seconds(29));
  EXPECT_EQ(notified, 0);
  EXPECT_FALSE(w->ended());
  ex.advance(std::chrono::seconds(1));
  EXPECT_EQ(notified, 1) << "the consumer is told the stream ended";
  EXPECT_TRUE(w->ended());
}

}  // namespace
}  // namespace fakekube::apitest
