// The Endpoints and EndpointSlice controllers: a Service's endpoints follow its pods' IPs and
// readiness (ready, serving, terminating), ports resolve by name, publishNotReadyAddresses and
// headless Services, and the endpoints go when the Service does.
#include "fakekube/cluster/endpoints_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "fakekube/api/resources.h"
#include "fakekube/cluster/endpointslice_controller.h"
#include "fakekube/cluster/internal/service_endpoints.h"
#include "fakekube/cluster/workload_fixture.h"

namespace fakekube::workloadtest {
namespace {

Json service(const std::string& name, Json selector = {{"app", "web"}}) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"team", "a"}}}}},
          {"spec",
           {{"selector", std::move(selector)},
            {"ports", Json::array({{{"name", "http"}, {"port", 80}, {"targetPort", "http"}},
                                   {{"name", "metrics"}, {"port", 9090}}})}}}};
}

Json webPod(const std::string& name, int httpPort = 8080) {
  Json p = pod(name);
  p["metadata"]["labels"] = {{"app", "web"}};
  p["spec"]["containers"][0]["ports"] =
      Json::array({{{"name", "http"}, {"containerPort", httpPort}}});
  p["spec"]["nodeName"] = "node-1";
  return p;
}

class EndpointsControllerTest : public WorkloadTest {
 protected:
  void SetUp() override {
    WorkloadTest::SetUp();
    newManager();
    ASSERT_TRUE(addEndpointsController(*manager).has_value());
    ASSERT_TRUE(addEndpointSliceController(*manager).has_value());
    startManager();
  }

  Json startPod(const Json& p, const std::string& ip, bool ready) {
    return patchPodStatus(p, {{"phase", "Running"},
                              {"podIP", ip},
                              {"podIPs", Json::array({{{"ip", ip}}})},
                              {"conditions", Json::array({{{"type", "Ready"},
                                                           {"status", ready ? "True" : "False"},
                                                           {"lastTransitionTime", now()}}})}});
  }

  std::vector<Json> slices(const std::string& serviceName) {
    ListOptions options;
    options.labelSelector = "kubernetes.io/service-name=" + serviceName;
    Json listed = list(kEndpointSlices, "default", options);
    return {listed["items"].begin(), listed["items"].end()};
  }

  // The slice's endpoints by pod name: {ready, serving, terminating}.
  static std::map<std::string, Json> conditionsByPod(const Json& slice) {
    std::map<std::string, Json> out;
    for (const auto& e : slice.value("endpoints", Json::array())) {
      out[e["targetRef"]["name"]] = e["conditions"];
    }
    return out;
  }
};

Json conditions(bool ready, bool serving, bool terminating) {
  return {{"ready", ready}, {"serving", serving}, {"terminating", terminating}};
}

