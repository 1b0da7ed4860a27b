// Mirrors KubeRay's common/pod_test.go, common/service_test.go and utils/util_test.go for what the
// port builds: names, labels, the `ray start` command, environment, init container, probes, and
// the head Service.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/ray/internal/naming.h"
#include "controllers/ray/internal/pod_builder.h"
#include "controllers/ray/internal/raycluster_status.h"
#include "controllers/ray/internal/raycluster_validation.h"
#include "controllers/ray/internal/service_builder.h"
#include "tests/controllers/ray/ray_fixture.h"

namespace fakekube::ray::testing {
namespace {

using ::testing::HasSubstr;

const Json* envOf(const Json& container, const std::string& name) {
  for (const Json& e : container["env"]) {
    if (e.value("name", "") == name) return &e;
  }
  return nullptr;
}

// TestPodName / TestCheckName / TestCheckLabel.
TEST(NamingTest, PodNamesAndTrimming) {
  EXPECT_EQ(podName("raycluster-sample", "head", true), "raycluster-sample-head-");
  EXPECT_EQ(podName("raycluster-sample", "head", false), "raycluster-sample-head");
  EXPECT_EQ(podName("RayCluster-Sample-WorkerGroup", "worker", true),
            "raycluster-sample-workergroup-worker-");
  const std::string longPrefix(60, 'a');
  EXPECT_EQ(podName(longPrefix, "worker", true), std::string(50, 'a') + "-worker-");
  // CheckName cuts the front to 50 and replaces a leading digit or punctuation.
  EXPECT_EQ(checkName("1abc"), "rabc");
  EXPECT_EQ(checkName("-abc"), "rabc");
  EXPECT_EQ(checkName(std::string(10, 'x') + std::string(50, 'y')), std::string(50, 'y'));
  EXPECT_EQ(checkLabel(std::string(70, 'z')).size(), 63u);
  EXPECT_EQ(generateIdentifier("rc", "head"), "rc-head");
}

// TestGenerateHeadServiceName / TestGenerateFQDNServiceName.
TEST(NamingTest, HeadServiceNameAndFqdn) {
  Json rc = sampleRayCluster("raycluster-sample");
  EXPECT_EQ(headServiceName(CrdType::RayCluster, rc, "raycluster-sample"),
            "raycluster-sample-head-svc");
  EXPECT_EQ(fqdnServiceName(rc, "default", "cluster.local"),
            "raycluster-sample-head-svc.default.svc.cluster.local");
  rc["spec"]["headGroupSpec"]["headService"] = {{"metadata", {{"name", "my-head"}}}};
  EXPECT_EQ(headServiceName(CrdType::RayCluster, rc, "raycluster-sample"), "my-head");
  EXPECT_EQ(headServiceName(CrdType::RayJob, rc, "my-job"), "my-job-head-svc");
  EXPECT_EQ(fqdnServiceName(rc, "ns", "example.org"), "my-head.ns.svc.example.org");
}

// TestBuildPod (head): generateName, namespace, labels, command, env, probes, owner.
TEST(PodBuilderTest, HeadPod) {
  Json rc = sampleRayCluster("raycluster-sample");
  rc["metadata"]["uid"] = "uid-1";
  rc["spec"]["headGroupSpec"]["template"]["metadata"] = {
      {"labels", {{"ray.io/cluster", "not-overridable"}, {"team", "ml"}}}};
  Json pod = buildHeadPod(rc, {}, "HASH");
  EXPECT_EQ(pod["metadata"]["generateName"], "raycluster-sample-head-");
  EXPECT_EQ(pod["metadata"]["namespace"], "default");
  const Json& labels = pod["metadata"]["labels"];
  EXPECT_EQ(labels["ray.io/cluster"], "raycluster-sample");
  EXPECT_EQ(labels["ray.io/node-type"], "head");
  EXPECT_EQ(labels["ray.io/group"], "headgroup");
  EXPECT_EQ(labels["ray.io/identifier"], "raycluster-sample-head");
  EXPECT_EQ(labels["ray.io/is-ray-node"], "yes");
  EXPECT_EQ(labels["app.kubernetes.io/name"], "kuberay");
  EXPECT_EQ(labels["app.kubernetes.io/created-by"], "kuberay-operator");
  EXPECT_EQ(labels["team"], "ml");
  EXPECT_EQ(pod["metadata"]["annotations"]["ray.io/upgrade-strategy-recreate-hash"], "HASH");
  EXPECT_EQ(pod["metadata"]["annotations"]["ray.io/kuberay-version"], "nightly");
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["uid"], "uid-1");
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["controller"], true);

