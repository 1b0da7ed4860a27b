// PATCH with application/strategic-merge-patch+json through the API server: what kubectl apply
// (client-side), patch, label and set image send, with every update rule still in force.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "fakekube/api/resources.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

using StrategicPatchTest = ApiServerTest;

constexpr const char* kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";

Result<ObjectPtr> strategicPatch(ApiServer& server, const GroupVersionResource& gvr,
                                 std::string_view name, const Json& patch,
                                 std::string_view subresource = "") {
  return server.patch(gvr, "default", name, PatchType::StrategicMerge, patch.dump(), {},
                      subresource);
}

TEST_F(StrategicPatchTest, KubectlApplySecondRunOnADeployment) {
  // First `kubectl apply`: a create carrying the applied configuration.
  Json applied = deployment("web");
  applied["spec"]["template"]["spec"]["containers"].push_back(
      {{"name", "sidecar"}, {"image", "envoy:1"}});
  Json created_ = applied;
  created_["metadata"]["annotations"][kLastApplied] = applied.dump();
  Json created = create(kDeployments, created_);
  EXPECT_EQ(meta::generation(created), 1);
  // Something else changed the live object meanwhile (a label kubectl does not manage).
  mergePatch(kDeployments, "default", "web", {{"metadata", {{"labels", {{"team", "a"}}}}}});

  // The file changes: three replicas, a new image for main, sidecar removed, logger added.
  // kubectl computes the three-way patch and sends it as a strategic merge patch.
  Json next = deployment("web");
  next["spec"]["replicas"] = 3;
  next["spec"]["template"]["spec"]["containers"] = Json::array(
      {{{"name", "main"}, {"image", "nginx:1.28"}}, {{"name", "logger"}, {"image", "fluent:2"}}});
  Json patch = {
      {"metadata", {{"annotations", {{kLastApplied, next.dump()}}}}},
      {"spec",
       {{"replicas", 3},
        {"template",
         {{"spec",
           {{"$setElementOrder/containers",
             Json::array({{{"name", "main"}}, {{"name", "logger"}}})},
            {"containers", Json::array({{{"image", "nginx:1.28"}, {"name", "main"}},
                                        {{"image", "fluent:2"}, {"name", "logger"}},
                                        {{"$patch", "delete"}, {"name", "sidecar"}}})}}}}}}}};
  const std::int64_t before = server->revision();
  Json patched = must(strategicPatch(*server, kDeployments, "web", patch));

  EXPECT_EQ(patched["spec"]["replicas"], 3);
  const Json& containers = patched["spec"]["template"]["spec"]["containers"];
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(containers[0]["name"], "main");
  EXPECT_EQ(containers[0]["image"], "nginx:1.28");
  EXPECT_EQ(containers[1]["name"], "logger");
  EXPECT_EQ(containers[1]["image"], "fluent:2");
  EXPECT_EQ(patched["spec"]["selector"], created["spec"]["selector"]);
  EXPECT_EQ(patched["metadata"]["labels"]["team"], "a");
  EXPECT_EQ(meta::annotations(patched)[kLastApplied], next.dump());
  EXPECT_EQ(meta::generation(patched), 2);
  EXPECT_EQ(rvNumber(patched), before + 1);
  EXPECT_EQ(get(kDeployments, "default", "web"), patched);

  // Applying the same file again sends a patch that changes nothing: no write.
  Json same = {{"metadata", {{"annotations", {{kLastApplied, next.dump()}}}}}};
  Json unchanged = must(strategicPatch(*server, kDeployments, "web", same));
  EXPECT_EQ(rv(unchanged), rv(patched));
  EXPECT_EQ(server->revision(), before + 1);
}

TEST_F(StrategicPatchTest, PodContainerImageChange) {
  Json p = pod("p1");
  p["spec"]["containers"].push_back({{"name", "sidecar"}, {"image", "envoy:1"}});
  Json created = create(kPods, p);
  // `kubectl set image pod/p1 main=nginx:1.28` sends this.
  Json patched = must(strategicPatch(
      *server, kPods, "p1",
      {{"spec", {{"containers", Json::array({{{"name", "main"}, {"image", "nginx:1.28"}}})}}}}));
  const Json& containers = patched["spec"]["containers"];
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(containers[0]["name"], "main");
  EXPECT_EQ(containers[0]["image"], "nginx:1.28");
  EXPECT_EQ(containers[1], created["spec"]["containers"][1]);
  EXPECT_EQ(meta::generation(patched), meta::generation(created) + 1);
}

TEST_F(StrategicPatchTest, LabelAndAnnotatePatches) {
  Json created = create(kConfigMaps, configMap("c1"));
  // `kubectl label cm c1 env=prod` and `kubectl annotate cm c1 note=x`.
  Json labeled = must(
      strategicPatch(*server, kConfigMaps, "c1", {{"metadata", {{"labels", {{"env", "prod"}}}}}}));
  EXPECT_EQ(labeled["metadata"]["labels"], Json({{"env", "prod"}}));
  EXPECT_EQ(rvNumber(labeled), rvNumber(created) + 1);
  Json annotated = must(strategicPatch(*server, kConfigMaps, "c1",
                                       {{"metadata", {{"annotations", {{"note", "x"}}}}}}));
  EXPECT_EQ(annotated["metadata"]["labels"], Json({{"env", "prod"}}));
  EXPECT_EQ(annotated["metadata"]["annotations"], Json({{"note", "x"}}));
  // `kubectl label cm c1 env-` sends a null.
  Json unlabeled = must(
      strategicPatch(*server, kConfigMaps, "c1", {{"metadata", {{"labels", {{"env", nullptr}}}}}}));
  EXPECT_EQ(unlabeled["metadata"]["labels"], Json::object());
  EXPECT_EQ(unlabeled["data"], created["data"]);
}

