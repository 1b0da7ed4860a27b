// Unknown fields of built-in kinds over HTTP: dropped from every write, and answered as
// kube-apiserver answers them — a `Warning: 299 - "unknown field \"...\""` header each under
// fieldValidation=Warn (the default), a 400 (a 422 for a patch) under Strict, nothing under Ignore,
// and a 500 from server-side apply whatever fieldValidation says.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "http_fixture.h"

namespace fakekube::httptest {
namespace {

const std::string kTypoPodsPath = "/api/v1/namespaces/default/pods";

std::vector<std::string> warnings(const httplib::Result& result) {
  std::vector<std::string> out;
  const std::size_t n = result->get_header_value_count("Warning");
  for (std::size_t i = 0; i < n; ++i) out.push_back(result->get_header_value("Warning", i));
  return out;
}

Json misspeltPod() {
  Json p = pod("web");
  p["spec"]["containers"][0]["imagePullPolizy"] = "Always";
  p["bogus"] = 1;
  return p;
}

using UnknownFieldsHttpTest = HttpTest;

TEST_F(UnknownFieldsHttpTest, PostWarnsWithWarningHeadersAndDrops) {
  auto created = post(kTypoPodsPath, misspeltPod());
  ASSERT_EQ(created->status, 201) << created->body;
  EXPECT_EQ(warnings(created),
            (std::vector<std::string>{
                R"(299 - "unknown field \"bogus\"")",
                R"(299 - "unknown field \"spec.containers[0].imagePullPolizy\"")"}));
  Json stored = parse(get(kTypoPodsPath + "/web")->body);
  EXPECT_FALSE(stored.contains("bogus"));
  EXPECT_FALSE(stored["spec"]["containers"][0].contains("imagePullPolizy"));
}

TEST_F(UnknownFieldsHttpTest, PostStrictIsBadRequestWithStrictDecodingError) {
  auto refused = post(kTypoPodsPath + "?fieldValidation=Strict", misspeltPod());
  EXPECT_TRUE(answeredStatus(
      refused, 400, "BadRequest",
      "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown "
      "field \"bogus\", unknown field \"spec.containers[0].imagePullPolizy\""));
  EXPECT_EQ(get(kTypoPodsPath + "/web")->status, 404);
}

TEST_F(UnknownFieldsHttpTest, PostIgnoreDropsWithoutWarnings) {
  Json cm = configMap("c1");
  cm["unknownField"] = {{"nested", 1}};
  auto ignored = post(kConfigMapsPath + "?fieldValidation=Ignore", cm);
  ASSERT_EQ(ignored->status, 201) << ignored->body;
  EXPECT_FALSE(parse(ignored->body).contains("unknownField"));
  EXPECT_TRUE(warnings(ignored).empty());
}

TEST_F(UnknownFieldsHttpTest, PutWarnsAndDrops) {
  ASSERT_EQ(post(kConfigMapsPath, configMap("c1"))->status, 201);
  Json cm = parse(get(kConfigMapsPath + "/c1")->body);
  cm["extra"] = true;
  auto updated = put(kConfigMapsPath + "/c1", cm);
  ASSERT_EQ(updated->status, 200) << updated->body;
  EXPECT_EQ(warnings(updated), std::vector<std::string>{R"(299 - "unknown field \"extra\"")"});
  EXPECT_FALSE(parse(updated->body).contains("extra"));
}

TEST_F(UnknownFieldsHttpTest, EveryPatchTypeWarnsAndDrops) {
  ASSERT_EQ(post(kTypoPodsPath, pod("web"))->status, 201);
  struct Case {
    const char* contentType;
    std::string body;
    const char* warning;
  };
  const std::vector<Case> cases = {
      {"application/merge-patch+json", R"({"x": {"a": 1}})", R"(299 - "unknown field \"x\"")"},
      {"application/json-patch+json", R"([{"op": "add", "path": "/spec/bogus", "value": 1}])",
       R"(299 - "unknown field \"spec.bogus\"")"},
      {"application/strategic-merge-patch+json",
       R"({"spec": {"containers": [{"name": "main", "imagePullPolizy": "Always"}]}})",
       R"(299 - "unknown field \"spec.containers[0].imagePullPolizy\"")"},
  };
  for (const Case& c : cases) {
    auto patched = patch(kTypoPodsPath + "/web", c.body, c.contentType);
    ASSERT_EQ(patched->status, 200) << c.contentType << ": " << patched->body;
    EXPECT_EQ(warnings(patched), std::vector<std::string>{c.warning}) << c.contentType;
  }
  Json stored = parse(get(kTypoPodsPath + "/web")->body);
  EXPECT_FALSE(stored.contains("x"));
  EXPECT_FALSE(stored["spec"].contains("bogus"));
  EXPECT_FALSE(stored["spec"]["containers"][0].contains("imagePullPolizy"));
}

TEST_F(UnknownFieldsHttpTest, PatchStrictIsInvalidPatch) {
  ASSERT_EQ(post(kConfigMapsPath, configMap("c1"))->status, 201);
  auto refused = patch(kConfigMapsPath + "/c1?fieldValidation=Strict", R"({"x": 1})",
                       "application/merge-patch+json");
  ASSERT_EQ(refused->status, 422);
  Json s = status(refused);
  EXPECT_EQ(s["reason"], "Invalid");
  EXPECT_NE(s["message"].get<std::string>().find("strict decoding error: unknown field \"x\""),
            std::string::npos)
      << s["message"];
  EXPECT_EQ(s["details"]["causes"][0]["field"], "patch");
}

TEST_F(UnknownFieldsHttpTest, ServerSideApplyRefusesUndeclaredFields) {
  Json cm = configMap("c1");
  cm["bogus"] = 1;
  auto refused = patch(kConfigMapsPath + "/c1?fieldManager=kubectl&fieldValidation=Ignore",
                       cm.dump(), "application/apply-patch+yaml");
  EXPECT_TRUE(answeredStatus(refused, 500, "",
                             "failed to create typed patch object (default/c1; /v1, "
                             "Kind=ConfigMap): .bogus: field not declared in schema"));
  EXPECT_EQ(get(kConfigMapsPath + "/c1")->status, 404);
}

// Custom resources: what the definition's schema prunes is answered the same way.
TEST_F(UnknownFieldsHttpTest, CustomResourceWarnsForWhatItsSchemaPrunesAndStrictRefuses) {
  Json crd = widgetCrd();
  crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = {
      {"type", "object"},
      {"properties",
       {{"spec", {{"type", "object"}, {"properties", {{"size", {{"type", "integer"}}}}}}}}}};
  ASSERT_EQ(post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)->status, 201);
  const std::string widgets = "/apis/example.com/v1/namespaces/default/widgets";
  Json misspelt = widget("w1");
  misspelt["spec"]["sise"] = 2;

  auto refused = post(widgets + "?fieldValidation=Strict", misspelt);
  EXPECT_TRUE(answeredStatus(refused, 400, "BadRequest",
                             "Widget in version \"v1\" cannot be handled as a Widget: strict "
                             "decoding error: unknown field \"spec.sise\""));
  EXPECT_EQ(get(widgets + "/w1")->status, 404);

  auto created = post(widgets, misspelt);
  ASSERT_EQ(created->status, 201) << created->body;
  EXPECT_EQ(warnings(created),
            (std::vector<std::string>{R"(299 - "unknown field \"spec.sise\"")"}));
  EXPECT_FALSE(parse(get(widgets + "/w1")->body)["spec"].contains("sise"));
}

}  // namespace
}  // namespace fakekube::httptest
