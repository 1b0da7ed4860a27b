// The validation kube-apiserver applies to Pods, Services and the workloads after defaulting
// (pkg/apis/core/validation, pkg/apis/apps/validation, pkg/apis/batch/validation): the 422's
// message and causes, and the store left unchanged by every rejection.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "fakekube/api/resources.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

class BuiltinValidationTest : public ApiServerTest {
 protected:
  // Creates `object` expecting a 422, and checks the store did not move.
  Status rejected(const GroupVersionResource& gvr, Json object) {
    const std::int64_t before = server->revision();
    auto result = server->create(gvr, "default", std::move(object));
    EXPECT_FALSE(result.has_value());
    EXPECT_EQ(server->revision(), before) << "a rejected create wrote";
    if (result) return Status{};
    EXPECT_EQ(result.error().code, 422) << result.error().str();
    EXPECT_EQ(result.error().reason, "Invalid");
    return result.error();
  }
};

Json& firstContainer(Json& pod) { return pod["spec"]["containers"][0]; }

Json webService(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", {{"selector", {{"app", "web"}}}, {"ports", Json::array({{{"port", 80}}})}}}};
}

Json validJob(const std::string& name) {
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"template",
             {{"spec",
               {{"restartPolicy", "Never"},
                {"containers", Json::array({{{"name", "main"}, {"image", "busybox:1.36"}}})}}}}}}}};
}

TEST_F(BuiltinValidationTest, PodWithUnsupportedImagePullPolicyIsUnsupportedValue) {
  Json p = pod("p");
  firstContainer(p)["imagePullPolicy"] = "!invalid!";
  Status s = rejected(kPods, p);
  EXPECT_EQ(s.message,
            R"(Pod "p" is invalid: spec.containers[0].imagePullPolicy: Unsupported value: )"
            R"("!invalid!": supported values: "Always", "IfNotPresent", "Never")");
  ASSERT_EQ(s.details.causes.size(), 1u);
  EXPECT_EQ(s.details.causes[0].reason, "FieldValueNotSupported");
  EXPECT_EQ(s.details.causes[0].field, "spec.containers[0].imagePullPolicy");
  EXPECT_EQ(
      s.details.causes[0].message,
      R"(Unsupported value: "!invalid!": supported values: "Always", "IfNotPresent", "Never")");
  EXPECT_EQ(s.details.kind, "Pod");
  EXPECT_EQ(s.details.name, "p");
  EXPECT_TRUE(isNotFound(server->get(kPods, "default", "p")));
}

TEST_F(BuiltinValidationTest, ImagePullPolicyDefaultsFromTheImageTagBeforeValidation) {
  Json p = pod("p");
  p["spec"]["containers"] =
      Json::array({{{"name", "a"}, {"image", "nginx"}},
                   {{"name", "b"}, {"image", "nginx:latest"}},
                   {{"name", "c"}, {"image", "nginx:1.27"}},
                   {{"name", "d"}, {"image", "nginx:1.27"}, {"imagePullPolicy", ""}}});
  Json created = create(kPods, p);
  EXPECT_EQ(created["spec"]["containers"][0]["imagePullPolicy"], "Always");
  EXPECT_EQ(created["spec"]["containers"][1]["imagePullPolicy"], "Always");
  EXPECT_EQ(created["spec"]["containers"][2]["imagePullPolicy"], "IfNotPresent");
  // An empty string is a Go string's zero value: defaulted, as an absent one.
  EXPECT_EQ(created["spec"]["containers"][3]["imagePullPolicy"], "IfNotPresent");
}

TEST_F(BuiltinValidationTest, PodRestartPolicyDnsPolicyAndTerminationMessagePolicyAreEnumerations) {
  Json p = pod("p");
  p["spec"]["restartPolicy"] = "Sometimes";
  p["spec"]["dnsPolicy"] = "Elsewhere";
  firstContainer(p)["terminationMessagePolicy"] = "Stdout";
  Status s = rejected(kPods, p);
  EXPECT_EQ(
      s.message,
      R"(Pod "p" is invalid: [spec.containers[0].terminationMessagePolicy: Unsupported value: "Stdout": supported values: "File", "FallbackToLogsOnError", )"
      R"(spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never", )"
      R"(spec.dnsPolicy: Unsupported value: "Elsewhere": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"])");
  EXPECT_EQ(s.details.causes.size(), 3u);
}

