// Watch streams over HTTP: chunked newline-delimited events in order, timeoutSeconds, the 410
// ERROR event, Table events, and a client that disconnects ending its watch.
#include "http_fixture.h"

namespace fakekube::httptest {
namespace {

using WatchTest = HttpTest;

std::string listRv(httplib::Client& client, const std::string& path) {
  return Json::parse(client.Get(path)->body)["metadata"]["resourceVersion"];
}

TEST_F(WatchTest, StreamsAddedModifiedDeletedInOrder) {
  const std::string rv = listRv(*client, kConfigMapsPath);
  WatchReader reader(http->port(), kConfigMapsPath + "?watch=true&resourceVersion=" + rv);
  ASSERT_TRUE(eventually([&] { return http->activeWatches() == 1; }));

  ASSERT_EQ(post(kConfigMapsPath, configMap("c1"))->status, 201);
  ASSERT_EQ(
      patch(kConfigMapsPath + "/c1", R"({"data":{"key":"v2"}})", "application/merge-patch+json")
          ->status,
      200);
  ASSERT_EQ(client->Delete(kConfigMapsPath + "/c1")->status, 200);

  std::vector<Json> events = reader.waitForEvents(3);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(reader.status(), 200);
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[1]["type"], "MODIFIED");
  EXPECT_EQ(events[1]["object"]["data"]["key"], "v2");
  EXPECT_EQ(events[2]["type"], "DELETED");
  std::int64_t previous = std::stoll(rv);
  for (const auto& e : events) {
    EXPECT_EQ(e["object"]["metadata"]["name"], "c1");
    const std::int64_t eventRv =
        std::stoll(e["object"]["metadata"]["resourceVersion"].get<std::string>());
    EXPECT_GT(eventRv, previous);
    previous = eventRv;
  }
}

TEST_F(WatchTest, ClientsAcceptingGzipStillGetEachEventAsItHappens) {
  // Go clients always send Accept-Encoding: gzip; a compressor would hold events back.
  const std::string rv = listRv(*client, kConfigMapsPath);
  WatchReader reader(http->port(), kConfigMapsPath + "?watch=true&resourceVersion=" + rv,
                     {{"Accept-Encoding", "gzip, deflate"}});
  ASSERT_TRUE(eventually([&] { return http->activeWatches() == 1; }));
  ASSERT_EQ(post(kConfigMapsPath, configMap("c1"))->status, 201);
  std::vector<Json> events = reader.waitForEvents(1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["object"]["metadata"]["name"], "c1");

  auto list = get(kConfigMapsPath, {{"Accept-Encoding", "gzip"}});
  EXPECT_FALSE(list->has_header("Content-Encoding"));
}

TEST_F(WatchTest, WithoutAResourceVersionTheCurrentStateComesFirst) {
  ASSERT_EQ(post(kConfigMapsPath, configMap("a"))->status, 201);
  ASSERT_EQ(post(kConfigMapsPath, configMap("b"))->status, 201);
  WatchReader reader(http->port(), kConfigMapsPath + "?watch=1");
  std::vector<Json> events = reader.waitForEvents(2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[0]["object"]["metadata"]["name"], "a");
  EXPECT_EQ(events[1]["object"]["metadata"]["name"], "b");
}

TEST_F(WatchTest, SelectorsAndInitialEventsEndBookmark) {
  Json labelled = configMap("a");
  labelled["metadata"]["labels"] = {{"app", "x"}};
  ASSERT_EQ(post(kConfigMapsPath, labelled)->status, 201);
  ASSERT_EQ(post(kConfigMapsPath, configMap("b"))->status, 201);
  WatchReader reader(http->port(),
                     kConfigMapsPath +
                         "?watch=true&labelSelector=app%3Dx&sendInitialEvents=true&"
                         "resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true");
  std::vector<Json> events = reader.waitForEvents(2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[0]["object"]["metadata"]["name"], "a");
  EXPECT_EQ(events[1]["type"], "BOOKMARK");
  EXPECT_EQ(events[1]["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"], "true");

  // sendInitialEvents without its companions is refused before any stream starts.
  auto refused = get(kConfigMapsPath + "?watch=true&sendInitialEvents=true");
  EXPECT_EQ(refused->status, 422);
}

TEST_F(WatchTest, TimeoutSecondsEndsTheStream) {
  const std::string rv = listRv(*client, kConfigMapsPath);
  WatchReader reader(http->port(),
                     kConfigMapsPath + "?watch=true&timeoutSeconds=5&resourceVersion=" + rv);
  ASSERT_TRUE(eventually([&] { return http->activeWatches() == 1; }));
  clock.advance(std::chrono::seconds(6));
  ASSERT_TRUE(reader.waitForEnd());
  EXPECT_EQ(reader.status(), 200);
  EXPECT_TRUE(reader.events().empty());
  EXPECT_TRUE(eventually([&] { return http->activeWatches() == 0; }));
}

TEST_F(WatchTest, ACompactedResourceVersionYieldsOneErrorEventWith410) {
  for (const char* name : {"a", "b", "c"})
    ASSERT_EQ(post(kConfigMapsPath, configMap(name))->status, 201);
  ASSERT_TRUE(api->compact(api->revision()));
  WatchReader reader(http->port(), kConfigMapsPath + "?watch=true&resourceVersion=1");
  ASSERT_TRUE(reader.waitForEnd());
  EXPECT_EQ(reader.status(), 200);
  std::vector<Json> events = reader.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "ERROR");
  const Json& s = events[0]["object"];
  EXPECT_EQ(s["kind"], "Status");
  EXPECT_EQ(s["code"], 410);
  EXPECT_EQ(s["reason"], "Expired");
  EXPECT_EQ(s["message"].get<std::string>().rfind("too old resource version: 1 (", 0), 0u)
      << s["message"];
}

