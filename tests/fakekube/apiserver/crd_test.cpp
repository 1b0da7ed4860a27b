// CustomResourceDefinitions: creating one makes its kind servable, deleting it stops serving it,
// an invalid one is refused, and a file-backed server serves it again after a restart.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "fakekube/api/resources.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

using CrdTest = ApiServerTest;

TEST_F(CrdTest, WidgetsAreNotServedBeforeTheirDefinition) {
  const std::int64_t before = server->revision();
  EXPECT_TRUE(failsWith(server->create(kWidgets, "default", widget("w1")), 404, "NotFound",
                        "the server could not find the requested resource"));
  EXPECT_TRUE(failsWith(server->list(kWidgets, "default"), 404, "NotFound",
                        "the server could not find the requested resource"));
  EXPECT_TRUE(isNotFound(server->resourceFor("example.com/v1", "Widget").error()));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(CrdTest, CreatingTheDefinitionMakesTheKindServable) {
  Json crd = installWidgetCrd();
  EXPECT_EQ(crd["metadata"]["generation"], 1);
  bool established = false;
  for (const auto& c : crd["status"]["conditions"]) {
    if (c["type"] == "Established" && c["status"] == "True") established = true;
  }
  EXPECT_TRUE(established) << crd["status"].dump();
  EXPECT_EQ(crd["status"]["storedVersions"], Json::array({"v1"}));

  auto gvr = server->resourceFor("example.com/v1", "Widget");
  ASSERT_TRUE(gvr);
  EXPECT_EQ(*gvr, kWidgets);

  Json w = create(kWidgets, widget("w1"));
  EXPECT_EQ(w["apiVersion"], "example.com/v1");
  EXPECT_EQ(w["kind"], "Widget");
  EXPECT_EQ(w["metadata"]["generation"], 1);
  EXPECT_EQ(w["spec"]["size"], 1);
  EXPECT_EQ(get(kWidgets, "default", "w1"), w);

  Json list = must(server->list(kWidgets, "default"));
  EXPECT_EQ(list["kind"], "WidgetList");
  EXPECT_EQ(list["apiVersion"], "example.com/v1");
  ASSERT_EQ(list["items"].size(), 1u);
  EXPECT_EQ(list["items"][0], w);

  EXPECT_TRUE(failsWith(server->get(kWidgets, "default", "nope"), 404, "NotFound",
                        "widgets.example.com \"nope\" not found"));
  EXPECT_TRUE(failsWith(server->create(kWidgets, "", widget("w1")), 409, "AlreadyExists",
                        "widgets.example.com \"w1\" already exists"));
}

TEST_F(CrdTest, CustomResourcesFollowObjectMetadataRules) {
  installWidgetCrd();
  const std::int64_t before = server->revision();
  EXPECT_TRUE(failsWith(server->create(kWidgets, "", widget("w1", "nope")), 404, "NotFound",
                        "namespaces \"nope\" not found"));
  auto bad = server->create(kWidgets, "", widget("W1"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, 422);
  EXPECT_EQ(bad.error().message.rfind(
                "Widget.example.com \"W1\" is invalid: metadata.name: Invalid value: \"W1\": a "
                "lowercase RFC 1123 subdomain",
                0),
            0u)
      << bad.error().message;
  EXPECT_EQ(bad.error().details.group, "example.com");
  EXPECT_EQ(bad.error().details.kind, "Widget");
  EXPECT_EQ(server->revision(), before);
}

TEST_F(CrdTest, DeletingTheDefinitionStopsServingTheKind) {
  Json crd = installWidgetCrd();
  create(kWidgets, widget("w1"));
  Json answer = remove(kCustomResourceDefinitions, "", "widgets.example.com");
  EXPECT_EQ(answer["status"], "Success");
  EXPECT_EQ(answer["details"]["name"], "widgets.example.com");
  EXPECT_EQ(answer["details"]["group"], "apiextensions.k8s.io");
  EXPECT_EQ(answer["details"]["kind"], "customresourcedefinitions");
  EXPECT_EQ(answer["details"]["uid"], meta::uid(crd));

  const std::int64_t before = server->revision();
  EXPECT_TRUE(failsWith(server->get(kWidgets, "default", "w1"), 404, "NotFound",
                        "the server could not find the requested resource"));
  EXPECT_TRUE(failsWith(server->create(kWidgets, "", widget("w2")), 404, "NotFound",
                        "the server could not find the requested resource"));
  EXPECT_FALSE(server->resourceFor("example.com/v1", "Widget"));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(CrdTest, InstancesGoWithTheirDefinitionAndDoNotComeBack) {
  installWidgetCrd();
  create(kWidgets, widget("w1"));
  create(kWidgets, widget("w2"));
  create(kConfigMaps, configMap("unrelated"));
  remove(kCustomResourceDefinitions, "", "widgets.example.com");

  // A new definition of the same kind starts empty, as on a real cluster (whose CRD cleanup
  // finalizer deletes the instances before the definition goes).
  installWidgetCrd();
  Json list = must(server->list(kWidgets, ""));
  EXPECT_TRUE(list["items"].empty()) << list["items"].dump();
  EXPECT_TRUE(isNotFound(server->get(kWidgets, "default", "w1")));
  EXPECT_TRUE(server->create(kWidgets, "", widget("w1")));
  EXPECT_TRUE(server->get(kConfigMaps, "default", "unrelated"));
}

TEST_F(CrdTest, DefinitionNameMustBePluralDotGroup) {
  const std::int64_t before = server->revision();
  Json crd = widgetCrd();
  crd["metadata"]["name"] = "gadgets.example.com";
  auto r = server->create(kCustomResourceDefinitions, "", crd);
  EXPECT_TRUE(failsWith(r, 422, "Invalid",
                        "CustomResourceDefinition.apiextensions.k8s.io \"gadgets.example.com\" is "
                        "invalid: metadata.name: Invalid value: \"gadgets.example.com\": must be "
                        "spec.names.plural+\".\"+spec.group"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().details.group, "apiextensions.k8s.io");
  EXPECT_EQ(r.error().details.kind, "CustomResourceDefinition");
  EXPECT_EQ(server->revision(), before);
  EXPECT_FALSE(server->resourceFor("example.com/v1", "Widget"));
}

TEST_F(CrdTest, ADefinitionCannotShadowABuiltInKind) {
  const std::int64_t before = server->revision();
  Json crd = widgetCrd();
  crd["metadata"]["name"] = "deployments.apps";
  crd["spec"]["group"] = "apps";
  crd["spec"]["names"] = {{"plural", "deployments"}, {"kind", "Deployment"}};
  auto r = server->create(kCustomResourceDefinitions, "", crd);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, 422);
  EXPECT_EQ(server->revision(), before);
  // Deployments are still the built-in kind.
  EXPECT_FALSE(server->registry().find("apps", "deployments")->custom);
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = "/tmp/fakekube-crd-test-XXXXXX";
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST_F(CrdTest, AFileBackedServerServesItsCustomKindsAfterARestart) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  ApiServerOptions options;
  options.seed = 1;
  options.store.path = dir.path() + "/server.db";
  std::int64_t revision = 0;
  std::string uid;
  {
    auto first = must(ApiServer::open(ex.clock(), options), "open");
    must(first->create(kCustomResourceDefinitions, "", widgetCrd()), "crd");
    uid = meta::uid(must(first->create(kWidgets, "", widget("w1")), "widget"));
    revision = first->revision();
  }
  auto second = must(ApiServer::open(ex.clock(), options), "reopen");
  EXPECT_EQ(second->revision(), revision) << "system namespaces are not re-created";
  Json w = must(second->get(kWidgets, "default", "w1"), "get");
  EXPECT_EQ(meta::uid(w), uid);
  Json next = must(second->create(kWidgets, "", widget("w2")), "widget");
  EXPECT_EQ(rvNumber(next), revision + 1);
}

}  // namespace
}  // namespace fakekube::apitest