TEST_F(EndpointsControllerTest, SlicesFollowReadiness) {
  Json svc = create(kServices, service("web"));
  run();
  // No pod yet: one empty placeholder slice, labelled and owned by the Service.
  auto found = slices("web");
  ASSERT_EQ(found.size(), 1u);
  Json slice = found[0];
  EXPECT_EQ(slice["addressType"], "IPv4");
  EXPECT_EQ(meta::label(slice, "endpointslice.kubernetes.io/managed-by"),
            "endpointslice-controller.k8s.io");
  EXPECT_EQ(meta::label(slice, "team"), "a");
  EXPECT_EQ(meta::generateName(slice), "web-");
  ASSERT_TRUE(meta::controllerOf(slice).has_value());
  EXPECT_EQ(meta::controllerOf(slice)->uid, meta::uid(svc));
  EXPECT_TRUE(slice.value("endpoints", Json::array()).empty());

  // A pod without an IP is not an endpoint; with one and not Ready it is, not ready.
  Json a = create(kPods, webPod("a"));
  Json b = create(kPods, webPod("b"));
  Json other = pod("other");
  other["metadata"]["labels"] = {{"app", "db"}};
  other = create(kPods, other);
  run();
  EXPECT_TRUE(slices("web")[0].value("endpoints", Json::array()).empty());
  startPod(a, "10.0.0.1", false);
  startPod(b, "10.0.0.2", true);
  startPod(other, "10.0.0.3", true);
  run();
  found = slices("web");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(meta::name(found[0]), meta::name(slice)) << "the placeholder is reused";
  EXPECT_EQ(conditionsByPod(found[0]),
            (std::map<std::string, Json>{{"a", conditions(false, false, false)},
                                         {"b", conditions(true, true, false)}}));
  // Ports: "http" resolved by name on the pod, "metrics" with no targetPort is the port itself.
  EXPECT_EQ(found[0]["ports"], Json::parse(R"([{"name":"http","port":8080,"protocol":"TCP"},
                                               {"name":"metrics","port":9090,"protocol":"TCP"}])"));
  for (const auto& e : found[0]["endpoints"]) {
    EXPECT_EQ(e["nodeName"], "node-1");
    EXPECT_EQ(e["targetRef"]["kind"], "Pod");
  }

  // a becomes Ready; b terminates (it has a finalizer, so it stays a while): serving, terminating.
  startPod(a, "10.0.0.1", true);
  mergePatch(kPods, "default", "b", {{"metadata", {{"finalizers", {"example.com/hold"}}}}});
  remove(kPods, "default", "b");
  run();
  EXPECT_EQ(conditionsByPod(slices("web")[0]),
            (std::map<std::string, Json>{{"a", conditions(true, true, false)},
                                         {"b", conditions(false, true, true)}}));

  // The Endpoints: terminating b is left out.
  Json ep = get(kEndpoints, "default", "web");
  EXPECT_EQ(meta::label(ep, "team"), "a");
  ASSERT_EQ(ep["subsets"].size(), 1u);
  ASSERT_EQ(ep["subsets"][0]["addresses"].size(), 1u);
  EXPECT_EQ(ep["subsets"][0]["addresses"][0]["ip"], "10.0.0.1");
  EXPECT_FALSE(ep["subsets"][0].contains("notReadyAddresses"));

  // A finished pod leaves both (b, still terminating without a kubelet, stays in the slice).
  markFinished(get(kPods, "default", "a"), true);
  run();
  EXPECT_EQ(conditionsByPod(slices("web")[0]),
            (std::map<std::string, Json>{{"b", conditions(false, true, true)}}));
  EXPECT_FALSE(get(kEndpoints, "default", "web").contains("subsets"));
}

TEST_F(EndpointsControllerTest, EndpointsListReadyAndNotReadyAddresses) {
  create(kServices, service("web"));
  startPod(create(kPods, webPod("a")), "10.0.0.2", true);
  startPod(create(kPods, webPod("b")), "10.0.0.1", false);
  // A pod whose "http" port is another number gets a subset of its own.
  startPod(create(kPods, webPod("c", 9000)), "10.0.0.3", true);
  run();
  Json ep = get(kEndpoints, "default", "web");
  ASSERT_EQ(ep["subsets"].size(), 2u) << ep.dump();
  Json byPort;
  for (const auto& s : ep["subsets"]) byPort[std::to_string(s["ports"][0]["port"].get<int>())] = s;
  EXPECT_EQ(byPort["8080"]["addresses"].size(), 1u);
  EXPECT_EQ(byPort["8080"]["addresses"][0]["ip"], "10.0.0.2");
  EXPECT_EQ(byPort["8080"]["addresses"][0]["targetRef"]["name"], "a");
  EXPECT_EQ(byPort["8080"]["notReadyAddresses"][0]["ip"], "10.0.0.1");
  EXPECT_EQ(byPort["9000"]["addresses"][0]["targetRef"]["name"], "c");
  EXPECT_EQ(slices("web").size(), 2u) << "one slice per port mapping";
}