  const Json& c = pod["spec"]["containers"][0];
  EXPECT_EQ(c["command"], Json::array({"/bin/bash", "-c", "--"}));
  EXPECT_EQ(c["args"][0],
            "ulimit -n ${RAY_START_ULIMIT_OPEN_FILES:-65536}; ray start --head  --block  "
            "--dashboard-agent-listen-port=52365  --dashboard-host=0.0.0.0  "
            "--memory=2000000000  --metrics-export-port=8080  --num-cpus=1 ");
  EXPECT_EQ((*envOf(c, "KUBERAY_GEN_RAY_START_CMD"))["value"],
            "ray start --head  --block  --dashboard-agent-listen-port=52365  "
            "--dashboard-host=0.0.0.0  --memory=2000000000  --metrics-export-port=8080  "
            "--num-cpus=1 ");
  EXPECT_EQ((*envOf(c, "RAY_ADDRESS"))["value"], "127.0.0.1:6379");
  EXPECT_EQ((*envOf(c, "RAY_PORT"))["value"], "6379");
  EXPECT_EQ((*envOf(c, "RAY_USAGE_STATS_EXTRA_TAGS"))["value"],
            "kuberay_version=nightly;kuberay_crd=RayCluster");
  EXPECT_EQ((*envOf(c, "RAY_CLUSTER_NAME"))["valueFrom"]["fieldRef"]["fieldPath"],
            "metadata.labels['ray.io/cluster']");
  EXPECT_EQ(envOf(c, "FQ_RAY_IP"), nullptr);
  // metrics port added; /dev/shm mounted.
  EXPECT_EQ(c["ports"].back(), Json({{"name", "metrics"}, {"containerPort", 8080}}));
  EXPECT_EQ(c["volumeMounts"][0]["mountPath"], "/dev/shm");
  EXPECT_EQ(pod["spec"]["volumes"][0]["emptyDir"]["medium"], "Memory");
  EXPECT_EQ(pod["spec"]["volumes"][0]["emptyDir"]["sizeLimit"], "2G");
  // Ray 2.46 < 2.53: exec probes checking raylet and GCS.
  EXPECT_THAT(c["readinessProbe"]["exec"]["command"][2].get<std::string>(),
              HasSubstr("api/gcs_healthz"));
  EXPECT_EQ(c["readinessProbe"]["initialDelaySeconds"], 10);
  EXPECT_EQ(c["readinessProbe"]["timeoutSeconds"], 5);
  EXPECT_EQ(c["livenessProbe"]["failureThreshold"], 120);
  EXPECT_FALSE(pod["spec"].contains("initContainers"));
}

