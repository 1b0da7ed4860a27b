// Unknown fields of custom resources: the apiextensions decoder prunes what a definition's
// structural schema does not declare and reports each pruned path to the request's
// fieldValidation exactly as a built-in's strict decoding does (Warn: a warning each; Strict: the
// request fails; Ignore: nothing); server-side apply refuses them. The cases follow
// kube-apiserver's test/integration/apiserver/field_validation_test.go (testFieldValidationPostCRD,
// ...PutCRD, ...PatchCRD, ...ApplyCreateCRD) with a schema of their shape.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fakekube/api/resources.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

const GroupVersionResource kSprockets{"example.com", "v1", "sprockets"};

// sprockets.example.com/v1: a typed spec whose `parts` is a list-map keyed by name, a free-form
// `extra` (x-kubernetes-preserve-unknown-fields), and a typed status behind the subresource.
Json sprocketCrd() {
  const Json part = {
      {"type", "object"},
      {"properties", {{"name", {{"type", "string"}}}, {"count", {{"type", "integer"}}}}}};
  const Json spec = {
      {"type", "object"},
      {"properties",
       {{"size", {{"type", "integer"}}},
        {"parts",
         {{"type", "array"},
          {"x-kubernetes-list-type", "map"},
          {"x-kubernetes-list-map-keys", Json::array({"name"})},
          {"items", part}}},
        {"extra", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}}};
  const Json status = {{"type", "object"}, {"properties", {{"ready", {{"type", "boolean"}}}}}};
  const Json schema = {{"type", "object"}, {"properties", {{"spec", spec}, {"status", status}}}};
  return exampleComCrd("sprockets", "sprocket", "Sprocket", schema);
}

Json sprocket(const std::string& name) {
  return {{"apiVersion", "example.com/v1"},
          {"kind", "Sprocket"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"size", 1},
            {"parts", Json::array({{{"name", "a"}, {"count", 2}}})},
            {"extra", {{"anything", {{"goes", true}}}}}}}};
}

// A Sprocket with an unknown member at the top, in metadata, in spec and in a list element.
Json misspeltSprocket(const std::string& name) {
  Json g = sprocket(name);
  g["bogus"] = 1;
  g["metadata"]["labelz"] = {{"a", "b"}};
  g["spec"]["sise"] = 2;
  g["spec"]["parts"][0]["colour"] = "red";
  return g;
}

class CustomResourceUnknownFieldsTest : public FieldValidationTest {
 protected:
  void SetUp() override {
    FieldValidationTest::SetUp();
    create(kCustomResourceDefinitions, sprocketCrd());
  }
};

TEST_F(CustomResourceUnknownFieldsTest, PostWarnsForEveryPrunedFieldAndDropsIt) {
  Json created = must(server->create(kSprockets, "default", misspeltSprocket("g1"),
                                     withValidation<CreateOptions>(FieldValidation::Warn)));
  EXPECT_THAT(warnings,
              UnorderedElementsAre("unknown field \"bogus\"", "unknown field \"metadata.labelz\"",
                                   "unknown field \"spec.sise\"",
                                   "unknown field \"spec.parts[0].colour\""));
  EXPECT_FALSE(created.contains("bogus"));
  EXPECT_FALSE(created["metadata"].contains("labelz"));
  EXPECT_FALSE(created["spec"].contains("sise"));
  EXPECT_FALSE(created["spec"]["parts"][0].contains("colour"));
  EXPECT_EQ(created["spec"]["parts"][0]["count"], 2);
  // What x-kubernetes-preserve-unknown-fields keeps is not unknown.
  EXPECT_EQ(created["spec"]["extra"]["anything"]["goes"], true);
  EXPECT_EQ(get(kSprockets, "default", "g1")["spec"], created["spec"]);
}

TEST_F(CustomResourceUnknownFieldsTest, PostStrictIsStrictDecodingErrorAndWritesNothing) {
  Json g = sprocket("g1");
  g["spec"]["sise"] = 2;
  const std::int64_t before = server->revision();
  auto refused = server->create(kSprockets, "default", g,
                                withValidation<CreateOptions>(FieldValidation::Strict));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, 400);
  EXPECT_EQ(refused.error().reason, "BadRequest");
  EXPECT_EQ(refused.error().message,
            "Sprocket in version \"v1\" cannot be handled as a Sprocket: strict decoding error: "
            "unknown field \"spec.sise\"");
  EXPECT_EQ(server->revision(), before);
}

TEST_F(CustomResourceUnknownFieldsTest, PostIgnoreDropsSilently) {
  Json created = must(server->create(kSprockets, "default", misspeltSprocket("g1"),
                                     withValidation<CreateOptions>(FieldValidation::Ignore)));
  EXPECT_TRUE(warnings.empty());
  EXPECT_FALSE(created["spec"].contains("sise"));
}

