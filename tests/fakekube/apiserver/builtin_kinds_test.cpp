// The built-in kinds of a 1.32 cluster beyond the workloads: each can be created, read and
// listed; the defaults kube-apiserver fills and the validation users meet, with its messages.
#include <gtest/gtest.h>

#include "fakekube/api/resources.h"
#include "tests/fakekube/apiserver/fixture.h"

namespace fakekube::apitest {
namespace {

const GroupVersionResource kRoles{"rbac.authorization.k8s.io", "v1", "roles"};
const GroupVersionResource kClusterRoles{"rbac.authorization.k8s.io", "v1", "clusterroles"};
const GroupVersionResource kRoleBindings{"rbac.authorization.k8s.io", "v1", "rolebindings"};
const GroupVersionResource kClusterRoleBindings{"rbac.authorization.k8s.io", "v1",
                                                "clusterrolebindings"};
const GroupVersionResource kIngresses{"networking.k8s.io", "v1", "ingresses"};
const GroupVersionResource kHpasV2{"autoscaling", "v2", "horizontalpodautoscalers"};
const GroupVersionResource kHpasV1{"autoscaling", "v1", "horizontalpodautoscalers"};
const GroupVersionResource kPriorityClasses{"scheduling.k8s.io", "v1", "priorityclasses"};
const GroupVersionResource kStorageClasses{"storage.k8s.io", "v1", "storageclasses"};
const GroupVersionResource kWebhooks{"admissionregistration.k8s.io", "v1",
                                     "validatingwebhookconfigurations"};

Json object(const std::string& apiVersion, const std::string& kind, const std::string& name,
            const std::string& ns = "") {
  Json o = {{"apiVersion", apiVersion}, {"kind", kind}, {"metadata", {{"name", name}}}};
  if (!ns.empty()) o["metadata"]["namespace"] = ns;
  return o;
}

Json podTemplate(const Json& labels) {
  return {{"metadata", {{"labels", labels}}},
          {"spec", {{"containers", Json::array({{{"name", "main"}, {"image", "nginx:1.27"}}})}}}};
}

// One minimal valid object per kind, as a manifest would hold it.
struct KindCase {
  GroupVersionResource gvr;
  Json body;
};

std::vector<KindCase> kindCases() {
  const Json labels = {{"app", "web"}};
  std::vector<KindCase> cases;
  auto add = [&](GroupVersionResource gvr, Json body) {
    cases.push_back({std::move(gvr), std::move(body)});
  };
  Json role = object("rbac.authorization.k8s.io/v1", "Role", "reader", "default");
  role["rules"] = Json::array({{{"apiGroups", Json::array({""})},
                                {"resources", Json::array({"pods"})},
                                {"verbs", Json::array({"get", "list"})}}});
  add(kRoles, role);
  Json clusterRole = object("rbac.authorization.k8s.io/v1", "ClusterRole", "system:reader");
  clusterRole["rules"] = role["rules"];
  add(kClusterRoles, clusterRole);
  Json binding = object("rbac.authorization.k8s.io/v1", "RoleBinding", "read", "default");
  binding["roleRef"] = {
      {"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "reader"}};
  binding["subjects"] =
      Json::array({{{"kind", "ServiceAccount"}, {"name", "default"}, {"namespace", "default"}}});
  add(kRoleBindings, binding);
  Json clusterBinding =
      object("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "read-everything");
  clusterBinding["roleRef"] = {
      {"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "view"}};
  clusterBinding["subjects"] = Json::array(
      {{{"kind", "User"}, {"apiGroup", "rbac.authorization.k8s.io"}, {"name", "jane"}}});
  add(kClusterRoleBindings, clusterBinding);
  Json ingress = object("networking.k8s.io/v1", "Ingress", "web", "default");
  ingress["spec"] = {
      {"rules",
       Json::array(
           {{{"host", "web.example.com"},
             {"http",
              {{"paths",
                Json::array(
                    {{{"path", "/"},
                      {"pathType", "Prefix"},
                      {"backend",
                       {{"service", {{"name", "web"}, {"port", {{"number", 80}}}}}}}}})}}}}})}};
  add(kIngresses, ingress);
  Json ingressClass = object("networking.k8s.io/v1", "IngressClass", "nginx");
  ingressClass["spec"] = {{"controller", "k8s.io/ingress-nginx"}};
  add({"networking.k8s.io", "v1", "ingressclasses"}, ingressClass);
  Json policy = object("networking.k8s.io/v1", "NetworkPolicy", "deny", "default");
  policy["spec"] = {{"podSelector", Json::object()}};
  add({"networking.k8s.io", "v1", "networkpolicies"}, policy);
  Json pdb = object("policy/v1", "PodDisruptionBudget", "web", "default");
  pdb["spec"] = {{"minAvailable", 1}, {"selector", {{"matchLabels", labels}}}};
  add(kPodDisruptionBudgets, pdb);
  Json hpa = object("autoscaling/v2", "HorizontalPodAutoscaler", "web", "default");
  hpa["spec"] = {
      {"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "web"}}},
      {"maxReplicas", 5}};
  add(kHpasV2, hpa);
  Json sts = object("apps/v1", "StatefulSet", "db", "default");
  sts["spec"] = {{"serviceName", "db"},
                 {"selector", {{"matchLabels", labels}}},
                 {"template", podTemplate(labels)}};
  add(kStatefulSets, sts);
  Json ds = object("apps/v1", "DaemonSet", "agent", "default");
  ds["spec"] = {{"selector", {{"matchLabels", labels}}}, {"template", podTemplate(labels)}};
  add(kDaemonSets, ds);
  Json revision = object("apps/v1", "ControllerRevision", "db-1", "default");
  revision["revision"] = 1;
  add({"apps", "v1", "controllerrevisions"}, revision);
  Json cronJob = object("batch/v1", "CronJob", "nightly", "default");
  Json jobPod = podTemplate(labels);
  jobPod["spec"]["restartPolicy"] = "OnFailure";
  cronJob["spec"] = {{"schedule", "0 3 * * *"},
                     {"jobTemplate", {{"spec", {{"template", jobPod}}}}}};
  add(kCronJobs, cronJob);
  Json slice = object("discovery.k8s.io/v1", "EndpointSlice", "web-abc", "default");
  slice["addressType"] = "IPv4";
  slice["endpoints"] = Json::array({{{"addresses", Json::array({"10.0.0.1"})}}});
  add(kEndpointSlices, slice);
  Json event = object("events.k8s.io/v1", "Event", "web.1", "default");
  event["eventTime"] = "2024-01-01T00:00:00.000000Z";
  event["reason"] = "Started";
  event["type"] = "Normal";
  event["action"] = "Starting";
  event["reportingController"] = "example.com/controller";
  event["reportingInstance"] = "controller-0";
  add({"events.k8s.io", "v1", "events"}, event);
  Json priority = object("scheduling.k8s.io/v1", "PriorityClass", "high");
  priority["value"] = 1000;
  add(kPriorityClasses, priority);
  Json storage = object("storage.k8s.io/v1", "StorageClass", "standard");
  storage["provisioner"] = "rancher.io/local-path";
  add(kStorageClasses, storage);
  Json driver = object("storage.k8s.io/v1", "CSIDriver", "csi.example.com");
  driver["spec"] = Json::object();
  add({"storage.k8s.io", "v1", "csidrivers"}, driver);
  Json csiNode = object("storage.k8s.io/v1", "CSINode", "node-1");
  csiNode["spec"] = {{"drivers", Json::array()}};
  add({"storage.k8s.io", "v1", "csinodes"}, csiNode);
  Json attachment = object("storage.k8s.io/v1", "VolumeAttachment", "va-1");
  attachment["spec"] = {{"attacher", "csi.example.com"},
                        {"nodeName", "node-1"},
                        {"source", {{"persistentVolumeName", "pv-1"}}}};
  add({"storage.k8s.io", "v1", "volumeattachments"}, attachment);
  Json runtimeClass = object("node.k8s.io/v1", "RuntimeClass", "gvisor");
  runtimeClass["handler"] = "runsc";
  add({"node.k8s.io", "v1", "runtimeclasses"}, runtimeClass);
  Json csr = object("certificates.k8s.io/v1", "CertificateSigningRequest", "jane");
  csr["spec"] = {{"request", "LS0tLS1CRUdJTg=="},
                 {"signerName", "kubernetes.io/kube-apiserver-client"},
                 {"usages", Json::array({"client auth"})}};
  add({"certificates.k8s.io", "v1", "certificatesigningrequests"}, csr);
  Json webhook =
      object("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "check");
  webhook["webhooks"] = Json::array(
      {{{"name", "check.example.com"},
        {"sideEffects", "None"},
        {"admissionReviewVersions", Json::array({"v1"})},
        {"clientConfig", {{"service", {{"name", "hook"}, {"namespace", "default"}}}}}}});
  add(kWebhooks, webhook);
  Json mutating = webhook;
  mutating["kind"] = "MutatingWebhookConfiguration";
  add({"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"}, mutating);
  Json vap = object("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", "replicas");
  vap["spec"] = {{"validations", Json::array({{{"expression", "object.spec.replicas <= 5"}}})}};
  add({"admissionregistration.k8s.io", "v1", "validatingadmissionpolicies"}, vap);
  Json apiService = object("apiregistration.k8s.io/v1", "APIService", "v1beta1.metrics.k8s.io");
  apiService["spec"] = {{"group", "metrics.k8s.io"},
                        {"version", "v1beta1"},
                        {"groupPriorityMinimum", 100},
                        {"versionPriority", 100}};
  add({"apiregistration.k8s.io", "v1", "apiservices"}, apiService);
  Json flowSchema = object("flowcontrol.apiserver.k8s.io/v1", "FlowSchema", "mine");
  flowSchema["spec"] = {{"priorityLevelConfiguration", {{"name", "workload-low"}}}};
  add({"flowcontrol.apiserver.k8s.io", "v1", "flowschemas"}, flowSchema);
  Json level = object("flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfiguration", "mine");
  level["spec"] = {{"type", "Limited"}};
  add({"flowcontrol.apiserver.k8s.io", "v1", "prioritylevelconfigurations"}, level);
  Json lease = object("coordination.k8s.io/v1", "Lease", "leader", "default");
  add({"coordination.k8s.io", "v1", "leases"}, lease);
  Json quota = object("v1", "ResourceQuota", "compute", "default");
  quota["spec"] = {{"hard", {{"pods", "10"}}}};
  add({"", "v1", "resourcequotas"}, quota);
  Json limits = object("v1", "LimitRange", "defaults", "default");
  limits["spec"] = {{"limits", Json::array({{{"type", "Container"}}})}};
  add({"", "v1", "limitranges"}, limits);
  Json pv = object("v1", "PersistentVolume", "pv-1");
  pv["spec"] = {{"capacity", {{"storage", "1Gi"}}},
                {"accessModes", Json::array({"ReadWriteOnce"})},
                {"hostPath", {{"path", "/data"}}}};
  add({"", "v1", "persistentvolumes"}, pv);
  Json pvc = object("v1", "PersistentVolumeClaim", "data", "default");
  pvc["spec"] = {{"accessModes", Json::array({"ReadWriteOnce"})},
                 {"resources", {{"requests", {{"storage", "1Gi"}}}}}};
  add(kPersistentVolumeClaims, pvc);
  Json rc = object("v1", "ReplicationController", "old", "default");
  rc["spec"] = {{"template", podTemplate(labels)}};
  add({"", "v1", "replicationcontrollers"}, rc);
  Json templ = object("v1", "PodTemplate", "tmpl", "default");
  templ["template"] = podTemplate(labels);
  add({"", "v1", "podtemplates"}, templ);
  return cases;
}

class BuiltinKindsTest : public ApiServerTest {};

TEST_F(BuiltinKindsTest, EveryKindIsCreatedReadAndListed) {
  for (const auto& c : kindCases()) {
    SCOPED_TRACE(c.gvr.apiVersion() + " " + c.gvr.resource);
    const std::string ns = c.body["metadata"].value("namespace", "");
    // The bootstrap policy's ClusterRoles and ClusterRoleBindings are listed too, as in a cluster.
    const std::size_t existing = list(c.gvr, ns)["items"].size();
    Json created = create(c.gvr, c.body, ns);
    EXPECT_FALSE(meta::uid(created).empty());
    EXPECT_EQ(created["kind"], c.body["kind"]);
    Json got = get(c.gvr, ns, meta::name(c.body));
    EXPECT_EQ(meta::resourceVersion(got), meta::resourceVersion(created));
    Json listed = list(c.gvr, ns);
    ASSERT_EQ(listed["items"].size(), existing + 1);
    bool found = false;
    for (const Json& item : listed["items"])
      found = found || meta::name(item) == meta::name(c.body);
    EXPECT_TRUE(found);
  }
}

TEST_F(BuiltinKindsTest, RbacNamesMayBePathSegmentsAndAggregationRulesAreKept) {
  Json role = object("rbac.authorization.k8s.io/v1", "ClusterRole", "system:aggregate-to-custom");
  role["aggregationRule"] = {
      {"clusterRoleSelectors",
       Json::array({{{"matchLabels", {{"rbac.example.com/aggregate-to-view", "true"}}}}})}};
  Json created = create(kClusterRoles, role);
  EXPECT_EQ(meta::name(created), "system:aggregate-to-custom");
  EXPECT_EQ(created["aggregationRule"], role["aggregationRule"]);
  EXPECT_FALSE(created.contains("rules"));
}

TEST_F(BuiltinKindsTest, RoleRulesNeedVerbsGroupsAndResources) {
  Json role = object("rbac.authorization.k8s.io/v1", "Role", "bad", "default");
  role["rules"] = Json::array({{{"resources", Json::array({"pods"})}}});
  EXPECT_TRUE(failsWith(
      server->create(kRoles, "default", role), 422, "Invalid",
      "Role.rbac.authorization.k8s.io \"bad\" is invalid: [rules[0].verbs: Required value: verbs "
      "must contain at least one value, rules[0].apiGroups: Required value: resource rules must "
      "supply at least one api group]"));
  role["rules"] = Json::array(
      {{{"nonResourceURLs", Json::array({"/healthz"})}, {"verbs", Json::array({"get"})}}});
  EXPECT_TRUE(
      failsWith(server->create(kRoles, "default", role), 422, "Invalid",
                "Role.rbac.authorization.k8s.io \"bad\" is invalid: "
                "rules[0].nonResourceURLs: Invalid value: []string{\"/healthz\"}: namespaced "
                "rules cannot apply to non-resource URLs"));
  EXPECT_EQ(list(kRoles, "default")["items"].size(), 0u);
}

TEST_F(BuiltinKindsTest, RoleBindingRoleRefIsCheckedAndImmutable) {
  Json binding = kindCases()[2].body;
  binding["roleRef"]["kind"] = "Secret";
  EXPECT_TRUE(failsWith(server->create(kRoleBindings, "default", binding), 422, "Invalid",
                        "RoleBinding.rbac.authorization.k8s.io \"read\" is invalid: roleRef.kind: "
                        "Unsupported value: \"Secret\": supported values: \"Role\", "
                        "\"ClusterRole\""));
  binding["roleRef"]["kind"] = "Role";
  Json created = create(kRoleBindings, binding, "default");
  created["roleRef"]["name"] = "writer";
  EXPECT_TRUE(failsWith(
      server->update(kRoleBindings, "default", created), 422, "Invalid",
      "RoleBinding.rbac.authorization.k8s.io \"read\" is invalid: roleRef: Invalid value: "
      "rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", Kind:\"Role\", Name:\"writer\"}: "
      "cannot change roleRef"));
  Json subjects = created;
  subjects["roleRef"]["name"] = "reader";
  subjects["subjects"].push_back(
      {{"kind", "Group"}, {"name", "devs"}, {"apiGroup", "rbac.authorization.k8s.io"}});
  EXPECT_EQ(update(kRoleBindings, subjects)["subjects"].size(), 2u);
}

TEST_F(BuiltinKindsTest, ClusterRoleBindingServiceAccountsNeedANamespace) {
  Json binding = kindCases()[3].body;
  binding["subjects"] = Json::array({{{"kind", "ServiceAccount"}, {"name", "controller"}}});
  EXPECT_TRUE(failsWith(server->create(kClusterRoleBindings, "", binding), 422, "Invalid",
                        "ClusterRoleBinding.rbac.authorization.k8s.io \"read-everything\" is "
                        "invalid: subjects[0].namespace: Required value"));
}

TEST_F(BuiltinKindsTest, IngressPathsNeedAPathType) {
  Json ingress = kindCases()[4].body;
  ingress["spec"]["rules"][0]["http"]["paths"][0].erase("pathType");
  EXPECT_TRUE(failsWith(server->create(kIngresses, "default", ingress), 422, "Invalid",
                        "Ingress.networking.k8s.io \"web\" is invalid: "
                        "spec.rules[0].http.paths[0].pathType: Required value: pathType must be "
                        "specified"));
  ingress["spec"]["rules"][0]["http"]["paths"][0]["pathType"] = "Glob";
  EXPECT_TRUE(failsWith(server->create(kIngresses, "default", ingress), 422, "Invalid",
                        "Ingress.networking.k8s.io \"web\" is invalid: "
                        "spec.rules[0].http.paths[0].pathType: Unsupported value: \"Glob\": "
                        "supported values: \"Exact\", \"ImplementationSpecific\", \"Prefix\""));
}

TEST_F(BuiltinKindsTest, PodDisruptionBudgetTakesMinAvailableOrMaxUnavailable) {
  Json pdb = kindCases()[7].body;
  pdb["spec"]["maxUnavailable"] = "50%";
  auto created = server->create(kPodDisruptionBudgets, "default", pdb);
  ASSERT_FALSE(created);
  EXPECT_EQ(created.error().code, 422);
  EXPECT_NE(created.error().message.find("minAvailable and maxUnavailable cannot be both set"),
            std::string::npos)
      << created.error().message;
  pdb["spec"].erase("maxUnavailable");
  Json made = create(kPodDisruptionBudgets, pdb, "default");
  EXPECT_EQ(made["status"]["disruptionsAllowed"], 0);
  EXPECT_EQ(made["metadata"]["generation"], 1);
}

TEST_F(BuiltinKindsTest, HorizontalPodAutoscalerDefaultsAndReplicaBounds) {
  Json made = create(kHpasV2, kindCases()[8].body, "default");
  EXPECT_EQ(made["spec"]["minReplicas"], 1);
  EXPECT_EQ(made["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"], 80);
  // Both served versions read the stored object.
  EXPECT_EQ(meta::uid(get(kHpasV1, "default", "web")), meta::uid(made));

  Json bad = kindCases()[8].body;
  bad["metadata"]["name"] = "bad";
  bad["spec"]["minReplicas"] = 7;
  EXPECT_TRUE(failsWith(server->create(kHpasV2, "default", bad), 422, "Invalid",
                        "HorizontalPodAutoscaler.autoscaling \"bad\" is invalid: "
                        "spec.minReplicas: Invalid value: 7: must be less than or equal to "
                        "maxReplicas"));
}

TEST_F(BuiltinKindsTest, StatefulSetDefaultsAndSelectorMustMatchTemplate) {
  Json made = create(kStatefulSets, kindCases()[9].body, "default");
  const Json& spec = made["spec"];
  EXPECT_EQ(spec["replicas"], 1);
  EXPECT_EQ(spec["podManagementPolicy"], "OrderedReady");
  EXPECT_EQ(spec["updateStrategy"]["type"], "RollingUpdate");
  EXPECT_EQ(spec["updateStrategy"]["rollingUpdate"]["partition"], 0);
  EXPECT_EQ(spec["persistentVolumeClaimRetentionPolicy"]["whenDeleted"], "Retain");
  EXPECT_EQ(spec["template"]["spec"]["restartPolicy"], "Always");

  Json bad = kindCases()[9].body;
  bad["metadata"]["name"] = "bad";
  bad["spec"]["template"]["metadata"]["labels"] = {{"app", "other"}};
  EXPECT_TRUE(failsWith(server->create(kStatefulSets, "default", bad), 422, "Invalid",
                        "StatefulSet.apps \"bad\" is invalid: spec.template.metadata.labels: "
                        "Invalid value: map[string]string{\"app\":\"other\"}: `selector` does "
                        "not match template `labels`"));
}

TEST_F(BuiltinKindsTest, DaemonSetDefaults) {
  Json made = create(kDaemonSets, kindCases()[10].body, "default");
  EXPECT_EQ(made["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"], 1);
  EXPECT_EQ(made["spec"]["revisionHistoryLimit"], 10);
}

TEST_F(BuiltinKindsTest, CronJobScheduleIsValidatedAndHistoryLimitsDefaulted) {
  Json made = create(kCronJobs, kindCases()[12].body, "default");
  EXPECT_EQ(made["spec"]["concurrencyPolicy"], "Allow");
  EXPECT_EQ(made["spec"]["successfulJobsHistoryLimit"], 3);
  EXPECT_EQ(made["spec"]["failedJobsHistoryLimit"], 1);
  EXPECT_EQ(made["spec"]["suspend"], false);

  Json bad = kindCases()[12].body;
  bad["metadata"]["name"] = "bad";
  bad["spec"]["schedule"] = "every day";
  EXPECT_TRUE(failsWith(server->create(kCronJobs, "default", bad), 422, "Invalid",
                        "CronJob.batch \"bad\" is invalid: spec.schedule: Invalid value: \"every "
                        "day\": expected exactly 5 fields, found 2: [every day]"));
  bad["spec"]["schedule"] = "*/5 * * * *";
  bad["spec"]["concurrencyPolicy"] = "Sometimes";
  EXPECT_TRUE(failsWith(server->create(kCronJobs, "default", bad), 422, "Invalid",
                        "CronJob.batch \"bad\" is invalid: spec.concurrencyPolicy: Unsupported "
                        "value: \"Sometimes\": supported values: \"Allow\", \"Forbid\", "
                        "\"Replace\""));
}

TEST_F(BuiltinKindsTest, PriorityClassValueIsBoundedAndImmutable) {
  Json made = create(kPriorityClasses, kindCases()[15].body);
  EXPECT_EQ(made["preemptionPolicy"], "PreemptLowerPriority");
  made["value"] = 2000;
  EXPECT_TRUE(failsWith(server->update(kPriorityClasses, "", made), 422, "Invalid",
                        "PriorityClass.scheduling.k8s.io \"high\" is invalid: value: Forbidden: "
                        "may not be changed in an update."));
  Json huge = object("scheduling.k8s.io/v1", "PriorityClass", "huge");
  huge["value"] = 2000000000;
  EXPECT_TRUE(failsWith(server->create(kPriorityClasses, "", huge), 422, "Invalid",
                        "PriorityClass.scheduling.k8s.io \"huge\" is invalid: value: Forbidden: "
                        "maximum allowed value of a user defined priority is 1000000000"));
}

TEST_F(BuiltinKindsTest, StorageClassNeedsAProvisionerThatCannotChange) {
  Json made = create(kStorageClasses, kindCases()[16].body);
  EXPECT_EQ(made["reclaimPolicy"], "Delete");
  EXPECT_EQ(made["volumeBindingMode"], "Immediate");
  made["provisioner"] = "other";
  EXPECT_TRUE(failsWith(server->update(kStorageClasses, "", made), 422, "Invalid",
                        "StorageClass.storage.k8s.io \"standard\" is invalid: provisioner: "
                        "Forbidden: updates to provisioner are forbidden."));
  EXPECT_TRUE(failsWith(
      server->create(kStorageClasses, "", object("storage.k8s.io/v1", "StorageClass", "none")), 422,
      "Invalid", "StorageClass.storage.k8s.io \"none\" is invalid: provisioner: Required value"));
}

TEST_F(BuiltinKindsTest, EndpointSliceAddressType) {
  Json slice = kindCases()[13].body;
  slice["addressType"] = "IPv5";
  EXPECT_TRUE(failsWith(server->create(kEndpointSlices, "default", slice), 422, "Invalid",
                        "EndpointSlice.discovery.k8s.io \"web-abc\" is invalid: addressType: "
                        "Unsupported value: \"IPv5\": supported values: \"FQDN\", \"IPv4\", "
                        "\"IPv6\""));
}

TEST_F(BuiltinKindsTest, PersistentVolumeClaimNeedsAccessModesAndStorage) {
  Json pvc = object("v1", "PersistentVolumeClaim", "bare", "default");
  pvc["spec"] = Json::object();
  EXPECT_TRUE(failsWith(server->create(kPersistentVolumeClaims, "default", pvc), 422, "Invalid",
                        "PersistentVolumeClaim \"bare\" is invalid: [spec.accessModes: Required "
                        "value: at least 1 access mode is required, spec.resources[storage]: "
                        "Required value]"));
  pvc["spec"] = {{"accessModes", Json::array({"ReadWriteOnce"})},
                 {"resources", {{"requests", {{"storage", "1Gi"}}}}}};
  Json made = create(kPersistentVolumeClaims, pvc, "default");
  EXPECT_EQ(made["spec"]["volumeMode"], "Filesystem");
  EXPECT_EQ(made["status"]["phase"], "Pending");
}

TEST_F(BuiltinKindsTest, WebhooksNeedSideEffectsAndReviewVersions) {
  Json webhook = object("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "w");
  webhook["webhooks"] = Json::array({{{"name", "w.example.com"}}});
  EXPECT_TRUE(failsWith(
      server->create(kWebhooks, "", webhook), 422, "Invalid",
      "ValidatingWebhookConfiguration.admissionregistration.k8s.io \"w\" is invalid: "
      "[webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun, "
      "webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1]"));
}

TEST_F(BuiltinKindsTest, ReplicationControllerSelectorDefaultsToTemplateLabels) {
  Json rc = object("v1", "ReplicationController", "old", "default");
  rc["spec"] = {{"template", podTemplate({{"app", "legacy"}})}};
  Json made = create({"", "v1", "replicationcontrollers"}, rc, "default");
  EXPECT_EQ(made["spec"]["selector"], Json({{"app", "legacy"}}));
  EXPECT_EQ(made["spec"]["replicas"], 1);
}

}  // namespace
}  // namespace fakekube::apitest