TEST_F(BuiltinValidationTest, ContainerNameIsRequiredAndADns1123Label) {
  Json p = pod("p");
  p["spec"]["containers"] = Json::array({{{"image", "nginx:1.27"}}, {{"name", "Main_1"}}});
  Status s = rejected(kPods, p);
  EXPECT_EQ(
      s.message,
      R"(Pod "p" is invalid: [spec.containers[0].name: Required value, )"
      R"(spec.containers[1].name: Invalid value: "Main_1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), )"
      R"(spec.containers[1].image: Required value])");
  EXPECT_EQ(s.details.causes[0].reason, "FieldValueRequired");
  EXPECT_EQ(s.details.causes[1].reason, "FieldValueInvalid");
}

TEST_F(BuiltinValidationTest, ContainerNamesAreUniqueAcrossContainersAndInitContainers) {
  Json p = pod("p");
  p["spec"]["containers"].push_back({{"name", "main"}, {"image", "nginx:1.27"}});
  p["spec"]["initContainers"] = Json::array({{{"name", "main"}, {"image", "busybox:1.36"}}});
  Status s = rejected(kPods, p);
  EXPECT_EQ(s.message, R"(Pod "p" is invalid: [spec.containers[1].name: Duplicate value: "main", )"
                       R"(spec.initContainers[0].name: Duplicate value: "main"])");
  EXPECT_EQ(s.details.causes[0].reason, "FieldValueDuplicate");
}

TEST_F(BuiltinValidationTest, ContainerPortsAreRangeCheckedNamedAsIanaServiceNamesAndUnique) {
  Json p = pod("p");
  firstContainer(p)["ports"] = Json::array({{{"name", "http"}, {"containerPort", 70000}},
                                            {{"name", "http"}, {"containerPort", 80}},
                                            {{"name", "Not--Valid"}, {"containerPort", 81}},
                                            {{"containerPort", 0}, {"protocol", "ICMP"}}});
  Status s = rejected(kPods, p);
  EXPECT_EQ(
      s.message,
      R"(Pod "p" is invalid: [spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive, )"
      R"(spec.containers[0].ports[1].name: Duplicate value: "http", )"
      R"(spec.containers[0].ports[2].name: Invalid value: "Not--Valid": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-), )"
      R"(spec.containers[0].ports[2].name: Invalid value: "Not--Valid": must not contain consecutive hyphens, )"
      R"(spec.containers[0].ports[3].containerPort: Required value, )"
      R"(spec.containers[0].ports[3].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"])");
}

TEST_F(BuiltinValidationTest, ResourceRequestsMayNotExceedLimits) {
  Json p = pod("p");
  firstContainer(p)["resources"] = {{"requests", {{"cpu", "2"}, {"memory", "64Mi"}}},
                                    {"limits", {{"cpu", "1"}, {"memory", "128Mi"}}}};
  Status s = rejected(kPods, p);
  EXPECT_EQ(s.message,
            R"(Pod "p" is invalid: spec.containers[0].resources.requests: Invalid value: "2": )"
            R"(must be less than or equal to cpu limit of 1)");
}

TEST_F(BuiltinValidationTest, ResourceNamesAndNegativeQuantities) {
  Json p = pod("p");
  firstContainer(p)["resources"] = {{"limits", {{"cpu", "-1"}}},
                                    {"requests", {{"gpu", "1"}, {"nvidia.com/gpu", "1"}}}};
  Status s = rejected(kPods, p);
  EXPECT_EQ(
      s.message,
      R"(Pod "p" is invalid: [spec.containers[0].resources.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0, )"
      R"(spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified, )"
      R"(spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource for containers, )"
      R"(spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources])");
}

