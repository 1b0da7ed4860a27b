// Documents nested to the decoders' limit over HTTP (json_decode.h), on cpp-httplib's threads and
// their default stacks: at the limit each body is served, one level past it is a 400 or 422
// Status, and the store is unchanged. Covers create, every patch type, apply, and YAML bodies.
#include "fakekube/api/internal/json_decode.h"
#include "fakekube/http/http_fixture.h"

namespace fakekube::httptest {
namespace {

using NestingTest = HttpTest;

const std::string kWidgets = "/apis/example.com/v1/namespaces/default/widgets";
constexpr int kLimit = kMaxJsonNestingDepth;
// Sanitizer builds have several times larger frames: nlohmann's recursive copy alone takes ~10 MB
// at the limit under ASan, more than a server thread's 8 MB. There the bodies that must be served
// nest less deep; the ones past the limit are refused by the decoder before any walk either way.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int kServed = 1000;
constexpr bool kSanitized = true;
#else
constexpr int kServed = kLimit;
constexpr bool kSanitized = false;
#endif

// {"a":{"a":...1...}} with `depth` objects.
std::string nested(int depth) {
  std::string text;
  for (int i = 0; i < depth; ++i) text += "{\"a\":";
  text += "1";
  text.append(depth, '}');
  return text;
}

// A Widget whose spec.deep holds `depth` more objects: the whole body nests depth + 2 deep.
std::string widgetWithDeepSpec(const std::string& name, int depth) {
  return R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":")" + name +
         R"(","namespace":"default"},"spec":{"deep":)" + nested(depth) + "}}";
}

class NestingOverHttp : public NestingTest {
 protected:
  void SetUp() override {
    NestingTest::SetUp();
    auto crd = post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", widgetCrd());
    ASSERT_EQ(crd->status, 201) << crd->body;
  }
  std::int64_t revision() { return api->revision(); }
};

TEST_F(NestingOverHttp, CreateAtTheLimitIsStoredOneLevelMoreIsBadRequest) {
  auto atLimit = client->Post(kWidgets, widgetWithDeepSpec("w1", kServed - 2), "application/json");
  ASSERT_EQ(atLimit->status, 201) << atLimit->body.substr(0, 300);
  auto fetched = get(kWidgets + "/w1");
  ASSERT_EQ(fetched->status, 200);
  EXPECT_EQ(jsonNestingDepth(parse(fetched->body)), kServed);

  const auto before = revision();
  auto over = client->Post(kWidgets, widgetWithDeepSpec("w2", kLimit - 1), "application/json");
  EXPECT_TRUE(answeredStatus(
      over, 400, "BadRequest",
      "couldn't get version/kind; json parse error: invalid character '{' exceeded max depth"));
  EXPECT_EQ(revision(), before);
  EXPECT_EQ(get(kWidgets + "/w2")->status, 404);
}

TEST_F(NestingOverHttp, EveryPatchTypeAtTheLimitAppliesOneLevelMoreIsRejected) {
  ASSERT_EQ(post(kConfigMapsPath, configMap("c1"))->status, 201);
  ASSERT_EQ(client->Post(kWidgets, widgetWithDeepSpec("w1", 1), "application/json")->status, 201);
  struct Case {
    std::string path, contentType, atLimit, over;
    int overCode;
    std::string overMessage;
  };
  std::vector<Case> cases = {
      {kWidgets + "/w1", "application/merge-patch+json", R"({"spec":)" + nested(kServed - 1) + "}",
       R"({"spec":)" + nested(kLimit) + "}", 400,
       "error decoding patch: invalid character '{' exceeded max depth"},
      {kConfigMapsPath + "/c1", "application/strategic-merge-patch+json",
       R"({"spec":)" + nested(kServed - 1) + "}", R"({"spec":)" + nested(kLimit) + "}", 400,
       "invalid character '{' exceeded max depth"},
      {kWidgets + "/w1", "application/json-patch+json",
       R"([{"op":"add","path":"/spec/deep","value":)" + nested(kServed - 2) + "}]",
       R"([{"op":"add","path":"/spec/deep","value":)" + nested(kLimit - 1) + "}]", 400,
       "error decoding patch: invalid character '{' exceeded max depth"},
      {kWidgets + "/w1?fieldManager=test&force=true", "application/apply-patch+yaml",
       R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":)" +
           nested(kServed - 1) + "}",
       R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":)" +
           nested(kLimit) + "}",
       400,
       "error decoding YAML: error converting YAML to JSON: yaml: exceeded max depth of 10000"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.contentType);
    auto ok = patch(c.path, c.atLimit, c.contentType);
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->status, 200) << ok->body.substr(0, 300);
    const auto before = revision();
    auto rejected = patch(c.path, c.over, c.contentType);
    ASSERT_TRUE(rejected);
    ASSERT_EQ(rejected->status, c.overCode) << rejected->body.substr(0, 300);
    EXPECT_EQ(status(rejected)["message"], c.overMessage);
    EXPECT_EQ(revision(), before);
  }
  // A JSON patch whose value fits but lands deeper than the limit: the decoder's 422 on "patch".
  if (kSanitized) return;  // the document it answers with is as deep as the limit
  const auto before = revision();
  auto deeper = patch(kWidgets + "/w1",
                      R"([{"op":"add","path":"/spec/deep/a","value":)" + nested(kLimit - 2) + "}]",
                      "application/json-patch+json");
  ASSERT_EQ(deeper->status, 422) << deeper->body.substr(0, 300);
  Json s = status(deeper);
  EXPECT_EQ(s["reason"], "Invalid");
  EXPECT_EQ(s["details"]["causes"][0]["field"], "patch");
  EXPECT_EQ(revision(), before);
  EXPECT_EQ(get("/healthz")->status, 200);
}

