// kubectl against `fakekube serve` with CustomResourceDefinitions in the shape of KubeRay's own
// files: `kubectl apply --server-side -f` of a large definition (complete pod-template schemas,
// as controller-gen writes them, ~1 MB) replaces the project's built-in RayCluster definition,
// and from then on its schema prunes and defaults every RayCluster, those stored before too.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "controllers/ray/custom_resource_definitions.h"
#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {
namespace {

using ::testing::HasSubstr;
using Json = fakekube::Json;

// A RayCluster in the shape of KubeRay's config/samples/ray-cluster.sample.yaml, plus a second
// worker group that leaves its bounds to the defaults, and a field no pod schema knows.
constexpr const char* kRayCluster = R"yaml(
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: NAME
spec:
  rayVersion: "2.46.0"
  headGroupSpec:
    rayStartParams: {}
    template:
      spec:
        containers:
        - name: ray-head
          image: rayproject/ray:2.46.0
          notAContainerField: dropped-by-a-complete-schema
          resources:
            limits: {cpu: "1", memory: "2G"}
            requests: {cpu: "1", memory: "2G"}
          ports:
          - {containerPort: 6379, name: gcs-server}
          - {containerPort: 8265, name: dashboard}
          - {containerPort: 10001, name: client}
  workerGroupSpecs:
  - replicas: 1
    minReplicas: 1
    maxReplicas: 5
    groupName: workergroup
    rayStartParams: {}
    template:
      spec:
        containers:
        - name: ray-worker
          image: rayproject/ray:2.46.0
          resources:
            limits: {cpu: "1", memory: "1G"}
            requests: {cpu: "1", memory: "1G"}
  - groupName: defaulted
    template:
      spec:
        containers:
        - {name: ray-worker, image: rayproject/ray:2.46.0}
)yaml";

std::string rayCluster(const std::string& name) {
  std::string text = kRayCluster;
  text.replace(text.find("NAME"), 4, name);
  return text;
}

// A pod template's schema as controller-gen writes it for KubeRay: no preserve-unknown-fields,
// every container field listed (here a few real ones and many generated ones, for the size),
// ports defaulting their protocol to TCP.
Json podTemplateSchema(int bulkFields) {
  Json quantity = {{"x-kubernetes-int-or-string", true},
                   {"anyOf", {{{"type", "integer"}}, {{"type", "string"}}}}};
  Json container = {
      {"type", "object"},
      {"required", {"name"}},
      {"properties",
       {{"name", {{"type", "string"}}},
        {"image", {{"type", "string"}}},
        {"command", {{"type", "array"}, {"items", {{"type", "string"}}}}},
        {"args", {{"type", "array"}, {"items", {{"type", "string"}}}}},
        {"ports",
         {{"type", "array"},
          {"items",
           {{"type", "object"},
            {"required", {"containerPort"}},
            {"properties",
             {{"containerPort", {{"type", "integer"}, {"format", "int32"}}},
              {"name", {{"type", "string"}}},
              {"protocol", {{"type", "string"}, {"default", "TCP"}}}}}}}}},
        {"resources",
         {{"type", "object"},
          {"properties",
           {{"limits", {{"type", "object"}, {"additionalProperties", quantity}}},
            {"requests", {{"type", "object"}, {"additionalProperties", quantity}}}}}}}}}};
  for (int i = 0; i < bulkFields; ++i) {
    container["properties"]["generatedField" + std::to_string(i)] = {
        {"type", "string"},
        {"description",
         "A generated field: KubeRay's CRD files describe every field of a pod template, which "
         "is what makes them large."}};
  }
  return {{"type", "object"},
          {"properties",
           {{"metadata",
             {{"type", "object"},
              {"properties",
               {{"labels", {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}},
                {"annotations",
                 {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}}}}}},
            {"spec",
             {{"type", "object"},
              {"required", {"containers"}},
              {"properties",
               {{"containers", {{"type", "array"}, {"items", container}}},
                {"restartPolicy", {{"type", "string"}}}}}}}}}};
}

// The project's RayCluster definition with both pod templates fully described.
Json largeRayClusterDefinition() {
  Json crd = ray::rayClusterCustomResourceDefinition();
  for (auto& version : crd["spec"]["versions"]) {
    Json& spec = version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"];
    spec["headGroupSpec"]["properties"]["template"] = podTemplateSchema(1500);
    spec["workerGroupSpecs"]["items"]["properties"]["template"] = podTemplateSchema(1500);
  }
  return crd;
}

class CustomResourceSchemaTest : public KubectlTest {};

