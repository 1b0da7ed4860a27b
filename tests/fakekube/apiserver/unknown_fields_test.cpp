// Unknown fields of built-in kinds: kube-apiserver decodes a built-in object into its Go struct, so
// a field the struct lacks is dropped from every write, at any depth; fieldValidation says what the
// caller hears (Warn: a warning each, the default; Strict: the request fails; Ignore: nothing),
// and server-side apply refuses them outright. The cases follow kube-apiserver's
// test/integration/apiserver/field_validation_test.go (testFieldValidationPost, ...Put,
// ...PatchTyped, ...SMPatch, ...ApplyCreate).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fakekube/api/resources.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

using ::testing::ElementsAre;

class UnknownFieldsTest : public FieldValidationTest {
 protected:
  Result<ObjectPtr> createWith(const GroupVersionResource& gvr, Json object,
                               FieldValidation validation = FieldValidation::Warn) {
    return server->create(gvr, "default", std::move(object),
                          withValidation<CreateOptions>(validation));
  }
  Result<ObjectPtr> patchWith(const GroupVersionResource& gvr, std::string_view name,
                              PatchType type, std::string_view patch,
                              FieldValidation validation = FieldValidation::Warn) {
    return server->patch(gvr, "default", name, type, patch,
                         withValidation<PatchOptions>(validation));
  }
};

Json podWithMisspeltFields() {
  Json p = pod("web");
  p["spec"]["containers"][0]["imagePullPolizy"] = "Always";
  p["spec"]["bogus"] = {{"nested", true}};
  return p;
}

TEST_F(UnknownFieldsTest, PostDropsTopLevelAndNestedUnknownFieldsWithWarnings) {
  Json cm = configMap("c1");
  cm["bogus"] = 1;
  cm["metadata"]["labelz"] = {{"a", "b"}};
  Json created = must(createWith(kConfigMaps, cm));
  EXPECT_FALSE(created.contains("bogus"));
  EXPECT_FALSE(created["metadata"].contains("labelz"));
  EXPECT_EQ(created["data"]["key"], "value");
  EXPECT_THAT(warnings,
              ElementsAre("unknown field \"bogus\"", "unknown field \"metadata.labelz\""));
  EXPECT_FALSE(get(kConfigMaps, "default", "c1").contains("bogus"));
}

TEST_F(UnknownFieldsTest, PostNamesNestedFieldsAsStrictDecodingDoes) {
  Json created = must(createWith(kPods, podWithMisspeltFields()));
  EXPECT_FALSE(created["spec"].contains("bogus"));
  EXPECT_FALSE(created["spec"]["containers"][0].contains("imagePullPolizy"));
  EXPECT_EQ(created["spec"]["containers"][0]["image"], "nginx:1.27");
  EXPECT_THAT(warnings, ElementsAre("unknown field \"spec.bogus\"",
                                    "unknown field \"spec.containers[0].imagePullPolizy\""));
}

TEST_F(UnknownFieldsTest, PostStrictRefusesWithStrictDecodingErrorAndWritesNothing) {
  const std::int64_t before = server->revision();
  auto refused = createWith(kPods, podWithMisspeltFields(), FieldValidation::Strict);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, 400);
  EXPECT_EQ(refused.error().reason, "BadRequest");
  EXPECT_EQ(refused.error().message,
            "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown "
            "field \"spec.bogus\", unknown field \"spec.containers[0].imagePullPolizy\"");
  EXPECT_EQ(server->revision(), before);
  EXPECT_FALSE(server->get(kPods, "default", "web"));
  EXPECT_TRUE(warnings.empty());
}

TEST_F(UnknownFieldsTest, PostIgnoreDropsSilently) {
  Json created = must(createWith(kPods, podWithMisspeltFields(), FieldValidation::Ignore));
  EXPECT_FALSE(created["spec"].contains("bogus"));
  EXPECT_FALSE(created["spec"]["containers"][0].contains("imagePullPolizy"));
  EXPECT_TRUE(warnings.empty());
}

TEST_F(UnknownFieldsTest, PutDropsUnknownFieldsOfTheBody) {
  Json cm = create(kConfigMaps, configMap("c1"));
  cm["extra"] = {{"x", 1}};
  Json updated = must(server->update(kConfigMaps, "default", cm,
                                     withValidation<UpdateOptions>(FieldValidation::Warn)));
  EXPECT_FALSE(updated.contains("extra"));
  EXPECT_THAT(warnings, ElementsAre("unknown field \"extra\""));

  auto refused = server->update(kConfigMaps, "default", cm,
                                withValidation<UpdateOptions>(FieldValidation::Strict));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message,
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: "
            "unknown field \"extra\"");
}

