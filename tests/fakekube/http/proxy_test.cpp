// The services and pods proxy subresources, through RestHandler on a real Cluster in virtual
// time: the request (method, path, query, body, Content-Type) reaches the listener behind the
// Service's Ready pod or the pod itself, its answer comes back unchanged, and what cannot be
// reached is a Status (404 for a missing object, 503 otherwise).
#include "fakekube/http/internal/proxy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/cluster.h"
#include "fakekube/http/internal/rest_handler.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube {
namespace {

using std::chrono::seconds;

class ProxyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server = std::move(*ApiServer::open(ex.clock()));
    cluster = std::make_unique<Cluster>(ex, *server, ClusterOptions{.nodes = 1});
    // An echo server: the request as one line, with a header of its own.
    cluster->behaviors().onImage(
        "echo:1", behavior::fromFunction([](std::shared_ptr<ProcessContext> context) {
          (void)context->listen(8080, [](const HttpRequest& request) {
            HttpResponse response;
            response.status = request.method == "DELETE" ? 202 : 200;
            response.headers["Content-Type"] = "text/x-echo";
            response.headers["X-Echo"] = "yes";
            auto type = request.headers.find("Content-Type");
            response.body = request.method + " " + request.path + " " +
                            (type == request.headers.end() ? "-" : type->second) + " " +
                            request.body;
            return response;
          });
        }));
    ASSERT_TRUE(cluster->start().has_value());
    ASSERT_TRUE(server->create(kPods, "default", echoPod("echo-1")).has_value());
    ASSERT_TRUE(
        server->create(kServices, "default", service("echo", {{"app", "echo"}})).has_value());
    ASSERT_TRUE(
        server->create(kServices, "default", service("nobody", {{"app", "none"}})).has_value());
    ASSERT_TRUE(ex.runUntil(
        [&] {
          auto p = server->get(kPods, "default", "echo-1");
          return p && isPodReady(**p);
        },
        seconds(30)));
    ex.advance(seconds(1));  // the cluster's cache (which the network reads) catches up
  }
  void TearDown() override { cluster->stop(); }

  static Json echoPod(const std::string& name) {
    return {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"app", "echo"}}}}},
            {"spec",
             {{"containers",
               Json::array(
                   {{{"name", "main"},
                     {"image", "echo:1"},
                     {"ports", Json::array({{{"name", "http"}, {"containerPort", 8080}}})}}})}}}};
  }
  static Json service(const std::string& name, const Json& selector) {
    return {{"apiVersion", "v1"},
            {"kind", "Service"},
            {"metadata", {{"name", name}, {"namespace", "default"}}},
            {"spec",
             {{"selector", selector},
              {"ports", Json::array({{{"name", "web"}, {"port", 80}, {"targetPort", "http"}},
                                     {{"name", "other"}, {"port", 81}, {"targetPort", 9999}}})}}}};
  }

  RestResponse send(std::string method, std::string path,
                    std::vector<std::pair<std::string, std::string>> query = {},
                    std::string body = "", std::string contentType = "") {
    RestHandler handler(*server, "127.0.0.1:6443", &cluster->network());
    RestRequest request;
    request.method = std::move(method);
    request.path = std::move(path);
    request.query = std::move(query);
    request.body = std::move(body);
    request.contentType = std::move(contentType);
    return handler.handle(request);
  }

  static Json status(const RestResponse& response) { return Json::parse(response.body); }

  SimExecutor ex;
  std::unique_ptr<ApiServer> server;
  std::unique_ptr<Cluster> cluster;
};

TEST_F(ProxyTest, AServiceProxyForwardsMethodPathQueryAndBody) {
  RestResponse r = send("POST", "/api/v1/namespaces/default/services/echo:web/proxy/api/jobs/",
                        {{"a", "b c"}, {"x", "1"}}, "{\"k\":1}", "application/json");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.contentType, "text/x-echo");
  EXPECT_EQ(r.body, "POST /api/jobs/?a=b%20c&x=1 application/json {\"k\":1}");
  bool echoed = false;
  for (const auto& [k, v] : r.headers) echoed = echoed || (k == "X-Echo" && v == "yes");
  EXPECT_TRUE(echoed);
  // The port by number, or none (the first port); no path is "/".
  EXPECT_EQ(send("GET", "/api/v1/namespaces/default/services/echo:80/proxy/x").body, "GET /x - ");
  EXPECT_EQ(send("GET", "/api/v1/namespaces/default/services/echo/proxy").body, "GET / - ");
  EXPECT_EQ(send("DELETE", "/api/v1/namespaces/default/services/http:echo:web/proxy/y").status,
            202);
}

TEST_F(ProxyTest, APodProxyReachesThePodByPortNumberOrName) {
  EXPECT_EQ(send("PUT", "/api/v1/namespaces/default/pods/echo-1:8080/proxy/z", {}, "b").body,
            "PUT /z - b");
  EXPECT_EQ(send("GET", "/api/v1/namespaces/default/pods/echo-1:http/proxy/").body, "GET / - ");
  RestResponse port80 = send("GET", "/api/v1/namespaces/default/pods/echo-1/proxy/");
  EXPECT_EQ(port80.status, 503);
  EXPECT_EQ(status(port80)["reason"], "ServiceUnavailable");
  EXPECT_THAT(status(port80)["message"].get<std::string>(),
              ::testing::StartsWith("error trying to reach service: dial tcp 10.244."));
  EXPECT_EQ(send("GET", "/api/v1/namespaces/default/pods/echo-1:99999999999999/proxy/").status,
            503);
  RestResponse noPort = send("GET", "/api/v1/namespaces/default/pods/echo-1:metrics/proxy/");
  EXPECT_EQ(noPort.status, 503);
  EXPECT_EQ(status(noPort)["message"], "no container port \"metrics\" found in pod \"echo-1\"");
}

TEST_F(ProxyTest, WhatCannotBeReachedIsAStatus) {
  RestResponse missing = send("GET", "/api/v1/namespaces/default/services/nosuch:80/proxy/");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(status(missing)["message"], "services \"nosuch\" not found");
  RestResponse noEndpoints = send("GET", "/api/v1/namespaces/default/services/nobody:web/proxy/");
  EXPECT_EQ(noEndpoints.status, 503);
  EXPECT_EQ(status(noEndpoints)["message"], "no endpoints available for service \"nobody\"");
  RestResponse noPort = send("GET", "/api/v1/namespaces/default/services/echo:dashboard/proxy/");
  EXPECT_EQ(noPort.status, 503);
  EXPECT_EQ(status(noPort)["message"], "no service port \"dashboard\" found for service \"echo\"");
  RestResponse refused = send("GET", "/api/v1/namespaces/default/services/echo:other/proxy/");
  EXPECT_EQ(refused.status, 503);
  EXPECT_THAT(status(refused)["message"].get<std::string>(),
              ::testing::StartsWith("error trying to reach service: "));

  RestHandler withoutNetwork(*server, "127.0.0.1:6443");
  RestRequest request;
  request.method = "GET";
  request.path = "/api/v1/namespaces/default/services/echo:web/proxy/";
  EXPECT_EQ(withoutNetwork.handle(request).status, 503);
}

}  // namespace
}  // namespace fakekube