TEST_F(CustomResourceSchemaTest, KubeRaysOwnDefinitionsReplaceTheBuiltInOnesAndGovernDecoding) {
  // The operator's built-in definition first (what installing the operator registers).
  EXPECT_EQ(
      ok({"apply", "--server-side", "-f", "-"}, ray::rayClusterCustomResourceDefinition().dump()),
      "customresourcedefinition.apiextensions.k8s.io/rayclusters.ray.io serverside-applied\n");
  EXPECT_EQ(ok({"apply", "-f", "-"}, rayCluster("before")), "raycluster.ray.io/before created\n");
  Json before = Json::parse(ok({"get", "raycluster", "before", "-o", "json"}));
  const Json& head = before["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(head["notAContainerField"], "dropped-by-a-complete-schema");  // preserved
  EXPECT_FALSE(head["ports"][0].contains("protocol"));
  // KubeRay's defaults come from the built-in schema already.
  EXPECT_EQ(before["spec"]["workerGroupSpecs"][1]["numOfHosts"], 1);
  EXPECT_EQ(before["spec"]["workerGroupSpecs"][1]["maxReplicas"], 2147483647);

  // A definition as large as KubeRay's files, applied server-side over the built-in one. The
  // operator created the definition, so it owns spec.versions: the apply takes it over.
  const std::string large = largeRayClusterDefinition().dump(2);
  ASSERT_GT(large.size(), 900u * 1024);
  EXPECT_EQ(
      ok({"apply", "--server-side", "--force-conflicts", "-f", "-"}, large),
      "customresourcedefinition.apiextensions.k8s.io/rayclusters.ray.io serverside-applied\n");

  // New objects are decoded by the new schema. kubectl validates strictly by default, so the
  // field the schema does not declare is refused, as kube-apiserver refuses it ...
  ProcessResult strict = kubectl({"apply", "-f", "-"}, rayCluster("after"));
  EXPECT_NE(strict.exitCode, 0);
  EXPECT_EQ(strict.err,
            "Error from server (BadRequest): error when creating \"STDIN\": RayCluster in version "
            "\"v1\" cannot be handled as a RayCluster: strict decoding error: unknown field "
            "\"spec.headGroupSpec.template.spec.containers[0].notAContainerField\"\n");
  // ... and with --validate=warn it is pruned with a warning; ports get TCP, and KubeRay's
  // worker defaults still appear.
  ProcessResult warned = kubectl({"apply", "--validate=warn", "-f", "-"}, rayCluster("after"));
  EXPECT_EQ(warned.out, "raycluster.ray.io/after created\n") << warned.err;
  EXPECT_EQ(warned.err,
            "Warning: unknown field "
            "\"spec.headGroupSpec.template.spec.containers[0].notAContainerField\"\n");
  Json after = Json::parse(ok({"get", "raycluster", "after", "-o", "json"}));
  const Json& newHead = after["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0];
  EXPECT_FALSE(newHead.contains("notAContainerField"));
  EXPECT_EQ(newHead["ports"][0]["protocol"], "TCP");
  EXPECT_EQ(after["spec"]["workerGroupSpecs"][0]["numOfHosts"], 1);
  EXPECT_EQ(after["spec"]["workerGroupSpecs"][1]["numOfHosts"], 1);
  EXPECT_EQ(after["spec"]["workerGroupSpecs"][1]["minReplicas"], 0);
  EXPECT_EQ(after["spec"]["workerGroupSpecs"][1]["maxReplicas"], 2147483647);
  EXPECT_EQ(after["spec"]["workerGroupSpecs"][1]["replicas"], 0);

  // The object stored before is read through the new schema too, without a write of its spec
  // (the generation stays; the operator inside serve keeps writing the cluster's status, so the
  // resourceVersion may move on its own).
  Json reread = Json::parse(ok({"get", "raycluster", "before", "-o", "json"}));
  const Json& oldHead = reread["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0];
  EXPECT_FALSE(oldHead.contains("notAContainerField"));
  EXPECT_EQ(oldHead["ports"][0]["protocol"], "TCP");
  EXPECT_EQ(reread["metadata"]["generation"], before["metadata"]["generation"]);
  EXPECT_EQ(reread["metadata"]["uid"], before["metadata"]["uid"]);

  // A wrong type is refused with kube-apiserver's message (under --validate=warn: strict
  // decoding would refuse the unknown field first).
  std::string bad = rayCluster("bad");
  bad.replace(bad.find("replicas: 1"), 11, "replicas: one");
  ProcessResult refused = kubectl({"apply", "--validate=warn", "-f", "-"}, bad);
  EXPECT_NE(refused.exitCode, 0);
  EXPECT_THAT(refused.err,
              HasSubstr("spec.workerGroupSpecs[0].replicas: Invalid value: \"string\": "
                        "spec.workerGroupSpecs[0].replicas in body must be of type integer: "
                        "\"string\""));
}

}  // namespace
}  // namespace fakekube::e2e
