// Every verb over HTTP on core and group kinds, the patch content types, delete options, dryRun,
// and the Status errors the transport and the handler answer.
#include "fakekube/api/object_meta.h"
#include "http_fixture.h"

namespace fakekube::httptest {
namespace {

using CrudTest = HttpTest;

const std::string kDeploymentsPath = "/apis/apps/v1/namespaces/default/deployments";

TEST_F(CrudTest, CreateGetListUpdateDeleteAConfigMap) {
  auto created = post(kConfigMapsPath, configMap("c1"));
  ASSERT_EQ(created->status, 201) << created->body;
  EXPECT_EQ(created->get_header_value("Content-Type"), "application/json");
  Json object = parse(created->body);
  EXPECT_EQ(object["metadata"]["name"], "c1");
  EXPECT_FALSE(meta::uid(object).empty());

  auto fetched = get(kConfigMapsPath + "/c1");
  ASSERT_EQ(fetched->status, 200);
  EXPECT_EQ(parse(fetched->body), object);

  object["data"]["key"] = "changed";
  auto updated = put(kConfigMapsPath + "/c1", object);
  ASSERT_EQ(updated->status, 200) << updated->body;
  EXPECT_EQ(parse(updated->body)["data"]["key"], "changed");

  // A stale resourceVersion: 409 Conflict with Kubernetes' message.
  auto stale = put(kConfigMapsPath + "/c1", object);
  EXPECT_TRUE(answeredStatus(
      stale, 409, "Conflict",
      "Operation cannot be fulfilled on configmaps \"c1\": the object has been modified; "
      "please apply your changes to the latest version and try again"));

  Json list = parse(get(kConfigMapsPath)->body);
  EXPECT_EQ(list["kind"], "ConfigMapList");
  EXPECT_EQ(list["apiVersion"], "v1");
  EXPECT_FALSE(list["metadata"]["resourceVersion"].get<std::string>().empty());
  ASSERT_EQ(list["items"].size(), 1u);

  auto deleted = client->Delete(kConfigMapsPath + "/c1");
  ASSERT_EQ(deleted->status, 200) << deleted->body;
  Json success = parse(deleted->body);
  EXPECT_EQ(success["status"], "Success");
  EXPECT_EQ(success["details"]["name"], "c1");
  auto missing = get(kConfigMapsPath + "/c1");
  ASSERT_EQ(missing->status, 404);
  EXPECT_EQ(status(missing)["message"], "configmaps \"c1\" not found");
}

TEST_F(CrudTest, GroupKindsClusterScopedKindsAndAllNamespacesLists) {
  ASSERT_EQ(post(kDeploymentsPath, deployment("web"))->status, 201);
  ASSERT_EQ(
      post("/api/v1/namespaces",
           Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "team"}}}})
          ->status,
      201);
  ASSERT_EQ(post("/apis/apps/v1/namespaces/team/deployments", deployment("api", "team"))->status,
            201);
  Json web = parse(get(kDeploymentsPath + "/web")->body);
  EXPECT_EQ(web["kind"], "Deployment");
  EXPECT_EQ(web["metadata"]["generation"], 1);

  Json all = parse(get("/apis/apps/v1/deployments")->body);
  EXPECT_EQ(all["items"].size(), 2u);
  Json team = parse(get("/api/v1/namespaces/team")->body);
  EXPECT_EQ(team["kind"], "Namespace");
  // Writes need the namespaced path; the all-namespaces one serves reads only.
  EXPECT_EQ(post("/apis/apps/v1/deployments", deployment("x"))->status, 405);
  // A cluster-scoped kind under a namespace, a namespaced item without one: not served.
  EXPECT_EQ(get("/api/v1/namespaces/default/nodes")->status, 404);
  EXPECT_EQ(get("/apis/apps/v1/deployments/web")->status, 404);
}