TEST_F(UnknownFieldsTest, StatusSubresourceDropsUnknownStatusFields) {
  Json d = create(kDeployments, deployment("web"));
  d["status"] = {{"replicas", 1}, {"replicaz", 2}};
  Json updated = must(server->updateStatus(kDeployments, "default", d,
                                           withValidation<UpdateOptions>(FieldValidation::Warn)));
  EXPECT_EQ(updated["status"]["replicas"], 1);
  EXPECT_FALSE(updated["status"].contains("replicaz"));
  EXPECT_THAT(warnings, ElementsAre("unknown field \"status.replicaz\""));
}

TEST_F(UnknownFieldsTest, MergePatchDropsUnknownFieldsWithWarnings) {
  create(kConfigMaps, configMap("c1"));
  Json patched = must(patchWith(kConfigMaps, "c1", PatchType::Merge, R"({"x": {"a": 1}})"));
  EXPECT_FALSE(patched.contains("x"));
  EXPECT_THAT(warnings, ElementsAre("unknown field \"x\""));
  EXPECT_FALSE(get(kConfigMaps, "default", "c1").contains("x"));
}

TEST_F(UnknownFieldsTest, MergePatchStrictIsInvalidPatchShowingThePatchedObject) {
  Json cm = create(kConfigMaps, configMap("c1"));
  auto refused =
      patchWith(kConfigMaps, "c1", PatchType::Merge, R"({"x": 1})", FieldValidation::Strict);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, 422);
  cm["x"] = 1;
  EXPECT_EQ(refused.error().message,
            " \"\" is invalid: patch: Invalid value: " + goQuote(cm.dump()) +
                ": strict decoding error: unknown field \"x\"");
  EXPECT_EQ(get(kConfigMaps, "default", "c1")["metadata"]["resourceVersion"],
            cm["metadata"]["resourceVersion"]);
}

TEST_F(UnknownFieldsTest, JsonPatchDropsNestedUnknownField) {
  create(kPods, pod("web"));
  Json patched = must(patchWith(kPods, "web", PatchType::Json,
                                R"([{"op": "add", "path": "/spec/containers/0/bogus",
                                     "value": {"a": 1}}])"));
  EXPECT_FALSE(patched["spec"]["containers"][0].contains("bogus"));
  EXPECT_THAT(warnings, ElementsAre("unknown field \"spec.containers[0].bogus\""));
}

TEST_F(UnknownFieldsTest, StrategicMergePatchDropsUnknownFieldsWithWarnings) {
  create(kPods, pod("web"));
  const std::string patch =
      R"({"spec": {"containers": [{"name": "main", "imagePullPolizy": "Always"}]}})";
  Json patched = must(patchWith(kPods, "web", PatchType::StrategicMerge, patch));
  EXPECT_FALSE(patched["spec"]["containers"][0].contains("imagePullPolizy"));
  EXPECT_EQ(patched["spec"]["containers"][0]["image"], "nginx:1.27");
  EXPECT_THAT(warnings, ElementsAre("unknown field \"spec.containers[0].imagePullPolizy\""));

  auto refused = patchWith(kPods, "web", PatchType::StrategicMerge, patch, FieldValidation::Strict);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, 422);
  EXPECT_EQ(
      refused.error().message,
      " \"\" is invalid: patch: Invalid value: \"map[spec:map[containers:[map[imagePullPolizy:"
      "Always name:main]]]]\": strict decoding error: unknown field "
      "\"spec.containers[0].imagePullPolizy\"");
}

TEST_F(UnknownFieldsTest, ApplyRefusesUndeclaredFieldsWhateverFieldValidation) {
  const std::int64_t before = server->revision();
  Json cm = configMap("c1");
  cm["bogus"] = 1;
  for (FieldValidation validation :
       {FieldValidation::Ignore, FieldValidation::Warn, FieldValidation::Strict}) {
    PatchOptions options = withValidation<PatchOptions>(validation);
    options.fieldManager = "kubectl";
    auto refused =
        server->patch(kConfigMaps, "default", "c1", PatchType::Apply, cm.dump(), options);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, 500);
    EXPECT_EQ(refused.error().message,
              "failed to create typed patch object (default/c1; /v1, Kind=ConfigMap): .bogus: "
              "field not declared in schema");
  }
  EXPECT_EQ(server->revision(), before);
}

