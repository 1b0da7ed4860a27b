// The operator's configuration file (KubeRay's Configuration, `--config`): what the port reads
// from it, and the decoder's errors.
#include "controllers/ray/operator_configuration.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

namespace fakekube::ray {
namespace {

// KubeRay's own sample shape: apiVersion, kind, the sidecars and a few flags.
constexpr const char* kConfiguration = R"(apiVersion: config.ray.io/v1alpha1
kind: Configuration
metricsAddr: ":8080"
reconcileConcurrency: 3
useKubernetesProxy: true
headSidecarContainers:
- name: fluentbit
  image: fluent/fluent-bit:1.9.6
  volumeMounts:
  - name: ray-logs
    mountPath: /tmp/ray
workerSidecarContainers:
- name: log-shipper
  image: busybox
)";

TEST(OperatorConfigurationTest, ReadsSidecarsAndFlagsOfAConfiguration) {
  OperatorOptions options;
  options.enableLoginShell = true;  // from the environment: kept
  ASSERT_TRUE(applyOperatorConfiguration(kConfiguration, options).has_value());
  ASSERT_EQ(options.headSidecarContainers.size(), 1u);
  EXPECT_EQ(options.headSidecarContainers[0]["name"], "fluentbit");
  EXPECT_EQ(options.headSidecarContainers[0]["volumeMounts"][0]["mountPath"], "/tmp/ray");
  ASSERT_EQ(options.workerSidecarContainers.size(), 1u);
  EXPECT_EQ(options.workerSidecarContainers[0]["image"], "busybox");
  EXPECT_EQ(options.reconcileConcurrency, 3);
  EXPECT_TRUE(options.useKubernetesProxy);
  EXPECT_FALSE(options.deleteRayJobAfterJobFinishes);
  EXPECT_TRUE(options.enableLoginShell);
}

// SetDefaults_Configuration: reconcileConcurrency 0 -> 1; absent lists are empty.
TEST(OperatorConfigurationTest, DefaultsOfAnEmptyConfiguration) {
  OperatorOptions options;
  options.reconcileConcurrency = 8;
  options.headSidecarContainers = {Json::object()};
  ASSERT_TRUE(applyOperatorConfiguration(
                  "apiVersion: config.ray.io/v1alpha1\nkind: Configuration\n", options)
                  .has_value());
  EXPECT_EQ(options.reconcileConcurrency, 1);
  EXPECT_TRUE(options.headSidecarContainers.empty());
}

TEST(OperatorConfigurationTest, BadDocumentsAreBadRequestsAndLeaveTheOptionsAlone) {
  OperatorOptions options;
  options.reconcileConcurrency = 5;
  auto missingKind = applyOperatorConfiguration("apiVersion: config.ray.io/v1alpha1\n", options);
  ASSERT_FALSE(missingKind.has_value());
  EXPECT_EQ(missingKind.error().code, 400);
  EXPECT_EQ(missingKind.error().message, "Object 'Kind' is missing in config file");

  auto wrongKind = applyOperatorConfiguration("apiVersion: v1\nkind: ConfigMap\n", options);
  ASSERT_FALSE(wrongKind.has_value());
  EXPECT_EQ(wrongKind.error().message, "no kind \"ConfigMap\" is registered for version \"v1\"");

  auto notAList = applyOperatorConfiguration(
      "apiVersion: config.ray.io/v1alpha1\nkind: Configuration\nreconcileConcurrency: 2\n"
      "headSidecarContainers: {name: x}\n",
      options);
  ASSERT_FALSE(notAList.has_value());
  EXPECT_EQ(notAList.error().message,
            "json: cannot unmarshal object into Go struct field "
            "Configuration.headSidecarContainers of type []v1.Container");

  auto badYaml = applyOperatorConfiguration("kind: [", options);
  ASSERT_FALSE(badYaml.has_value());
  EXPECT_EQ(badYaml.error().code, 400);
  EXPECT_EQ(options.reconcileConcurrency, 5);
}

TEST(OperatorConfigurationTest, LoadsAFileAndNamesTheOneItCannotRead) {
  const std::string path = ::testing::TempDir() + "kuberay-operator-config.yaml";
  {
    std::ofstream out(path);
    out << kConfiguration;
  }
  OperatorOptions options;
  ASSERT_TRUE(loadOperatorConfiguration(path, options).has_value());
  EXPECT_EQ(options.headSidecarContainers.size(), 1u);
  std::remove(path.c_str());

  auto missing = loadOperatorConfiguration(path, options);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message,
            "failed to read config file: open " + path + ": no such file or directory");
}

}  // namespace
}  // namespace fakekube::ray
