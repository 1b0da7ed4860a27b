// Strategic merge patch: merge keys, set lists, every directive, the order rules and the errors,
// against the results k8s.io/apimachinery/pkg/util/strategicpatch gives for the same inputs.
#include "fakekube/api/internal/strategic_merge_patch.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/json_text.h"

namespace fakekube {
namespace {

using testing::J;

const PatchSchema& podSchema() { return PatchSchema::forKind("", "Pod"); }

Json pod() {
  return J(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "p", "labels": {"app": "web", "tier": "front"},
                 "finalizers": ["a", "b"]},
    "spec": {
      "containers": [
        {"name": "main", "image": "nginx:1.27", "args": ["-x", "-y"],
         "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
         "ports": [{"containerPort": 80, "name": "http"}],
         "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
        {"name": "sidecar", "image": "envoy:1"}
      ],
      "volumes": [{"name": "data", "emptyDir": {}}],
      "tolerations": [{"key": "k1", "operator": "Exists"}]
    }
  })");
}

Json patched(const Json& doc, std::string_view patch, const PatchSchema& schema = podSchema()) {
  auto result = applyStrategicMergePatch(doc, patch, schema);
  if (!result) {
    ADD_FAILURE() << "patch failed: " << result.error().str();
    return Json();
  }
  return *result;
}

std::vector<std::string> names(const Json& list, const char* key = "name") {
  std::vector<std::string> out;
  for (const auto& item : list) out.push_back(item[key].get<std::string>());
  return out;
}

// The error a patch gives: code, reason and message.
::testing::AssertionResult failsWith(const Json& doc, std::string_view patch, int code,
                                     std::string_view reason, std::string_view message) {
  auto result = applyStrategicMergePatch(doc, patch, podSchema());
  if (result) return ::testing::AssertionFailure() << "succeeded with " << result->dump();
  const Status& s = result.error();
  if (s.code != code || s.reason != reason || s.message != message) {
    return ::testing::AssertionFailure()
           << "got " << s.code << " " << s.reason << ": " << s.message;
  }
  return ::testing::AssertionSuccess();
}

TEST(StrategicMergePatchTest, ObjectsMergeAndNullDeletes) {
  Json out = patched(pod(), R"({"metadata": {"labels": {"tier": null, "env": "prod"}}})");
  EXPECT_EQ(out["metadata"]["labels"], J(R"({"app": "web", "env": "prod"})"));
  EXPECT_EQ(out["spec"], pod()["spec"]);
  // A null for a field that is not there is dropped, not stored.
  out = patched(pod(), R"({"spec": {"nodeName": null, "hostname": "h"}})");
  EXPECT_FALSE(out["spec"].contains("nodeName"));
  EXPECT_EQ(out["spec"]["hostname"], "h");
}

TEST(StrategicMergePatchTest, ContainersMergeByNameInPlace) {
  Json out =
      patched(pod(), R"({"spec": {"containers": [{"name": "sidecar", "image": "envoy:2"}]}})");
  const Json& containers = out["spec"]["containers"];
  EXPECT_EQ(names(containers), (std::vector<std::string>{"main", "sidecar"}));
  EXPECT_EQ(containers[1], J(R"({"name": "sidecar", "image": "envoy:2"})"));
  EXPECT_EQ(containers[0], pod()["spec"]["containers"][0]);
}

TEST(StrategicMergePatchTest, NewElementsComeBeforeTheServerOnlyOnes) {
  // Without $setElementOrder the patch's elements lead (the kubectl patch documentation shows the
  // added container first).
  Json out = patched(pod(), R"({"spec": {"containers": [{"name": "logger", "image": "fluent"}]}})");
  EXPECT_EQ(names(out["spec"]["containers"]),
            (std::vector<std::string>{"logger", "main", "sidecar"}));
}

TEST(StrategicMergePatchTest, NestedListsMergeByTheirOwnKeys) {
  Json out = patched(pod(), R"({"spec": {"containers": [{
      "name": "main",
      "env": [{"name": "B", "value": "two"}, {"name": "C", "value": "3"}],
      "ports": [{"containerPort": 80, "protocol": "TCP"}, {"containerPort": 443}],
      "volumeMounts": [{"name": "data", "mountPath": "/data", "readOnly": true}]}]}})");
  const Json& main = out["spec"]["containers"][0];
  // B keeps its place after A (both were there); C, new, follows the patch's order.
  EXPECT_EQ(main["env"], J(R"([{"name": "A", "value": "1"}, {"name": "B", "value": "two"},
                               {"name": "C", "value": "3"}])"));
  EXPECT_EQ(main["ports"], J(R"([{"containerPort": 80, "name": "http", "protocol": "TCP"},
                                 {"containerPort": 443}])"));
  EXPECT_EQ(main["volumeMounts"],
            J(R"([{"name": "data", "mountPath": "/data", "readOnly": true}])"));
  EXPECT_EQ(main["image"], "nginx:1.27");
}

