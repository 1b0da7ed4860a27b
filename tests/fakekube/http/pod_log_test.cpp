// GET pods/<name>/log over HTTP: the query decoded into PodLogOptions, text/plain answers,
// Status errors, and a followed log streamed line by line until its container's log closes.
#include "fakekube/http/internal/pod_log.h"

#include <gtest/gtest.h>

#include "fakekube/api/resources.h"
#include "fakekube/cluster/container_logs.h"
#include "http_fixture.h"

namespace fakekube::httptest {
namespace {

constexpr const char* kLog = "/api/v1/namespaces/default/pods/web/log";

class PodLogHttpTest : public HttpTest {
 protected:
  void SetUp() override {
    HttpServerOptions options;
    options.containerLogs = &logs;
    startServer(std::move(options));
    // A pod as the kubelet reports it: bound, its container running in its second instance.
    Json p = pod("web");
    p["spec"]["nodeName"] = "node-1";
    auto created = api->create(kPods, "default", p);
    ASSERT_TRUE(created) << created.error().str();
    Json withStatus = **created;
    withStatus["status"]["containerStatuses"] = Json::array(
        {{{"name", "main"},
          {"containerID", "containerd://now"},
          {"state", {{"running", {{"startedAt", "2024-01-01T00:00:00Z"}}}}},
          {"lastState", {{"terminated", {{"exitCode", 1}, {"containerID", "containerd://old"}}}}},
          {"restartCount", 1}}});
    ASSERT_TRUE(api->updateStatus(kPods, "default", std::move(withStatus)));
    const std::string uid = (**created)["metadata"]["uid"];
    logs.open("containerd://old", uid, "main");
    logs.append("containerd://old", clock.now(), "crashed");
    logs.close("containerd://old");
    logs.open("containerd://now", uid, "main");
    logs.append("containerd://now", clock.now(), "one");
    clock.advance(std::chrono::seconds(10));
    logs.append("containerd://now", clock.now(), "two");
  }

  ContainerLogs logs;
};

TEST_F(PodLogHttpTest, ALogIsPlainTextSelectedByTheQuery) {
  auto r = get(kLog);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/plain");
  EXPECT_EQ(r->body, "one\ntwo\n");
  EXPECT_EQ(get(std::string(kLog) + "?container=main&tailLines=1")->body, "two\n");
  EXPECT_EQ(get(std::string(kLog) + "?previous=true")->body, "crashed\n");
  EXPECT_EQ(get(std::string(kLog) + "?timestamps=true&tailLines=1")->body,
            "2024-01-01T00:00:10.000000000Z two\n");
  EXPECT_EQ(get(std::string(kLog) + "?limitBytes=5")->body, "one\nt");
  EXPECT_EQ(get(std::string(kLog) + "?sinceSeconds=5")->body, "two\n");
  EXPECT_EQ(get(std::string(kLog) + "?sinceTime=2024-01-01T00:00:05Z")->body, "two\n");
}

TEST_F(PodLogHttpTest, ErrorsAreStatusDocuments) {
  auto missing = get("/api/v1/namespaces/default/pods/nope/log");
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(status(missing)["message"], "pods \"nope\" not found");

  auto unknown = get(std::string(kLog) + "?container=sidecar");
  EXPECT_EQ(unknown->status, 400);
  EXPECT_EQ(status(unknown)["message"], "container sidecar is not valid for pod web");

  auto badInt = get(std::string(kLog) + "?tailLines=ten");
  EXPECT_EQ(badInt->status, 400);
  EXPECT_EQ(status(badInt)["message"],
            "invalid value for tailLines: strconv.ParseInt: parsing \"ten\": invalid syntax");
  auto badBool = get(std::string(kLog) + "?follow=maybe");
  EXPECT_EQ(badBool->status, 400);
  auto badTime = get(std::string(kLog) + "?sinceTime=yesterday");
  EXPECT_EQ(badTime->status, 400);
  auto negative = get(std::string(kLog) + "?tailLines=-1");
  EXPECT_EQ(negative->status, 422);
  EXPECT_EQ(status(negative)["details"]["kind"], "PodLogOptions");

  auto posted = post(kLog, Json::object());
  EXPECT_EQ(posted->status, 405);
  EXPECT_EQ(status(posted)["reason"], "MethodNotAllowed");
}

TEST_F(PodLogHttpTest, AFollowedLogStreamsLinesUntilTheContainerEnds) {
  StreamReader reader(http->port(), std::string(kLog) + "?follow=true&tailLines=1");
  EXPECT_EQ(reader.waitForBody("two\n"), "two\n");
  EXPECT_EQ(reader.status(), 200);
  EXPECT_EQ(reader.contentType(), "text/plain");
  EXPECT_FALSE(reader.finished());
  EXPECT_EQ(http->activeWatches(), 1u);
  logs.append("containerd://now", clock.now(), "three");
  EXPECT_EQ(reader.waitForBody("two\nthree\n"), "two\nthree\n");
  logs.close("containerd://now");
  EXPECT_TRUE(reader.waitForEnd());
  EXPECT_EQ(reader.waitForBody("two\nthree\n"), "two\nthree\n");
  EXPECT_TRUE(eventually([&] { return http->activeWatches() == 0; }));
}

TEST_F(PodLogHttpTest, AFollowerThatLeavesEndsItsStream) {
  {
    StreamReader reader(http->port(), std::string(kLog) + "?follow=1");
    EXPECT_EQ(reader.waitForBody("one\ntwo\n"), "one\ntwo\n");
    ASSERT_TRUE(eventually([&] { return http->activeWatches() == 1; }));
    reader.disconnect();
  }
  EXPECT_TRUE(eventually([&] { return http->activeWatches() == 0; }));
  // The server stopping ends the streams it still serves.
  StreamReader second(http->port(), std::string(kLog) + "?follow=true");
  EXPECT_EQ(second.waitForBody("one\ntwo\n"), "one\ntwo\n");
  http->stop();
  EXPECT_TRUE(second.waitForEnd());
}

}  // namespace
}  // namespace fakekube::httptest
