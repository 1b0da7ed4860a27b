// /version, health, discovery and OpenAPI v3 over HTTP: what kubectl reads before anything else.
#include <algorithm>

#include "http_fixture.h"

namespace fakekube::httptest {
namespace {

using DiscoveryTest = HttpTest;

const Json* findResource(const Json& list, const std::string& name) {
  for (const auto& r : list["resources"]) {
    if (r["name"] == name) return &r;
  }
  return nullptr;
}

TEST_F(DiscoveryTest, VersionAndHealth) {
  auto version = get("/version");
  ASSERT_TRUE(version);
  EXPECT_EQ(version->status, 200);
  EXPECT_EQ(version->get_header_value("Content-Type"), "application/json");
  Json v = parse(version->body);
  EXPECT_EQ(v["major"], "1");
  EXPECT_EQ(v["minor"], "32");
  EXPECT_EQ(v["gitVersion"], "v1.32.0-fakekube");
  EXPECT_EQ(v["platform"], "linux/amd64");
  for (const char* path : {"/healthz", "/readyz", "/livez"}) {
    auto health = get(path);
    ASSERT_TRUE(health);
    EXPECT_EQ(health->status, 200) << path;
    EXPECT_EQ(health->body, "ok") << path;
  }
}

TEST_F(DiscoveryTest, CoreGroupListsResourcesWithShortNamesCategoriesAndSubresources) {
  Json versions = parse(get("/api")->body);
  EXPECT_EQ(versions["kind"], "APIVersions");
  EXPECT_EQ(versions["versions"], Json::array({"v1"}));

  auto response = get("/api/v1");
  ASSERT_EQ(response->status, 200);
  Json list = parse(response->body);
  EXPECT_EQ(list["kind"], "APIResourceList");
  EXPECT_EQ(list["groupVersion"], "v1");
  const Json* pods = findResource(list, "pods");
  ASSERT_NE(pods, nullptr);
  EXPECT_EQ((*pods)["singularName"], "pod");
  EXPECT_EQ((*pods)["namespaced"], true);
  EXPECT_EQ((*pods)["kind"], "Pod");
  EXPECT_EQ((*pods)["shortNames"], Json::array({"po"}));
  EXPECT_EQ((*pods)["categories"], Json::array({"all"}));
  EXPECT_EQ((*pods)["verbs"], Json::array({"create", "delete", "deletecollection", "get", "list",
                                           "patch", "update", "watch"}));
  ASSERT_NE(findResource(list, "pods/status"), nullptr);
  EXPECT_EQ((*findResource(list, "pods/binding"))["kind"], "Binding");
  EXPECT_EQ((*findResource(list, "namespaces/finalize"))["verbs"], Json::array({"update"}));
  EXPECT_EQ((*findResource(list, "namespaces"))["namespaced"], false);
  EXPECT_EQ((*findResource(list, "configmaps"))["shortNames"], Json::array({"cm"}));
  EXPECT_EQ(findResource(list, "configmaps/status"), nullptr);
}

TEST_F(DiscoveryTest, GroupsListBuiltinsAndACustomResourceDefinitionAppearsWhenCreated) {
  Json groups = parse(get("/apis")->body);
  EXPECT_EQ(groups["kind"], "APIGroupList");
  auto hasGroup = [](const Json& list, const std::string& name) {
    return std::any_of(list["groups"].begin(), list["groups"].end(),
                       [&](const Json& g) { return g["name"] == name; });
  };
  EXPECT_TRUE(hasGroup(groups, "apps"));
  EXPECT_TRUE(hasGroup(groups, "apiextensions.k8s.io"));
  EXPECT_FALSE(hasGroup(groups, "example.com"));
  EXPECT_EQ(get("/apis/example.com/v1")->status, 404);

  Json apps = parse(get("/apis/apps/v1")->body);
  EXPECT_EQ(apps["groupVersion"], "apps/v1");
  EXPECT_EQ((*findResource(apps, "deployments"))["shortNames"], Json::array({"deploy"}));
  EXPECT_NE(findResource(apps, "deployments/status"), nullptr);

  auto created = post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", widgetCrd());
  ASSERT_EQ(created->status, 201) << created->body;

  groups = parse(get("/apis")->body);
  ASSERT_TRUE(hasGroup(groups, "example.com"));
  Json group = parse(get("/apis/example.com")->body);
  EXPECT_EQ(group["kind"], "APIGroup");
  EXPECT_EQ(group["preferredVersion"]["groupVersion"], "example.com/v1");
  Json widgets = parse(get("/apis/example.com/v1")->body);
  const Json* entry = findResource(widgets, "widgets");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ((*entry)["kind"], "Widget");
  EXPECT_EQ((*entry)["shortNames"], Json::array({"wd"}));
  EXPECT_NE(findResource(widgets, "widgets/status"), nullptr);
}

TEST_F(DiscoveryTest, OpenApiV3AdvertisesFieldValidationOnEachKindsPatch) {
  Json index = parse(get("/openapi/v3")->body);
  ASSERT_TRUE(index["paths"].contains("api/v1"));
  ASSERT_TRUE(index["paths"].contains("apis/apps/v1"));
  const std::string url = index["paths"]["api/v1"]["serverRelativeURL"];
  EXPECT_EQ(url.rfind("/openapi/v3/api/v1?hash=", 0), 0u) << url;

  auto response = get(url);
  ASSERT_EQ(response->status, 200);
  Json doc = parse(response->body);
  EXPECT_EQ(doc["openapi"], "3.0.0");
  const Json& patchOp = doc["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"]["patch"];
  EXPECT_EQ(patchOp["x-kubernetes-group-version-kind"],
            Json({{"group", ""}, {"version", "v1"}, {"kind", "ConfigMap"}}));
  bool fieldValidation = false;
  for (const auto& p : patchOp["parameters"]) fieldValidation |= p["name"] == "fieldValidation";
  EXPECT_TRUE(fieldValidation);
  EXPECT_TRUE(doc["paths"].contains("/api/v1/namespaces/{name}"));  // cluster-scoped

  EXPECT_EQ(get("/openapi/v3/apis/example.com/v1")->status, 404);
  // Swagger 2.0 to JSON clients (builtin_api_test.cpp has the details).
  EXPECT_EQ(parse(get("/openapi/v2")->body)["swagger"], "2.0");
}

}  // namespace
}  // namespace fakekube::httptest
