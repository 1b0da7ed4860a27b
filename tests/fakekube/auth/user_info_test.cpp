#include "fakekube/auth/user_info.h"

#include <gtest/gtest.h>

#include <memory>

#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/apiserver/interceptor.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube {
namespace {

// serviceaccount.MakeUsername and MakeGroupNames.
TEST(UserInfoTest, ServiceAccountUserHasTheNameAndGroupsKubernetesGivesIt) {
  UserInfo user = serviceAccountUser("ray-system", "kuberay-operator");
  EXPECT_EQ(user.name, "system:serviceaccount:ray-system:kuberay-operator");
  EXPECT_EQ(user.groups,
            (std::vector<std::string>{"system:serviceaccounts", "system:serviceaccounts:ray-system",
                                      "system:authenticated"}));
  auto account = serviceAccountOf(user.name);
  ASSERT_TRUE(account.has_value());
  EXPECT_EQ(account->first, "ray-system");
  EXPECT_EQ(account->second, "kuberay-operator");
  EXPECT_FALSE(serviceAccountOf("system:serviceaccount:only-namespace").has_value());
  EXPECT_FALSE(serviceAccountOf("system:serviceaccount:a:b:c").has_value());
  EXPECT_FALSE(serviceAccountOf("alice").has_value());
}

TEST(UserInfoTest, ScopesNestAndRestoreTheUserTheyReplaced) {
  UserInfo alice = authenticatedUser("alice", {"dev"});
  UserInfo bob = authenticatedUser("bob");
  EXPECT_EQ(currentRequestUser(), nullptr);
  {
    RequestUserScope outer(&alice);
    EXPECT_EQ(currentRequestUser(), &alice);
    {
      RequestUserScope inner(&bob);
      EXPECT_EQ(currentRequestUser(), &bob);
    }
    EXPECT_EQ(currentRequestUser(), &alice);
  }
  EXPECT_EQ(currentRequestUser(), nullptr);
  EXPECT_TRUE(alice.inGroup("system:authenticated"));
  EXPECT_TRUE(loopbackUser().inGroup("system:masters"));
}

// Records the user each request reached the server as.
class UserRecorder : public Interceptor {
 public:
  std::optional<Status> before(const Request& request) override {
    seen.push_back(request.user == nullptr ? std::string("<server>") : request.user->name);
    return std::nullopt;
  }
  std::vector<std::string> seen;
};

TEST(UserInfoTest, AnInProcessClientMakesItsRequestsAsItsUser) {
  SimExecutor executor;
  auto server = ApiServer::open(executor.clock());
  ASSERT_TRUE(server.has_value());
  // The operator may read ConfigMaps in default (view), so its request reaches the interceptors.
  ASSERT_TRUE((*server)->create(
      GroupVersionResource{"rbac.authorization.k8s.io", "v1", "rolebindings"}, "default",
      {{"metadata", {{"name", "operator-view"}}},
       {"roleRef",
        {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "view"}}},
       {"subjects",
        Json::array(
            {{{"kind", "ServiceAccount"}, {"name", "operator"}, {"namespace", "default"}}})}}));
  auto recorder = std::make_shared<UserRecorder>();
  (*server)->addInterceptor(recorder);
  InProcessClient asServer(**server);
  InProcessClient asOperator(**server, serviceAccountUser("default", "operator"));
  EXPECT_EQ(asServer.user(), nullptr);
  ASSERT_NE(asOperator.user(), nullptr);
  (void)asOperator.get(kConfigMaps, "default", "missing");
  (void)asServer.list(kConfigMaps, "default");
  EXPECT_EQ(recorder->seen,
            (std::vector<std::string>{"system:serviceaccount:default:operator", "<server>"}));
}

}  // namespace
}  // namespace fakekube