// A write whose caller does not collect warnings is pruned all the same.
TEST_F(CustomResourceUnknownFieldsTest, PostWithoutWarningsStillPrunes) {
  Json created = must(server->create(kSprockets, "default", misspeltSprocket("g1")));
  EXPECT_FALSE(created.contains("bogus"));
  EXPECT_FALSE(created["spec"]["parts"][0].contains("colour"));
}

TEST_F(CustomResourceUnknownFieldsTest, PutWarnsAndStrictRefuses) {
  Json stored = must(server->create(kSprockets, "default", sprocket("g1")));
  stored["spec"]["sise"] = 3;
  auto refused = server->update(kSprockets, "default", stored,
                                withValidation<UpdateOptions>(FieldValidation::Strict));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, 400);
  EXPECT_THAT(refused.error().message, HasSubstr("unknown field \"spec.sise\""));
  Json updated = must(server->update(kSprockets, "default", stored,
                                     withValidation<UpdateOptions>(FieldValidation::Warn)));
  EXPECT_THAT(warnings, UnorderedElementsAre("unknown field \"spec.sise\""));
  EXPECT_FALSE(updated["spec"].contains("sise"));
}

TEST_F(CustomResourceUnknownFieldsTest, StatusSubresourceWarnsForUnknownStatusFields) {
  Json stored = must(server->create(kSprockets, "default", sprocket("g1")));
  stored["status"] = {{"ready", true}, {"readdy", false}};
  Json updated = must(server->updateStatus(kSprockets, "default", stored,
                                           withValidation<UpdateOptions>(FieldValidation::Warn)));
  EXPECT_THAT(warnings, UnorderedElementsAre("unknown field \"status.readdy\""));
  EXPECT_EQ(updated["status"], Json({{"ready", true}}));
}

TEST_F(CustomResourceUnknownFieldsTest, MergePatchWarnsAndStrictIsInvalidPatch) {
  must(server->create(kSprockets, "default", sprocket("g1")));
  const std::string patch = R"({"spec":{"sise":5}})";
  auto refused = server->patch(kSprockets, "default", "g1", PatchType::Merge, patch,
                               withValidation<PatchOptions>(FieldValidation::Strict));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, 422);
  EXPECT_THAT(refused.error().message, HasSubstr("patch: Invalid value: \"{"));
  EXPECT_THAT(refused.error().message,
              HasSubstr("strict decoding error: unknown field \"spec.sise\""));
  EXPECT_FALSE(get(kSprockets, "default", "g1")["spec"].contains("sise"));

  Json patched = must(server->patch(kSprockets, "default", "g1", PatchType::Merge, patch,
                                    withValidation<PatchOptions>(FieldValidation::Warn)));
  EXPECT_THAT(warnings, UnorderedElementsAre("unknown field \"spec.sise\""));
  EXPECT_FALSE(patched["spec"].contains("sise"));
}

TEST_F(CustomResourceUnknownFieldsTest, JsonPatchWarnsForAnAddedUnknownField) {
  must(server->create(kSprockets, "default", sprocket("g1")));
  Json patched = must(server->patch(kSprockets, "default", "g1", PatchType::Json,
                                    R"([{"op":"add","path":"/spec/parts/0/colour","value":"x"}])",
                                    withValidation<PatchOptions>(FieldValidation::Warn)));
  EXPECT_THAT(warnings, UnorderedElementsAre("unknown field \"spec.parts[0].colour\""));
  EXPECT_FALSE(patched["spec"]["parts"][0].contains("colour"));
}

// structured-merge-diff converts the applied configuration to the definition's type and fails
// on what it does not declare, whatever fieldValidation says; list-map elements are named by key.
TEST_F(CustomResourceUnknownFieldsTest, ApplyRefusesUndeclaredFieldsNamingListMapKeys) {
  Json applied = sprocket("g1");
  applied["spec"]["parts"][0]["colour"] = "red";
  PatchOptions options = withValidation<PatchOptions>(FieldValidation::Ignore);
  options.fieldManager = "tester";
  auto refused =
      server->patch(kSprockets, "default", "g1", PatchType::Apply, applied.dump(), options);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, 500);
  EXPECT_EQ(refused.error().message,
            "failed to create typed patch object (default/g1; example.com/v1, Kind=Sprocket): "
            ".spec.parts[name=\"a\"].colour: field not declared in schema");
  auto missing = server->get(kSprockets, "default", "g1");
  EXPECT_FALSE(missing);

  applied["spec"]["parts"][0].erase("colour");
  Json created =
      must(server->patch(kSprockets, "default", "g1", PatchType::Apply, applied.dump(), options));
  EXPECT_EQ(created["spec"]["extra"]["anything"]["goes"], true);
}

}  // namespace
}  // namespace fakekube::apitest