TEST_F(StrategicPatchTest, FinalizersMergeAsASetThroughTheServer) {
  Json cm = configMap("c1");
  cm["metadata"]["finalizers"] = {"example.com/a"};
  create(kConfigMaps, cm);
  Json patched = must(strategicPatch(*server, kConfigMaps, "c1",
                                     {{"metadata", {{"finalizers", {"example.com/b"}}}}}));
  EXPECT_EQ(patched["metadata"]["finalizers"], Json({"example.com/b", "example.com/a"}));
  patched = must(strategicPatch(
      *server, kConfigMaps, "c1",
      {{"metadata",
        {{"$deleteFromPrimitiveList/finalizers", {"example.com/a", "example.com/b"}}}}}));
  EXPECT_EQ(patched["metadata"]["finalizers"], Json::array());
}

TEST_F(StrategicPatchTest, StatusSubresourceMergesConditionsByType) {
  Json created = create(kPods, pod("p1"));
  updateStatus(kPods, [&] {
    Json p = get(kPods, "default", "p1");
    p["status"]["conditions"] = Json::parse(R"([{"type": "PodScheduled", "status": "True"},
                                                 {"type": "Ready", "status": "False"}])");
    return p;
  }());
  Json patched = must(strategicPatch(
      *server, kPods, "p1",
      {{"status", {{"conditions", Json::array({{{"type", "Ready"}, {"status", "True"}}})}}},
       {"spec", {{"nodeName", "ignored"}}}},
      "status"));
  EXPECT_EQ(patched["status"]["conditions"],
            Json::parse(R"([{"type": "PodScheduled", "status": "True"},
                            {"type": "Ready", "status": "True"}])"));
  EXPECT_FALSE(patched["spec"].contains("nodeName"));  // the status subresource changes status only
  EXPECT_EQ(meta::generation(patched), meta::generation(created));
}

TEST_F(StrategicPatchTest, ResourceVersionInThePatchIsAPrecondition) {
  Json created = create(kConfigMaps, configMap("c1"));
  mergePatch(kConfigMaps, "default", "c1", {{"data", {{"key", "other"}}}});
  const std::int64_t before = server->revision();
  EXPECT_TRUE(failsWith(
      strategicPatch(*server, kConfigMaps, "c1",
                     {{"metadata", {{"resourceVersion", rv(created)}}}, {"data", {{"a", "b"}}}}),
      409, "Conflict",
      "Operation cannot be fulfilled on configmaps \"c1\": the object has been modified; please "
      "apply your changes to the latest version and try again"));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(StrategicPatchTest, CustomResourcesAreUnsupportedMediaType) {
  installWidgetCrd();
  create(kWidgets, widget("w1"));
  const std::int64_t before = server->revision();
  EXPECT_TRUE(failsWith(
      server->patch(kWidgets, "default", "w1", PatchType::StrategicMerge, R"({"spec":{"size":2}})"),
      415, "UnsupportedMediaType",
      "the body of the request was in an unknown format - accepted media types include: "
      "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(StrategicPatchTest, MalformedPatchesLeaveTheStoreAlone) {
  create(kPods, pod("p1"));
  const std::int64_t before = server->revision();
  auto notJson = server->patch(kPods, "default", "p1", PatchType::StrategicMerge, "{\"spec\":");
  ASSERT_FALSE(notJson);
  EXPECT_EQ(notJson.error().code, 400);
  EXPECT_TRUE(failsWith(
      server->patch(kPods, "default", "p1", PatchType::StrategicMerge, R"([{"op":"add"}])"), 400,
      "BadRequest", "json: cannot unmarshal array into Go value of type map[string]interface {}"));
  EXPECT_TRUE(failsWith(server->patch(kPods, "default", "p1", PatchType::StrategicMerge,
                                      R"({"spec":{"containers":[{"image":"x"}]}})"),
                        500, "", "map: map[image:x] does not contain declared merge key: name"));
  EXPECT_TRUE(failsWith(server->patch(kPods, "default", "p1", PatchType::StrategicMerge,
                                      R"({"metadata":{"$retainKeys":"name"}})"),
                        400, "BadRequest", "invalid patch format of retainKeys"));
  // A patch that decodes but breaks validation is the usual 422.
  auto invalid = server->patch(kPods, "default", "p1", PatchType::StrategicMerge,
                               R"({"metadata":{"labels":{"bad key!":"x"}}})");
  ASSERT_FALSE(invalid);
  EXPECT_EQ(invalid.error().code, 422);
  // A missing object is 404 whatever the patch says.
  EXPECT_TRUE(failsWith(server->patch(kPods, "default", "nope", PatchType::StrategicMerge, "{}"),
                        404, "NotFound", "pods \"nope\" not found"));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(StrategicPatchTest, ForceIsForApplyOnly) {
  create(kConfigMaps, configMap("c1"));
  PatchOptions options;
  options.force = true;
  auto refused =
      server->patch(kConfigMaps, "default", "c1", PatchType::StrategicMerge, "{}", options);
  EXPECT_TRUE(failsWith(refused, 422, "Invalid",
                        "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be "
                        "specified for non-apply patch"));
}

}  // namespace
}  // namespace fakekube::apitest
