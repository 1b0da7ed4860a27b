// The built-in API over HTTP beyond CRUD: aggregated discovery, the OpenAPI schemas explain reads,
// access and token reviews, service account tokens, printer columns of the newer kinds, and the
// request metrics on /metrics.
#include <algorithm>

#include "fakekube/http/internal/request_metrics.h"
#include "http_fixture.h"

namespace fakekube::httptest {
namespace {

class BuiltinApiTest : public HttpTest {
 protected:
  // The cells of the row `kubectl get` shows for `object`, POSTed to `collection` first.
  Json rowOf(const std::string& collection, const Json& object) {
    auto created = post(collection, object);
    EXPECT_EQ(created->status, 201) << created->body;
    Json table = parse(get(collection + "/" + object["metadata"]["name"].get<std::string>(),
                           {{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}})
                           ->body);
    return table["rows"][0]["cells"];
  }
};

const char* const kAggregatedV2 =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
    "application/json";

const Json* findByKey(const Json& list, const char* key, const std::string& value) {
  for (const auto& item : list) {
    if (item.value(key, "") == value) return &item;
  }
  return nullptr;
}

TEST_F(BuiltinApiTest, AggregatedDiscoveryListsEveryGroupWithSubresources) {
  auto response = get("/apis", {{"Accept", kAggregatedV2}});
  ASSERT_EQ(response->status, 200);
  EXPECT_EQ(response->get_header_value("Content-Type"),
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
  Json doc = parse(response->body);
  EXPECT_EQ(doc["kind"], "APIGroupDiscoveryList");
  EXPECT_EQ(doc["apiVersion"], "apidiscovery.k8s.io/v2");
  std::vector<std::string> groups;
  for (const auto& g : doc["items"]) groups.push_back(g["metadata"]["name"]);
  for (const char* wanted :
       {"apps", "batch", "rbac.authorization.k8s.io", "networking.k8s.io", "policy", "autoscaling",
        "discovery.k8s.io", "events.k8s.io", "scheduling.k8s.io", "storage.k8s.io", "node.k8s.io",
        "certificates.k8s.io", "admissionregistration.k8s.io", "apiregistration.k8s.io",
        "flowcontrol.apiserver.k8s.io", "coordination.k8s.io", "authorization.k8s.io",
        "authentication.k8s.io", "apiextensions.k8s.io"}) {
    EXPECT_NE(std::find(groups.begin(), groups.end(), wanted), groups.end()) << wanted;
  }
  for (const auto& g : doc["items"]) {
    if (g["metadata"]["name"] != "apps") continue;
    const Json& v1 = g["versions"][0];
    EXPECT_EQ(v1["version"], "v1");
    EXPECT_EQ(v1["freshness"], "Current");
    const Json* sts = findByKey(v1["resources"], "resource", "statefulsets");
    ASSERT_NE(sts, nullptr);
    EXPECT_EQ((*sts)["scope"], "Namespaced");
    EXPECT_EQ((*sts)["singularResource"], "statefulset");
    EXPECT_EQ((*sts)["shortNames"], Json::array({"sts"}));
    EXPECT_EQ((*sts)["categories"], Json::array({"all"}));
    EXPECT_EQ((*sts)["responseKind"],
              Json({{"group", "apps"}, {"version", "v1"}, {"kind", "StatefulSet"}}));
    const Json* scale = findByKey((*sts)["subresources"], "subresource", "scale");
    ASSERT_NE(scale, nullptr);
    EXPECT_EQ((*scale)["responseKind"],
              Json({{"group", "autoscaling"}, {"version", "v1"}, {"kind", "Scale"}}));
  }
  for (const auto& g : doc["items"]) {
    if (g["metadata"]["name"] != "autoscaling") continue;
    ASSERT_EQ(g["versions"].size(), 2u);
    EXPECT_EQ(g["versions"][0]["version"], "v2");  // preferred first
  }

  auto legacy = get("/api", {{"Accept", kAggregatedV2}});
  Json core = parse(legacy->body);
  ASSERT_EQ(core["items"].size(), 1u);
  const Json* accounts =
      findByKey(core["items"][0]["versions"][0]["resources"], "resource", "serviceaccounts");
  ASSERT_NE(accounts, nullptr);
  const Json* token = findByKey((*accounts)["subresources"], "subresource", "token");
  ASSERT_NE(token, nullptr);
  EXPECT_EQ((*token)["responseKind"]["kind"], "TokenRequest");
  EXPECT_EQ((*token)["verbs"], Json::array({"create"}));

  // v2beta1 has the same shape; plain JSON gets the unaggregated documents.
  auto beta = get("/apis", {{"Accept",
                             "application/json;g=apidiscovery.k8s.io;v=v2beta1;as="
                             "APIGroupDiscoveryList,application/json"}});
  EXPECT_EQ(parse(beta->body)["apiVersion"], "apidiscovery.k8s.io/v2beta1");
  EXPECT_EQ(parse(get("/apis", {{"Accept", "application/json"}})->body)["kind"], "APIGroupList");
}

TEST_F(BuiltinApiTest, LegacyDiscoveryListsCreateOnlyReviewsAndPodLogs) {
  Json authz = parse(get("/apis/authorization.k8s.io/v1")->body);
  const Json* review = findByKey(authz["resources"], "name", "selfsubjectaccessreviews");
  ASSERT_NE(review, nullptr);
  EXPECT_EQ((*review)["verbs"], Json::array({"create"}));
  EXPECT_EQ((*review)["namespaced"], false);
  Json core = parse(get("/api/v1")->body);
  EXPECT_NE(findByKey(core["resources"], "name", "pods/log"), nullptr);
  EXPECT_NE(findByKey(core["resources"], "name", "replicationcontrollers/scale"), nullptr);
  EXPECT_EQ((*findByKey(core["resources"], "name", "resourcequotas"))["shortNames"],
            Json::array({"quota"}));
}

TEST_F(BuiltinApiTest, OpenApiV3CarriesTheKindSchemasExplainFollows) {
  Json index = parse(get("/openapi/v3")->body);
  ASSERT_TRUE(index["paths"].contains("api/v1"));
  const std::string url = index["paths"]["api/v1"]["serverRelativeURL"];
  Json doc = parse(get(url)->body);
  const Json& schemas = doc["components"]["schemas"];
  ASSERT_TRUE(schemas.contains("io.k8s.v1.Pod"));
  const Json& pod = schemas["io.k8s.v1.Pod"];
  EXPECT_EQ(pod["x-kubernetes-group-version-kind"],
            Json::array({{{"group", ""}, {"kind", "Pod"}, {"version", "v1"}}}));
  // A reference goes into allOf beside its description; without one it stands alone.
  EXPECT_EQ(pod["properties"]["spec"]["allOf"][0]["$ref"],
            "#/components/schemas/io.k8s.v1.PodSpec");
  EXPECT_EQ(pod["properties"]["spec"]["description"],
            "Specification of the desired behavior of the Pod. More info: "
            "https://git.k8s.io/community/contributors/devel/sig-architecture/"
            "api-conventions.md#spec-and-status");
  EXPECT_EQ(schemas["io.k8s.v1.PodSpec"]["properties"]["affinity"]["$ref"],
            "#/components/schemas/io.k8s.v1.Affinity");
  const Json& podSpec = schemas["io.k8s.v1.PodSpec"];
  const Json& containers = podSpec["properties"]["containers"];
  EXPECT_EQ(containers["type"], "array");
  EXPECT_EQ(containers["items"]["$ref"], "#/components/schemas/io.k8s.v1.Container");
  EXPECT_NE(containers["description"].get<std::string>().find("List of containers"),
            std::string::npos);
  EXPECT_NE(std::find(podSpec["required"].begin(), podSpec["required"].end(), "containers"),
            podSpec["required"].end());
  // Every referenced type is in the document.
  EXPECT_TRUE(schemas.contains("io.k8s.v1.Container"));
  EXPECT_TRUE(schemas.contains("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));

  Json rbac = parse(get("/openapi/v3/apis/rbac.authorization.k8s.io/v1")->body);
  EXPECT_TRUE(rbac["components"]["schemas"].contains("io.k8s.v1.ClusterRole"));
  EXPECT_FALSE(rbac["components"]["schemas"].contains("io.k8s.v1.Pod"));
}

TEST_F(BuiltinApiTest, OpenApiPublishesCustomResourceSchemas) {
  Json crd = widgetCrd();
  crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = {
      {"type", "object"},
      {"properties",
       {{"spec",
         {{"type", "object"},
          {"description", "What the widget should be."},
          {"properties", {{"size", {{"type", "integer"}, {"description", "How big."}}}}}}}}}};
  ASSERT_EQ(post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)->status, 201);
  Json doc = parse(get("/openapi/v3/apis/example.com/v1")->body);
  const Json& widget = doc["components"]["schemas"]["com.example.v1.Widget"];
  EXPECT_EQ(widget["x-kubernetes-group-version-kind"][0]["kind"], "Widget");
  EXPECT_EQ(widget["properties"]["spec"]["properties"]["size"]["description"], "How big.");
  EXPECT_EQ(widget["properties"]["metadata"]["allOf"][0]["$ref"],
            "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  EXPECT_TRUE(
      doc["components"]["schemas"].contains("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));

  Json v2 = parse(get("/openapi/v2", {{"Accept", "application/json"}})->body);
  EXPECT_EQ(v2["swagger"], "2.0");
  EXPECT_TRUE(v2["definitions"].contains("com.example.v1.Widget"));
  EXPECT_EQ(v2["definitions"]["io.k8s.v1.Pod"]["properties"]["spec"]["$ref"],
            "#/definitions/io.k8s.v1.PodSpec");
  // client-go asks for protobuf only; refused, it falls back to its compiled-in types.
  EXPECT_EQ(get("/openapi/v2", {{"Accept",
                                 "application/com.github.proto-openapi.spec.v2@v1.0+"
                                 "protobuf"}})
                ->status,
            406);
}

// The kubeconfig's admin is in system:masters: allowed everything (no RBAC reason: the
// privileged-group authorizer answers before RBAC). authorization_test.cpp has the other users.
TEST_F(BuiltinApiTest, AccessReviewsAnswerTheAdminAllowedEverything) {
  Json review = {{"apiVersion", "authorization.k8s.io/v1"},
                 {"kind", "SelfSubjectAccessReview"},
                 {"spec",
                  {{"resourceAttributes",
                    {{"namespace", "default"}, {"verb", "create"}, {"resource", "pods"}}}}}};
  auto response = post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", review);
  ASSERT_EQ(response->status, 201);
  Json answer = parse(response->body);
  EXPECT_EQ(answer["status"]["allowed"], true);
  EXPECT_FALSE(answer["status"].contains("denied"));
  EXPECT_EQ(answer["spec"], review["spec"]);

  Json empty = {{"apiVersion", "authorization.k8s.io/v1"},
                {"kind", "SelfSubjectAccessReview"},
                {"spec", Json::object()}};
  auto invalid = post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", empty);
  EXPECT_EQ(invalid->status, 422);
  EXPECT_EQ(status(invalid)["message"],
            "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: "
            "spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or "
            "resourceAttributes must be specified");

  Json rules = {{"apiVersion", "authorization.k8s.io/v1"},
                {"kind", "SelfSubjectRulesReview"},
                {"spec", {{"namespace", "default"}}}};
  Json rulesAnswer =
      parse(post("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", rules)->body);
  EXPECT_EQ(rulesAnswer["status"]["resourceRules"][0]["verbs"], Json::array({"*"}));
  // Nothing was stored.
  EXPECT_EQ(get("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")->status, 405);
}

TEST_F(BuiltinApiTest, SelfSubjectReviewNamesTheAdmin) {
  Json review = {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "SelfSubjectReview"}};
  auto response = post("/apis/authentication.k8s.io/v1/selfsubjectreviews", review);
  ASSERT_EQ(response->status, 201);
  Json answer = parse(response->body);
  EXPECT_EQ(answer["status"]["userInfo"]["username"], "kubernetes-admin");
  EXPECT_EQ(answer["status"]["userInfo"]["groups"],
            Json::array({"system:masters", "system:authenticated"}));
}

TEST_F(BuiltinApiTest, ServiceAccountTokensAreIssuedAndReviewed) {
  Json account = {{"apiVersion", "v1"},
                  {"kind", "ServiceAccount"},
                  {"metadata", {{"name", "builder"}, {"namespace", "default"}}}};
  ASSERT_EQ(post("/api/v1/namespaces/default/serviceaccounts", account)->status, 201);
  Json request = {{"apiVersion", "authentication.k8s.io/v1"},
                  {"kind", "TokenRequest"},
                  {"spec", {{"expirationSeconds", 7200}}}};
  auto response = post("/api/v1/namespaces/default/serviceaccounts/builder/token", request);
  ASSERT_EQ(response->status, 201) << response->body;
  Json answer = parse(response->body);
  EXPECT_EQ(answer["kind"], "TokenRequest");
  EXPECT_EQ(answer["spec"]["expirationSeconds"], 7200);
  EXPECT_EQ(answer["status"]["expirationTimestamp"], "2024-01-01T02:00:00Z");
  const std::string token = answer["status"]["token"];
  EXPECT_EQ(std::count(token.begin(), token.end(), '.'), 2);

  Json review = {{"apiVersion", "authentication.k8s.io/v1"},
                 {"kind", "TokenReview"},
                 {"spec", {{"token", token}}}};
  Json reviewed = parse(post("/apis/authentication.k8s.io/v1/tokenreviews", review)->body);
  EXPECT_EQ(reviewed["status"]["authenticated"], true);
  EXPECT_EQ(reviewed["status"]["user"]["username"], "system:serviceaccount:default:builder");
  review["spec"]["token"] = token + "x";
  EXPECT_EQ(parse(post("/apis/authentication.k8s.io/v1/tokenreviews", review)
                      ->body)["status"]["authenticated"],
            false);

  EXPECT_EQ(post("/api/v1/namespaces/default/serviceaccounts/missing/token", request)->status, 404);
  request["spec"]["expirationSeconds"] = 60;
  EXPECT_EQ(post("/api/v1/namespaces/default/serviceaccounts/builder/token", request)->status, 422);
}

TEST_F(BuiltinApiTest, BindingsCollectionBindsThePodItNames) {
  ASSERT_EQ(post("/api/v1/namespaces/default/pods", pod("p"))->status, 201);
  Json binding = {{"apiVersion", "v1"},
                  {"kind", "Binding"},
                  {"metadata", {{"name", "p"}, {"namespace", "default"}}},
                  {"target", {{"kind", "Node"}, {"name", "node-1"}}}};
  auto response = post("/api/v1/namespaces/default/bindings", binding);
  ASSERT_EQ(response->status, 201) << response->body;
  EXPECT_EQ(parse(get("/api/v1/namespaces/default/pods/p")->body)["spec"]["nodeName"], "node-1");
  binding["metadata"]["name"] = "missing";
  EXPECT_EQ(post("/api/v1/namespaces/default/bindings", binding)->status, 404);
}

TEST_F(BuiltinApiTest, StatefulSetScaleAndPrinterColumns) {
  Json labels = {{"app", "db"}};
  Json sts = {
      {"apiVersion", "apps/v1"},
      {"kind", "StatefulSet"},
      {"metadata", {{"name", "db"}, {"namespace", "default"}}},
      {"spec",
       {{"replicas", 3},
        {"serviceName", "db"},
        {"selector", {{"matchLabels", labels}}},
        {"template",
         {{"metadata", {{"labels", labels}}},
          {"spec",
           {{"containers", Json::array({{{"name", "main"}, {"image", "postgres:16"}}})}}}}}}}};
  ASSERT_EQ(post("/apis/apps/v1/namespaces/default/statefulsets", sts)->status, 201);
  Json scale = parse(get("/apis/apps/v1/namespaces/default/statefulsets/db/scale")->body);
  EXPECT_EQ(scale["kind"], "Scale");
  EXPECT_EQ(scale["spec"]["replicas"], 3);
  EXPECT_EQ(scale["status"]["selector"], "app=db");

  auto table = get("/apis/apps/v1/namespaces/default/statefulsets",
                   {{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}});
  Json t = parse(table->body);
  std::vector<std::string> columns;
  for (const auto& c : t["columnDefinitions"]) columns.push_back(c["name"]);
  EXPECT_EQ(columns, (std::vector<std::string>{"Name", "Ready", "Age", "Containers", "Images"}));
  EXPECT_EQ(t["rows"][0]["cells"][1], "0/3");
  EXPECT_EQ(t["rows"][0]["cells"][4], "postgres:16");
}

TEST_F(BuiltinApiTest, ReplicationControllerScaleCarriesItsMapSelector) {
  Json rc = {
      {"apiVersion", "v1"},
      {"kind", "ReplicationController"},
      {"metadata", {{"name", "old"}, {"namespace", "default"}}},
      {"spec",
       {{"replicas", 2},
        {"template",
         {{"metadata", {{"labels", {{"app", "old"}}}}},
          {"spec", {{"containers", Json::array({{{"name", "main"}, {"image", "nginx"}}})}}}}}}}};
  ASSERT_EQ(post("/api/v1/namespaces/default/replicationcontrollers", rc)->status, 201);
  Json scale = parse(get("/api/v1/namespaces/default/replicationcontrollers/old/scale")->body);
  EXPECT_EQ(scale["spec"]["replicas"], 2);
  EXPECT_EQ(scale["status"]["selector"], "app=old");
}

TEST_F(BuiltinApiTest, RoleBindingAndCronJobTables) {
  Json binding = {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "RoleBinding"},
      {"metadata", {{"name", "read"}, {"namespace", "default"}}},
      {"roleRef",
       {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "reader"}}},
      {"subjects",
       Json::array({{{"kind", "ServiceAccount"}, {"name", "default"}, {"namespace", "default"}}})}};
  ASSERT_EQ(
      post("/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", binding)->status,
      201);
  Json t = parse(get("/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/read",
                     {{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}})
                     ->body);
  EXPECT_EQ(t["rows"][0]["cells"],
            Json::array({"read", "Role/reader", "0s", "", "", "default/default"}));

  Json cron = {
      {"apiVersion", "batch/v1"},
      {"kind", "CronJob"},
      {"metadata", {{"name", "nightly"}, {"namespace", "default"}}},
      {"spec",
       {{"schedule", "0 3 * * *"},
        {"jobTemplate",
         {{"spec",
           {{"template",
             {{"spec",
               {{"restartPolicy", "Never"},
                {"containers", Json::array({{{"name", "main"}, {"image", "busybox"}}})}}}}}}}}}}}};
  ASSERT_EQ(post("/apis/batch/v1/namespaces/default/cronjobs", cron)->status, 201);
  Json ct = parse(get("/apis/batch/v1/namespaces/default/cronjobs/nightly",
                      {{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}})
                      ->body);
  EXPECT_EQ(ct["rows"][0]["cells"][1], "0 3 * * *");
  EXPECT_EQ(ct["rows"][0]["cells"][2], "<none>");
  EXPECT_EQ(ct["rows"][0]["cells"][3], "False");
  EXPECT_EQ(ct["rows"][0]["cells"][4], 0);
  EXPECT_EQ(ct["rows"][0]["cells"][5], "<none>");
}

TEST_F(BuiltinApiTest, PrinterColumnsOfHelmChartKinds) {
  Json ingress = {
      {"apiVersion", "networking.k8s.io/v1"},
      {"kind", "Ingress"},
      {"metadata", {{"name", "web"}, {"namespace", "default"}}},
      {"spec",
       {{"ingressClassName", "nginx"},
        {"tls", Json::array({{{"hosts", Json::array({"a.example.com"})}}})},
        {"rules",
         Json::array(
             {{{"host", "a.example.com"},
               {"http",
                {{"paths", Json::array({{{"path", "/"},
                                         {"pathType", "Prefix"},
                                         {"backend",
                                          {{"service",
                                            {{"name", "web"}, {"port", {{"number", 80}}}}}}}}})}}}},
              {{"http",
                {{"paths",
                  Json::array(
                      {{{"path", "/"},
                        {"pathType", "Prefix"},
                        {"backend",
                         {{"service", {{"name", "web"}, {"port", {{"number", 80}}}}}}}}})}}}}})}}}};
  EXPECT_EQ(rowOf("/apis/networking.k8s.io/v1/namespaces/default/ingresses", ingress),
            Json::array({"web", "nginx", "a.example.com,*", "", "80, 443", "0s"}));

  Json pdb = {{"apiVersion", "policy/v1"},
              {"kind", "PodDisruptionBudget"},
              {"metadata", {{"name", "web"}, {"namespace", "default"}}},
              {"spec", {{"maxUnavailable", "25%"}, {"selector", {{"matchLabels", {{"a", "b"}}}}}}}};
  EXPECT_EQ(rowOf("/apis/policy/v1/namespaces/default/poddisruptionbudgets", pdb),
            Json::array({"web", "N/A", "25%", 0, "0s"}));

  Json hpa = {
      {"apiVersion", "autoscaling/v2"},
      {"kind", "HorizontalPodAutoscaler"},
      {"metadata", {{"name", "web"}, {"namespace", "default"}}},
      {"spec",
       {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "web"}}},
        {"maxReplicas", 4}}}};
  EXPECT_EQ(rowOf("/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers", hpa),
            Json::array({"web", "Deployment/web", "cpu: <unknown>/80%", "1", 4, 0, "0s"}));

