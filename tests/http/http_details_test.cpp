// HTTP details against `fakekube serve`, over raw sockets: query values that contain '=',
// resourceVersion on GET, pipelined requests, keep-alive, and stopping with an idle client
// connected.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "fakekube/api/json.h"
#include "fixtures/raw_http.h"
#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {
namespace {

std::string labeledConfigMap(const std::string& name, const std::string& labels) {
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"(","labels":)" +
         labels + "}}";
}

class HttpDetailsTest : public ::testing::Test {
 protected:
  RawResponse send(const std::string& request) {
    RawConnection connection(serve.url());
    EXPECT_TRUE(connection.send(request));
    auto response = connection.read();
    if (!response) throw std::runtime_error("no answer");
    return *response;
  }
  void create(const std::string& name, const std::string& labels) {
    auto r = send(rawRequest("POST", kConfigMapsPath, {"Content-Type: application/json"},
                             labeledConfigMap(name, labels)));
    ASSERT_EQ(r.status, 201) << r.body;
  }
  std::vector<std::string> names(const RawResponse& list) {
    std::vector<std::string> out;
    const Json body = Json::parse(list.body);
    for (const auto& item : body["items"]) {
      out.push_back(item["metadata"]["name"]);
    }
    return out;
  }

  TemporaryDirectory dir;
  Serve serve{dir.path(), {"--controllers", "gc", "--nodes", "0"}};
};

TEST_F(HttpDetailsTest, ARawEqualsSignInAQueryValueIsKept) {
  create("in-y", R"({"dc":"y"})");
  create("in-z", R"({"dc":"z"})");
  // Sent as a client that does not escape it: the value is "dc=y", not "y".
  auto raw = send(rawRequest("GET", kConfigMapsPath + "?labelSelector=dc=y"));
  ASSERT_EQ(raw.status, 200) << raw.body;
  EXPECT_EQ(names(raw), std::vector<std::string>{"in-y"});
  auto escaped = send(rawRequest("GET", kConfigMapsPath + "?labelSelector=dc%3Dz"));
  EXPECT_EQ(names(escaped), std::vector<std::string>{"in-z"});
  auto notIn = send(rawRequest("GET", kConfigMapsPath + "?labelSelector=dc!=y"));
  EXPECT_EQ(names(notIn), std::vector<std::string>{"in-z"});
}

TEST_F(HttpDetailsTest, ContinueTokensNeedNoEscaping) {
  for (int i = 0; i < 5; ++i) create("page-" + std::to_string(i), R"({"p":"yes"})");
  std::vector<std::string> seen;
  std::string token;
  do {
    std::string target = kConfigMapsPath + "?labelSelector=p=yes&limit=2";
    if (!token.empty()) target += "&continue=" + token;  // as it came, not escaped
    auto page = send(rawRequest("GET", target));
    ASSERT_EQ(page.status, 200) << page.body;
    for (auto& n : names(page)) seen.push_back(n);
    token = Json::parse(page.body)["metadata"].value("continue", "");
    EXPECT_EQ(token.find_first_of("+/=%"), std::string::npos) << token;
  } while (!token.empty());
  EXPECT_EQ(seen, (std::vector<std::string>{"page-0", "page-1", "page-2", "page-3", "page-4"}));
}

TEST_F(HttpDetailsTest, GetHonoursResourceVersionAsListDoes) {
  create("versioned", "{}");
  auto current = send(rawRequest("GET", kConfigMapsPath + "/versioned"));
  ASSERT_EQ(current.status, 200);
  const std::string rv = Json::parse(current.body)["metadata"]["resourceVersion"];
  for (const std::string& ok : {std::string("0"), rv, std::string("1")}) {
    auto r = send(rawRequest("GET", kConfigMapsPath + "/versioned?resourceVersion=" + ok));
    EXPECT_EQ(r.status, 200) << "resourceVersion=" << ok << ": " << r.body;
  }
  for (const auto& path : {kConfigMapsPath + "/versioned", kConfigMapsPath}) {
    auto bad = send(rawRequest("GET", path + "?resourceVersion=x1"));
    EXPECT_EQ(bad.status, 400) << path;
    EXPECT_EQ(Json::parse(bad.body)["message"], "invalid resource version: x1");
    auto future =
        send(rawRequest("GET", path + "?resourceVersion=" + std::to_string(std::stoll(rv) + 1000)));
    EXPECT_EQ(future.status, 504) << path;
    EXPECT_EQ(Json::parse(future.body)["details"]["causes"][0]["reason"],
              "ResourceVersionTooLarge");
  }
}