TEST_F(CrudTest, EveryPatchTypeMapsToItsApiServerPatch) {
  ASSERT_EQ(post(kConfigMapsPath, configMap("c1"))->status, 201);

  auto merge = patch(kConfigMapsPath + "/c1", R"({"data":{"merged":"yes"}})",
                     "application/merge-patch+json");
  ASSERT_EQ(merge->status, 200) << merge->body;
  EXPECT_EQ(parse(merge->body)["data"]["merged"], "yes");

  auto json = patch(kConfigMapsPath + "/c1", R"([{"op":"add","path":"/data/json","value":"1"}])",
                    "application/json-patch+json");
  ASSERT_EQ(json->status, 200) << json->body;
  EXPECT_EQ(parse(json->body)["data"]["json"], "1");

  // Strategic merge and apply reach ApiServer::patch with their own types: the answer is
  // whatever the API server makes of them, never this layer's "unknown format" 415.
  for (const char* type :
       {"application/strategic-merge-patch+json", "application/apply-patch+yaml"}) {
    auto response = patch(kConfigMapsPath + "/c1?fieldManager=kubectl&force=true",
                          R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c1"},)"
                          R"("data":{"x":"y"}})",
                          type);
    ASSERT_TRUE(response);
    if (response->status >= 400) {
      EXPECT_EQ(status(response)["message"].get<std::string>().find("unknown format"),
                std::string::npos)
          << type << ": " << response->body;
    }
  }

  auto unknown = patch(kConfigMapsPath + "/c1", "{}", "text/plain");
  ASSERT_EQ(unknown->status, 415);
  EXPECT_EQ(status(unknown)["reason"], "UnsupportedMediaType");
  auto missing = patch(kConfigMapsPath + "/nope", "{}", "application/merge-patch+json");
  EXPECT_EQ(missing->status, 404);

  // Custom resources refuse strategic merge.
  ASSERT_NO_FATAL_FAILURE(installWidgetCrd());
  ASSERT_EQ(post("/apis/example.com/v1/namespaces/default/widgets", widget("w1"))->status, 201);
  auto smp = patch("/apis/example.com/v1/namespaces/default/widgets/w1", R"({"spec":{}})",
                   "application/strategic-merge-patch+json");
  EXPECT_EQ(smp->status, 415);
}

TEST_F(CrudTest, ApplyPatchBodiesAreYaml) {
  // What kubectl apply --server-side would send, had it sent YAML: the server reads it as JSON
  // before the API server sees it, so a patch type the API server handles gets the same document.
  ASSERT_EQ(post(kConfigMapsPath, configMap("c1"))->status, 201);
  auto response = patch(kConfigMapsPath + "/c1?fieldManager=test",
                        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c1\ndata:\n  a: b\n",
                        "application/apply-patch+yaml");
  ASSERT_TRUE(response);
  if (response->status >= 400) {
    // Not a YAML decoding failure.
    EXPECT_EQ(status(response)["message"].get<std::string>().find("YAML"), std::string::npos);
  }
  auto broken = patch(kConfigMapsPath + "/c1?fieldManager=test", "a: [unclosed",
                      "application/apply-patch+yaml");
  EXPECT_EQ(broken->status, 400);
}

