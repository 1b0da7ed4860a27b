#include "controllers/ray/operator_options.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace fakekube::ray {
namespace {

OperatorOptions fromMap(const std::map<std::string, std::string>& environment) {
  return OperatorOptions::fromEnvironment([&](const char* name) -> const char* {
    auto it = environment.find(name);
    return it == environment.end() ? nullptr : it->second.c_str();
  });
}

TEST(OperatorOptionsTest, UnsetVariablesKeepKubeRaysDefaults) {
  OperatorOptions options = fromMap({});
  EXPECT_FALSE(options.enableRandomPodDelete);
  EXPECT_TRUE(options.enableGcsFtRedisCleanup);
  EXPECT_TRUE(options.enableInitContainerInjection);
  EXPECT_FALSE(options.enableRayHeadClusterIpService);
  EXPECT_FALSE(options.deleteRayJobAfterJobFinishes);
  EXPECT_EQ(options.clusterDomain, "cluster.local");
  EXPECT_EQ(options.rayClusterDefaultRequeue, std::chrono::seconds(300));
  EXPECT_EQ(options.rayJobStatusCheckTimeout, std::chrono::seconds(300));
}

TEST(OperatorOptionsTest, ReadsSwitchesCaseInsensitivelyAndSecondsOnlyWhenPositive) {
  OperatorOptions options =
      fromMap({{"ENABLE_RANDOM_POD_DELETE", "TRUE"},
               {"ENABLE_GCS_FT_REDIS_CLEANUP", "False"},
               {"DELETE_RAYJOB_CR_AFTER_JOB_FINISHES", "true"},
               {"ENABLE_RAY_HEAD_CLUSTER_IP_SERVICE", "yes"},
               {"CLUSTER_DOMAIN", "example.org"},
               {"RAYCLUSTER_DEFAULT_REQUEUE_SECONDS_ENV", "45"},
               {"RAYJOB_STATUS_CHECK_TIMEOUT_SECONDS", "-3"},
               {"RAYJOB_DEPLOYMENT_STATUS_TRANSITION_GRACE_PERIOD_SECONDS", "ten"}});
  EXPECT_TRUE(options.enableRandomPodDelete);
  EXPECT_FALSE(options.enableGcsFtRedisCleanup);
  EXPECT_TRUE(options.deleteRayJobAfterJobFinishes);
  EXPECT_FALSE(options.enableRayHeadClusterIpService);  // only "true" switches it on
  EXPECT_EQ(options.clusterDomain, "example.org");
  EXPECT_EQ(options.rayClusterDefaultRequeue, std::chrono::seconds(45));
  EXPECT_EQ(options.rayJobStatusCheckTimeout, std::chrono::seconds(300));
  EXPECT_EQ(options.rayJobDeploymentStatusTransitionGracePeriod, std::chrono::seconds(300));
}

}  // namespace
}  // namespace fakekube::ray
