// Field ownership (metadata.managedFields) as kube-apiserver keeps it: the entries an apply and
// an update leave, the 409 of an apply that changes another manager's field, force, the removal
// of what a manager no longer applies, the status subresource's own entry, and managedFields
// sent by a client (accepted when valid, ignored when not, reset by [] and [{}]).
#include "fakekube/api/internal/managed_fields.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "fakekube/api/resources.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

class ManagedFieldsTest : public ApiServerTest {
 protected:
  static PatchOptions applyAs(std::string manager, bool force = false) {
    PatchOptions options;
    options.fieldManager = std::move(manager);
    options.force = force;
    return options;
  }
  Result<ObjectPtr> apply(const GroupVersionResource& gvr, const Json& body,
                          const std::string& manager, bool force = false,
                          std::string_view subresource = "") {
    return server->patch(gvr, "default", meta::name(body), PatchType::Apply, body.dump(),
                         applyAs(manager, force), subresource);
  }
  static Json configMapWith(const Json& data) {
    return {{"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"metadata", {{"name", "c1"}}},
            {"data", data}};
  }
  // The entries with each set as a tree (a stored object keeps them raw; managed_fields.h).
  static Json entries(const Json& object) {
    Json list = object["metadata"]["managedFields"];
    if (!list.is_array()) return list;
    for (Json& entry : list) {
      if (entry.contains("fieldsV1")) entry["fieldsV1"] = managed_fields::fieldsV1(entry);
    }
    return list;
  }
  // The entry of `manager` (and `operation`), or null.
  static Json entryOf(const Json& object, std::string_view manager,
                      std::string_view operation = "") {
    for (const auto& entry : entries(object)) {
      if (entry["manager"] == manager && (operation.empty() || entry["operation"] == operation)) {
        return entry;
      }
    }
    return nullptr;
  }
};

TEST_F(ManagedFieldsTest, AppliedDeploymentHasKubesManagedFieldsShape) {
  Json applied = must(apply(kDeployments, deployment("web"), "kubectl"));
  EXPECT_EQ(entries(applied), Json::parse(R"([{
    "apiVersion": "apps/v1", "fieldsType": "FieldsV1", "manager": "kubectl",
    "operation": "Apply", "time": "2024-01-01T00:00:00Z",
    "fieldsV1": {"f:spec": {
      "f:replicas": {},
      "f:selector": {},
      "f:template": {
        "f:metadata": {"f:labels": {"f:app": {}}},
        "f:spec": {"f:containers": {"k:{\"name\":\"main\"}": {".": {}, "f:image": {},
                                                            "f:name": {}}}}}}}}])"))
      << entries(applied).dump();
  EXPECT_EQ(get(kDeployments, "default", "web"), applied);  // and a GET shows them
}

TEST_F(ManagedFieldsTest, CreatedConfigMapHasKubesManagedFieldsShape) {
  Json cm = configMap("c1");
  cm["metadata"]["labels"] = {{"app", "web"}};
  Json created =
      must(server->create(kConfigMaps, "default", cm, {.fieldManager = "kubectl-create"}));
  EXPECT_EQ(entries(created), Json::parse(R"([{
    "apiVersion": "v1", "fieldsType": "FieldsV1", "manager": "kubectl-create",
    "operation": "Update", "time": "2024-01-01T00:00:00Z",
    "fieldsV1": {"f:data": {".": {}, "f:key": {}},
                 "f:metadata": {"f:labels": {".": {}, "f:app": {}}}}}])"))
      << entries(created).dump();
}