TEST(StrategicMergePatchTest, VolumesMergeByName) {
  Json out = patched(
      pod(), R"({"spec": {"volumes": [{"name": "cache", "emptyDir": {"medium": "Memory"}}]}})");
  EXPECT_EQ(names(out["spec"]["volumes"]), (std::vector<std::string>{"cache", "data"}));
}

TEST(StrategicMergePatchTest, ListsWithoutAMergeKeyAreReplaced) {
  Json out = patched(pod(), R"({"spec": {"tolerations": [{"key": "k2", "operator": "Exists"}],
                                         "containers": [{"name": "main", "args": ["-z"]}]}})");
  EXPECT_EQ(out["spec"]["tolerations"], J(R"([{"key": "k2", "operator": "Exists"}])"));
  EXPECT_EQ(out["spec"]["containers"][0]["args"], J(R"(["-z"])"));
}

TEST(StrategicMergePatchTest, ConditionsMergeByTypeAndOwnerReferencesByUid) {
  Json doc = pod();
  doc["status"]["conditions"] = J(R"([{"type": "Ready", "status": "False"},
                                      {"type": "PodScheduled", "status": "True"}])");
  doc["metadata"]["ownerReferences"] =
      J(R"([{"uid": "u1", "name": "rs1", "kind": "ReplicaSet", "apiVersion": "apps/v1"}])");
  Json out = patched(doc, R"({
      "status": {"conditions": [{"type": "Ready", "status": "True"}]},
      "metadata": {"ownerReferences": [{"uid": "u1", "controller": true},
                                       {"uid": "u2", "name": "x", "kind": "Job",
                                        "apiVersion": "batch/v1"}]}})");
  EXPECT_EQ(out["status"]["conditions"], J(R"([{"type": "Ready", "status": "True"},
                                               {"type": "PodScheduled", "status": "True"}])"));
  const Json& owners = out["metadata"]["ownerReferences"];
  ASSERT_EQ(owners.size(), 2u);
  EXPECT_EQ(owners[0]["uid"], "u1");
  EXPECT_EQ(owners[0]["controller"], true);
  EXPECT_EQ(owners[0]["name"], "rs1");
  EXPECT_EQ(owners[1]["uid"], "u2");
}

TEST(StrategicMergePatchTest, FinalizersMergeAsASet) {
  Json out = patched(pod(), R"({"metadata": {"finalizers": ["c", "a"]}})");
  EXPECT_EQ(out["metadata"]["finalizers"], J(R"(["c", "a", "b"])"));
}

TEST(StrategicMergePatchTest, DeleteFromPrimitiveList) {
  Json out =
      patched(pod(), R"({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a", "zz"]}})");
  EXPECT_EQ(out["metadata"]["finalizers"], J(R"(["b"])"));
  // With an addition in the same patch.
  out = patched(pod(), R"({"metadata": {"finalizers": ["c"],
                                        "$deleteFromPrimitiveList/finalizers": ["b"]}})");
  EXPECT_EQ(out["metadata"]["finalizers"], J(R"(["c", "a"])"));
  // Nothing to delete from: no list appears.
  Json noFinalizers = pod();
  noFinalizers["metadata"].erase("finalizers");
  out = patched(noFinalizers, R"({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}})");
  EXPECT_FALSE(out["metadata"].contains("finalizers"));
}

TEST(StrategicMergePatchTest, PatchDeleteInAListRemovesByMergeKey) {
  Json out =
      patched(pod(), R"({"spec": {"containers": [{"name": "sidecar", "$patch": "delete"}]}})");
  EXPECT_EQ(names(out["spec"]["containers"]), (std::vector<std::string>{"main"}));
}

TEST(StrategicMergePatchTest, PatchReplaceInAListReplacesIt) {
  Json out = patched(pod(), R"({"spec": {"containers": [{"$patch": "replace"},
                                                         {"name": "only", "image": "busybox"}]}})");
  EXPECT_EQ(out["spec"]["containers"], J(R"([{"name": "only", "image": "busybox"}])"));
}

TEST(StrategicMergePatchTest, PatchReplaceAndDeleteInAnObject) {
  Json out = patched(pod(), R"({"metadata": {"labels": {"$patch": "replace", "new": "1"}}})");
  EXPECT_EQ(out["metadata"]["labels"], J(R"({"new": "1"})"));
  out = patched(pod(), R"({"metadata": {"labels": {"$patch": "delete"}}})");
  EXPECT_EQ(out["metadata"]["labels"], Json::object());
}

