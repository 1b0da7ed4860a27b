// The simulated network: names and addresses resolve as CoreDNS and kube-proxy resolve them,
// Services reach ready pods that listen, and failures are clear error values.
#include "fakekube/cluster/network.h"

#include <gtest/gtest.h>

#include "fakekube/api/resources.h"
#include "pod_lifecycle_fixture.h"

namespace fakekube::clustertest {
namespace {

// Listens on 8080 and answers with its pod's name; `ready` false keeps it unready.
ProcessFactory echoServer(bool ready = true) {
  return behavior::fromFunction([ready](const std::shared_ptr<ProcessContext>& context) {
    std::string name = meta::name(context->pod());
    (void)context->listen(8080, [name](const HttpRequest& request) {
      return HttpResponse{200, {}, name + " " + request.method + " " + request.path};
    });
    if (!ready) context->setReady(false);
  });
}

class NetworkTest : public PodLifecycleTest {
 protected:
  void SetUp() override {
    PodLifecycleTest::SetUp();
    behaviors.onImage("echo:1", echoServer());
    behaviors.onImage("echo:unready", echoServer(false));
    addNode("node-a");
    startCluster();
    create(kNamespaces, namespaceObject("other"));
  }

  void webPod(const std::string& name, const std::string& image = "echo:1") {
    Json p = podWith(name, {container("main", image)});
    p["metadata"]["labels"] = {{"app", "web"}};
    p["spec"]["containers"][0]["ports"] =
        Json::array({{{"name", "http"}, {"containerPort", 8080}}});
    createPod(p);
  }
  Json webService(const std::string& name = "web", Json targetPort = 8080) {
    return create(kServices,
                  {{"apiVersion", "v1"},
                   {"kind", "Service"},
                   {"metadata", {{"name", name}, {"namespace", "default"}}},
                   {"spec",
                    {{"selector", {{"app", "web"}}},
                     {"ports", Json::array({{{"port", 80}, {"targetPort", targetPort}}})}}}});
  }
  NetworkResult<HttpResponse> get(std::string_view host, int port,
                                  std::string_view from = "default") {
    HttpRequest request;
    request.path = "/api/version";
    return network->call(from, host, port, request);
  }
};

TEST_F(NetworkTest, EveryNameFormReachesTheServiceFromItsNamespace) {
  webPod("web-0");
  Json service = webService();
  run(seconds(2));
  const std::string clusterIp = service["spec"]["clusterIP"];
  ASSERT_FALSE(clusterIp.empty());
  for (std::string host : {"web", "web.default", "web.default.svc", "web.default.svc.cluster.local",
                           "web.default.svc.cluster.local.", clusterIp.c_str()}) {
    auto answer = get(host, 80);
    ASSERT_TRUE(answer.has_value()) << host << ": " << answer.error().message;
    EXPECT_EQ(answer->status, 200);
    EXPECT_EQ(answer->body, "web-0 GET /api/version") << host;
  }
  EXPECT_EQ(*network->resolve("web.default.svc.cluster.local", "other"), clusterIp);
  // The pod itself, by IP.
  const std::string podIp = getPod("web-0")["status"]["podIP"];
  EXPECT_EQ(get(podIp, 8080)->body, "web-0 GET /api/version");
  // From another namespace, the short name is another Service: there is none.
  EXPECT_TRUE(get("web.default", 80, "other").has_value());
  auto missing = get("web", 80, "other");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().kind, NetworkError::Kind::NoSuchHost);
  EXPECT_EQ(missing.error().message, "dial tcp: lookup web: no such host");
  EXPECT_EQ(get("nosuch.default.svc.cluster.local", 80).error().message,
            "dial tcp: lookup nosuch.default.svc.cluster.local: no such host");
  EXPECT_EQ(get("web.default.pod", 80).error().kind, NetworkError::Kind::NoSuchHost);
}

TEST_F(NetworkTest, AServiceReachesOnlyReadyPodsThatListenInTurn) {
  webPod("web-0");
  webPod("web-1");
  webPod("web-unready", "echo:unready");
  webPod("web-silent", "nginx:1.27");  // ready, but listens on nothing
  webService("web", "http");           // a named target port
  run(seconds(2));
  std::vector<std::string> bodies;
  for (int i = 0; i < 4; ++i) bodies.push_back(get("web", 80)->body.substr(0, 5));
  EXPECT_EQ(bodies, (std::vector<std::string>{"web-0", "web-1", "web-0", "web-1"}));
}

TEST_F(NetworkTest, RefusedWhenNothingListens) {
  webPod("web-silent", "nginx:1.27");
  Json service = webService();
  run(seconds(2));
  const std::string clusterIp = service["spec"]["clusterIP"];
  auto refused = get("web", 80);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().kind, NetworkError::Kind::ConnectionRefused);
  EXPECT_EQ(refused.error().message, "dial tcp " + clusterIp + ":80: connect: connection refused");
  EXPECT_EQ(get("web", 81).error().message,
            "dial tcp " + clusterIp + ":81: connect: connection refused");
  const std::string podIp = getPod("web-silent")["status"]["podIP"];
  EXPECT_EQ(get(podIp, 8080).error().message,
            "dial tcp " + podIp + ":8080: connect: connection refused");
}

