// The operator's configuration file (KubeRay's Configuration, `--config`): what the port reads
// from it, and the decoder's errors.
#include "controllers/ray/internal/operator_configuration.h"

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

// Test_decodeConfig "config with sidecars" (and useKubernetesProxy, reconcileConcurrency).
TEST(OperatorConfigurationTest, Test_decodeConfig_ConfigWithSidecars) {
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

// Test_decodeConfig "default config file": SetDefaults_Configuration's reconcileConcurrency 1;
// absent lists are empty.
TEST(OperatorConfigurationTest, Test_decodeConfig_DefaultConfigFile) {
  OperatorOptions options;
  options.reconcileConcurrency = 8;
  options.headSidecarContainers = {Json::object()};
  ASSERT_TRUE(applyOperatorConfiguration(
                  "apiVersion: config.ray.io/v1alpha1\nkind: Configuration\n", options)
                  .has_value());
  EXPECT_EQ(options.reconcileConcurrency, 1);
  EXPECT_TRUE(options.headSidecarContainers.empty());
}

// Test_decodeConfig "unknown filed ignored", "invalid type for field", "set Burst using float".
TEST(OperatorConfigurationTest, Test_decodeConfig_UnknownFieldsAndInvalidTypes) {
  OperatorOptions options;
  const std::string header =
      "apiVersion: config.ray.io/v1alpha1\nkind: Configuration\nmetricsAddr: \":8080\"\n"
      "probeAddr: \":8082\"\nenableLeaderElection: true\n";
  ASSERT_TRUE(
      applyOperatorConfiguration(header + "reconcileConcurrency: 1\nunknownfield: 1\n", options)
          .has_value());
  EXPECT_EQ(options.reconcileConcurrency, 1);
  ASSERT_TRUE(applyOperatorConfiguration(
                  header + "reconcileConcurrency: 100\nqps: 150.5\nburst: 300\n", options)
                  .has_value());
  EXPECT_EQ(options.reconcileConcurrency, 100);

  auto invalid = applyOperatorConfiguration(header + "reconcileConcurrency: true\n", options);
  ASSERT_FALSE(invalid.has_value());
  EXPECT_EQ(invalid.error().message,
            "json: cannot unmarshal bool into Go struct field Configuration.reconcileConcurrency "
            "of type int");
  auto floatBurst = applyOperatorConfiguration(
      header + "reconcileConcurrency: 1\nqps: 150\nburst: 300.5\n", options);
  ASSERT_FALSE(floatBurst.has_value());
  EXPECT_EQ(floatBurst.error().message,
            "json: cannot unmarshal number 300.5 into Go struct field Configuration.burst of type "
            "int");
  EXPECT_EQ(options.reconcileConcurrency, 100);
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