  Json storageClass = {
      {"apiVersion", "storage.k8s.io/v1"},
      {"kind", "StorageClass"},
      {"metadata",
       {{"name", "standard"},
        {"annotations", {{"storageclass.kubernetes.io/is-default-class", "true"}}}}},
      {"provisioner", "rancher.io/local-path"},
      {"volumeBindingMode", "WaitForFirstConsumer"}};
  EXPECT_EQ(rowOf("/apis/storage.k8s.io/v1/storageclasses", storageClass),
            Json::array({"standard (default)", "rancher.io/local-path", "Delete",
                         "WaitForFirstConsumer", "false", "0s"}));

  Json job = {{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata", {{"name", "once"}, {"namespace", "default"}}},
              {"spec",
               {{"template",
                 {{"spec",
                   {{"restartPolicy", "Never"},
                    {"containers", Json::array({{{"name", "main"}, {"image", "busybox"}}})}}}}}}}};
  Json jobRow = rowOf("/apis/batch/v1/namespaces/default/jobs", job);
  EXPECT_EQ(jobRow[1], "Running");
  EXPECT_EQ(jobRow[2], "0/1");
  EXPECT_EQ(jobRow[3], "");
}

TEST_F(BuiltinApiTest, RequestLabelsFollowKubeApiserver) {
  auto labels = [](std::string method, std::string path,
                   std::vector<std::pair<std::string, std::string>> query = {},
                   std::string contentType = "") {
    RestRequest r;
    r.method = std::move(method);
    r.path = std::move(path);
    r.query = std::move(query);
    r.contentType = std::move(contentType);
    return requestLabels(r);
  };
  RequestLabels list = labels("GET", "/api/v1/namespaces/default/pods");
  EXPECT_EQ(list.verb, "LIST");
  EXPECT_EQ(list.scope, "namespace");
  EXPECT_EQ(list.resource, "pods");
  EXPECT_EQ(list.component, "apiserver");
  RequestLabels watch = labels("GET", "/apis/apps/v1/deployments", {{"watch", "true"}});
  EXPECT_EQ(watch.verb, "WATCH");
  EXPECT_EQ(watch.scope, "cluster");
  EXPECT_EQ(watch.group, "apps");
  RequestLabels status = labels("PUT", "/apis/apps/v1/namespaces/default/deployments/web/status");
  EXPECT_EQ(status.verb, "PUT");
  EXPECT_EQ(status.scope, "resource");
  EXPECT_EQ(status.subresource, "status");
  EXPECT_EQ(
      labels("PATCH", "/api/v1/namespaces/default/configmaps/c", {}, "application/apply-patch+yaml")
          .verb,
      "APPLY");
  EXPECT_EQ(labels("DELETE", "/api/v1/namespaces/default/configmaps").verb, "DELETECOLLECTION");
  EXPECT_EQ(labels("GET", "/api/v1/namespaces/kube-system").scope, "resource");
  RequestLabels health = labels("GET", "/healthz");
  EXPECT_EQ(health.subresource, "/healthz");
  EXPECT_EQ(health.component, "");
  EXPECT_EQ(health.verb, "GET");
}

TEST_F(BuiltinApiTest, MetricsCountServedRequests) {
  ASSERT_EQ(post("/api/v1/namespaces/default/configmaps", configMap("a"))->status, 201);
  ASSERT_EQ(get("/api/v1/namespaces/default/configmaps/a")->status, 200);
  ASSERT_EQ(get("/api/v1/namespaces/default/configmaps/missing")->status, 404);
  auto metrics = get("/metrics");
  ASSERT_EQ(metrics->status, 200);
  EXPECT_EQ(metrics->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string& text = metrics->body;
  EXPECT_NE(text.find("# TYPE apiserver_request_total counter"), std::string::npos);
  EXPECT_NE(text.find("apiserver_request_total{code=\"201\",component=\"apiserver\",dry_run=\"\","
                      "group=\"\",resource=\"configmaps\",scope=\"namespace\",subresource=\"\","
                      "verb=\"POST\",version=\"v1\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("apiserver_request_total{code=\"404\",component=\"apiserver\",dry_run=\"\","
                      "group=\"\",resource=\"configmaps\",scope=\"resource\",subresource=\"\","
                      "verb=\"GET\",version=\"v1\"} 1"),
            std::string::npos);
  EXPECT_NE(text.find("# TYPE apiserver_request_duration_seconds histogram"), std::string::npos);
  EXPECT_NE(text.find("apiserver_request_duration_seconds_count{component=\"apiserver\",dry_run="
                      "\"\",group=\"\",resource=\"configmaps\",scope=\"resource\",subresource="
                      "\"\",verb=\"GET\",version=\"v1\"} 2"),
            std::string::npos);
}

TEST_F(BuiltinApiTest, MetricsAppendWhatTheServerIsGiven) {
  http->stop();
  HttpServerOptions options;
  options.extraMetrics = [] {
    return std::string("# HELP controller_runtime_reconcile_total x\n");
  };
  startServer(std::move(options));
  EXPECT_NE(get("/metrics")->body.find("controller_runtime_reconcile_total"), std::string::npos);
  EXPECT_EQ(post("/metrics", Json::object())->status, 405);
}

}  // namespace
}  // namespace fakekube::httptest