// Subsets come in the order of their ports' JSON text, as kube-controller-manager's do, not in
// the order their pods are listed: pod "a" (listed first) resolves "http" to 9000, pod "b" to
// 8080, and the 8080 subset comes first. Each port mapping gets an EndpointSlice of its own.
TEST_F(EndpointsControllerTest, SubsetsAreOrderedByTheirPortsNotByTheirPods) {
  create(kServices, service("web"));
  startPod(create(kPods, webPod("a", 9000)), "10.0.0.1", true);
  startPod(create(kPods, webPod("b", 8080)), "10.0.0.2", true);
  run();
  Json ep = get(kEndpoints, "default", "web");
  ASSERT_EQ(ep["subsets"].size(), 2u) << ep.dump();
  EXPECT_EQ(ep["subsets"][0]["ports"][0]["port"], 8080) << ep.dump();
  EXPECT_EQ(ep["subsets"][0]["addresses"][0]["targetRef"]["name"], "b");
  EXPECT_EQ(ep["subsets"][1]["ports"][0]["port"], 9000) << ep.dump();
  EXPECT_EQ(ep["subsets"][1]["addresses"][0]["targetRef"]["name"], "a");
  std::set<int> slicePorts;
  for (const auto& slice : slices("web")) {
    ASSERT_EQ(slice["endpoints"].size(), 1u) << slice.dump();
    slicePorts.insert(slice["ports"][0]["port"].get<int>());
  }
  EXPECT_EQ(slicePorts, (std::set<int>{8080, 9000}));
}

TEST_F(EndpointsControllerTest, PublishNotReadyAddressesAndHeadless) {
  Json svc = service("db");
  svc["spec"]["clusterIP"] = "None";
  svc["spec"]["publishNotReadyAddresses"] = true;
  create(kServices, svc);
  Json p = webPod("db-0");
  p["spec"]["hostname"] = "db-0";
  p["spec"]["subdomain"] = "db";
  startPod(create(kPods, p), "10.0.0.7", false);
  run();
  Json ep = get(kEndpoints, "default", "db");
  EXPECT_EQ(meta::labelIfPresent(ep, "service.kubernetes.io/headless"),
            std::optional<std::string>(""));
  ASSERT_EQ(ep["subsets"][0]["addresses"].size(), 1u);
  EXPECT_EQ(ep["subsets"][0]["addresses"][0]["hostname"], "db-0");
  auto found = slices("db");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(meta::labelIfPresent(found[0], "service.kubernetes.io/headless"),
            std::optional<std::string>(""));
  EXPECT_EQ(found[0]["endpoints"][0]["conditions"], conditions(true, true, false));
  EXPECT_EQ(found[0]["endpoints"][0]["hostname"], "db-0");
}

TEST_F(EndpointsControllerTest, ServiceWithoutSelectorIsLeftToItsUser) {
  Json svc = service("external");
  svc["spec"].erase("selector");
  create(kServices, svc);
  create(kEndpoints,
         Json{{"apiVersion", "v1"},
              {"kind", "Endpoints"},
              {"metadata", {{"name", "external"}, {"namespace", "default"}}},
              {"subsets", Json::array({{{"addresses", Json::array({{{"ip", "192.0.2.1"}}})}}})}});
  run();
  EXPECT_EQ(get(kEndpoints, "default", "external")["subsets"][0]["addresses"][0]["ip"],
            "192.0.2.1");
  EXPECT_TRUE(slices("external").empty());
}

TEST_F(EndpointsControllerTest, DeletedServiceTakesItsEndpoints) {
  create(kServices, service("web"));
  startPod(create(kPods, webPod("a")), "10.0.0.1", true);
  run();
  ASSERT_EQ(slices("web").size(), 1u);
  get(kEndpoints, "default", "web");
  remove(kServices, "default", "web");
  run();
  EXPECT_TRUE(slices("web").empty());
  EXPECT_TRUE(isNotFound(server->get(kEndpoints, "default", "web")));
}

TEST_F(EndpointsControllerTest, EditedSliceIsPutBack) {
  create(kServices, service("web"));
  startPod(create(kPods, webPod("a")), "10.0.0.1", true);
  run();
  Json slice = slices("web")[0];
  slice["endpoints"] = Json::array();
  update(kEndpointSlices, slice);
  run();
  EXPECT_EQ(slices("web")[0]["endpoints"].size(), 1u);
}