TEST_F(NetworkTest, AListenerGoesAwayWithItsPod) {
  webPod("web-0");
  webService();
  run(seconds(2));
  const std::string podIp = getPod("web-0")["status"]["podIP"];
  ASSERT_TRUE(network->listening(podIp, 8080));
  remove(kPods, "default", "web-0");
  runUntilIdle();
  EXPECT_FALSE(network->listening(podIp, 8080));
  EXPECT_EQ(get("web", 80).error().kind, NetworkError::Kind::ConnectionRefused);
}

TEST_F(NetworkTest, AProcessCallsAServiceAndExitsWithTheAnswer) {
  // The shape of `ray job submit`: ask a server, exit 0 on success, 1 otherwise.
  behaviors.onCommand(
      "submit", behavior::fromFunction([](std::shared_ptr<ProcessContext> context) {
        context->after(seconds(1), [context] {
          auto answer = context->call("web", 80, HttpRequest{"POST", "/api/jobs/", {}, "{}"});
          context->exit(answer && answer->status == 200 ? 0 : 1);
        });
      }));
  webPod("web-0");
  webService();
  Json ok = podWith("submitter", {container("main", "ray:2.9")});
  ok["spec"]["containers"][0]["command"] = Json::array({"ray", "job", "submit"});
  ok["spec"]["restartPolicy"] = "Never";
  createPod(ok);
  Json lost = ok;
  lost["metadata"]["name"] = "lost-submitter";
  lost["metadata"]["namespace"] = "other";  // "web" does not resolve there
  createPod(lost);
  run(seconds(3));
  EXPECT_EQ(getPod("submitter")["status"]["phase"], "Succeeded");
  EXPECT_EQ(getPod("lost-submitter", "other")["status"]["phase"], "Failed");
}

// A pod's containers share its network namespace: a sidecar reaches the pod's own listener on
// localhost and 127.0.0.1 (KubeRay's SidecarMode submitter finds the head's dashboard so), never
// another pod's listener on the same port.
TEST_F(NetworkTest, LoopbackReachesTheCallersOwnPod) {
  // Exits 0 when both loopback names answer with this pod's name, 2 when 127.0.0.1:9999 (where
  // nothing listens in this pod) is not refused, else 1.
  behaviors.onImage(
      "loopback-probe:1", behavior::fromFunction([](std::shared_ptr<ProcessContext> context) {
        context->after(seconds(1), [context] {
          const std::string expected = meta::name(context->pod()) + " GET /api/version";
          HttpRequest request;
          request.path = "/api/version";
          auto byName = context->call("localhost", 8080, request);
          auto byAddress = context->call("127.0.0.1", 8080, request);
          auto nothing = context->call("127.0.0.1", 9999, request);
          if (nothing ||
              nothing.error().message != "dial tcp 127.0.0.1:9999: connect: connection refused") {
            context->exit(2);
            return;
          }
          context->exit(
              byName && byName->body == expected && byAddress && byAddress->body == expected ? 0
                                                                                             : 1);
        });
      }));
  webPod("web-0");  // another pod listening on 8080
  Json withSidecar =
      podWith("sidecar-pod", {container("main", "echo:1"), container("probe", "loopback-probe:1")});
  withSidecar["spec"]["restartPolicy"] = "Never";
  createPod(withSidecar);
  Json alone = podWith("alone", {container("probe", "loopback-probe:1")});
  alone["spec"]["restartPolicy"] = "Never";
  createPod(alone);
  run(seconds(5));
  auto exitCodeOf = [&](const std::string& name) {
    const Json p = getPod(name);
    for (const Json& s : p["status"].value("containerStatuses", Json::array())) {
      if (s.value("name", "") == "probe" && s.contains("state") &&
          s["state"].contains("terminated")) {
        return s["state"]["terminated"].value("exitCode", -1);
      }
    }
    ADD_FAILURE() << name << ": " << p["status"].dump();
    return -1;
  };
  EXPECT_EQ(exitCodeOf("sidecar-pod"), 0);
  EXPECT_EQ(exitCodeOf("alone"), 1);  // its loopback has no 8080, though web-0 listens there
  // A caller outside any pod (the API server's proxy): nothing of the cluster on its loopback.
  auto outside = get("localhost", 8080);
  ASSERT_FALSE(outside.has_value());
  EXPECT_EQ(outside.error().kind, NetworkError::Kind::ConnectionRefused);
  EXPECT_EQ(outside.error().message, "dial tcp 127.0.0.1:8080: connect: connection refused");
}