TEST_F(BuiltinValidationTest, AQuantityThatDoesNotParseIsADecodingError) {
  Json p = pod("p");
  firstContainer(p)["resources"] = {{"limits", {{"memory", "lots"}}}};
  const std::int64_t before = server->revision();
  auto result = server->create(kPods, "default", p);
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code, 400);
  EXPECT_EQ(result.error().message,
            R"(Pod in version "v1" cannot be handled as a Pod: quantities must match the regular )"
            R"(expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$')");
  EXPECT_EQ(server->revision(), before);
}

TEST_F(BuiltinValidationTest, PodTemplatesOfWorkloadsAreValidatedWithTheirPaths) {
  Json d = deployment("web");
  d["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] = "Sometimes";
  Status s = rejected(kDeployments, d);
  EXPECT_EQ(
      s.message,
      R"(Deployment.apps "web" is invalid: spec.template.spec.containers[0].imagePullPolicy: )"
      R"(Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never")");
}

TEST_F(BuiltinValidationTest, DeploymentReplicasStrategyAndTemplateRestartPolicy) {
  Json d = deployment("web");
  d["spec"]["replicas"] = -1;
  d["spec"]["strategy"] = {{"type", "Canary"}};
  d["spec"]["template"]["spec"]["restartPolicy"] = "Never";
  Status s = rejected(kDeployments, d);
  EXPECT_EQ(
      s.message,
      R"(Deployment.apps "web" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, )"
      R"(spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always", )"
      R"(spec.strategy: Unsupported value: apps.DeploymentStrategy{Type:"Canary", RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: supported values: "Recreate", "RollingUpdate"])");
}

TEST_F(BuiltinValidationTest, DeploymentSelectorIsRequiredAndMustMatchTheTemplate) {
  Json d = deployment("web");
  d["spec"].erase("selector");
  Status s = rejected(kDeployments, d);
  EXPECT_EQ(s.message, R"(Deployment.apps "web" is invalid: spec.selector: Required value)");
  d = deployment("web");
  d["spec"]["selector"]["matchLabels"]["app"] = "other";
  s = rejected(kDeployments, d);
  EXPECT_EQ(s.message,
            R"(Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: )"
            R"(map[string]string{"app":"web"}: `selector` does not match template `labels`)");
}

Json workload(const std::string& apiVersion, const std::string& kind, const std::string& name) {
  Json labels = {{"app", name}};
  return {{"apiVersion", apiVersion},
          {"kind", kind},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"selector", {{"matchLabels", labels}}},
            {"template",
             {{"metadata", {{"labels", labels}}},
              {"spec",
               {{"containers", Json::array({{{"name", "main"}, {"image", "nginx:1.27"}}})}}}}}}}};
}

TEST_F(BuiltinValidationTest, StatefulSetPodManagementPolicyAndTemplateRestartPolicy) {
  const GroupVersionResource statefulSets{"apps", "v1", "statefulsets"};
  Json sts = workload("apps/v1", "StatefulSet", "db");
  sts["spec"]["podManagementPolicy"] = "AllAtOnce";
  sts["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure";
  sts["spec"]["template"]["spec"]["activeDeadlineSeconds"] = 10;
  Status s = rejected(statefulSets, sts);
  EXPECT_EQ(
      s.message,
      R"(StatefulSet.apps "db" is invalid: [spec.podManagementPolicy: Invalid value: "AllAtOnce": must be 'OrderedReady' or 'Parallel', )"
      R"(spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always", )"
      R"(spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in StatefulSet is not Supported])");
}

TEST_F(BuiltinValidationTest, DaemonSetEmptySelectorIsInvalid) {
  const GroupVersionResource daemonSets{"apps", "v1", "daemonsets"};
  Json ds = workload("apps/v1", "DaemonSet", "agent");
  ds["spec"]["selector"] = {{"matchLabels", Json::object()}};
  Status s = rejected(daemonSets, ds);
  EXPECT_EQ(s.message,
            R"(DaemonSet.apps "agent" is invalid: spec.selector: Invalid value: )"
            R"(v1.LabelSelector{MatchLabels:map[string]string{}, )"
            R"(MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid )"
            R"(for daemonset)");
}