TEST_F(CrudTest, DeleteOptionsFromTheBodyAndFromTheQuery) {
  ASSERT_EQ(post(kConfigMapsPath, configMap("c1"))->status, 201);
  ASSERT_EQ(post(kConfigMapsPath, configMap("c2"))->status, 201);

  // A precondition in the body that does not hold: 409, nothing deleted.
  auto refused = client->Delete(
      kConfigMapsPath + "/c1",
      R"({"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"not-it"}})",
      "application/json");
  ASSERT_EQ(refused->status, 409) << refused->body;
  EXPECT_EQ(get(kConfigMapsPath + "/c1")->status, 200);

  // Orphan in the body leaves the object with the orphan finalizer while it waits.
  auto orphan = client->Delete(kConfigMapsPath + "/c1", R"({"propagationPolicy":"Orphan"})",
                               "application/json");
  ASSERT_EQ(orphan->status, 200) << orphan->body;
  Json waiting = parse(orphan->body);
  EXPECT_EQ(waiting["kind"], "ConfigMap");
  EXPECT_EQ(waiting["metadata"]["finalizers"], Json::array({"orphan"}));

  // Foreground from the query.
  auto foreground = client->Delete(kConfigMapsPath + "/c2?propagationPolicy=Foreground");
  ASSERT_EQ(foreground->status, 200) << foreground->body;
  EXPECT_EQ(parse(foreground->body)["metadata"]["finalizers"], Json::array({"foregroundDeletion"}));

  auto invalid = client->Delete(kConfigMapsPath + "/c2?propagationPolicy=Sideways");
  EXPECT_EQ(invalid->status, 422);
  auto badBody = client->Delete(kConfigMapsPath + "/c2", "{nope", "application/json");
  EXPECT_EQ(badBody->status, 400);
}

TEST_F(CrudTest, DeleteCollectionDeletesWhatTheSelectorSelects) {
  Json a = configMap("a");
  a["metadata"]["labels"] = {{"app", "x"}};
  ASSERT_EQ(post(kConfigMapsPath, a)->status, 201);
  ASSERT_EQ(post(kConfigMapsPath, configMap("b"))->status, 201);
  auto deleted = client->Delete(kConfigMapsPath + "?labelSelector=app%3Dx");
  ASSERT_EQ(deleted->status, 200) << deleted->body;
  EXPECT_EQ(parse(deleted->body)["items"].size(), 1u);
  EXPECT_EQ(get(kConfigMapsPath + "/a")->status, 404);
  EXPECT_EQ(get(kConfigMapsPath + "/b")->status, 200);
}

TEST_F(CrudTest, DryRunAnswersButLeavesTheStoreUnchanged) {
  const std::int64_t before = api->revision();
  auto created = post(kConfigMapsPath + "?dryRun=All", configMap("dry"));
  ASSERT_EQ(created->status, 201) << created->body;
  EXPECT_EQ(parse(created->body)["metadata"]["name"], "dry");
  EXPECT_EQ(get(kConfigMapsPath + "/dry")->status, 404);

  ASSERT_EQ(post(kConfigMapsPath, configMap("c1"))->status, 201);
  const std::int64_t afterCreate = api->revision();
  auto patched = patch(kConfigMapsPath + "/c1?dryRun=All", R"({"data":{"key":"dry"}})",
                       "application/merge-patch+json");
  ASSERT_EQ(patched->status, 200);
  EXPECT_EQ(parse(patched->body)["data"]["key"], "dry");
  auto deleted = client->Delete(kConfigMapsPath + "/c1?dryRun=All");
  ASSERT_EQ(deleted->status, 200);
  EXPECT_EQ(parse(get(kConfigMapsPath + "/c1")->body)["data"]["key"], "value");
  EXPECT_EQ(api->revision(), afterCreate);
  EXPECT_EQ(afterCreate, before + 1);

  EXPECT_EQ(post(kConfigMapsPath + "?dryRun=Some", configMap("x"))->status, 422);
}

TEST_F(CrudTest, FieldValidationStrictRefusesUnknownFieldsIgnoreDropsThem) {
  Json cm = configMap("c1");
  cm["unknownField"] = {{"nested", 1}};
  EXPECT_EQ(post(kConfigMapsPath + "?fieldValidation=Strict", cm)->status, 400);
  auto ignored = post(kConfigMapsPath + "?fieldValidation=Ignore", cm);
  ASSERT_EQ(ignored->status, 201) << ignored->body;
  EXPECT_FALSE(parse(ignored->body).contains("unknownField"));
  EXPECT_EQ(post(kConfigMapsPath + "?fieldValidation=Loose", configMap("c2"))->status, 422);
}