// What `kubectl create deployment` leaves: the creator owns the defaulted fields too, the
// nested structs every Deployment has are not owned as a whole, the maps and list elements the
// object brings are.
TEST_F(ManagedFieldsTest, CreatedDeploymentOwnsItsDefaultsLikeKubectlCreate) {
  Json created = must(server->create(kDeployments, "default", deployment("web"),
                                     {.fieldManager = "kubectl-create"}));
  ASSERT_EQ(entries(created).size(), 1u);
  const Json fields = entries(created)[0]["fieldsV1"];
  EXPECT_EQ(entries(created)[0]["operation"], "Update");
  const Json& spec = fields["f:spec"];
  EXPECT_FALSE(spec.contains(".")) << fields.dump();
  EXPECT_EQ(spec["f:selector"], Json::object());
  EXPECT_EQ(spec["f:replicas"], Json::object());
  EXPECT_TRUE(spec.contains("f:progressDeadlineSeconds")) << fields.dump();
  EXPECT_FALSE(spec["f:strategy"].contains(".")) << fields.dump();
  EXPECT_EQ(spec["f:strategy"]["f:rollingUpdate"],
            Json::parse(R"({".": {}, "f:maxSurge": {}, "f:maxUnavailable": {}})"));
  EXPECT_FALSE(spec["f:template"].contains("."));
  EXPECT_EQ(spec["f:template"]["f:metadata"],
            Json::parse(R"({"f:labels": {".": {}, "f:app": {}}})"));
  const Json& container = spec["f:template"]["f:spec"]["f:containers"]["k:{\"name\":\"main\"}"];
  EXPECT_TRUE(container.contains(".")) << fields.dump();
  EXPECT_TRUE(container.contains("f:imagePullPolicy")) << fields.dump();
  EXPECT_FALSE(spec["f:template"]["f:spec"]["f:containers"].contains(".")) << fields.dump();
  EXPECT_FALSE(fields.contains("f:status"));
}

TEST_F(ManagedFieldsTest, ConflictingApplyIs409NamingTheManagerAndField) {
  must(apply(kConfigMaps, configMapWith({{"k", "1"}}), "a"));
  const std::int64_t before = server->revision();
  auto refused = apply(kConfigMaps, configMapWith({{"k", "2"}}), "b");
  EXPECT_TRUE(failsWith(refused, 409, "Conflict",
                        "Apply failed with 1 conflict: conflict with \"a\": .data.k"));
  ASSERT_FALSE(refused);
  EXPECT_EQ(
      refused.error().details.causes,
      std::vector<StatusCause>({cause("FieldManagerConflict", "conflict with \"a\"", ".data.k")}));
  EXPECT_TRUE(refused.error().details.name.empty());
  EXPECT_EQ(server->revision(), before);
  EXPECT_EQ(get(kConfigMaps, "default", "c1")["data"]["k"], "1");
}

TEST_F(ManagedFieldsTest, SeveralConflictsAreListedByManager) {
  must(apply(kDeployments, deployment("web"), "a"));
  Json other = deployment("web");
  other["spec"]["replicas"] = 3;
  other["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28";
  auto refused = apply(kDeployments, other, "b");
  EXPECT_TRUE(failsWith(refused, 409, "Conflict",
                        "Apply failed with 2 conflicts: conflicts with \"a\":\n"
                        "- .spec.replicas\n"
                        "- .spec.template.spec.containers[name=\"main\"].image"));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().details.causes,
            std::vector<StatusCause>(
                {cause("FieldManagerConflict", "conflict with \"a\"", ".spec.replicas"),
                 cause("FieldManagerConflict", "conflict with \"a\"",
                       ".spec.template.spec.containers[name=\"main\"].image")}));
}

TEST_F(ManagedFieldsTest, ApplyingTheSameValueSharesOwnershipWithoutConflict) {
  must(apply(kConfigMaps, configMapWith({{"k", "1"}}), "a"));
  Json shared = must(apply(kConfigMaps, configMapWith({{"k", "1"}}), "b"));
  EXPECT_EQ(entryOf(shared, "a")["fieldsV1"], Json::parse(R"({"f:data": {"f:k": {}}})"));
  EXPECT_EQ(entryOf(shared, "b")["fieldsV1"], Json::parse(R"({"f:data": {"f:k": {}}})"));
  // Now neither can change it alone.
  EXPECT_TRUE(failsWith(apply(kConfigMaps, configMapWith({{"k", "2"}}), "a"), 409, "Conflict",
                        "Apply failed with 1 conflict: conflict with \"b\": .data.k"));
}

