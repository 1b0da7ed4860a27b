// PATCH: JSON patch and merge patch against the current object, their 400/422 split, the optional
// resourceVersion check, the status subresource, and 415 for strategic merge on a custom resource.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "fakekube/api/resources.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

using PatchTest = ApiServerTest;

TEST_F(PatchTest, MergePatchMergesObjectsAndNullDeletes) {
  Json cm = configMap("c1");
  cm["data"] = {{"a", "1"}, {"b", "2"}};
  Json created = create(kConfigMaps, cm);
  Json patched = mergePatch(
      kConfigMaps, "default", "c1",
      {{"data", {{"b", nullptr}, {"c", "3"}}}, {"metadata", {{"labels", {{"app", "web"}}}}}});
  EXPECT_EQ(patched["data"], Json({{"a", "1"}, {"c", "3"}}));
  EXPECT_EQ(patched["metadata"]["labels"]["app"], "web");
  EXPECT_EQ(rvNumber(patched), rvNumber(created) + 1);
  EXPECT_EQ(meta::uid(patched), meta::uid(created));
  EXPECT_EQ(get(kConfigMaps, "default", "c1"), patched);
}

TEST_F(PatchTest, JsonPatchAppliesOperationsInOrder) {
  create(kConfigMaps, configMap("c1"));
  Json patched = must(server->patch(kConfigMaps, "default", "c1", PatchType::Json,
                                    R"([{"op":"test","path":"/data/key","value":"value"},
                                        {"op":"replace","path":"/data/key","value":"new"},
                                        {"op":"add","path":"/data/other","value":"x"},
                                        {"op":"remove","path":"/data/other"},
                                        {"op":"add","path":"/metadata/labels","value":{"a":"b"}}])"));
  EXPECT_EQ(patched["data"], Json({{"key", "new"}}));
  EXPECT_EQ(patched["metadata"]["labels"]["a"], "b");
}

