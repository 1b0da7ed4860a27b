// The KubeRay operator end to end: `kubectl apply` of a RayCluster in the shape of KubeRay's
// sample, against `fakekube serve` running the operator in process, and against `fakekube
// operator` in a second process over the REST client.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "fakekube/api/conditions.h"
#include "fakekube/api/json.h"
#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

class RayOperatorTest : public KubectlTest {
 protected:
  // What upstream KubeRay shows for its sample once the cluster is up.
  void expectSampleClusterReady();
};

void RayOperatorTest::expectSampleClusterReady() {
  RayOperatorTest& test = *this;
  test.ok({"wait", "--for=jsonpath={.status.state}=ready", "raycluster/raycluster-kuberay",
           "--timeout=60s"});
  Json cluster = Json::parse(test.ok({"get", "raycluster", "raycluster-kuberay", "-o", "json"}));
  const Json& status = cluster["status"];
  EXPECT_EQ(status["state"], "ready");
  EXPECT_EQ(status["desiredWorkerReplicas"], 1);
  EXPECT_EQ(status["availableWorkerReplicas"], 1);
  EXPECT_EQ(status["readyWorkerReplicas"], 1);
  EXPECT_EQ(status["minWorkerReplicas"], 1);
  EXPECT_EQ(status["maxWorkerReplicas"], 5);
  EXPECT_EQ(status["desiredCPU"], "2");
  EXPECT_EQ(status["desiredMemory"], "6Gi");
  EXPECT_EQ(status["desiredGPU"], "0");
  EXPECT_EQ(status["desiredTPU"], "0");
  EXPECT_EQ(status["observedGeneration"], 1);
  EXPECT_EQ(status["endpoints"], Json({{"client", "10001"},
                                       {"dashboard", "8265"},
                                       {"gcs-server", "6379"},
                                       {"metrics", "8080"}}));
  EXPECT_EQ(status["head"]["serviceName"], "raycluster-kuberay-head-svc");
  EXPECT_THAT(status["head"]["podName"].get<std::string>(),
              MatchesRegex("raycluster-kuberay-head-[a-z0-9]{5}"));
  const Json* headReady = findCondition(cluster, "HeadPodReady");
  ASSERT_NE(headReady, nullptr);
  EXPECT_EQ((*headReady)["status"], "True");
  EXPECT_EQ((*headReady)["reason"], "HeadPodRunningAndReady");
  const Json* provisioned = findCondition(cluster, "RayClusterProvisioned");
  ASSERT_NE(provisioned, nullptr);
  EXPECT_EQ((*provisioned)["status"], "True");
  EXPECT_EQ((*provisioned)["reason"], "AllPodRunningAndReadyFirstTime");
  EXPECT_TRUE(status["stateTransitionTimes"].contains("ready"));

  // The pods and the head service, named and labelled as KubeRay names them.
  std::string pods = test.ok({"get", "pods", "-l", "ray.io/cluster=raycluster-kuberay", "-o",
                              "custom-columns=NAME:.metadata.name,TYPE:.metadata.labels.ray\\.io/"
                              "node-type,GROUP:.metadata.labels.ray\\.io/group,PHASE:.status.phase",
                              "--sort-by=.metadata.labels.ray\\.io/node-type"});
  EXPECT_THAT(pods, MatchesRegex("NAME +TYPE +GROUP +PHASE\n"
                                 "raycluster-kuberay-head-[a-z0-9]{5} +head +headgroup +Running\n"
                                 "raycluster-kuberay-workergroup-worker-[a-z0-9]{5} +worker "
                                 "+workergroup +Running\n"));
  Json service =
      Json::parse(test.ok({"get", "service", "raycluster-kuberay-head-svc", "-o", "json"}));
  EXPECT_EQ(service["spec"]["clusterIP"], "None");
  EXPECT_EQ(service["metadata"]["ownerReferences"][0]["kind"], "RayCluster");
  EXPECT_EQ(service["metadata"]["ownerReferences"][0]["controller"], true);

  // kubectl get raycluster prints KubeRay's columns.
  EXPECT_THAT(test.ok({"get", "raycluster"}),
              MatchesRegex("NAME +DESIRED WORKERS +AVAILABLE WORKERS +CPUS +MEMORY +GPUS +STATUS "
                           "+AGE\nraycluster-kuberay +1 +1 +2 +6Gi +0 +ready +[0-9]+s\n"));
}

class RayOperatorServeTest : public RayOperatorTest {
  std::vector<std::string> serveArguments() override { return {"--nodes", "2"}; }
};

TEST_F(RayOperatorServeTest, TheRayClusterSampleReachesReady) {
  EXPECT_EQ(ok({"apply", "-f", "-"}, readManifest("ray-cluster.sample.yaml")),
            "raycluster.ray.io/raycluster-kuberay created\n");
  expectSampleClusterReady();
}