TEST_F(CrudTest, StatusFinalizeAndBindingSubresources) {
  ASSERT_EQ(post(kDeploymentsPath, deployment("web"))->status, 201);
  Json d = parse(get(kDeploymentsPath + "/web/status")->body);
  d["status"] = {{"replicas", 3}, {"readyReplicas", 2}};
  d["spec"]["replicas"] = 9;  // ignored by …/status
  auto updated = put(kDeploymentsPath + "/web/status", d);
  ASSERT_EQ(updated->status, 200) << updated->body;
  EXPECT_EQ(parse(updated->body)["status"]["readyReplicas"], 2);
  EXPECT_EQ(parse(updated->body)["spec"]["replicas"], 3);
  auto patched = patch(kDeploymentsPath + "/web/status", R"({"status":{"readyReplicas":3}})",
                       "application/merge-patch+json");
  ASSERT_EQ(patched->status, 200);
  EXPECT_EQ(parse(patched->body)["status"]["readyReplicas"], 3);
  EXPECT_EQ(client->Delete(kDeploymentsPath + "/web/status")->status, 405);
  EXPECT_EQ(get(kConfigMapsPath + "/x/status")->status, 404);  // configmaps have no status

  ASSERT_EQ(post("/api/v1/namespaces/default/pods", pod("p1"))->status, 201);
  auto bound = post("/api/v1/namespaces/default/pods/p1/binding",
                    Json{{"apiVersion", "v1"},
                         {"kind", "Binding"},
                         {"metadata", {{"name", "p1"}}},
                         {"target", {{"kind", "Node"}, {"name", "node-1"}}}});
  ASSERT_EQ(bound->status, 201) << bound->body;
  EXPECT_EQ(parse(get("/api/v1/namespaces/default/pods/p1")->body)["spec"]["nodeName"], "node-1");

  ASSERT_EQ(
      post("/api/v1/namespaces",
           Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "gone"}}}})
          ->status,
      201);
  ASSERT_EQ(client->Delete("/api/v1/namespaces/gone")->status, 200);
  Json ns = parse(get("/api/v1/namespaces/gone")->body);
  ns["spec"]["finalizers"] = Json::array();
  auto finalized = put("/api/v1/namespaces/gone/finalize", ns);
  ASSERT_EQ(finalized->status, 200) << finalized->body;
}

TEST_F(CrudTest, ListWithLimitAndContinue) {
  for (const char* name : {"a", "b", "c", "d", "e"}) {
    ASSERT_EQ(post(kConfigMapsPath, configMap(name))->status, 201);
  }
  std::vector<std::string> names;
  std::string next = kConfigMapsPath + "?limit=2";
  int pages = 0;
  while (true) {
    Json page = parse(get(next)->body);
    ++pages;
    for (const auto& item : page["items"]) names.push_back(item["metadata"]["name"]);
    const std::string token = page["metadata"].value("continue", "");
    if (token.empty()) break;
    next = kConfigMapsPath + "?limit=2&continue=" + httplib::detail::encode_query_param(token);
  }
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  EXPECT_EQ(get(kConfigMapsPath + "?limit=x")->status, 400);
}

