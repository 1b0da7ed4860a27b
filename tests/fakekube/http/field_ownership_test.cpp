// Field ownership over HTTP: the 409 Status of a conflicting apply as a client reads it
// (reason Conflict, details.causes of type FieldManagerConflict), force=true, and the field
// manager a write without ?fieldManager= is recorded under (the User-Agent's product, as
// kube-apiserver derives it).
#include <gtest/gtest.h>

#include <string>

#include "http_fixture.h"

namespace fakekube::httptest {
namespace {

using FieldOwnershipTest = HttpTest;

const std::string kOwnedConfigMapPath = kConfigMapsPath + "/c1";

std::string configMapBody(const std::string& value) {
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c1"},"data":{"k":")" + value +
         R"("}})";
}

TEST_F(FieldOwnershipTest, ConflictingApplyAnswers409WithFieldManagerConflictCauses) {
  auto first = patch(kOwnedConfigMapPath + "?fieldManager=a", configMapBody("1"),
                     "application/apply-patch+yaml");
  ASSERT_EQ(first->status, 201) << first->body;

  auto refused = patch(kOwnedConfigMapPath + "?fieldManager=b", configMapBody("2"),
                       "application/apply-patch+yaml");
  ASSERT_EQ(refused->status, 409) << refused->body;
  EXPECT_EQ(status(refused), Json::parse(R"({
    "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
    "message": "Apply failed with 1 conflict: conflict with \"a\": .data.k",
    "reason": "Conflict",
    "details": {"causes": [{"reason": "FieldManagerConflict",
                            "message": "conflict with \"a\"", "field": ".data.k"}]},
    "code": 409})"));

  auto forced = patch(kOwnedConfigMapPath + "?fieldManager=b&force=true", configMapBody("2"),
                      "application/apply-patch+yaml");
  ASSERT_EQ(forced->status, 200) << forced->body;
  Json object = parse(get(kOwnedConfigMapPath)->body);
  EXPECT_EQ(object["data"]["k"], "2");
  const Json& entries = object["metadata"]["managedFields"];
  ASSERT_EQ(entries.size(), 1u) << entries.dump();
  EXPECT_EQ(entries[0]["manager"], "b");
  EXPECT_EQ(entries[0]["fieldsV1"], Json::parse(R"({"f:data": {"f:k": {}}})"));
}

TEST_F(FieldOwnershipTest, WritesWithoutAFieldManagerAreRecordedUnderTheUserAgentsProduct) {
  auto created = client->Post(kConfigMapsPath, {{"User-Agent", "my-operator/v1.2.3 (linux/amd64)"}},
                              configMap("c1").dump(), "application/json");
  ASSERT_EQ(created->status, 201) << created->body;
  EXPECT_EQ(parse(created->body)["metadata"]["managedFields"][0]["manager"], "my-operator");

  auto named =
      client->Patch(kOwnedConfigMapPath + "?fieldManager=edit", {{"User-Agent", "other/1"}},
                    R"({"data":{"key":"changed"}})", "application/merge-patch+json");
  ASSERT_EQ(named->status, 200) << named->body;
  // Sorted by operation, time, then manager.
  Json entries = parse(named->body)["metadata"]["managedFields"];
  ASSERT_EQ(entries.size(), 2u) << entries.dump();
  EXPECT_EQ(entries[0]["manager"], "edit");
  EXPECT_EQ(entries[0]["fieldsV1"], Json::parse(R"({"f:data": {"f:key": {}}})"));
  EXPECT_EQ(entries[1]["manager"], "my-operator");
  EXPECT_EQ(entries[1]["fieldsV1"], Json::parse(R"({"f:data": {}})"));

  // Apply names its manager itself: the User-Agent is no default for it.
  auto unnamed = client->Patch(kOwnedConfigMapPath, {{"User-Agent", "kubectl/v1.32.0"}},
                               configMapBody("x"), "application/apply-patch+yaml");
  EXPECT_EQ(unnamed->status, 422) << unnamed->body;
}

}  // namespace
}  // namespace fakekube::httptest