TEST_F(HttpDetailsTest, PipelinedRequestsAreAllAnswered) {
  RawConnection connection(serve.url());
  // Three requests in one write, before any answer: the second and third arrive with the first.
  ASSERT_TRUE(
      connection.send(rawRequest("GET", "/healthz") +
                      rawRequest("POST", kConfigMapsPath, {"Content-Type: application/json"},
                                 labeledConfigMap("piped", "{}")) +
                      rawRequest("GET", kConfigMapsPath + "/piped")));
  auto first = connection.read(std::chrono::seconds(3));
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->status, 200);
  EXPECT_EQ(first->body, "ok");
  auto second = connection.read(std::chrono::seconds(3));
  ASSERT_TRUE(second.has_value()) << "the second pipelined request was not answered";
  EXPECT_EQ(second->status, 201) << second->body;
  auto third = connection.read(std::chrono::seconds(3));
  ASSERT_TRUE(third.has_value()) << "the third pipelined request was not answered";
  EXPECT_EQ(third->status, 200);
  EXPECT_EQ(Json::parse(third->body)["metadata"]["name"], "piped");
}

TEST_F(HttpDetailsTest, AKeepAliveConnectionCarriesManyRequests) {
  RawConnection connection(serve.url());
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(connection.send(rawRequest("GET", "/version")));
    auto r = connection.read(std::chrono::seconds(3));
    ASSERT_TRUE(r.has_value()) << "request " << i;
    EXPECT_EQ(r->status, 200);
  }
}

TEST_F(HttpDetailsTest, AGetWithABodyClosesItsConnectionInsteadOfMisreadingIt) {
  RawConnection connection(serve.url());
  // httplib does not read a GET's body: what follows must not be taken for a request.
  ASSERT_TRUE(connection.send(rawRequest("GET", "/healthz", {}, "GET /version HTTP/1.1\r\n\r\n")));
  auto r = connection.read(std::chrono::seconds(3));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(connection.closedWithin(std::chrono::seconds(3)));
}

TEST_F(HttpDetailsTest, FramingErrorsAreAnsweredAtOnceAndCloseTheConnection) {
  for (const std::string& header :
       {std::string("Transfer-Encoding: chunked, identity"), std::string("Content-Length: -1")}) {
    RawConnection connection(serve.url());
    const auto start = std::chrono::steady_clock::now();
    ASSERT_TRUE(connection.send(rawRequest("POST", kConfigMapsPath,
                                           {"Content-Type: application/json", header}, "", false)));
    auto r = connection.read(std::chrono::seconds(3));
    ASSERT_TRUE(r.has_value()) << header << ": no answer within 3 s";
    EXPECT_EQ(r->status, header.rfind("Transfer", 0) == 0 ? 501 : 400) << header;
    EXPECT_TRUE(connection.closedWithin(std::chrono::seconds(3))) << header;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3)) << header;
  }
}

TEST_F(HttpDetailsTest, StopDoesNotWaitForAnIdleKeepAliveClient) {
  RawConnection idle(serve.url());
  ASSERT_TRUE(idle.send(rawRequest("GET", "/healthz")));
  ASSERT_TRUE(idle.read(std::chrono::seconds(3)).has_value());
  // The connection is open and idle; the server's keep-alive timeout is 5 s.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(serve.stop(), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_TRUE(idle.closedWithin(std::chrono::seconds(1)));
}

}  // namespace
}  // namespace fakekube::e2e