TEST_F(UnknownFieldsTest, ApplyNamesListMapElementsByKey) {
  create(kDeployments, deployment("web"));
  Json applied = deployment("web");
  applied["spec"]["template"]["spec"]["containers"][0]["imagePullPolizy"] = "Always";
  applied["spec"]["strategi"] = "Recreate";
  PatchOptions options;
  options.fieldManager = "kubectl";
  auto refused =
      server->patch(kDeployments, "default", "web", PatchType::Apply, applied.dump(), options);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message,
            "failed to create typed patch object (default/web; apps/v1, Kind=Deployment): errors:\n"
            "  .spec.strategi: field not declared in schema\n"
            "  .spec.template.spec.containers[name=\"main\"].imagePullPolizy: field not declared "
            "in schema");
}

// Fields the v1.32 API has that older published schemas lacked: pruning must keep every one.
TEST_F(UnknownFieldsTest, KeepsFieldsOfTheServedVersion) {
  Json p = pod("web");
  p["spec"]["schedulingGates"] = Json::array({{{"name", "gate"}}});
  p["spec"]["hostUsers"] = false;
  p["spec"]["resourceClaims"] = Json::array({{{"name", "gpu"}, {"resourceClaimName", "c"}}});
  p["spec"]["os"] = {{"name", "linux"}};
  p["spec"]["initContainers"] =
      Json::array({{{"name", "sidecar"}, {"image", "busybox"}, {"restartPolicy", "Always"}}});
  p["spec"]["containers"][0]["resizePolicy"] =
      Json::array({{{"resourceName", "cpu"}, {"restartPolicy", "NotRequired"}}});
  p["spec"]["containers"][0]["lifecycle"] = {{"preStop", {{"sleep", {{"seconds", 5}}}}}};
  Json created = must(createWith(kPods, p));
  EXPECT_TRUE(warnings.empty()) << ::testing::PrintToString(warnings);
  for (const char* field : {"schedulingGates", "hostUsers", "resourceClaims", "os"}) {
    EXPECT_EQ(created["spec"][field], p["spec"][field]) << field;
  }
  EXPECT_EQ(created["spec"]["initContainers"][0]["restartPolicy"], "Always");
  EXPECT_EQ(created["spec"]["containers"][0]["resizePolicy"],
            p["spec"]["containers"][0]["resizePolicy"]);
  EXPECT_EQ(created["spec"]["containers"][0]["lifecycle"]["preStop"]["sleep"]["seconds"], 5);

  Json job = {{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata", {{"name", "j"}, {"namespace", "default"}}},
              {"spec",
               {{"completionMode", "Indexed"},
                {"completions", 2},
                {"backoffLimitPerIndex", 1},
                {"podReplacementPolicy", "Failed"},
                {"managedBy", "kubernetes.io/job-controller"},
                {"successPolicy", {{"rules", Json::array({{{"succeededCount", 1}}})}}},
                {"template",
                 {{"spec",
                   {{"restartPolicy", "Never"},
                    {"containers", Json::array({{{"name", "c"}, {"image", "busybox"}}})}}}}}}}};
  Json createdJob = must(createWith(kJobs, job));
  EXPECT_TRUE(warnings.empty()) << ::testing::PrintToString(warnings);
  for (const char* field :
       {"backoffLimitPerIndex", "podReplacementPolicy", "managedBy", "successPolicy"}) {
    EXPECT_EQ(createdJob["spec"][field], job["spec"][field]) << field;
  }
}

// Free-form values (managedFields' fieldsV1, a CRD schema's defaults) keep what they hold.
TEST_F(UnknownFieldsTest, KeepsFreeFormValues) {
  Json cm = configMap("c1");
  cm["metadata"]["managedFields"] =
      Json::array({{{"manager", "m"},
                    {"operation", "Update"},
                    {"apiVersion", "v1"},
                    {"fieldsType", "FieldsV1"},
                    {"fieldsV1", {{"f:data", {{"f:key", Json::object()}}}}}}});
  Json created = must(createWith(kConfigMaps, cm));
  EXPECT_TRUE(warnings.empty()) << ::testing::PrintToString(warnings);

  Json crd = widgetCrd();
  crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"] = {
      {"spec",
       {{"type", "object"},
        {"x-kubernetes-preserve-unknown-fields", true},
        {"default", {{"anything", {{"goes", 1}}}}}}}};
  Json createdCrd = must(createWith(kCustomResourceDefinitions, crd));
  EXPECT_TRUE(warnings.empty()) << ::testing::PrintToString(warnings);
  EXPECT_EQ(createdCrd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
                      ["default"]["anything"]["goes"],
            1);
}

// Custom resources are pruned by their own schema, and kinds without a schema are not pruned.
TEST_F(UnknownFieldsTest, CustomResourcesAreNotPrunedAsBuiltins) {
  installWidgetCrd();
  Json w = widget("w1");
  Json created = must(createWith(kWidgets, w));
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(created["spec"], w["spec"]);
}

}  // namespace
}  // namespace fakekube::apitest