// A Reader that counts the Service lists it forwards (the network's ClusterIP lookup).
class ServiceListCountingReader : public Reader {
 public:
  explicit ServiceListCountingReader(Reader& inner) : inner_(inner) {}
  Result<Json> get(const GroupVersionResource& gvr, std::string_view ns,
                   std::string_view name) override {
    return inner_.get(gvr, ns, name);
  }
  Result<Json> list(const GroupVersionResource& gvr, std::string_view ns,
                    const ListOptions& options) override {
    if (gvr == kServices) ++serviceLists;
    return inner_.list(gvr, ns, options);
  }
  int serviceLists = 0;

 private:
  Reader& inner_;
};

// kube-proxy catches the ClusterIPs, all of the Service range (10.96.0.0/12): an address outside
// it is a pod's, called (or refused) without looking among the Services; one inside it is looked
// up there.
TEST_F(NetworkTest, OnlyAddressesOfTheServiceRangeAreLookedUpAmongServices) {
  webPod("web-silent", "nginx:1.27");
  Json service = webService();
  run(seconds(2));
  const std::string clusterIp = service["spec"]["clusterIP"];
  ASSERT_EQ(clusterIp.rfind("10.96.", 0), 0u) << clusterIp;
  const std::string podIp = getPod("web-silent")["status"]["podIP"];
  ServiceListCountingReader reader(manager->client());
  Network counted(reader);
  ASSERT_TRUE(counted.listen(podIp, 9000, [](const HttpRequest&) { return HttpResponse{200}; })
                  .has_value());
  // The answer's status, or the error's message.
  auto outcome = [&](const std::string& host, int port) {
    auto answer = counted.call("default", host, port, HttpRequest{});
    return answer ? std::to_string(answer->status) : answer.error().message;
  };
  EXPECT_EQ(outcome(podIp, 9000), "200");
  EXPECT_EQ(outcome(podIp, 8080), "dial tcp " + podIp + ":8080: connect: connection refused");
  EXPECT_EQ(outcome("10.244.9.9", 80), "dial tcp 10.244.9.9:80: connect: connection refused");
  EXPECT_EQ(*counted.resolve(podIp, "default"), podIp);
  EXPECT_EQ(reader.serviceLists, 0);
  // The ClusterIP: found among the Services, its endpoint listening on nothing.
  EXPECT_EQ(*counted.resolve(clusterIp, "default"), clusterIp);
  EXPECT_EQ(outcome(clusterIp, 80), "dial tcp " + clusterIp + ":80: connect: connection refused");
  EXPECT_EQ(reader.serviceLists, 2);
}

TEST_F(NetworkTest, AddressesAreTakenOnce) {
  ASSERT_TRUE(network->listen("10.0.0.1", 80, [](const HttpRequest&) { return HttpResponse{}; })
                  .has_value());
  auto again = network->listen("10.0.0.1", 80, [](const HttpRequest&) { return HttpResponse{}; });
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().message, "listen tcp 10.0.0.1:80: bind: address already in use");
  EXPECT_TRUE(network->close("10.0.0.1", 80));
  EXPECT_FALSE(network->close("10.0.0.1", 80));
}

}  // namespace
}  // namespace fakekube::clustertest