TEST_F(ManagedFieldsTest, ForceTakesTheFieldFromTheOtherManager) {
  must(apply(kConfigMaps, configMapWith({{"k", "1"}, {"x", "a's"}}), "a"));
  ex.advance(std::chrono::seconds(5));
  Json forced = must(apply(kConfigMaps, configMapWith({{"k", "2"}}), "b", /*force=*/true));
  EXPECT_EQ(forced["data"]["k"], "2");
  EXPECT_EQ(entryOf(forced, "a")["fieldsV1"], Json::parse(R"({"f:data": {"f:x": {}}})"));
  EXPECT_EQ(entryOf(forced, "b")["fieldsV1"], Json::parse(R"({"f:data": {"f:k": {}}})"));
  EXPECT_EQ(entryOf(forced, "b")["time"], "2024-01-01T00:00:05Z");
  EXPECT_EQ(entryOf(forced, "a")["time"], "2024-01-01T00:00:00Z");
  // A manager left with nothing has no entry.
  Json all = must(apply(kConfigMaps, configMapWith({{"k", "3"}, {"x", "b's"}}), "b", true));
  EXPECT_TRUE(entryOf(all, "a").is_null()) << entries(all).dump();
}

TEST_F(ManagedFieldsTest, UpdateByAnotherManagerThenApplyConflicts) {
  must(apply(kDeployments, deployment("web"), "a"));
  ex.advance(std::chrono::seconds(1));
  Json edited = get(kDeployments, "default", "web");
  edited["spec"]["replicas"] = 5;
  Json updated = must(server->update(kDeployments, "", edited, {.fieldManager = "kubectl-edit"}));
  EXPECT_EQ(entryOf(updated, "kubectl-edit"), Json::parse(R"({
    "apiVersion": "apps/v1", "fieldsType": "FieldsV1", "manager": "kubectl-edit",
    "operation": "Update", "time": "2024-01-01T00:00:01Z",
    "fieldsV1": {"f:spec": {"f:replicas": {}}}})"));
  EXPECT_FALSE(entryOf(updated, "a")["fieldsV1"]["f:spec"].contains("f:replicas"));

  auto refused = apply(kDeployments, deployment("web"), "a");
  EXPECT_TRUE(failsWith(refused, 409, "Conflict",
                        "Apply failed with 1 conflict: conflict with \"kubectl-edit\" using "
                        "apps/v1: .spec.replicas"));
  ASSERT_FALSE(refused);
  ASSERT_EQ(refused.error().details.causes.size(), 1u);
  EXPECT_EQ(refused.error().details.causes[0].message,
            "conflict with \"kubectl-edit\" using apps/v1");
}

TEST_F(ManagedFieldsTest, ApplyRemovesFieldsItNoLongerApplies) {
  Json cm = configMapWith({{"x", "1"}, {"y", "2"}});
  cm["metadata"]["labels"] = {{"app", "web"}};
  must(apply(kConfigMaps, cm, "a"));
  Json pruned = must(apply(kConfigMaps, configMapWith({{"x", "1"}}), "a"));
  EXPECT_EQ(pruned["data"], Json({{"x", "1"}}));
  EXPECT_FALSE(pruned["metadata"].contains("labels")) << pruned.dump();
  EXPECT_EQ(entryOf(pruned, "a")["fieldsV1"], Json::parse(R"({"f:data": {"f:x": {}}})"));
}

