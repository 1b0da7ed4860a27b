// The example controller under RBAC: it runs as the ServiceAccount greeting-system/greeter bound
// to the role it ships (config/rbac/role.yaml, what a kubebuilder project generates from its
// `+kubebuilder:rbac` markers), and an access audit records what it did. The shipped role must be
// exactly the least role that allows that, and a role missing a rule it needs must fail clearly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace greeting