TEST(StrategicMergePatchTest, PatchMergeIsRefused) {
  EXPECT_TRUE(failsWith(pod(), R"({"metadata": {"labels": {"$patch": "merge", "a": "b"}}})", 500,
                        "", "unknown patch type: merge in map: map[$patch:merge a:b]"));
  EXPECT_TRUE(failsWith(pod(), R"({"spec": {"containers": [{"$patch": "merge"}]}})", 500, "",
                        "merging lists cannot yet be specified in the patch"));
  EXPECT_TRUE(failsWith(pod(), R"({"spec": {"containers": [{"name": "x", "$patch": "frob"}]}})",
                        500, "", "unknown patch type: frob in map: map[$patch:frob name:x]"));
}

TEST(StrategicMergePatchTest, SetElementOrderOrdersTheMergedList) {
  Json out = patched(pod(), R"({"spec": {
      "$setElementOrder/containers": [{"name": "sidecar"}, {"name": "main"}],
      "containers": [{"name": "main", "image": "nginx:1.28"}]}})");
  const Json& containers = out["spec"]["containers"];
  EXPECT_EQ(names(containers), (std::vector<std::string>{"sidecar", "main"}));
  EXPECT_EQ(containers[1]["image"], "nginx:1.28");
  EXPECT_EQ(containers[1]["env"], pod()["spec"]["containers"][0]["env"]);
}

TEST(StrategicMergePatchTest, SetElementOrderKeepsServerOnlyElementsInPlace) {
  // What `kubectl apply` sends after "main, logger, sidecar" replaced "main, sidecar" in the
  // file, while the server had added "injected" last.
  Json doc = pod();
  doc["spec"]["containers"].push_back(J(R"({"name": "injected", "image": "istio"})"));
  Json out = patched(doc, R"({"spec": {
      "$setElementOrder/containers": [{"name": "main"}, {"name": "logger"}, {"name": "sidecar"}],
      "containers": [{"name": "logger", "image": "fluent"}]}})");
  EXPECT_EQ(names(out["spec"]["containers"]),
            (std::vector<std::string>{"main", "logger", "sidecar", "injected"}));
  // Without a patch list the directive reorders what is there.
  out = patched(pod(), R"({"spec": {"$setElementOrder/containers": [{"name": "sidecar"},
                                                                    {"name": "main"}]}})");
  EXPECT_EQ(names(out["spec"]["containers"]), (std::vector<std::string>{"sidecar", "main"}));
  // Primitive lists are ordered by value.
  out = patched(pod(), R"({"metadata": {"$setElementOrder/finalizers": ["b", "c", "a"],
                                        "finalizers": ["c"]}})");
  EXPECT_EQ(out["metadata"]["finalizers"], J(R"(["b", "c", "a"])"));
}

TEST(StrategicMergePatchTest, RetainKeysClearsUnlistedFields) {
  Json deployment = J(R"({"spec": {"strategy": {"type": "RollingUpdate",
                                                "rollingUpdate": {"maxSurge": 1}}}})");
  const PatchSchema& schema = PatchSchema::forKind("apps", "Deployment");
  Json out =
      patched(deployment,
              R"({"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}})", schema);
  EXPECT_EQ(out["spec"]["strategy"], J(R"({"type": "Recreate"})"));
  auto bad = applyStrategicMergePatch(
      deployment, R"({"spec": {"strategy": {"$retainKeys": ["type"], "other": 1}}})", schema);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, 400);
  EXPECT_EQ(bad.error().message, "invalid patch format of retainKeys");
}

TEST(StrategicMergePatchTest, PodTemplatesInsideWorkloadsUseThePodSchema) {
  Json deployment = J(R"({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"template": {
      "metadata": {"labels": {"app": "web"}},
      "spec": {"containers": [{"name": "a", "image": "1"}, {"name": "b", "image": "2"}]}}}})");
  Json out =
      patched(deployment,
              R"({"spec": {"template": {"spec": {"containers": [{"name": "b", "image": "3"}]}}}})",
              PatchSchema::forKind("apps", "Deployment"));
  EXPECT_EQ(out["spec"]["template"]["spec"]["containers"],
            J(R"([{"name": "a", "image": "1"}, {"name": "b", "image": "3"}])"));
  // A CronJob's job template too.
  Json cronJob = J(R"({"spec": {"jobTemplate": {"spec": {"template": {"spec": {
      "containers": [{"name": "a", "image": "1"}]}}}}}})");
  out = patched(cronJob,
                R"({"spec": {"jobTemplate": {"spec": {"template": {"spec": {
                    "containers": [{"name": "b", "image": "2"}]}}}}}})",
                PatchSchema::forKind("batch", "CronJob"));
  EXPECT_EQ(out["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"].size(), 2u);
}

