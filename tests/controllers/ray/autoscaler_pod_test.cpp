// KubeRay's common/pod_test.go and common/rbac_test.go for in-tree autoscaling, the operator
// configuration's sidecars and the multi-host labels, on the pods the port builds.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controllers/ray/internal/autoscaler_container.h"
#include "controllers/ray/internal/autoscaler_rbac.h"
#include "controllers/ray/internal/naming.h"
#include "controllers/ray/internal/pod_builder.h"
#include "tests/controllers/ray/ray_fixture.h"

namespace fakekube::ray::testing {
namespace {

using ::testing::HasSubstr;

constexpr const char* kAutoscalerStartCmd =
    "ray kuberay-autoscaler --cluster-name $(RAY_CLUSTER_NAME) --cluster-namespace "
    "$(RAY_CLUSTER_NAMESPACE)";

const Json* envNamed(const Json& container, const std::string& name) {
  for (const Json& e : jsonArrayAt(container, "env")) {
    if (e.value("name", "") == name) return &e;
  }
  return nullptr;
}

Json autoscalingCluster(const std::string& name = "raycluster-sample") {
  Json rc = sampleRayCluster(name);
  rc["spec"]["enableInTreeAutoscaling"] = true;
  return rc;
}

Json autoscalerOf(const Json& pod) {
  const int index = autoscalerContainerIndex(pod);
  EXPECT_GE(index, 0);
  return index >= 0 ? pod["spec"]["containers"][index] : Json();
}

// TestBuildAutoscalerContainer: the generated command in args and in
// KUBERAY_GEN_AUTOSCALER_START_CMD, which command/args/env overrides leave alone.
TEST(AutoscalerContainerTest, TestBuildAutoscalerContainer) {
  Json container = buildAutoscalerContainer("rayproject/ray:2.52.0", {});
  ASSERT_NE(envNamed(container, "KUBERAY_GEN_AUTOSCALER_START_CMD"), nullptr);
  EXPECT_EQ((*envNamed(container, "KUBERAY_GEN_AUTOSCALER_START_CMD"))["value"],
            kAutoscalerStartCmd);
  EXPECT_EQ(container["args"], Json::array({kAutoscalerStartCmd}));
  EXPECT_EQ(container["command"], Json::array({"/bin/bash", "-c", "--"}));
  EXPECT_EQ(container["name"], "autoscaler");
  EXPECT_EQ(container["imagePullPolicy"], "IfNotPresent");
  EXPECT_EQ(container["resources"]["limits"], Json({{"cpu", "500m"}, {"memory", "512Mi"}}));
  EXPECT_EQ(container["resources"]["requests"], Json({{"cpu", "500m"}, {"memory", "512Mi"}}));
  EXPECT_EQ((*envNamed(container, "RAY_CLUSTER_NAME"))["valueFrom"]["fieldRef"]["fieldPath"],
            "metadata.labels['ray.io/cluster']");
  EXPECT_EQ((*envNamed(container, "RAY_HEAD_POD_NAME"))["valueFrom"]["fieldRef"]["fieldPath"],
            "metadata.name");
  EXPECT_EQ((*envNamed(container, "KUBERAY_CRD_VER"))["value"], "v1");

  Json overridden = container;
  Json overrides = Json::object();
  overrides["command"] = Json::array({"/bin/bash", "-lc", "--"});
  overrides["args"] = Json::array({"ulimit -n 65536; $KUBERAY_GEN_AUTOSCALER_START_CMD"});
  overrides["env"] =
      Json::array({Json::object({{"name", "AUTOSCALER_UPDATE_INTERVAL_S"}, {"value", "10"}})});
  mergeAutoscalerOverrides(overridden, overrides);
  EXPECT_EQ(overridden["command"], Json::array({"/bin/bash", "-lc", "--"}));
  EXPECT_EQ(overridden["args"].at(0), "ulimit -n 65536; $KUBERAY_GEN_AUTOSCALER_START_CMD");
  EXPECT_EQ((*envNamed(overridden, "AUTOSCALER_UPDATE_INTERVAL_S"))["value"], "10");
  EXPECT_EQ((*envNamed(overridden, "KUBERAY_GEN_AUTOSCALER_START_CMD"))["value"],
            kAutoscalerStartCmd);
}

// TestBuildPod_WithAutoscalerEnabled: --no-monitor, the ray-logs volume shared by the Ray and
// autoscaler containers, and the autoscaler container with the head's image.
TEST(AutoscalerContainerTest, TestBuildPod_WithAutoscalerEnabled) {
  Json pod = buildHeadPod(autoscalingCluster(), {}, "");
  const Json& ray = pod["spec"]["containers"][0];
  EXPECT_THAT(ray["args"][0].get<std::string>(), HasSubstr("--no-monitor"));
  ASSERT_EQ(pod["spec"]["containers"].size(), 2u);
  EXPECT_EQ(pod["spec"]["volumes"],
            Json::array({{{"name", "shared-mem"},
                          {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", "2G"}}}},
                         {{"name", "ray-logs"}, {"emptyDir", Json::object()}}}));
  EXPECT_EQ(ray["volumeMounts"],
            Json::array({{{"mountPath", "/dev/shm"}, {"name", "shared-mem"}, {"readOnly", false}},
                         {{"mountPath", "/tmp/ray"}, {"name", "ray-logs"}, {"readOnly", false}}}));
  Json expected = buildAutoscalerContainer(kRayImage, {});
  expected["volumeMounts"] =
      Json::array({{{"mountPath", "/tmp/ray"}, {"name", "ray-logs"}, {"readOnly", false}}});
  EXPECT_EQ(autoscalerOf(pod), expected);
  // Without autoscaling: one container, no ray-logs, no --no-monitor.
  Json plainPod = buildHeadPod(sampleRayCluster("raycluster-sample"), {}, "");
  EXPECT_EQ(plainPod["spec"]["containers"].size(), 1u);
  EXPECT_EQ(plainPod["spec"]["volumes"].size(), 1u);
  EXPECT_THAT(plainPod["spec"]["containers"][0]["args"][0].get<std::string>(),
              ::testing::Not(HasSubstr("--no-monitor")));
}

// TestBuildPodWithAutoscalerOptions: image, pull policy, resources, securityContext replace;
// env, envFrom and volumeMounts append (the user's mounts before ray-logs).
TEST(AutoscalerContainerTest, TestBuildPodWithAutoscalerOptions) {
  Json rc = autoscalingCluster();
  const Json resources = {{"limits", {{"cpu", "1"}, {"memory", "2G"}}},
                          {"requests", {{"cpu", "1"}, {"memory", "2G"}}}};
  const Json securityContext = {{"allowPrivilegeEscalation", false},
                                {"capabilities", {{"drop", Json::array({"ALL"})}}},
                                {"runAsNonRoot", true}};
  const Json mounts =
      Json::array({{{"name", "ca-tls"}, {"mountPath", "/etc/ca/tls"}, {"readOnly", true}},
                   {{"name", "ray-tls"}, {"mountPath", "/etc/ray/tls"}}});
  rc["spec"]["autoscalerOptions"] = {
      {"upscalingMode", "Aggressive"},
      {"idleTimeoutSeconds", 100},
      {"image", "custom-autoscaler-xxx"},
      {"imagePullPolicy", "Always"},
      {"resources", resources},
      {"env", Json::array({{{"name", "fooEnv"}, {"value", "fooValue"}}})},
      {"envFrom", Json::array({{{"prefix", "Pre"}}})},
      {"volumeMounts", mounts},
      {"securityContext", securityContext}};
  Json expected = buildAutoscalerContainer(kRayImage, {});
  expected["image"] = "custom-autoscaler-xxx";
  expected["imagePullPolicy"] = "Always";
  expected["resources"] = resources;
  expected["envFrom"] = Json::array({{{"prefix", "Pre"}}});
  expected["env"].push_back({{"name", "fooEnv"}, {"value", "fooValue"}});
  expected["volumeMounts"] = mounts;
  expected["volumeMounts"].push_back(
      {{"mountPath", "/tmp/ray"}, {"name", "ray-logs"}, {"readOnly", false}});
  expected["securityContext"] = securityContext;
  EXPECT_EQ(autoscalerOf(buildHeadPod(rc, {}, "")), expected);
}

// TestHeadPodTemplate_WithAutoscalingEnabled: the head runs as the ServiceAccount named after the
// cluster, clipped to 50 characters for a long name.
TEST(AutoscalerContainerTest, TestHeadPodTemplate_WithAutoscalingEnabled) {
  EXPECT_EQ(buildHeadPod(autoscalingCluster(), {}, "")["spec"]["serviceAccountName"],
            "raycluster-sample");
  const std::string longName = std::string(150, 'a') + std::string(50, 'b');
  EXPECT_EQ(buildHeadPod(autoscalingCluster(longName), {}, "")["spec"]["serviceAccountName"],
            std::string(50, 'b'));
}

// TestDefaultHeadPodTemplate_Autoscaling and TestDefaultWorkerPodTemplate_Autoscaling: v1 and
// v2 set RAY_enable_autoscaler_v2 on the Ray container; v2 also restartPolicy Never on the head
// and the workers.
TEST(AutoscalerContainerTest, TestDefaultHeadPodTemplate_Autoscaling) {
  auto v2Env = [](const Json& pod) {
    const Json* env = envNamed(pod["spec"]["containers"].at(0), "RAY_enable_autoscaler_v2");
    return env ? (*env)["value"].get<std::string>() : std::string("unset");
  };
  Json none = sampleRayCluster("rc");
  Json notSet = autoscalingCluster("rc");
  Json v1 = autoscalingCluster("rc");
  v1["spec"]["autoscalerOptions"]["version"] = "v1";
  Json v2 = autoscalingCluster("rc");
  v2["spec"]["autoscalerOptions"]["version"] = "v2";

  EXPECT_EQ(buildHeadPod(none, {}, "")["spec"]["containers"].size(), 1u);
  EXPECT_EQ(v2Env(buildHeadPod(notSet, {}, "")), "unset");
  EXPECT_EQ(v2Env(buildHeadPod(v1, {}, "")), "false");
  EXPECT_EQ(v2Env(buildHeadPod(v2, {}, "")), "true");
  EXPECT_FALSE(buildHeadPod(v1, {}, "")["spec"].contains("restartPolicy"));
  EXPECT_EQ(buildHeadPod(v2, {}, "")["spec"]["restartPolicy"], "Never");
  auto groups = workerGroupSpecs(v2);
  EXPECT_EQ(buildWorkerPod(v2, groups[0], {}, "", 0, 0)["spec"]["restartPolicy"], "Never");
  groups = workerGroupSpecs(v1);
  EXPECT_FALSE(buildWorkerPod(v1, groups[0], {}, "", 0, 0)["spec"].contains("restartPolicy"));
}

// TestHeadPodTemplate_AutoscalerImage: the head's image unless autoscalerOptions.image; and
// TestBuildPod_WithLoginBash: the autoscaler's shell follows ENABLE_LOGIN_SHELL.
TEST(AutoscalerContainerTest, TestHeadPodTemplate_AutoscalerImage) {
  Json rc = autoscalingCluster();
  EXPECT_EQ(autoscalerOf(buildHeadPod(rc, {}, ""))["image"], kRayImage);
  rc["spec"]["autoscalerOptions"] = {{"image", "custom-autoscaler-xxx"}};
  EXPECT_EQ(autoscalerOf(buildHeadPod(rc, {}, ""))["image"], "custom-autoscaler-xxx");
  EXPECT_EQ(autoscalerOf(buildHeadPod(rc, {.enableLoginShell = true}, ""))["command"],
            Json::array({"/bin/bash", "-cl", "--"}));
}

// TestHeadPodTemplate_WithNoServiceAccount, _WithServiceAccountNoAutoscaling,
// _WithServiceAccount: only autoscaling sets one; a user's is kept either way.
TEST(AutoscalerContainerTest, TestHeadPodTemplate_ServiceAccounts) {
  EXPECT_FALSE(buildHeadPod(sampleRayCluster("rc"), {}, "")["spec"].contains("serviceAccountName"));
  Json user = sampleRayCluster("rc");
  user["spec"]["headGroupSpec"]["template"]["spec"]["serviceAccountName"] = "head-service-account";
  EXPECT_EQ(buildHeadPod(user, {}, "")["spec"]["serviceAccountName"], "head-service-account");
  user["spec"]["enableInTreeAutoscaling"] = true;
  EXPECT_EQ(buildHeadPod(user, {}, "")["spec"]["serviceAccountName"], "head-service-account");
}

// TestBuildRoleBindingSubjectAndRoleRefName: the subject is the head's ServiceAccount, the
// roleRef the cluster's Role, both clipped as the reconcilers clip what they create.
TEST(AutoscalerRbacBuildTest, TestBuildRoleBindingSubjectAndRoleRefName) {
  Json withAccount = sampleRayCluster("raycluster-sample");
  withAccount["spec"]["headGroupSpec"]["template"]["spec"]["serviceAccountName"] =
      "my-service-account";
  Json binding = buildRoleBinding(withAccount);
  EXPECT_EQ(binding["subjects"][0]["name"], "my-service-account");
  EXPECT_EQ(binding["roleRef"]["name"], "raycluster-sample");
  binding = buildRoleBinding(sampleRayCluster("raycluster-sample"));
  EXPECT_EQ(binding["subjects"][0]["name"], "raycluster-sample");
  EXPECT_EQ(binding["roleRef"]["name"], "raycluster-sample");
  EXPECT_EQ(binding["subjects"][0]["kind"], "ServiceAccount");
  EXPECT_EQ(binding["subjects"][0]["namespace"], "default");
  EXPECT_EQ(binding["roleRef"]["kind"], "Role");
  EXPECT_EQ(binding["roleRef"]["apiGroup"], "rbac.authorization.k8s.io");
  const std::string longName = std::string(150, 'a') + std::string(50, 'b');
  binding = buildRoleBinding(sampleRayCluster(longName));
  EXPECT_EQ(binding["subjects"][0]["name"], std::string(50, 'b'));
  EXPECT_EQ(binding["roleRef"]["name"], std::string(50, 'b'));
}

// BuildRole: the rules the autoscaler needs, and BuildServiceAccount's labels.
TEST(AutoscalerRbacBuildTest, RoleRulesAndLabels) {
  Json role = buildRole(sampleRayCluster("rc"));
  EXPECT_EQ(role["rules"], Json::array({{{"apiGroups", Json::array({""})},
                                         {"resources", Json::array({"pods"})},
                                         {"verbs", Json::array({"get", "list", "watch", "patch"})}},
                                        {{"apiGroups", Json::array({""})},
                                         {"resources", Json::array({"pods/resize"})},
                                         {"verbs", Json::array({"patch"})}},
                                        {{"apiGroups", Json::array({"ray.io"})},
                                         {"resources", Json::array({"rayclusters"})},
                                         {"verbs", Json::array({"get", "patch"})}}}));
  EXPECT_EQ(buildServiceAccount(sampleRayCluster("rc"))["metadata"]["labels"],
            Json({{"ray.io/cluster", "rc"},
                  {"app.kubernetes.io/name", "kuberay"},
                  {"app.kubernetes.io/created-by", "kuberay-operator"}}));
}

// TestDeafultWorkerPodTemplateWithReplicaGrpAndIndex: a multi-host worker carries its replica
// group's name, the replica index and its host index; a single-host worker the index alone.
TEST(MultiHostLabelsTest, TestDeafultWorkerPodTemplateWithReplicaGrpAndIndex) {
  Json rc = sampleRayCluster("raycluster-sample");
  rc["spec"]["workerGroupSpecs"][0]["numOfHosts"] = 4;
  auto groups = workerGroupSpecs(rc);
  std::mt19937_64 random(1);
  const std::string replicaName = generateRayWorkerReplicaGroupName("workergroup", random);
  EXPECT_THAT(replicaName, ::testing::MatchesRegex("workergroup-[bcdfghjklmnpqrstvwxz2456789]{5}"));
  Json pod = buildWorkerPod(rc, groups[0], {}, replicaName, 0, 2);
  EXPECT_FALSE(pod["metadata"].contains("name"));
  EXPECT_EQ(pod["metadata"]["labels"]["ray.io/worker-group-replica-name"], replicaName);
  EXPECT_EQ(pod["metadata"]["labels"]["ray.io/worker-group-replica-index"], "0");
  EXPECT_EQ(pod["metadata"]["labels"]["ray.io/replica-host-index"], "2");

  Json single = buildWorkerPod(sampleRayCluster("rc"), workerGroupSpecs(sampleRayCluster("rc"))[0],
                               {}, "", 1, 0);
  EXPECT_EQ(single["metadata"]["labels"]["ray.io/worker-group-replica-index"], "1");
  EXPECT_FALSE(single["metadata"]["labels"].contains("ray.io/worker-group-replica-name"));
  EXPECT_FALSE(single["metadata"]["labels"].contains("ray.io/replica-host-index"));
}

// The operator configuration's sidecars (RayClusterReconcilerOptions.HeadSidecarContainers /
// WorkerSidecarContainers, as the controller's buildHeadPod / buildWorkerPod append them; upstream
// tests them through the envtest suite, autoscaler_rbac_test.cpp): after the pod's own
// containers, the autoscaler included.
TEST(SidecarContainersTest, HeadAndWorkerSidecarsFollowThePodsContainers) {
  OperatorOptions options;
  options.headSidecarContainers = {{{"name", "fluentbit"}, {"image", "fluent/fluent-bit:1.9.6"}}};
  options.workerSidecarContainers = {{{"name", "log-shipper"}, {"image", "busybox"}},
                                     {{"name", "proxy"}, {"image", "envoy"}}};
  Json head = buildHeadPod(autoscalingCluster("rc"), options, "");
  ASSERT_EQ(head["spec"]["containers"].size(), 3u);
  EXPECT_EQ(head["spec"]["containers"][1]["name"], "autoscaler");
  EXPECT_EQ(head["spec"]["containers"][2],
            Json({{"name", "fluentbit"}, {"image", "fluent/fluent-bit:1.9.6"}}));
  Json rc = sampleRayCluster("rc");
  Json worker = buildWorkerPod(rc, workerGroupSpecs(rc)[0], options, "", 0, 0);
  ASSERT_EQ(worker["spec"]["containers"].size(), 3u);
  EXPECT_EQ(worker["spec"]["containers"][1]["name"], "log-shipper");
  EXPECT_EQ(worker["spec"]["containers"][2]["name"], "proxy");
  // The Ray container stays first and keeps KubeRay's command; the sidecars are as configured.
  EXPECT_THAT(worker["spec"]["containers"][0]["args"][0].get<std::string>(),
              HasSubstr("ray start"));
  EXPECT_FALSE(worker["spec"]["containers"][1].contains("env"));
}

}  // namespace
}  // namespace fakekube::ray::testing
