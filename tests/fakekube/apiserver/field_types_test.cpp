// Built-in objects whose fields have the wrong JSON types are refused as kube-apiserver's decoding
// refuses them (400 "<Kind> in version "v1" cannot be handled as a <Kind>: json: cannot unmarshal
// ..."), and ConfigMap/Secret keys are validated (422 on data[key]). Every refused write leaves
// the revision where it was.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "fakekube/api/resources.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

using FieldTypesTest = ApiServerTest;

const std::string kConfigKeyMsg =
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
    "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
    "'[-._a-zA-Z0-9]+')";

TEST_F(FieldTypesTest, WrongJsonTypesAreGosDecodingErrors) {
  struct Case {
    GroupVersionResource gvr;
    Json object;
    std::string message;
  };
  Json numberData = configMap("c1");
  numberData["data"]["k"] = 1;
  Json arrayData = configMap("c2");
  arrayData["data"] = Json::array({"a"});
  Json badImage = pod("p1");
  badImage["spec"]["containers"][0]["image"] = 5;
  Json stringReplicas = deployment("d1");
  stringReplicas["spec"]["replicas"] = "3";
  Json fractionReplicas = deployment("d2");
  fractionReplicas["spec"]["replicas"] = 1.5;
  Json hugeReplicas = deployment("d3");
  hugeReplicas["spec"]["replicas"] = 3000000000LL;
  Json labels = configMap("c3");
  labels["metadata"]["labels"] = {{"a", true}};
  Json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                {"kind", "Lease"},
                {"metadata", {{"name", "l1"}, {"namespace", "default"}}},
                {"spec", {{"holderIdentity", Json::object()}}}};
  Json secret = {{"apiVersion", "v1"},
                 {"kind", "Secret"},
                 {"metadata", {{"name", "s1"}, {"namespace", "default"}}},
                 {"data", {{"k", "not base64!"}}}};
  const std::vector<Case> cases = {
      {kConfigMaps, numberData,
       R"(ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string)"},
      {kConfigMaps, arrayData,
       R"(ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string)"},
      {kPods, badImage,
       R"(Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field Container.spec.containers.image of type string)"},
      {kDeployments, stringReplicas,
       R"(Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32)"},
      {kDeployments, fractionReplicas,
       R"(Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32)"},
      {kDeployments, hugeReplicas,
       R"(Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32)"},
      {kConfigMaps, labels,
       R"(ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string)"},
      {kLeases, lease,
       R"(Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal object into Go struct field LeaseSpec.spec.holderIdentity of type string)"},
      {kSecrets, secret,
       R"(Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.object.dump());
    const auto before = server->revision();
    auto created = server->create(c.gvr, "default", c.object);
    ASSERT_FALSE(created);
    EXPECT_EQ(created.error().code, 400);
    EXPECT_EQ(created.error().reason, "BadRequest");
    EXPECT_EQ(created.error().message, c.message);
    EXPECT_EQ(server->revision(), before);
  }
}

TEST_F(FieldTypesTest, NullsAndWellTypedObjectsAreAccepted) {
  Json cm = configMap("ok");
  cm["data"]["empty"] = nullptr;
  cm["binaryData"] = {{"b", "aGVsbG8="}};
  EXPECT_TRUE(server->create(kConfigMaps, "default", cm));
  Json d = deployment("ok");
  d["spec"]["replicas"] = nullptr;
  EXPECT_TRUE(server->create(kDeployments, "default", d));
}

TEST_F(FieldTypesTest, UpdatesAndPatchesAreCheckedToo) {
  auto created = server->create(kConfigMaps, "default", configMap("c1"));
  ASSERT_TRUE(created);
  const auto before = server->revision();
  auto patched = server->patch(kConfigMaps, "default", "c1", PatchType::Merge,
                               R"({"data":{"k":{"nested":1}}})", {});
  ASSERT_FALSE(patched);
  EXPECT_EQ(
      patched.error().message,
      R"(ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal object into Go struct field ConfigMap.data of type string)");
  Json changed = **created;
  changed["immutable"] = "yes";
  auto updated = server->update(kConfigMaps, "default", changed);
  ASSERT_FALSE(updated);
  EXPECT_EQ(
      updated.error().message,
      R"(ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ConfigMap.immutable of type bool)");
  EXPECT_EQ(server->revision(), before);
}

TEST_F(FieldTypesTest, ConfigMapAndSecretKeysAreValidated) {
  Json cm = configMap("c1");
  cm["data"] = {{"bad key!", "v"}, {"..x", "v"}, {"dup", "v"}};
  cm["binaryData"] = {{"dup", "aGk="}};
  const auto before = server->revision();
  auto created = server->create(kConfigMaps, "default", cm);
  ASSERT_FALSE(created);
  EXPECT_EQ(created.error().code, 422);
  EXPECT_EQ(created.error().message,
            "ConfigMap \"c1\" is invalid: [data[..x]: Invalid value: \"..x\": must not start with "
            "'..', data[bad key!]: Invalid value: \"bad key!\": " +
                kConfigKeyMsg +
                ", data[dup]: Invalid value: \"dup\": duplicate of key present in binaryData]");
  EXPECT_EQ(created.error().details.causes.at(0).field, "data[..x]");

  Json secret = {{"apiVersion", "v1"},
                 {"kind", "Secret"},
                 {"metadata", {{"name", "s1"}, {"namespace", "default"}}},
                 {"data", {{std::string(254, 'k'), "aGk="}}}};
  auto refused = server->create(kSecrets, "default", secret);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, 422);
  EXPECT_EQ(refused.error().details.causes.at(0).field, "data[" + std::string(254, 'k') + "]");
  EXPECT_EQ(
      refused.error().details.causes.at(0).message,
      "Invalid value: \"" + std::string(254, 'k') + "\": must be no more than 253 characters");
  EXPECT_EQ(server->revision(), before);
}

}  // namespace
}  // namespace fakekube::apitest