TEST_F(WatchTest, ADisconnectingClientEndsItsWatch) {
  ASSERT_EQ(post(kConfigMapsPath, configMap("a"))->status, 201);
  auto reader = std::make_unique<WatchReader>(http->port(), kConfigMapsPath + "?watch=true");
  ASSERT_EQ(reader->waitForEvents(1).size(), 1u);
  ASSERT_EQ(http->activeWatches(), 1u);
  reader->disconnect();
  ASSERT_TRUE(reader->waitForEnd());
  EXPECT_TRUE(eventually([&] { return http->activeWatches() == 0; }));
  reader.reset();
  // The server still serves.
  EXPECT_EQ(get(kConfigMapsPath)->status, 200);
}

TEST_F(WatchTest, StopEndsOpenStreams) {
  WatchReader reader(http->port(), kConfigMapsPath + "?watch=true&resourceVersion=" +
                                       listRv(*client, kConfigMapsPath));
  ASSERT_TRUE(eventually([&] { return http->activeWatches() == 1; }));
  http->stop();
  EXPECT_TRUE(reader.waitForEnd());
  EXPECT_EQ(http->activeWatches(), 0u);
}

TEST_F(WatchTest, TableEventsCarryColumnsOnTheFirstEventOnly) {
  ASSERT_EQ(post(kConfigMapsPath, configMap("a"))->status, 201);
  ASSERT_EQ(post(kConfigMapsPath, configMap("b"))->status, 201);
  WatchReader reader(http->port(), kConfigMapsPath + "?watch=true",
                     {{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}});
  std::vector<Json> events = reader.waitForEvents(2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["object"]["kind"], "Table");
  EXPECT_EQ(events[0]["object"]["columnDefinitions"].size(), 3u);
  EXPECT_EQ(events[0]["object"]["rows"][0]["cells"][0], "a");
  EXPECT_TRUE(events[1]["object"]["columnDefinitions"].is_null());
  EXPECT_EQ(events[1]["object"]["rows"][0]["cells"][0], "b");
}

TEST_F(WatchTest, PartialObjectMetadataEvents) {
  ASSERT_EQ(post(kConfigMapsPath, configMap("a"))->status, 201);
  WatchReader reader(http->port(), kConfigMapsPath + "?watch=true",
                     {{"Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"}});
  std::vector<Json> events = reader.waitForEvents(1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["object"]["kind"], "PartialObjectMetadata");
  EXPECT_FALSE(events[0]["object"].contains("data"));
}

TEST_F(WatchTest, ManyConcurrentWatchesDoNotStarveOtherRequests) {
  const std::string rv = listRv(*client, kConfigMapsPath);
  std::vector<std::unique_ptr<WatchReader>> readers;
  for (int i = 0; i < 20; ++i) {
    readers.push_back(std::make_unique<WatchReader>(
        http->port(), kConfigMapsPath + "?watch=true&resourceVersion=" + rv));
  }
  ASSERT_TRUE(eventually([&] { return http->activeWatches() == 20; }));
  ASSERT_EQ(post(kConfigMapsPath, configMap("c1"))->status, 201);
  for (auto& r : readers) {
    auto events = r->waitForEvents(1);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0]["object"]["metadata"]["name"], "c1");
  }
}

}  // namespace
}  // namespace fakekube::httptest