TEST(StrategicMergePatchTest, ServicePortsMergeByPort) {
  Json service =
      J(R"({"spec": {"ports": [{"port": 80, "name": "http"}, {"port": 443, "name": "https"}]}})");
  Json out = patched(service, R"({"spec": {"ports": [{"port": 443, "targetPort": 8443}]}})",
                     PatchSchema::forKind("", "Service"));
  EXPECT_EQ(out["spec"]["ports"], J(R"([{"port": 80, "name": "http"},
                                        {"port": 443, "name": "https", "targetPort": 8443}])"));
}

TEST(StrategicMergePatchTest, KindsWithoutMergeListsBehaveLikeMergePatch) {
  Json configMap = J(R"({"data": {"a": "1", "b": "2"}, "metadata": {"finalizers": ["x"]},
                         "list": [1, 2]})");
  Json out = patched(configMap, R"({"data": {"a": null, "c": "3"}, "list": [3],
                                    "metadata": {"finalizers": ["y"]}})",
                     PatchSchema::forKind("", "ConfigMap"));
  EXPECT_EQ(out["data"], J(R"({"b": "2", "c": "3"})"));
  EXPECT_EQ(out["list"], J("[3]"));
  // metadata's tags hold for every kind.
  EXPECT_EQ(out["metadata"]["finalizers"], J(R"(["y", "x"])"));
}

TEST(StrategicMergePatchTest, AddedValuesLoseTheirNullsAndDirectives) {
  Json doc = pod();
  doc["spec"].erase("volumes");
  Json out = patched(doc, R"({"spec": {"volumes": [{"name": "v", "emptyDir": {"medium": null}},
                                                    {"name": "gone", "$patch": "delete"}],
                                       "securityContext": {"runAsUser": 1, "fsGroup": null}}})");
  EXPECT_EQ(out["spec"]["volumes"], J(R"([{"name": "v", "emptyDir": {}}])"));
  EXPECT_EQ(out["spec"]["securityContext"], J(R"({"runAsUser": 1})"));
}

TEST(StrategicMergePatchTest, MalformedPatchesAreRefused) {
  const Json doc = pod();
  auto notJson = applyStrategicMergePatch(doc, "{\"spec\":", podSchema());
  ASSERT_FALSE(notJson);
  EXPECT_EQ(notJson.error().code, 400);
  EXPECT_EQ(notJson.error().reason, "BadRequest");
  EXPECT_TRUE(
      failsWith(doc, R"(["a"])", 400, "BadRequest",
                "json: cannot unmarshal array into Go value of type map[string]interface {}"));
  // A merge list element without its key: what the API server answers (an untyped 500).
  EXPECT_TRUE(failsWith(doc, R"({"spec": {"containers": [{"image": "nginx"}]}})", 500, "",
                        "map: map[image:nginx] does not contain declared merge key: name"));
  Json noFinalizers = doc;
  noFinalizers["metadata"]["finalizers"] = Json::array();
  EXPECT_TRUE(failsWith(noFinalizers, R"({"metadata": {"finalizers": [["a"]]}})", 422, "Invalid",
                        "the server rejected our request due to an error in our request"));
  EXPECT_TRUE(failsWith(doc, R"({"metadata": {"finalizers": [1]}})", 500, "",
                        "list element types are not identical: [[a b] [1]]"));
  EXPECT_TRUE(failsWith(doc, R"({"spec": {"$setElementOrder": []}})", 400, "BadRequest",
                        "invalid patch format of setElementOrder list"));
  EXPECT_TRUE(failsWith(doc, R"({"spec": {"$setElementOrder/containers": "main"}})", 500, "",
                        "expected a []interface {}, but received a string"));
  EXPECT_TRUE(failsWith(doc, R"({"metadata": {"$deleteFromPrimitiveList": ["a"]}})", 400,
                        "BadRequest", "invalid patch format of primitive list"));
  EXPECT_TRUE(failsWith(doc, R"({"spec": {"$retainKeys": "containers"}})", 400, "BadRequest",
                        "invalid patch format of retainKeys"));
  EXPECT_TRUE(failsWith(doc, R"({"spec": {"containers": [{"name": "main"}, {"name": "x"}],
                                          "$setElementOrder/containers": [{"name": "main"}]}})",
                        500, "",
                        "The order in patch list:\n[map[name:main] map[name:x]]\n doesn't match "
                        "$setElementOrder list:\n[map[name:main]]\n"));
}

TEST(StrategicMergePatchTest, NullPatchChangesNothing) {
  EXPECT_EQ(patched(pod(), "null"), pod());
  EXPECT_EQ(patched(pod(), "{}"), pod());
}

}  // namespace
}  // namespace fakekube
