// Field ownership with the real kubectl against `fakekube serve`: managedFields shown only with
// --show-managed-fields, the conflict error of two server-side appliers, --force-conflicts, and
// the managers kubectl's own commands write under.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Json = fakekube::Json;

class KubectlFieldOwnershipTest : public KubectlTest {
 protected:
  static std::string settings(const std::string& value) {
    return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: \"" + value +
           "\"}\n";
  }
  Json getJson(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"get", "configmap", "settings", "-o", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    Json j = Json::parse(ok(args), nullptr, false);
    EXPECT_FALSE(j.is_discarded());
    return j;
  }
};

TEST_F(KubectlFieldOwnershipTest, GetShowsManagedFieldsOnlyWithShowManagedFields) {
  ok({"apply", "--server-side", "--field-manager=a", "-f", "-"}, settings("one"));
  EXPECT_THAT(ok({"get", "configmap", "settings", "-o", "yaml"}), Not(HasSubstr("managedFields")));
  const std::string shown =
      ok({"get", "configmap", "settings", "-o", "yaml", "--show-managed-fields"});
  EXPECT_THAT(shown, HasSubstr("  managedFields:\n"));
  EXPECT_THAT(shown, HasSubstr("    manager: a\n"));
  EXPECT_THAT(shown, HasSubstr("    operation: Apply\n"));
  EXPECT_THAT(shown, HasSubstr("    fieldsType: FieldsV1\n"));
  EXPECT_THAT(shown, HasSubstr("        f:mode: {}\n"));
  Json entries = getJson({"--show-managed-fields"})["metadata"]["managedFields"];
  ASSERT_EQ(entries.size(), 1u) << entries.dump();
  EXPECT_EQ(entries[0]["fieldsV1"], Json::parse(R"({"f:data": {"f:mode": {}}})"));
}

TEST_F(KubectlFieldOwnershipTest, SecondApplierConflictsUntilItForcesConflicts) {
  ok({"apply", "--server-side", "--field-manager=a", "-f", "-"}, settings("one"));
  ProcessResult refused =
      kubectl({"apply", "--server-side", "--field-manager=b", "-f", "-"}, settings("two"));
  EXPECT_NE(refused.exitCode, 0);
  EXPECT_THAT(refused.err,
              HasSubstr("Apply failed with 1 conflict: conflict with \"a\": .data.mode"));
  EXPECT_THAT(refused.err, HasSubstr("Please review the fields above--they currently have other "
                                     "managers."));
  EXPECT_EQ(getJson()["data"]["mode"], "one");

  EXPECT_EQ(ok({"apply", "--server-side", "--field-manager=b", "--force-conflicts", "-f", "-"},
               settings("two")),
            "configmap/settings serverside-applied\n");
  Json taken = getJson({"--show-managed-fields"});
  EXPECT_EQ(taken["data"]["mode"], "two");
  const Json& entries = taken["metadata"]["managedFields"];
  ASSERT_EQ(entries.size(), 1u) << entries.dump();  // a owned nothing else: its entry is gone
  EXPECT_EQ(entries[0]["manager"], "b");
}

TEST_F(KubectlFieldOwnershipTest, KubectlCommandsWriteUnderTheirOwnManagers) {
  ok({"create", "configmap", "settings", "--from-literal=mode=one"});
  ok({"label", "configmap", "settings", "team=x"});
  Json entries = getJson({"--show-managed-fields"})["metadata"]["managedFields"];
  ASSERT_EQ(entries.size(), 2u) << entries.dump();
  EXPECT_EQ(entries[0]["manager"], "kubectl-create");
  EXPECT_EQ(entries[0]["operation"], "Update");
  EXPECT_EQ(entries[0]["fieldsV1"], Json::parse(R"({"f:data": {".": {}, "f:mode": {}}})"));
  EXPECT_EQ(entries[1]["manager"], "kubectl-label");
  EXPECT_EQ(entries[1]["fieldsV1"],
            Json::parse(R"({"f:metadata": {"f:labels": {".": {}, "f:team": {}}}})"));
}

}  // namespace
}  // namespace fakekube::e2e