TEST_F(NestingOverHttp, YamlBodiesPastTheirParsersDepthAreBadRequest) {
  std::string yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\ndata:\n  k: " +
                     std::string(600, '[') + std::string(600, ']') + "\n";
  const auto before = revision();
  auto r = client->Post(kConfigMapsPath, yaml, "application/yaml");
  ASSERT_EQ(r->status, 400) << r->body;
  EXPECT_EQ(status(r)["message"],
            "error converting YAML to JSON: yaml: line 6: exceeded max depth of 500");
  EXPECT_EQ(revision(), before);
}

using FieldValidationTest = HttpTest;

Json configMapWithUnknownFields() {
  Json cm = configMap("u1");
  cm["spec"] = {{"foo", 1}};
  cm["metadata"]["labelz"] = {{"a", "b"}};
  return cm;
}

TEST_F(FieldValidationTest, StrictRefusesUnknownFieldsWarnAndTheDefaultWarn) {
  const std::string path = "/api/v1/namespaces/default/configmaps";
  const auto before = api->revision();
  auto strict = client->Post(path + "?fieldValidation=Strict", configMapWithUnknownFields().dump(),
                             "application/json");
  ASSERT_EQ(strict->status, 400) << strict->body;
  EXPECT_EQ(
      status(strict)["message"],
      R"(ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.labelz", unknown field "spec")");
  EXPECT_EQ(api->revision(), before);

  auto warn = client->Post(path + "?fieldValidation=Warn", configMapWithUnknownFields().dump(),
                           "application/json");
  ASSERT_EQ(warn->status, 201) << warn->body;
  ASSERT_EQ(warn->get_header_value_count("Warning"), 2u);
  EXPECT_EQ(warn->get_header_value("Warning", 0), R"(299 - "unknown field \"metadata.labelz\"")");
  EXPECT_EQ(warn->get_header_value("Warning", 1), R"(299 - "unknown field \"spec\"")");

  Json other = configMapWithUnknownFields();
  other["metadata"]["name"] = "u2";
  auto byDefault = post(path, other);
  ASSERT_EQ(byDefault->status, 201);
  EXPECT_EQ(byDefault->get_header_value_count("Warning"), 2u);

  other["metadata"]["name"] = "u3";
  auto ignored = client->Post(path + "?fieldValidation=Ignore", other.dump(), "application/json");
  ASSERT_EQ(ignored->status, 201);
  EXPECT_EQ(ignored->get_header_value_count("Warning"), 0u);
  // Nested fields are found at any depth, as strict decoding names them.
  Json p = pod("p1");
  p["spec"]["containers"][0]["futureField"] = true;
  auto pod = client->Post("/api/v1/namespaces/default/pods?fieldValidation=Strict", p.dump(),
                          "application/json");
  ASSERT_EQ(pod->status, 400) << pod->body;
  EXPECT_EQ(
      status(pod)["message"],
      R"(Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].futureField")");
}

TEST_F(FieldValidationTest, WrongTypesAndKeysOverHttp) {
  const std::string path = "/api/v1/namespaces/default/configmaps";
  Json cm = configMap("t1");
  cm["data"]["k"] = 1;
  auto typed = post(path, cm);
  ASSERT_EQ(typed->status, 400);
  EXPECT_EQ(
      status(typed)["message"],
      R"(ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string)");
  cm = configMap("t2");
  cm["data"] = {{"bad key!", "v"}};
  auto keyed = post(path, cm);
  ASSERT_EQ(keyed->status, 422);
  EXPECT_EQ(status(keyed)["details"]["causes"][0]["field"], "data[bad key!]");
  EXPECT_EQ(get(path + "/t1")->status, 404);
  EXPECT_EQ(get(path + "/t2")->status, 404);
}

}  // namespace
}  // namespace fakekube::httptest
