// The example controller's tests, on fakekube's test library (fakekube::fixtures): a seeded
// in-process cluster, its starting objects, a reactor and a crash point, on virtual time.
#include "greeting_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "fixtures/eventually.h"
#include "fixtures/matchers.h"
#include "fixtures/test_cluster.h"

namespace greeting {
namespace {

using namespace std::chrono_literals;
using fakekube::CrashFault;
using fakekube::Expectation;
using fakekube::HasField;
using fakekube::HasPhase;
using fakekube::TestCluster;
using fakekube::Verb;
using ::testing::SizeIs;

const char* const kTwoGreetings = R"(
apiVersion: example.com/v1
kind: Greeting
metadata: {name: alice}
spec: {name: Alice}
---
apiVersion: example.com/v1
kind: Greeting
metadata: {name: bob}
spec: {name: Bob}
)";

TEST(GreetingController, GreetsEveryoneThroughALostResponseAndACrash) {
  TestCluster cluster({.seed = 7,
                       .manifests = {kGreetingCustomResourceDefinition, kTwoGreetings},
                       .operators = {{"greeting-operator", addGreetingController}}});
  // The first ConfigMap create is applied but its answer is lost (504); the operator's third
  // write is applied, then the operator dies before it sees the answer, and restarts.
  cluster.reactors().on(Verb::Create, "configmaps").onlyNth(1).loseResponse();
  cluster.crashAtWrite(3, CrashFault::CrashAfterCommit);
  ASSERT_TRUE(fakekube::succeeded(cluster.start()));

  EXPECT_EVENTUALLY(cluster, Expectation::every(kGreetings, "default", HasPhase("Ready")), 30s);
  EXPECT_TRUE(cluster.crashPointReached());
  EXPECT_EQ(cluster.operatorRestarts(), 1u);
  EXPECT_THAT(cluster.list(kConfigMaps, "default"), SizeIs(2));
  EXPECT_THAT(*cluster.get(kConfigMaps, "default", "alice-greeting"),
              HasField("data.greeting", "Hello, Alice!"));
  EXPECT_THAT(*cluster.get(kGreetings, "default", "bob"),
              HasField("status.configMap", "bob-greeting"));
}

TEST(GreetingController, FollowsAChangedName) {
  TestCluster cluster({.seed = 7,
                       .manifests = {kGreetingCustomResourceDefinition, kTwoGreetings},
                       .operators = {{"greeting-operator", addGreetingController}}});
  ASSERT_TRUE(fakekube::succeeded(cluster.start()));
  ASSERT_EVENTUALLY(cluster, Expectation::every(kGreetings, "default", HasPhase("Ready")), 30s);

  auto alice = cluster.get(kGreetings, "default", "alice");
  ASSERT_TRUE(fakekube::succeeded(alice));
  (*alice)["spec"]["name"] = "Alicia";
  ASSERT_TRUE(fakekube::succeeded(cluster.client().update(kGreetings, *alice)));

  EXPECT_EVENTUALLY(cluster,
                    Expectation::object(kConfigMaps, "default", "alice-greeting",
                                        HasField("data.greeting", "Hello, Alicia!")),
                    30s);
  EXPECT_THAT(*cluster.get(kConfigMaps, "default", "bob-greeting"),
              HasField("data.greeting", "Hello, Bob!"));
}

}  // namespace
}  // namespace greeting
