// The example controller under RBAC: it runs as the ServiceAccount greeting-system/greeter bound
// to the role it ships (config/rbac/role.yaml, what a kubebuilder project generates from its
// `+kubebuilder:rbac` markers), and an access audit records what it did. The shipped role must be
// exactly the least role that allows that, and a role missing a rule it needs must fail clearly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fixtures/access_audit.h"
#include "fixtures/eventually.h"
#include "fixtures/least_role.h"
#include "fixtures/manifests.h"
#include "fixtures/matchers.h"
#include "fixtures/role_diff.h"
#include "fixtures/test_cluster.h"
#include "greeting_controller.h"

namespace greeting {
namespace {

using namespace std::chrono_literals;
using fakekube::AccessAudit;
using fakekube::Expectation;
using fakekube::HasField;
using fakekube::HasPhase;
using fakekube::RunAsServiceAccount;
using fakekube::TestCluster;
using fakekube::TestClusterOptions;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

const char* const kGreeter = "system:serviceaccount:greeting-system:greeter";

const char* const kAliceGreeting = R"(
apiVersion: example.com/v1
kind: Greeting
metadata: {name: alice}
spec: {name: Alice}
)";

std::string shippedRoleText() {
  std::ifstream in(GREETING_ROLE_FILE);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TestClusterOptions greeterUnder(std::string role, std::shared_ptr<AccessAudit> audit) {
  return {.seed = 7,
          .manifests = {kGreetingCustomResourceDefinition, kAliceGreeting},
          .operators = {{"greeting-operator", addGreetingController,
                         RunAsServiceAccount{.ns = "greeting-system",
                                             .name = "greeter",
                                             .roleManifests = {std::move(role)}}}},
          .audit = std::move(audit)};
}

// Every path of the controller: a Greeting greeted, then renamed (its ConfigMap updated).
void greetAndRename(TestCluster& cluster) {
  ASSERT_EVENTUALLY(cluster, Expectation::every(kGreetings, "default", HasPhase("Ready")), 30s);
  auto alice = cluster.get(kGreetings, "default", "alice");
  ASSERT_TRUE(fakekube::succeeded(alice));
  (*alice)["spec"]["name"] = "Alicia";
  ASSERT_TRUE(fakekube::succeeded(cluster.client().update(kGreetings, *alice)));
  EXPECT_EVENTUALLY(cluster,
                    Expectation::object(kConfigMaps, "default", "alice-greeting",
                                        HasField("data.greeting", "Hello, Alicia!")),
                    30s);
}

TEST(GreetingControllerRbac, TheShippedRoleIsTheLeastRoleThatAllowsWhatItDoes) {
  auto audit = std::make_shared<AccessAudit>();
  TestCluster cluster(greeterUnder(shippedRoleText(), audit));
  ASSERT_TRUE(fakekube::succeeded(cluster.start()));
  greetAndRename(cluster);

  const auto accesses = audit->accessesOf(kGreeter);
  EXPECT_EQ(audit->refusedCount(kGreeter), 0u);
  // Regenerate config/rbac/role.yaml with what this prints when the controller changes.
  EXPECT_EQ(fakekube::roleYaml(fakekube::leastRoles(accesses)), shippedRoleText());
  auto shipped = fakekube::decodeManifest(shippedRoleText());
  ASSERT_TRUE(fakekube::succeeded(shipped));
  const auto diff = fakekube::diffRoles(
      accesses, fakekube::serviceAccountUser("greeting-system", "greeter"), *shipped);
  EXPECT_THAT(diff.missing, IsEmpty());
  EXPECT_THAT(diff.unused, IsEmpty());
}

// A role without one rule the controller needs fails clearly: the ConfigMap's create is refused
// with kube-apiserver's 403 Forbidden, word for word, the Greeting never gets Ready, and the diff
// against the role names the missing rule.
TEST(GreetingControllerRbac,
     ARoleWithoutCreateConfigMapsRefusesTheCreateWithKubeApiserversForbidden) {
  std::string role = shippedRoleText();
  const std::string createRule = "  - create\n";  // the first is the configmaps rule's
  role.erase(role.find(createRule), createRule.size());
  auto audit = std::make_shared<AccessAudit>();
  TestCluster cluster(greeterUnder(role, audit));
  ASSERT_TRUE(fakekube::succeeded(cluster.start()));

  // Never Ready: every create of its ConfigMap is refused (the controller retries with backoff).
  EXPECT_FALSE(cluster.runUntil(Expectation::every(kGreetings, "default", HasPhase("Ready")), 30s));
  EXPECT_THAT(cluster.list(kConfigMaps, "default"), IsEmpty());

  const auto accesses = audit->accessesOf(kGreeter);
  auto create = std::find_if(accesses.begin(), accesses.end(), [](const auto& record) {
    return record.access.verb == "create" && record.access.resource == "configmaps";
  });
  ASSERT_NE(create, accesses.end());
  EXPECT_EQ(create->refused, create->count);
  EXPECT_GT(create->refused, 1u);
  EXPECT_EQ(create->refusal,
            "configmaps is forbidden: User \"system:serviceaccount:greeting-system:greeter\" "
            "cannot create resource \"configmaps\" in API group \"\" in the namespace "
            "\"default\"");
  EXPECT_EQ(audit->refusedCount(kGreeter), create->refused);

  auto given = fakekube::decodeManifest(role);
  ASSERT_TRUE(fakekube::succeeded(given));
  const auto diff = fakekube::diffRoles(
      accesses, fakekube::serviceAccountUser("greeting-system", "greeter"), *given);
  ASSERT_THAT(diff.missing, SizeIs(1));
  EXPECT_EQ(diff.missing[0].access.str(), "create configmaps in namespace default");
  EXPECT_THAT(diff.str(), HasSubstr("- apiGroups:\n    - \"\"\n    resources:\n    - configmaps\n"
                                    "    verbs:\n    - create\n"));
}

}  // namespace
}  // namespace greeting