TEST_F(CrudTest, TransportAndRoutingErrorsAreStatusDocuments) {
  // Malformed JSON: 400.
  auto malformed = client->Post(kConfigMapsPath, "{\"metadata\":", "application/json");
  ASSERT_EQ(malformed->status, 400);
  EXPECT_EQ(status(malformed)["reason"], "BadRequest");

  // Over the body limit: 413 with Kubernetes' message.
  Json big = configMap("big");
  big["data"]["blob"] = std::string(3 * 1024 * 1024 + 1, 'x');
  auto tooLarge = post(kConfigMapsPath, big);
  EXPECT_TRUE(answeredStatus(tooLarge, 413, "RequestEntityTooLarge",
                             "Request entity too large: limit is 3145728"));

  // Unknown paths and kinds: 404 with the API server's message.
  for (const char* path : {"/nope", "/api/v2/pods", "/api/v1/widgets", "/apis/nope/v1",
                           "/api/v1/namespaces/default/configmaps/a/b/c"}) {
    auto response = get(path);
    ASSERT_EQ(response->status, 404) << path;
    EXPECT_EQ(status(response)["message"], "the server could not find the requested resource");
  }

  // A method the path does not serve: 405.
  auto wrongMethod = post(kConfigMapsPath + "/c1", configMap("c1"));
  ASSERT_EQ(wrongMethod->status, 405);
  EXPECT_EQ(status(wrongMethod)["reason"], "MethodNotAllowed");
  EXPECT_EQ(client->Delete("/version")->status, 405);
  EXPECT_EQ(client->Options(kConfigMapsPath)->status, 405);

  // Name on the URL and in the body differ: 400.
  ASSERT_EQ(post(kConfigMapsPath, configMap("c1"))->status, 201);
  EXPECT_EQ(put(kConfigMapsPath + "/c1", configMap("other"))->status, 400);
  // Unsupported body media type: 415; a protobuf body that is not one: 400.
  EXPECT_EQ(client->Post(kConfigMapsPath, "x", "application/cbor")->status, 415);
  EXPECT_EQ(client->Post(kConfigMapsPath, "x", "application/vnd.kubernetes.protobuf")->status, 400);
}

TEST_F(CrudTest, YamlBodiesAreAcceptedOnCreate) {
  auto created = client->Post(kConfigMapsPath,
                              "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\ndata:\n"
                              "  port: \"80\"\n  enabled: \"true\"\n",
                              "application/yaml");
  ASSERT_EQ(created->status, 201) << created->body;
  EXPECT_EQ(parse(created->body)["data"]["port"], "80");
}

class AuthTest : public HttpTest {
 protected:
  void SetUp() override {
    HttpServerOptions options;
    options.bearerToken = "s3cret";
    startServer(std::move(options));
  }
};

TEST_F(AuthTest, RequestsWithoutTheBearerTokenAre401) {
  auto anonymous = get("/api/v1/namespaces/default/configmaps");
  EXPECT_TRUE(answeredStatus(anonymous, 401, "Unauthorized", "Unauthorized"));
  EXPECT_EQ(get("/version", {{"Authorization", "Bearer wrong"}})->status, 401);
  EXPECT_EQ(client->Post(kConfigMapsPath, configMap("c1").dump(), "application/json")->status, 401);

  auto authorized =
      get("/api/v1/namespaces/default/configmaps", {{"Authorization", "Bearer s3cret"}});
  EXPECT_EQ(authorized->status, 200);
  client->set_bearer_token_auth("s3cret");
  EXPECT_EQ(post(kConfigMapsPath, configMap("c1"))->status, 201);
}

TEST_F(CrudTest, TooManyRequestsCarriesRetryAfter) {
  class Throttle : public Interceptor {
   public:
    std::optional<Status> before(const Request&) override {
      return Status::tooManyRequests("slow down", 3);
    }
  };
  auto throttle = std::make_shared<Throttle>();
  api->addInterceptor(throttle);
  auto response = get(kConfigMapsPath);
  api->removeInterceptor(throttle.get());
  ASSERT_EQ(response->status, 429);
  EXPECT_EQ(status(response)["reason"], "TooManyRequests");
  EXPECT_EQ(response->get_header_value("Retry-After"), "3");
}

