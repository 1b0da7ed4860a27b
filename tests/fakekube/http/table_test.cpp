// Tables (kubectl get) and PartialObjectMetadata (metadata-only clients) over HTTP.
#include <fmt/format.h>

#include "http_fixture.h"

namespace fakekube::httptest {
namespace {

using TableTest = HttpTest;

const httplib::Headers kTableAccept = {
    {"Accept",
     "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
     "g=meta.k8s.io,application/json"}};

std::vector<std::string> columnNames(const Json& table) {
  std::vector<std::string> names;
  for (const auto& c : table["columnDefinitions"]) names.push_back(c["name"]);
  return names;
}

// A long list is streamed piece by piece (rows made a hundred objects at a time); what arrives
// is the same document a short list's Table is, page by page.
TEST_F(TableTest, ALongListStreamsTheSameTableAsItsPages) {
  const GroupVersionResource configMaps{"", "v1", "configmaps"};
  for (int i = 0; i < 1234; ++i) {
    Json configMap = {{"apiVersion", "v1"},
                      {"kind", "ConfigMap"},
                      {"metadata", {{"name", fmt::format("cm-{:04}", i)}}},
                      {"data", {{"k", std::to_string(i)}}}};
    ASSERT_TRUE(api->create(configMaps, "default", std::move(configMap)));
  }
  const std::string path = "/api/v1/namespaces/default/configmaps";
  auto whole = get(path, kTableAccept);
  ASSERT_EQ(whole->status, 200);
  EXPECT_EQ(whole->get_header_value("Transfer-Encoding"), "chunked");
  const Json table = parse(whole->body);
  EXPECT_EQ(table["kind"], "Table");
  EXPECT_EQ(columnNames(table), (std::vector<std::string>{"Name", "Data", "Age"}));
  ASSERT_EQ(table["rows"].size(), 1234u);
  // Pages of 400 are answered whole; their rows are the long list's, in order.
  Json rows = Json::array();
  std::string next;
  do {
    auto page = parse(
        get(path + "?limit=400" + (next.empty() ? "" : "&continue=" + next), kTableAccept)->body);
    EXPECT_EQ(page["columnDefinitions"], table["columnDefinitions"]);
    for (auto& row : page["rows"]) rows.push_back(row);
    next = page["metadata"].value("continue", "");
  } while (!next.empty());
  EXPECT_EQ(rows, table["rows"]);
  EXPECT_EQ(table["metadata"]["resourceVersion"], std::to_string(api->revision()));
}

TEST_F(TableTest, PodsPrintAsKubectlShowsThem) {
  Json p = pod("web");
  p["spec"]["containers"].push_back({{"name", "sidecar"}, {"image", "busybox"}});
  auto created = client->Post("/api/v1/namespaces/default/pods", p.dump(), "application/json");
  ASSERT_EQ(created->status, 201);
  Json status = parse(created->body);
  status["status"] = {
      {"phase", "Running"},
      {"podIP", "10.0.0.7"},
      {"containerStatuses",
       Json::array({{{"name", "main"},
                     {"ready", true},
                     {"restartCount", 0},
                     {"state", {{"running", {{"startedAt", "2024-01-01T00:00:00Z"}}}}}},
                    {{"name", "sidecar"},
                     {"ready", false},
                     {"restartCount", 3},
                     {"state", {{"waiting", {{"reason", "CrashLoopBackOff"}}}}}}})}};
  ASSERT_EQ(
      client->Put("/api/v1/namespaces/default/pods/web/status", status.dump(), "application/json")
          ->status,
      200);
  clock.advance(std::chrono::minutes(5) + std::chrono::seconds(30));

  auto response = get("/api/v1/namespaces/default/pods", kTableAccept);
  ASSERT_EQ(response->status, 200) << response->body;
  Json table = parse(response->body);
  EXPECT_EQ(table["kind"], "Table");
  EXPECT_EQ(table["apiVersion"], "meta.k8s.io/v1");
  EXPECT_EQ(columnNames(table),
            (std::vector<std::string>{"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node",
                                      "Nominated Node", "Readiness Gates"}));
  EXPECT_EQ(table["columnDefinitions"][5]["priority"], 1);
  EXPECT_EQ(table["columnDefinitions"][0]["format"], "name");
  ASSERT_EQ(table["rows"].size(), 1u);
  const Json& row = table["rows"][0];
  EXPECT_EQ(row["cells"], Json::array({"web", "1/2", "CrashLoopBackOff", "3", "5m30s", "10.0.0.7",
                                       "<none>", "<none>", "<none>"}));
  EXPECT_EQ(row["object"]["kind"], "PartialObjectMetadata");
  EXPECT_EQ(row["object"]["metadata"]["name"], "web");
  EXPECT_FALSE(table["metadata"]["resourceVersion"].get<std::string>().empty());

  // includeObject=Object carries the pod; a single GET is a one-row table.
  Json one =
      parse(get("/api/v1/namespaces/default/pods/web?includeObject=Object", kTableAccept)->body);
  ASSERT_EQ(one["rows"].size(), 1u);
  EXPECT_EQ(one["rows"][0]["object"]["kind"], "Pod");
  Json none = parse(get("/api/v1/namespaces/default/pods?includeObject=None", kTableAccept)->body);
  EXPECT_FALSE(none["rows"][0].contains("object"));

  // A pod being deleted prints Terminating.
  ASSERT_EQ(client
                ->Post("/api/v1/namespaces/default/pods/web/binding",
                       Json{{"metadata", {{"name", "web"}}},
                            {"target", {{"kind", "Node"}, {"name", "n1"}}}}
                           .dump(),
                       "application/json")
                ->status,
            201);
  ASSERT_EQ(client->Delete("/api/v1/namespaces/default/pods/web")->status, 200);
  Json terminating = parse(get("/api/v1/namespaces/default/pods", kTableAccept)->body);
  EXPECT_EQ(terminating["rows"][0]["cells"][2], "Terminating");
  EXPECT_EQ(terminating["rows"][0]["cells"][6], "n1");
}

TEST_F(TableTest, InitContainersAndPhases) {
  Json p = pod("init");
  p["spec"]["initContainers"] = Json::array({{{"name", "setup"}, {"image", "busybox"}}});
  ASSERT_EQ(client->Post("/api/v1/namespaces/default/pods", p.dump(), "application/json")->status,
            201);
  Json status = parse(get("/api/v1/namespaces/default/pods/init")->body);
  status["status"] = {
      {"phase", "Pending"},
      {"initContainerStatuses",
       Json::array(
           {{{"name", "setup"}, {"restartCount", 0}, {"state", {{"running", Json::object()}}}}})}};
  ASSERT_EQ(
      client->Put("/api/v1/namespaces/default/pods/init/status", status.dump(), "application/json")
          ->status,
      200);
  Json table = parse(get("/api/v1/namespaces/default/pods/init", kTableAccept)->body);
  EXPECT_EQ(table["rows"][0]["cells"][1], "0/1");
  EXPECT_EQ(table["rows"][0]["cells"][2], "Init:0/1");

  ASSERT_EQ(
      client->Post("/api/v1/namespaces/default/pods", pod("pending").dump(), "application/json")
          ->status,
      201);
  Json pending = parse(get("/api/v1/namespaces/default/pods/pending", kTableAccept)->body);
  EXPECT_EQ(pending["rows"][0]["cells"][2], "Pending");
}

TEST_F(TableTest, DeploymentsAndGenericKinds) {
  ASSERT_EQ(client
                ->Post("/apis/apps/v1/namespaces/default/deployments", deployment("web").dump(),
                       "application/json")
                ->status,
            201);
  ASSERT_EQ(
      client
          ->Patch("/apis/apps/v1/namespaces/default/deployments/web/status",
                  R"({"status":{"readyReplicas":2,"updatedReplicas":3,"availableReplicas":2}})",
                  "application/merge-patch+json")
          ->status,
      200);
  clock.advance(std::chrono::hours(3));
  Json table = parse(get("/apis/apps/v1/namespaces/default/deployments", kTableAccept)->body);
  EXPECT_EQ(columnNames(table),
            (std::vector<std::string>{"Name", "Ready", "Up-to-date", "Available", "Age",
                                      "Containers", "Images", "Selector"}));
  EXPECT_EQ(table["rows"][0]["cells"],
            Json::array({"web", "2/3", 3, 2, "3h", "main", "nginx:1.27", "app=web"}));

  // Kinds without a printer of their own: NAME AGE.
  Json runtimeClasses = parse(get("/apis/node.k8s.io/v1/runtimeclasses", kTableAccept)->body);
  EXPECT_EQ(columnNames(runtimeClasses), (std::vector<std::string>{"Name", "Age"}));
  Json leases =
      parse(get("/apis/coordination.k8s.io/v1/namespaces/default/leases", kTableAccept)->body);
  EXPECT_EQ(columnNames(leases), (std::vector<std::string>{"Name", "Holder", "Age"}));
  Json namespaces = parse(get("/api/v1/namespaces", kTableAccept)->body);
  EXPECT_EQ(columnNames(namespaces), (std::vector<std::string>{"Name", "Status", "Age"}));
}

TEST_F(TableTest, CustomResourcesPrintTheirAdditionalPrinterColumns) {
  Json columns = Json::array(
      {{{"name", "Size"}, {"type", "integer"}, {"jsonPath", ".spec.size"}},
       {{"name", "Phase"}, {"type", "string"}, {"jsonPath", ".status.phase"}},
       {{"name", "Ready"},
        {"type", "string"},
        {"jsonPath", ".status.conditions[?(@.type==\"Ready\")].status"}},
       {{"name", "Age"}, {"type", "date"}, {"jsonPath", ".metadata.creationTimestamp"}}});
  ASSERT_NO_FATAL_FAILURE(installWidgetCrd(columns));
  const std::string widgets = "/apis/example.com/v1/namespaces/default/widgets";
  ASSERT_EQ(post(widgets, widget("w1", 3))->status, 201);
  ASSERT_EQ(post(widgets, widget("w2", 5))->status, 201);
  ASSERT_EQ(
      client
          ->Patch(widgets + "/w1/status",
                  R"({"status":{"phase":"Ready","conditions":[{"type":"Ready","status":"True"}]}})",
                  "application/merge-patch+json")
          ->status,
      200);
  clock.advance(std::chrono::seconds(42));

  Json table = parse(get(widgets, kTableAccept)->body);
  EXPECT_EQ(columnNames(table),
            (std::vector<std::string>{"Name", "Size", "Phase", "Ready", "Age"}));
  ASSERT_EQ(table["rows"].size(), 2u);
  EXPECT_EQ(table["rows"][0]["cells"], Json::array({"w1", 3, "Ready", "True", "42s"}));
  EXPECT_EQ(table["rows"][1]["cells"], Json::array({"w2", 5, nullptr, nullptr, "42s"}));

  // The CRDs themselves: NAME CREATED AT.
  Json crds =
      parse(get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", kTableAccept)->body);
  EXPECT_EQ(columnNames(crds), (std::vector<std::string>{"Name", "Created At"}));
  EXPECT_EQ(crds["rows"][0]["cells"][1], "2024-01-01T00:00:00Z");
}

// A "string" column prints any value as JSONPath prints it (KubeRay's RayService declares its
// numServeEndpoints column as a string).
TEST_F(TableTest, AStringColumnPrintsANumberAsJsonPathPrintsIt) {
  Json columns = Json::array({{{"name", "Size"}, {"type", "string"}, {"jsonPath", ".spec.size"}},
                              {{"name", "Spec"}, {"type", "string"}, {"jsonPath", ".spec"}}});
  ASSERT_NO_FATAL_FAILURE(installWidgetCrd(columns));
  const std::string widgets = "/apis/example.com/v1/namespaces/default/widgets";
  ASSERT_EQ(post(widgets, widget("w1", 4))->status, 201);
  Json table = parse(get(widgets, kTableAccept)->body);
  EXPECT_EQ(table["rows"][0]["cells"], Json::array({"w1", "4", "map[size:4]"}));
}

TEST_F(TableTest, ACustomResourceWithoutColumnsPrintsNameAndAge) {
  ASSERT_NO_FATAL_FAILURE(installWidgetCrd());
  ASSERT_EQ(client
                ->Post("/apis/example.com/v1/namespaces/default/widgets", widget("w1").dump(),
                       "application/json")
                ->status,
            201);
  Json table = parse(get("/apis/example.com/v1/namespaces/default/widgets", kTableAccept)->body);
  EXPECT_EQ(columnNames(table), (std::vector<std::string>{"Name", "Age"}));
  EXPECT_EQ(table["rows"][0]["cells"], Json::array({"w1", "0s"}));
}

TEST_F(TableTest, PartialObjectMetadataForMetadataClients) {
  ASSERT_EQ(client
                ->Post("/api/v1/namespaces/default/configmaps", configMap("c1").dump(),
                       "application/json")
                ->status,
            201);
  const httplib::Headers accept = {
      {"Accept",
       "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,"
       "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"}};
  Json list = parse(get("/api/v1/namespaces/default/configmaps", accept)->body);
  EXPECT_EQ(list["kind"], "PartialObjectMetadataList");
  EXPECT_EQ(list["apiVersion"], "meta.k8s.io/v1");
  ASSERT_EQ(list["items"].size(), 1u);
  EXPECT_EQ(list["items"][0]["kind"], "PartialObjectMetadata");
  EXPECT_EQ(list["items"][0]["metadata"]["name"], "c1");
  EXPECT_FALSE(list["items"][0].contains("data"));

  Json one = parse(get("/api/v1/namespaces/default/configmaps/c1",
                       {{"Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"}})
                       ->body);
  EXPECT_EQ(one["kind"], "PartialObjectMetadata");
  EXPECT_FALSE(one.contains("data"));

  // Discovery negotiates its own forms: aggregated when asked for first.
  auto discovery =
      get("/apis", {{"Accept",
                     "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
                     "application/json"}});
  EXPECT_EQ(discovery->get_header_value("Content-Type"),
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
  EXPECT_EQ(parse(discovery->body)["kind"], "APIGroupDiscoveryList");
}

}  // namespace
}  // namespace fakekube::httptest