class RayOperatorOutOfProcessTest : public RayOperatorTest {
  std::vector<std::string> serveArguments() override {
    return {"--nodes", "2", "--controllers",
            "gc,namespace,node-lifecycle,scheduler,kubelet,job,ttl-after-finished,replicaset,"
            "deployment"};
  }
};

TEST_F(RayOperatorOutOfProcessTest, FakekubeOperatorReconcilesTheSampleOverHttp) {
  // Without the operator, the server does not even know RayClusters.
  EXPECT_NE(kubectl({"get", "rayclusters"}).exitCode, 0);
  ChildProcess rayOperator({FAKEKUBE_CLI, "operator", "--kubeconfig", serve->kubeconfig()});
  auto line = rayOperator.readLine();
  ASSERT_TRUE(line.has_value());
  ASSERT_THAT(*line, HasSubstr("fakekube operator: running against " + serve->url()));
  EXPECT_EQ(ok({"apply", "-f", "-"}, readManifest("ray-cluster.sample.yaml")),
            "raycluster.ray.io/raycluster-kuberay created\n");
  expectSampleClusterReady();
  rayOperator.signal(SIGTERM);
  EXPECT_EQ(rayOperator.wait(), 0);
}

// `fakekube operator --config`: KubeRay's Configuration file, whose headSidecarContainers and
// workerSidecarContainers the operator appends to the pods it creates (the envtest suite's
// "Create a head Pod resource with default sidecars").
TEST_F(RayOperatorOutOfProcessTest, ConfigFileSidecarsJoinThePods) {
  const std::string config = ::testing::TempDir() + "fakekube-ray-operator-config.yaml";
  {
    std::ofstream out(config);
    out << "apiVersion: config.ray.io/v1alpha1\n"
           "kind: Configuration\n"
           "headSidecarContainers:\n"
           "- name: fluentbit\n"
           "  image: fluent/fluent-bit:1.9.6\n"
           "workerSidecarContainers:\n"
           "- name: log-shipper\n"
           "  image: busybox\n";
  }
  ChildProcess rayOperator(
      {FAKEKUBE_CLI, "operator", "--kubeconfig", serve->kubeconfig(), "--config", config});
  auto line = rayOperator.readLine();
  ASSERT_TRUE(line.has_value());
  ASSERT_THAT(*line, HasSubstr("fakekube operator: running against " + serve->url()));
  ok({"apply", "-f", "-"}, readManifest("ray-cluster.sample.yaml"));
  ok({"wait", "--for=jsonpath={.status.state}=ready", "raycluster/raycluster-kuberay",
      "--timeout=60s"});
  EXPECT_EQ(ok({"get", "pods", "-l", "ray.io/cluster=raycluster-kuberay,ray.io/node-type=head",
                "-o", "jsonpath={.items[0].spec.containers[*].name}"}),
            "ray-head fluentbit");
  EXPECT_EQ(ok({"get", "pods", "-l", "ray.io/cluster=raycluster-kuberay,ray.io/node-type=worker",
                "-o", "jsonpath={.items[0].spec.containers[*].name}"}),
            "ray-worker log-shipper");
  rayOperator.signal(SIGTERM);
  EXPECT_EQ(rayOperator.wait(), 0);
  std::remove(config.c_str());
}

TEST(OperatorCommandLineTest, BadFlagsGiveOneLineErrors) {
  ProcessResult noKubeconfig =
      runProcess({FAKEKUBE_CLI, "operator", "--kubeconfig", "/nonexistent/config"});
  EXPECT_EQ(noKubeconfig.exitCode, 1);
  EXPECT_THAT(noKubeconfig.err,
              MatchesRegex("fakekube operator: [^\n]*/nonexistent/config[^\n]*\n"));
  ProcessResult badController = runProcess(
      {FAKEKUBE_CLI, "operator", "--kubeconfig", "/dev/null", "--controllers", "raycluser"});
  EXPECT_EQ(badController.exitCode, 1);
  EXPECT_EQ(badController.err,
            "fakekube operator: unknown controller \"raycluser\" (known: raycluster, rayjob, "
            "rayservice)\n");
  ProcessResult noConfig = runProcess({FAKEKUBE_CLI, "operator", "--kubeconfig", "/dev/null",
                                       "--config", "/nonexistent/config.yaml"});
  EXPECT_EQ(noConfig.exitCode, 1);
  EXPECT_EQ(noConfig.err,
            "fakekube operator: failed to read config file: open /nonexistent/config.yaml: no such "
            "file or directory\n");
  ProcessResult badServe = runProcess({FAKEKUBE_CLI, "serve", "--controllers", "gc,raycluser"});
  EXPECT_EQ(badServe.exitCode, 1);
  EXPECT_THAT(badServe.err, HasSubstr("unknown controller \"raycluser\""));
  EXPECT_THAT(badServe.err, HasSubstr("raycluster"));
}

}  // namespace
}  // namespace fakekube::e2e