TEST_F(PatchTest, NoOpPatchKeepsTheResourceVersion) {
  Json created = create(kConfigMaps, configMap("c1"));
  const std::int64_t before = server->revision();
  Json patched = mergePatch(kConfigMaps, "default", "c1", {{"data", {{"key", "value"}}}});
  EXPECT_EQ(rv(patched), rv(created));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(PatchTest, MalformedJsonPatchIs400) {
  create(kConfigMaps, configMap("c1"));
  const std::int64_t before = server->revision();
  EXPECT_TRUE(failsWith(server->patch(kConfigMaps, "default", "c1", PatchType::Json,
                                      R"({"op":"add","path":"/data/x","value":"1"})"),
                        400, "BadRequest",
                        "error decoding patch: a JSON patch must be an array of operations, not "
                        "object"));
  EXPECT_TRUE(failsWith(server->patch(kConfigMaps, "default", "c1", PatchType::Json,
                                      R"([{"op":"frobnicate","path":"/data/x"}])"),
                        400, "BadRequest",
                        "error decoding patch: operation 0 has unknown op \"frobnicate\""));
  EXPECT_TRUE(
      failsWithMessageStarting(server->patch(kConfigMaps, "default", "c1", PatchType::Json, "[{"),
                               400, "BadRequest", "error decoding patch: "));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(PatchTest, JsonPatchThatDoesNotApplyIs422) {
  create(kConfigMaps, configMap("c1"));
  const std::int64_t before = server->revision();
  // NewGenericServerResponse(422, ...) without a resource: a fixed message, whatever failed.
  const std::string rejected = "the server rejected our request due to an error in our request";
  auto failedTest = server->patch(kConfigMaps, "default", "c1", PatchType::Json,
                                  R"([{"op":"test","path":"/data/key","value":"other"},
                                      {"op":"replace","path":"/data/key","value":"x"}])");
  EXPECT_TRUE(failsWith(failedTest, 422, "Invalid", rejected));
  ASSERT_FALSE(failedTest);
  EXPECT_TRUE(failedTest.error().details.empty());
  EXPECT_TRUE(failsWith(server->patch(kConfigMaps, "default", "c1", PatchType::Json,
                                      R"([{"op":"remove","path":"/data/missing"}])"),
                        422, "Invalid", rejected));
  EXPECT_EQ(server->revision(), before);
  EXPECT_EQ(get(kConfigMaps, "default", "c1")["data"]["key"], "value");

  // A patch that applies but yields an invalid object is the usual Invalid naming the field.
  auto invalid = server->patch(kConfigMaps, "default", "c1", PatchType::Json,
                               R"([{"op":"add","path":"/metadata/labels","value":{"a":"-x-"}}])");
  EXPECT_TRUE(failsWithMessageStarting(
      invalid, 422, "Invalid",
      "ConfigMap \"c1\" is invalid: metadata.labels: Invalid value: \"-x-\": "));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(PatchTest, MalformedMergePatchIs400) {
  create(kConfigMaps, configMap("c1"));
  const std::int64_t before = server->revision();
  EXPECT_TRUE(failsWith(
      server->patch(kConfigMaps, "default", "c1", PatchType::Merge, R"(["not","an","object"])"),
      400, "BadRequest", "error decoding patch: a merge patch must be a JSON object, not array"));
  EXPECT_TRUE(failsWithMessageStarting(
      server->patch(kConfigMaps, "default", "c1", PatchType::Merge, "{\"data\":"), 400,
      "BadRequest", "error decoding patch: "));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(PatchTest, PatchOfAMissingObjectIs404) {
  const std::int64_t before = server->revision();
  EXPECT_TRUE(failsWith(
      server->patch(kConfigMaps, "default", "nope", PatchType::Merge, R"({"data":{"a":"b"}})"), 404,
      "NotFound", "configmaps \"nope\" not found"));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(PatchTest, PatchWithAStaleResourceVersionIs409) {
  Json created = create(kConfigMaps, configMap("c1"));
  mergePatch(kConfigMaps, "default", "c1", {{"data", {{"key", "v2"}}}});
  const std::int64_t before = server->revision();
  Json stale = {{"metadata", {{"resourceVersion", rv(created)}}}, {"data", {{"key", "v3"}}}};
  EXPECT_TRUE(failsWith(
      server->patch(kConfigMaps, "default", "c1", PatchType::Merge, stale.dump()), 409, "Conflict",
      "Operation cannot be fulfilled on configmaps \"c1\": the object has been modified; please "
      "apply your changes to the latest version and try again"));
  EXPECT_EQ(server->revision(), before);

  // With the current one it applies.
  Json current = {{"metadata", {{"resourceVersion", rv(get(kConfigMaps, "default", "c1"))}}},
                  {"data", {{"key", "v3"}}}};
  EXPECT_EQ(mergePatch(kConfigMaps, "default", "c1", current)["data"]["key"], "v3");
}

TEST_F(PatchTest, PatchCannotRenameTheObject) {
  create(kConfigMaps, configMap("c1"));
  const std::int64_t before = server->revision();
  EXPECT_TRUE(failsWith(server->patch(kConfigMaps, "default", "c1", PatchType::Merge,
                                      R"({"metadata":{"name":"c2"}})"),
                        400, "BadRequest",
                        "the name of the object (c2) does not match the name on the URL (c1)"));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(PatchTest, StatusSubresourcePatchChangesOnlyStatus) {
  installWidgetCrd(/*statusSubresource=*/true);
  create(kWidgets, widget("w1"));
  Json patched =
      must(server->patch(kWidgets, "default", "w1", PatchType::Merge,
                         R"({"status":{"phase":"Ready"},"spec":{"size":7}})", {}, "status"));
  EXPECT_EQ(patched["status"]["phase"], "Ready");
  EXPECT_EQ(patched["spec"]["size"], 1);
  EXPECT_EQ(patched["metadata"]["generation"], 1);

  // And the main resource ignores status.
  Json main = mergePatch(kWidgets, "default", "w1",
                         {{"status", {{"phase", "Gone"}}}, {"spec", {{"size", 2}}}});
  EXPECT_EQ(main["status"]["phase"], "Ready");
  EXPECT_EQ(main["spec"]["size"], 2);
  EXPECT_EQ(main["metadata"]["generation"], 2);
}

TEST_F(PatchTest, StatusSubresourceOfAKindWithoutOneIs404) {
  create(kConfigMaps, configMap("c1"));
  const std::int64_t before = server->revision();
  EXPECT_TRUE(failsWith(server->patch(kConfigMaps, "default", "c1", PatchType::Merge,
                                      R"({"status":{"x":"y"}})", {}, "status"),
                        404, "NotFound", "the server could not find the requested resource"));
  EXPECT_EQ(server->revision(), before);
}

// A dry run answers the patched object and writes nothing, a merge patch and a strategic one
// alike.
class DryRunPatchTest : public ApiServerTest, public ::testing::WithParamInterface<PatchType> {};

TEST_P(DryRunPatchTest, AnswersTheResultWithoutWriting) {
  create(kConfigMaps, configMap("c1"));
  const std::int64_t before = server->revision();
  PatchOptions options;
  options.dryRun = true;
  Json answered = must(server->patch(kConfigMaps, "default", "c1", GetParam(),
                                     R"({"data":{"key":"dry","new":"1"}})", options));
  EXPECT_EQ(answered["data"]["key"], "dry");
  EXPECT_EQ(answered["data"]["new"], "1");
  EXPECT_EQ(server->revision(), before);
  EXPECT_EQ(get(kConfigMaps, "default", "c1")["data"], Json({{"key", "value"}}));
}

INSTANTIATE_TEST_SUITE_P(MergeAndStrategicMerge, DryRunPatchTest,
                         ::testing::Values(PatchType::Merge, PatchType::StrategicMerge),
                         [](const ::testing::TestParamInfo<PatchType>& info) {
                           return std::string(info.param == PatchType::Merge ? "Merge"
                                                                             : "StrategicMerge");
                         });

}  // namespace
}  // namespace fakekube::apitest