TEST_F(ManagedFieldsTest, ApplyKeepsWhatItNoLongerAppliesWhenAnotherManagerOwnsIt) {
  must(apply(kConfigMaps, configMapWith({{"x", "1"}, {"y", "2"}}), "a"));
  must(apply(kConfigMaps, configMapWith({{"y", "2"}}), "b"));          // shares y
  mergePatch(kConfigMaps, "default", "c1", {{"data", {{"z", "3"}}}});  // an update adds z
  Json kept = must(apply(kConfigMaps, configMapWith({{"x", "1"}}), "a"));
  EXPECT_EQ(kept["data"], Json({{"x", "1"}, {"y", "2"}, {"z", "3"}}));
}

TEST_F(ManagedFieldsTest, ApplyRemovesListElementsItNoLongerApplies) {
  Json two = deployment("web");
  two["spec"]["template"]["spec"]["containers"].push_back(
      {{"name", "sidecar"}, {"image", "busybox"}});
  must(apply(kDeployments, two, "a"));
  Json one = must(apply(kDeployments, deployment("web"), "a"));
  const Json& containers = one["spec"]["template"]["spec"]["containers"];
  ASSERT_EQ(containers.size(), 1u) << containers.dump();
  EXPECT_EQ(containers[0]["name"], "main");
}

TEST_F(ManagedFieldsTest, StatusSubresourceRecordsItsOwnEntry) {
  Json created = must(apply(kDeployments, deployment("web"), "a"));
  ex.advance(std::chrono::seconds(2));
  Json withStatus = created;
  withStatus["status"] = {{"replicas", 1}, {"observedGeneration", 1}};
  Json written =
      must(server->updateStatus(kDeployments, "", withStatus, {.fieldManager = "deployment-ctl"}));
  EXPECT_EQ(entryOf(written, "deployment-ctl"), Json::parse(R"({
    "apiVersion": "apps/v1", "fieldsType": "FieldsV1", "manager": "deployment-ctl",
    "operation": "Update", "subresource": "status", "time": "2024-01-01T00:00:02Z",
    "fieldsV1": {"f:status": {"f:observedGeneration": {}, "f:replicas": {}}}})"));
  // The main resource's entry is untouched, and an update of the main resource by the same
  // manager is another entry.
  EXPECT_EQ(entryOf(written, "a"), entryOf(created, "a"));
  Json labelled = written;
  labelled["metadata"]["labels"] = {{"team", "x"}};
  Json both = must(server->update(kDeployments, "", labelled, {.fieldManager = "deployment-ctl"}));
  int entriesOfManager = 0;
  for (const auto& entry : entries(both)) entriesOfManager += entry["manager"] == "deployment-ctl";
  EXPECT_EQ(entriesOfManager, 2) << entries(both).dump();
}

TEST_F(ManagedFieldsTest, ApplyToTheStatusSubresourceOwnsStatusOnly) {
  installWidgetCrd();
  must(apply(kWidgets, widget("w1"), "a"));
  Json status = widget("w1");
  status["status"] = {{"ready", true}};
  status["spec"]["size"] = 9;
  Json applied = must(apply(kWidgets, status, "status-writer", false, "status"));
  EXPECT_EQ(entryOf(applied, "status-writer"), Json::parse(R"({
    "apiVersion": "example.com/v1", "fieldsType": "FieldsV1", "manager": "status-writer",
    "operation": "Apply", "subresource": "status", "time": "2024-01-01T00:00:00Z",
    "fieldsV1": {"f:status": {"f:ready": {}}}})"));
  EXPECT_EQ(applied["spec"]["size"], 1);
}

TEST_F(ManagedFieldsTest, UpdateThatChangesNothingLeavesEntriesAlone) {
  Json created =
      must(server->create(kConfigMaps, "default", configMap("c1"), {.fieldManager = "x"}));
  ex.advance(std::chrono::seconds(9));
  Json same = must(server->update(kConfigMaps, "", created, {.fieldManager = "y"}));
  EXPECT_EQ(same, created);
}

