// The ServiceAccount controller: every namespace gets a "default" ServiceAccount, again after it
// is deleted, and a terminating namespace gets none.
#include "fakekube/cluster/serviceaccount_controller.h"

#include <gtest/gtest.h>

#include "fakekube/api/resources.h"
#include "fakekube/cluster/workload_fixture.h"

namespace fakekube::workloadtest {
namespace {

class ServiceAccountControllerTest : public WorkloadTest {
 protected:
  void SetUp() override {
    WorkloadTest::SetUp();
    newManager();
    ASSERT_TRUE(addServiceAccountController(*manager).has_value());
    startManager();
  }
};

TEST_F(ServiceAccountControllerTest, DefaultServiceAccountInEveryNamespace) {
  run();
  EXPECT_TRUE(server->get(kServiceAccounts, "default", "default").has_value());
  create(kNamespaces, namespaceObject("team-a"));
  run();
  Json account = get(kServiceAccounts, "team-a", "default");
  EXPECT_EQ(account["kind"], "ServiceAccount");
  EXPECT_FALSE(meta::uid(account).empty());
}

TEST_F(ServiceAccountControllerTest, DeletedDefaultIsMadeAgain) {
  create(kNamespaces, namespaceObject("team-a"));
  run();
  Json first = get(kServiceAccounts, "team-a", "default");
  remove(kServiceAccounts, "team-a", "default");
  run();
  Json second = get(kServiceAccounts, "team-a", "default");
  EXPECT_NE(meta::uid(second), meta::uid(first));
  // Other ServiceAccounts are the user's.
  create(kServiceAccounts, Json{{"apiVersion", "v1"},
                                {"kind", "ServiceAccount"},
                                {"metadata", {{"name", "builder"}, {"namespace", "team-a"}}}});
  remove(kServiceAccounts, "team-a", "builder");
  run();
  EXPECT_TRUE(isNotFound(server->get(kServiceAccounts, "team-a", "builder")));
}

TEST_F(ServiceAccountControllerTest, TerminatingNamespaceGetsNone) {
  Json ns = namespaceObject("leaving");
  ns["spec"]["finalizers"] = {"example.com/hold"};
  create(kNamespaces, ns);
  run();
  remove(kServiceAccounts, "leaving", "default");
  remove(kNamespaces, "", "leaving");
  run();
  EXPECT_TRUE(isNotFound(server->get(kServiceAccounts, "leaving", "default")));
}

}  // namespace
}  // namespace fakekube::workloadtest