// TestBuildPod (worker), TestDefaultWorkerPodTemplateWithName, init container injection.
TEST(PodBuilderTest, WorkerPod) {
  Json rc = sampleRayCluster("raycluster-sample");
  rc["spec"]["rayVersion"] = "2.53.0";
  auto groups = workerGroupSpecs(rc);
  Json pod = buildWorkerPod(rc, groups[0], {}, "", 3, 0);
  EXPECT_EQ(pod["metadata"]["generateName"], "raycluster-sample-workergroup-worker-");
  EXPECT_EQ(pod["metadata"]["labels"]["ray.io/group"], "workergroup");
  EXPECT_EQ(pod["metadata"]["labels"]["ray.io/node-type"], "worker");
  EXPECT_EQ(pod["metadata"]["labels"]["ray.io/identifier"], "raycluster-sample-worker");
  EXPECT_EQ(pod["metadata"]["labels"]["ray.io/worker-group-replica-index"], "3");
  const Json& c = pod["spec"]["containers"][0];
  EXPECT_EQ(c["args"][0],
            "ulimit -n ${RAY_START_ULIMIT_OPEN_FILES:-65536}; ray start  "
            "--address=raycluster-sample-head-svc.default.svc.cluster.local:6379  --block  "
            "--dashboard-agent-listen-port=52365  --memory=1000000000  "
            "--metrics-export-port=8080  --num-cpus=1 ");
  EXPECT_EQ((*envOf(c, "FQ_RAY_IP"))["value"],
            "raycluster-sample-head-svc.default.svc.cluster.local");
  EXPECT_EQ((*envOf(c, "RAY_IP"))["value"], "raycluster-sample-head-svc");
  EXPECT_EQ((*envOf(c, "RAY_ADDRESS"))["value"],
            "raycluster-sample-head-svc.default.svc.cluster.local:6379");
  // Ray >= 2.53: one HTTP health endpoint.
  EXPECT_EQ(c["readinessProbe"]["httpGet"]["path"], "/api/healthz");
  EXPECT_EQ(c["readinessProbe"]["httpGet"]["port"], 52365);
  EXPECT_EQ(c["readinessProbe"]["timeoutSeconds"], 2);

  ASSERT_EQ(pod["spec"]["initContainers"].size(), 1u);
  const Json& init = pod["spec"]["initContainers"][0];
  EXPECT_EQ(init["name"], "wait-gcs-ready");
  EXPECT_EQ(init["image"], "rayproject/ray:2.46.0");
  EXPECT_THAT(init["args"][0].get<std::string>(),
              HasSubstr("ray health-check --address "
                        "raycluster-sample-head-svc.default.svc.cluster.local:6379"));
  EXPECT_EQ(init["resources"]["limits"]["cpu"], "200m");
  EXPECT_EQ((*envOf(init, "FQ_RAY_IP"))["value"],
            "raycluster-sample-head-svc.default.svc.cluster.local");

  // ENABLE_INIT_CONTAINER_INJECTION=false, ENABLE_PROBES_INJECTION=false, ENABLE_LOGIN_SHELL.
  Json bare = buildWorkerPod(rc, groups[0],
                             {.enableProbesInjection = false,
                              .enableInitContainerInjection = false,
                              .enableLoginShell = true},
                             "", 0, 0);
  EXPECT_FALSE(bare["spec"].contains("initContainers"));
  EXPECT_FALSE(bare["spec"]["containers"][0].contains("readinessProbe"));
  EXPECT_EQ(bare["spec"]["containers"][0]["command"][1], "-cl");
}