TEST_F(BuiltinValidationTest, JobCountsAreNonNegativeAndCompletionModeIsAnEnumeration) {
  Json j = validJob("j");
  j["spec"]["backoffLimit"] = -1;
  j["spec"]["parallelism"] = -2;
  j["spec"]["completionMode"] = "Sometimes";
  Status s = rejected(kJobs, j);
  EXPECT_EQ(
      s.message,
      R"(Job.batch "j" is invalid: [spec.parallelism: Invalid value: -2: must be greater than or equal to 0, )"
      R"(spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0, )"
      R"(spec.completionMode: Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"])");
}

TEST_F(BuiltinValidationTest, JobTemplateRestartPolicyDefaultsToAlwaysWhichJobsRefuse) {
  Json j = validJob("j");
  j["spec"]["template"]["spec"].erase("restartPolicy");
  Status s = rejected(kJobs, j);
  EXPECT_EQ(s.message,
            R"(Job.batch "j" is invalid: spec.template.spec.restartPolicy: Unsupported value: )"
            R"("Always": supported values: "OnFailure", "Never")");
}

TEST_F(BuiltinValidationTest, ServiceTypeSessionAffinityAndTrafficPolicyAreEnumerations) {
  Json svc = webService("web");
  svc["spec"]["type"] = "Internal";
  svc["spec"]["sessionAffinity"] = "Sticky";
  Status s = rejected(kServices, svc);
  EXPECT_EQ(
      s.message,
      R"(Service "web" is invalid: [spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None", )"
      R"(spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"])");
  svc = webService("web");
  svc["spec"]["type"] = "NodePort";
  svc["spec"]["externalTrafficPolicy"] = "Nearest";
  s = rejected(kServices, svc);
  EXPECT_EQ(s.message,
            R"(Service "web" is invalid: spec.externalTrafficPolicy: Unsupported value: )"
            R"("Nearest": supported values: "Cluster", "Local")");
  svc = webService("web");
  svc["spec"]["externalTrafficPolicy"] = "Local";
  s = rejected(kServices, svc);
  EXPECT_EQ(s.message,
            R"(Service "web" is invalid: spec.externalTrafficPolicy: Invalid value: "Local": may )"
            R"(only be set for externally-accessible services)");
}

TEST_F(BuiltinValidationTest, NodePortServiceDefaultsItsExternalTrafficPolicyToCluster) {
  Json svc = webService("web");
  svc["spec"]["type"] = "NodePort";
  EXPECT_EQ(create(kServices, svc)["spec"]["externalTrafficPolicy"], "Cluster");
}

TEST_F(BuiltinValidationTest, ServicePortsAreRangeCheckedNamedWhenSeveralAndUnique) {
  Json svc = webService("web");
  svc["spec"]["ports"] = Json::array({{{"name", "http"}, {"port", 0}},
                                      {{"name", "http"}, {"port", 81}, {"protocol", "HTTP"}},
                                      {{"port", 82}, {"targetPort", "Bad_Name"}}});
  Status s = rejected(kServices, svc);
  EXPECT_EQ(
      s.message,
      R"(Service "web" is invalid: [spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, )"
      R"(spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive, )"
      R"(spec.ports[1].name: Duplicate value: "http", )"
      R"(spec.ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP", )"
      R"(spec.ports[2].name: Required value, )"
      R"(spec.ports[2].targetPort: Invalid value: "Bad_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)])");
}

TEST_F(BuiltinValidationTest, AnUpdateIsDefaultedAndValidatedAsACreateIs) {
  Json created = create(kDeployments, deployment("web"));
  Json changed = created;
  changed["spec"]["template"]["spec"]["containers"][0].erase("imagePullPolicy");
  EXPECT_EQ(
      update(kDeployments, changed)["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"],
      "IfNotPresent");
  Json current = get(kDeployments, "default", "web");
  Json invalid = current;
  invalid["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] = "!invalid!";
  auto result = server->update(kDeployments, "", invalid);
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code, 422);
  EXPECT_EQ(get(kDeployments, "default", "web"), current);
}

}  // namespace
}  // namespace fakekube::apitest