// servicesOfPodHandler finds a pod's Services through the Services informer's selector indexes:
// exactly those of its namespace whose whole selector its labels hold, on create, update (old and
// new labels) and delete, following selector edits and Service deletions.
class ServicesOfPodHandlerTest : public EndpointsControllerTest {
 protected:
  std::vector<std::string> keys(const std::vector<ReconcileRequest>& requests) {
    std::vector<std::string> out;
    for (const auto& r : requests) out.push_back(r.key());
    std::sort(out.begin(), out.end());
    return out;
  }
  static ObjectPtr labelled(const std::string& name, Json labels,
                            const std::string& ns = "default") {
    Json p = webPod(name);
    p["metadata"]["namespace"] = ns;
    p["metadata"]["labels"] = std::move(labels);
    p["metadata"]["resourceVersion"] = name;  // the handler ignores an update to the same version
    return std::make_shared<const Json>(std::move(p));
  }
};

TEST_F(ServicesOfPodHandlerTest, FindsEveryServiceWhoseWholeSelectorTheLabelsHold) {
  EventHandler handler = workload::servicesOfPodHandler(manager->cache());
  create(kServices, service("web"));
  create(kServices, service("web-v1", {{"app", "web"}, {"version", "v1"}}));
  create(kServices, service("web-v2", {{"app", "web"}, {"version", "v2"}}));
  create(kServices, service("db", {{"app", "db"}}));
  create(kServices, service("tier", {{"tier", "front"}}));
  Json noSelector = service("manual");
  noSelector["spec"].erase("selector");
  create(kServices, noSelector);
  create(kNamespaces,
         Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "other"}}}});
  Json elsewhere = service("web");
  elsewhere["metadata"]["namespace"] = "other";
  create(kServices, elsewhere);
  run();

  EXPECT_THAT(keys(handler.create(labelled("a", {{"app", "web"}, {"version", "v1"}}))),
              ::testing::ElementsAre("default/web", "default/web-v1"));
  EXPECT_THAT(keys(handler.create(labelled("b", {{"app", "web"}, {"tier", "front"}}))),
              ::testing::ElementsAre("default/tier", "default/web"));
  EXPECT_THAT(keys(handler.delete_(labelled("c", {{"app", "web"}}, "other"))),
              ::testing::ElementsAre("other/web"));
  EXPECT_TRUE(handler.create(labelled("d", {{"version", "v1"}})).empty())
      << "a pod with only part of a selector's labels is not selected";
  EXPECT_TRUE(handler.create(labelled("e", Json::object())).empty());
  // A label change reaches the Services of the old labels and of the new ones, once each.
  EXPECT_THAT(keys(handler.update(labelled("f", {{"app", "web"}, {"version", "v1"}}),
                                  labelled("g", {{"app", "db"}, {"version", "v1"}}))),
              ::testing::ElementsAre("default/db", "default/web", "default/web-v1"));
}

// GetServicesToUpdateOnPodChange: an update reaches the pod's Services only when it may change
// their endpoints; a pod that only moved between Services reaches those it left or joined.
TEST_F(ServicesOfPodHandlerTest, UpdatesReachServicesOnlyWhenEndpointsMayChange) {
  EventHandler handler = workload::servicesOfPodHandler(manager->cache());
  create(kServices, service("web"));
  create(kServices, service("web-v1", {{"app", "web"}, {"version", "v1"}}));
  create(kServices, service("web-v2", {{"app", "web"}, {"version", "v2"}}));
  run();
  auto version = [](const ObjectPtr& pod, const std::string& rv, Json status) {
    Json p = *pod;
    p["metadata"]["resourceVersion"] = rv;
    p["status"] = std::move(status);
    return std::make_shared<const Json>(std::move(p));
  };
  const Json running = {{"phase", "Running"},
                        {"podIP", "10.0.0.5"},
                        {"podIPs", Json::array({{{"ip", "10.0.0.5"}}})},
                        {"conditions", Json::array({{{"type", "Ready"}, {"status", "False"}}})}};
  const ObjectPtr v1 = labelled("a", {{"app", "web"}, {"version", "v1"}});
  const ObjectPtr before = version(v1, "1", running);

  Json containersOnly = running;
  containersOnly["containerStatuses"] = Json::array({{{"name", "main"}, {"ready", false}}});
  EXPECT_TRUE(handler.update(before, version(v1, "2", containersOnly)).empty())
      << "same IPs, readiness, labels and deletion: no Service to update";

  Json ready = running;
  ready["conditions"][0]["status"] = "True";
  EXPECT_THAT(keys(handler.update(before, version(v1, "2", ready))),
              ::testing::ElementsAre("default/web", "default/web-v1"));
  Json newIp = running;
  newIp["podIP"] = "10.0.0.6";
  newIp["podIPs"][0]["ip"] = "10.0.0.6";
  EXPECT_THAT(keys(handler.update(before, version(v1, "2", newIp))),
              ::testing::ElementsAre("default/web", "default/web-v1"));
  Json failed = running;
  failed["phase"] = "Failed";
  EXPECT_THAT(keys(handler.update(before, version(v1, "2", failed))),
              ::testing::ElementsAre("default/web", "default/web-v1"));

  // Relabelled v1 -> v2 and nothing else: "web" selects it before and after, and is left alone.
  const ObjectPtr v2 = labelled("a", {{"app", "web"}, {"version", "v2"}});
  EXPECT_THAT(keys(handler.update(before, version(v2, "2", running))),
              ::testing::ElementsAre("default/web-v1", "default/web-v2"));
  // Relabelled and turned Ready: every Service on either side.
  EXPECT_THAT(keys(handler.update(before, version(v2, "2", ready))),
              ::testing::ElementsAre("default/web", "default/web-v1", "default/web-v2"));
}