// TestBuildPod_WithOverwriteCommand and a template command kept in front of `ray start`.
TEST(PodBuilderTest, ContainerCommandRules) {
  Json rc = sampleRayCluster("rc");
  rc["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["command"] =
      Json::array({"echo", "hello"});
  Json pod = buildHeadPod(rc, {}, "");
  EXPECT_THAT(pod["spec"]["containers"][0]["args"][0].get<std::string>(),
              HasSubstr(" echo  hello  && ulimit -n"));

  rc["metadata"]["annotations"] = {{"ray.io/overwrite-container-cmd", "true"}};
  pod = buildHeadPod(rc, {}, "");
  EXPECT_EQ(pod["spec"]["containers"][0]["command"], Json::array({"echo", "hello"}));
  EXPECT_EQ(pod["metadata"]["annotations"]["ray.io/overwrite-container-cmd"], "true");

  // rayStartParams: "false" flags are dropped, special ones keep their value.
  Json rc2 = sampleRayCluster("rc2");
  rc2["spec"]["headGroupSpec"]["rayStartParams"] = {{"include-dashboard", "false"},
                                                    {"disable-usage-stats", "true"},
                                                    {"log-style", "pretty"},
                                                    {"no-monitor", "false"},
                                                    {"num-cpus", "0"}};
  pod = buildHeadPod(rc2, {}, "");
  const std::string args = pod["spec"]["containers"][0]["args"][0];
  EXPECT_THAT(args, HasSubstr(" --include-dashboard=false "));
  EXPECT_THAT(args, HasSubstr(" --disable-usage-stats "));
  EXPECT_THAT(args, HasSubstr(" --log-style=pretty "));
  EXPECT_THAT(args, HasSubstr(" --num-cpus=0 "));
  EXPECT_THAT(args, ::testing::Not(HasSubstr("no-monitor")));
}

// TestBuildServiceForHeadPod: headless, selector, ports from the container + metrics, sorted.
TEST(ServiceBuilderTest, HeadService) {
  Json rc = sampleRayCluster("raycluster-sample");
  Json svc = buildHeadService(rc, {}).value();
  EXPECT_EQ(svc["metadata"]["name"], "raycluster-sample-head-svc");
  EXPECT_EQ(svc["spec"]["clusterIP"], "None");
  EXPECT_EQ(svc["spec"]["publishNotReadyAddresses"], true);
  EXPECT_EQ(svc["spec"]["selector"], headServiceLabels(rc));
  EXPECT_EQ(svc["metadata"]["labels"], headServiceLabels(rc));
  std::vector<std::string> names;
  for (const Json& p : svc["spec"]["ports"]) {
    names.push_back(p["name"]);
    EXPECT_EQ(p["appProtocol"], "tcp");
  }
  EXPECT_THAT(names, ::testing::ElementsAre("client", "dashboard", "gcs-server", "metrics"));

  // No ports on the container: the defaults; an unnamed port is "<port>-port".
  Json noPorts = sampleRayCluster("rc");
  noPorts["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0].erase("ports");
  svc = buildHeadService(noPorts, {}).value();
  EXPECT_EQ(svc["spec"]["ports"].size(), 5u);
  Json unnamed = sampleRayCluster("rc");
  unnamed["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["ports"] =
      Json::array({{{"containerPort", 1234}}});
  svc = buildHeadService(unnamed, {}).value();
  EXPECT_EQ(svc["spec"]["ports"][0]["name"], "1234-port");
  EXPECT_EQ(svc["spec"]["ports"][1]["name"], "metrics");

  // ENABLE_RAY_HEAD_CLUSTER_IP_SERVICE, or a NodePort type: not headless.
  EXPECT_FALSE(buildHeadService(rc, {.enableRayHeadClusterIpService = true})
                   .value()["spec"]
                   .contains("clusterIP"));
  Json nodePort = sampleRayCluster("rc");
  nodePort["spec"]["headGroupSpec"]["serviceType"] = "NodePort";
  svc = buildHeadService(nodePort, {}).value();
  EXPECT_EQ(svc["spec"]["type"], "NodePort");
  EXPECT_FALSE(svc["spec"].contains("clusterIP"));
}

// TestValidateRayClusterSpec / Metadata / Status cases.
TEST(ValidationTest, RayClusterRules) {
  EXPECT_FALSE(validateRayClusterMetadata(sampleRayCluster(std::string(53, 'a'))));
  EXPECT_TRUE(validateRayClusterMetadata(sampleRayCluster(std::string(54, 'a'))));
  EXPECT_THAT(*validateRayClusterMetadata(sampleRayCluster("1abc")),
              HasSubstr("RayCluster name should be a valid DNS1035 label"));
  EXPECT_FALSE(validateRayClusterSpec(sampleRayCluster("rc")));
  Json noMin = sampleRayCluster("rc");
  noMin["spec"]["workerGroupSpecs"][0].erase("minReplicas");
  EXPECT_THAT(*validateRayClusterSpec(noMin),
              HasSubstr("must set both minReplicas and maxReplicas when autoscaling is disabled"));
  noMin["spec"]["enableInTreeAutoscaling"] = true;
  EXPECT_FALSE(validateRayClusterSpec(noMin));
  Json negative = sampleRayCluster("rc", 1, -1, 5);
  EXPECT_THAT(*validateRayClusterSpec(negative), HasSubstr("has negative minReplicas -1"));
  Json suspended = sampleRayCluster("rc");
  suspended["spec"]["enableInTreeAutoscaling"] = true;
  suspended["spec"]["workerGroupSpecs"][0]["suspend"] = true;
  EXPECT_THAT(*validateRayClusterSpec(suspended), HasSubstr("cannot be suspended with Autoscaler"));
  Json labels = sampleRayCluster("rc");
  labels["spec"]["headGroupSpec"]["rayStartParams"]["labels"] = "a=b";
  EXPECT_THAT(*validateRayClusterSpec(labels),
              HasSubstr("rayStartParams['labels'] is not supported"));
  Json noContainers = sampleRayCluster("rc");
  noContainers["spec"]["headGroupSpec"]["template"]["spec"]["containers"] = Json::array();
  EXPECT_EQ(*validateRayClusterSpec(noContainers),
            "headGroupSpec should have at least one container");

  Json badStrategy = sampleRayCluster("rc");
  badStrategy["spec"]["upgradeStrategy"] = {{"type", "Rolling"}};
  EXPECT_THAT(*validateRayClusterUpgradeOptions(badStrategy),
              HasSubstr("value Rolling is invalid"));

  Json both = sampleRayCluster("rc");
  both["status"]["conditions"] =
      Json::array({{{"type", "RayClusterSuspending"}, {"status", "True"}},
                   {{"type", "RayClusterSuspended"}, {"status", "True"}}});
  EXPECT_TRUE(validateRayClusterStatus(both));
}

// TestInconsistentRayClusterStatus: timestamps and observedGeneration alone are consistent.
TEST(StatusTest, InconsistentRayClusterStatus) {
  Json a = {{"state", "ready"},
            {"readyWorkerReplicas", 1},
            {"lastUpdateTime", "2026-01-01T00:00:00Z"},
            {"observedGeneration", 1}};
  Json b = a;
  b["lastUpdateTime"] = "2026-01-01T00:01:00Z";
  b["observedGeneration"] = 2;
  EXPECT_FALSE(inconsistentRayClusterStatus(a, b));
  b["readyWorkerReplicas"] = 2;
  EXPECT_TRUE(inconsistentRayClusterStatus(a, b));
  b = a;
  b["endpoints"] = {{"client", "10001"}};
  EXPECT_TRUE(inconsistentRayClusterStatus(a, b));
  b = a;
  b["conditions"] = Json::array({{{"type", "HeadPodReady"}}});
  EXPECT_TRUE(inconsistentRayClusterStatus(a, b));
  // An absent map or list is the empty one (a nil map or slice in Go), on either side.
  b = a;
  b["endpoints"] = Json::object();
  b["head"] = Json::object();
  b["conditions"] = Json::array();
  EXPECT_FALSE(inconsistentRayClusterStatus(a, b));
  EXPECT_FALSE(inconsistentRayClusterStatus(b, a));
  b["conditions"] = Json::object();
  EXPECT_TRUE(inconsistentRayClusterStatus(a, b)) << "an object is no empty list";
}

// TestCalculateDesiredResources and the Quantity rendering of the sums.
TEST(StatusTest, DesiredResources) {
  Json rc = sampleRayCluster("rc", 3, 0, 5);
  rc["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["resources"] = {
      {"requests", {{"cpu", "500m"}, {"memory", "1Gi"}}}, {"limits", {{"google.com/tpu", "4"}}}};
  rc["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]["resources"] = {
      {"limits", {{"cpu", "2"}, {"memory", "2Gi"}, {"nvidia.com/gpu", "1"}}}};
  DesiredResources r = calculateDesiredResources(rc);
  EXPECT_EQ(r.cpu, "6500m");
  EXPECT_EQ(r.memory, "7Gi");
  EXPECT_EQ(r.gpu, "3");
  EXPECT_EQ(r.tpu, "4");
  rc["spec"]["workerGroupSpecs"][0]["suspend"] = true;
  EXPECT_EQ(calculateDesiredResources(rc).cpu, "500m");
}

// The Recreate strategy's hash ignores replicas, min/max, workersToDelete and tolerations.
TEST(PodBuilderTest, ClusterHashIgnoresScaling) {
  Json rc = sampleRayCluster("rc", 1, 0, 5);
  const std::string hash = clusterHash(rc);
  Json scaled = rc;
  scaled["spec"]["workerGroupSpecs"][0]["replicas"] = 4;
  scaled["spec"]["workerGroupSpecs"][0]["maxReplicas"] = 9;
  scaled["spec"]["workerGroupSpecs"][0]["scaleStrategy"] = {{"workersToDelete", {"a"}}};
  scaled["spec"]["headGroupSpec"]["template"]["spec"]["tolerations"] =
      Json::array({{{"key", "k"}}});
  scaled["spec"]["upgradeStrategy"] = {{"type", "Recreate"}};
  EXPECT_EQ(clusterHash(scaled), hash);
  Json changed = rc;
  changed["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]["image"] = "x";
  EXPECT_NE(clusterHash(changed), hash);
}

}  // namespace
}  // namespace fakekube::ray::testing