TEST_F(CrudTest, RequestLogSeesEveryRequest) {
  std::mutex mu;
  std::vector<HttpRequestLog> entries;
  http->stop();
  HttpServerOptions options;
  options.requestLog = [&](const HttpRequestLog& entry) {
    std::lock_guard lock(mu);
    entries.push_back(entry);
  };
  startServer(std::move(options));
  ASSERT_EQ(get("/version")->status, 200);
  ASSERT_EQ(get("/nope")->status, 404);
  http->stop();  // joins the connection threads: every entry is written
  ASSERT_EQ(entries.size(), 2u);
  // Each request came on a connection of its own, served by a thread of its own: the two entries
  // may be logged in either order.
  if (entries[0].target != "/version") std::swap(entries[0], entries[1]);
  EXPECT_EQ(entries[0].method, "GET");
  EXPECT_EQ(entries[0].target, "/version");
  EXPECT_EQ(entries[0].status, 200);
  EXPECT_EQ(entries[1].target, "/nope");
  EXPECT_EQ(entries[1].status, 404);
}

const std::string kScaleDeployments = "/apis/apps/v1/namespaces/default/deployments";

TEST_F(CrudTest, TheScaleSubresourceReadsAndWritesReplicas) {
  ASSERT_EQ(post(kScaleDeployments, deployment("web"))->status, 201);
  auto got = get(kScaleDeployments + "/web/scale");
  ASSERT_EQ(got->status, 200) << got->body;
  Json scale = parse(got->body);
  EXPECT_EQ(scale["apiVersion"], "autoscaling/v1");
  EXPECT_EQ(scale["kind"], "Scale");
  EXPECT_EQ(scale["metadata"]["name"], "web");
  EXPECT_EQ(scale["spec"]["replicas"],
            parse(get(kScaleDeployments + "/web")->body)["spec"]["replicas"]);
  EXPECT_EQ(scale["status"]["selector"], "app=web");

  // kubectl scale sends a merge patch to …/scale.
  auto patched = patch(kScaleDeployments + "/web/scale", R"({"spec":{"replicas":4}})",
                       "application/merge-patch+json");
  ASSERT_EQ(patched->status, 200) << patched->body;
  EXPECT_EQ(parse(patched->body)["spec"]["replicas"], 4);
  EXPECT_EQ(parse(get(kScaleDeployments + "/web")->body)["spec"]["replicas"], 4);

  // PUT with a stale resourceVersion is a conflict, as on the object.
  scale["spec"]["replicas"] = 5;
  auto stale = put(kScaleDeployments + "/web/scale", scale);
  EXPECT_EQ(stale->status, 409) << stale->body;
  scale["metadata"].erase("resourceVersion");
  auto put5 = put(kScaleDeployments + "/web/scale", scale);
  ASSERT_EQ(put5->status, 200) << put5->body;
  EXPECT_EQ(parse(get(kScaleDeployments + "/web")->body)["spec"]["replicas"], 5);

  // Bad input leaves the object alone.
  const std::string before =
      parse(get(kScaleDeployments + "/web")->body)["metadata"]["resourceVersion"];
  auto negative = patch(kScaleDeployments + "/web/scale", R"({"spec":{"replicas":-1}})",
                        "application/merge-patch+json");
  EXPECT_EQ(negative->status, 422);
  EXPECT_EQ(parse(negative->body)["message"],
            "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be "
            "greater than or equal to 0");
  EXPECT_EQ(get(kScaleDeployments + "/missing/scale")->status, 404);
  EXPECT_EQ(get("/api/v1/namespaces/default/configmaps/c1/scale")->status, 404);
  EXPECT_EQ(parse(get(kScaleDeployments + "/web")->body)["metadata"]["resourceVersion"], before);

  // Discovery lists it, in the autoscaling group.
  Json apps = parse(get("/apis/apps/v1")->body);
  bool listed = false;
  for (const auto& r : apps["resources"]) {
    if (r["name"] == "deployments/scale") {
      listed = true;
      EXPECT_EQ(r["group"], "autoscaling");
      EXPECT_EQ(r["kind"], "Scale");
    }
  }
  EXPECT_TRUE(listed);
}

}  // namespace
}  // namespace fakekube::httptest