TEST_F(ServicesOfPodHandlerTest, FollowsSelectorEditsAndDeletedServices) {
  EventHandler handler = workload::servicesOfPodHandler(manager->cache());
  Json web = create(kServices, service("web-v1", {{"app", "web"}, {"version", "v1"}}));
  run();
  const ObjectPtr pod = labelled("a", {{"app", "web"}, {"version", "v1"}});
  ASSERT_THAT(keys(handler.create(pod)), ::testing::ElementsAre("default/web-v1"));

  web["spec"]["selector"] = {{"app", "web"}, {"version", "v2"}};
  web = update(kServices, web);
  run();
  EXPECT_TRUE(handler.create(pod).empty()) << "the old selector no longer finds it";
  EXPECT_THAT(keys(handler.create(labelled("b", {{"app", "web"}, {"version", "v2"}}))),
              ::testing::ElementsAre("default/web-v1"));

  web["spec"]["selector"] = {{"app", "web"}};  // another key set
  web = update(kServices, web);
  run();
  EXPECT_THAT(keys(handler.create(pod)), ::testing::ElementsAre("default/web-v1"));

  remove(kServices, "default", "web-v1");
  run();
  EXPECT_TRUE(handler.create(pod).empty());
}

// End to end: the endpoints move when a Service's selector or a pod's labels change.
TEST_F(EndpointsControllerTest, EndpointsFollowSelectorAndLabelChanges) {
  Json web = create(kServices, service("web"));
  startPod(create(kPods, webPod("a")), "10.0.0.1", true);
  Json b = webPod("b");
  b["metadata"]["labels"] = {{"app", "api"}};
  b = startPod(create(kPods, b), "10.0.0.2", true);
  run();
  auto names = [&] {
    std::vector<std::string> out;
    for (const auto& slice : slices("web")) {
      for (const auto& e : slice.value("endpoints", Json::array())) {
        out.push_back(e["targetRef"]["name"]);
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  ASSERT_THAT(names(), ::testing::ElementsAre("a"));

  web["spec"]["selector"] = {{"app", "api"}};
  update(kServices, web);
  run();
  EXPECT_THAT(names(), ::testing::ElementsAre("b"));
  EXPECT_EQ(get(kEndpoints, "default", "web")["subsets"][0]["addresses"][0]["ip"], "10.0.0.2");

  // Pod a takes the new label: it joins; pod b drops it: it leaves.
  Json a = get(kPods, "default", "a");
  a["metadata"]["labels"] = {{"app", "api"}};
  update(kPods, a);
  b = get(kPods, "default", "b");
  b["metadata"]["labels"] = {{"app", "none"}};
  update(kPods, b);
  run();
  EXPECT_THAT(names(), ::testing::ElementsAre("a"));
  EXPECT_EQ(get(kEndpoints, "default", "web")["subsets"][0]["addresses"][0]["ip"], "10.0.0.1");
}

}  // namespace
}  // namespace fakekube::workloadtest