TEST_F(ManagedFieldsTest, UpdatesWithoutAManagerAreUnknown) {
  Json created = create(kConfigMaps, configMap("c1"));
  EXPECT_EQ(entries(created)[0]["manager"], "unknown");
}

TEST_F(ManagedFieldsTest, ValidManagedFieldsInARequestAreTakenAsSent) {
  Json created =
      must(server->create(kConfigMaps, "default", configMap("c1"), {.fieldManager = "x"}));
  Json sent = created;
  sent["metadata"]["managedFields"] = Json::parse(R"([{"manager": "someone", "operation": "Apply",
      "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:key": {}}},
      "time": "2023-06-01T00:00:00Z"}])");
  Json updated = update(kConfigMaps, sent);
  EXPECT_EQ(entries(updated), sent["metadata"]["managedFields"]);
}

TEST_F(ManagedFieldsTest, InvalidManagedFieldsInARequestAreIgnored) {
  Json created =
      must(server->create(kConfigMaps, "default", configMap("c1"), {.fieldManager = "x"}));
  for (
      const char* garbage :
      {R"([{"manager": "m", "operation": "Delete", "apiVersion": "v1", "fieldsType": "FieldsV1"}])",
       R"([{"manager": "m", "operation": "Update", "fieldsType": "FieldsV1"}])",
       R"([{"manager": "m", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV2"}])",
       R"([{"manager": "m", "operation": "Update", "apiVersion": "v1"}])",
       R"([{"manager": "m", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1",
                "fieldsV1": {"x": {}}}])",
       R"([{"manager": "m", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:data": 7}}])"}) {
    Json sent = get(kConfigMaps, "default", "c1");
    sent["metadata"]["managedFields"] = Json::parse(garbage);
    sent["data"]["key"] = std::string("v-") + std::to_string(std::strlen(garbage));
    Json updated = must(server->update(kConfigMaps, "", sent, {.fieldManager = "x"}));
    ASSERT_EQ(entries(updated).size(), 1u) << garbage << "\n" << entries(updated).dump();
    EXPECT_EQ(entries(updated)[0]["manager"], "x") << garbage;
    EXPECT_EQ(entries(updated)[0]["fieldsV1"], entries(created)[0]["fieldsV1"]) << garbage;
  }
}

TEST_F(ManagedFieldsTest, EmptyManagedFieldsInARequestResetThem) {
  for (const char* reset : {"[]", "[{}]"}) {
    server->deleteObject(kConfigMaps, "default", "c1");
    Json created =
        must(server->create(kConfigMaps, "default", configMap("c1"), {.fieldManager = "x"}));
    Json sent = created;
    sent["metadata"]["managedFields"] = Json::parse(reset);
    Json updated = update(kConfigMaps, sent);
    EXPECT_FALSE(updated["metadata"].contains("managedFields")) << reset << updated.dump();
  }
}

TEST_F(ManagedFieldsTest, MoreThanTenUpdateManagersMergeTheOldestIntoAncientChanges) {
  create(kConfigMaps, configMapWith(Json::object()), "default");
  for (int i = 0; i < 12; ++i) {
    ex.advance(std::chrono::seconds(1));
    Json cm = get(kConfigMaps, "default", "c1");
    cm["data"]["k" + std::to_string(i)] = "v";
    must(server->update(kConfigMaps, "", cm, {.fieldManager = "m" + std::to_string(i)}));
  }
  Json capped = get(kConfigMaps, "default", "c1");
  EXPECT_EQ(entries(capped).size(), 10u) << entries(capped).dump();
  Json ancient = entryOf(capped, "ancient-changes");
  ASSERT_TRUE(ancient.is_object()) << entries(capped).dump();
  EXPECT_TRUE(entryOf(capped, "m0").is_null());
  EXPECT_TRUE(entryOf(capped, "m11").is_object());
}

}  // namespace
}  // namespace fakekube::apitest
