// The everyday kubectl commands beyond CRUD against `fakekube serve`: api-resources over the
// whole built-in API, explain, auth can-i / whoami, create token, get --raw /metrics, and an
// operator's kustomize install applied with -k.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class KubectlBuiltinApiTest : public KubectlTest {
 protected:
  void write(const std::string& relative, const std::string& text) {
    const std::filesystem::path path = std::filesystem::path(dir.path()) / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
};

TEST_F(KubectlBuiltinApiTest, ApiResourcesListsEveryKindOfADefaultCluster) {
  ProcessResult r = kubectl({"api-resources", "--no-headers"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // No discovery fallback warnings: the aggregated documents were read.
  EXPECT_THAT(r.err, Not(HasSubstr("couldn't get")));
  struct Expected {
    const char* name;
    const char* apiVersion;
    const char* kind;
  };
  for (const Expected& e : std::initializer_list<Expected>{
           {"roles", "rbac.authorization.k8s.io/v1", "Role"},
           {"clusterroles", "rbac.authorization.k8s.io/v1", "ClusterRole"},
           {"rolebindings", "rbac.authorization.k8s.io/v1", "RoleBinding"},
           {"clusterrolebindings", "rbac.authorization.k8s.io/v1", "ClusterRoleBinding"},
           {"ingresses", "networking.k8s.io/v1", "Ingress"},
           {"ingressclasses", "networking.k8s.io/v1", "IngressClass"},
           {"networkpolicies", "networking.k8s.io/v1", "NetworkPolicy"},
           {"poddisruptionbudgets", "policy/v1", "PodDisruptionBudget"},
           {"horizontalpodautoscalers", "autoscaling/v2", "HorizontalPodAutoscaler"},
           {"statefulsets", "apps/v1", "StatefulSet"},
           {"daemonsets", "apps/v1", "DaemonSet"},
           {"controllerrevisions", "apps/v1", "ControllerRevision"},
           {"cronjobs", "batch/v1", "CronJob"},
           {"endpointslices", "discovery.k8s.io/v1", "EndpointSlice"},
           {"events", "events.k8s.io/v1", "Event"},
           {"priorityclasses", "scheduling.k8s.io/v1", "PriorityClass"},
           {"storageclasses", "storage.k8s.io/v1", "StorageClass"},
           {"csidrivers", "storage.k8s.io/v1", "CSIDriver"},
           {"csinodes", "storage.k8s.io/v1", "CSINode"},
           {"volumeattachments", "storage.k8s.io/v1", "VolumeAttachment"},
           {"runtimeclasses", "node.k8s.io/v1", "RuntimeClass"},
           {"certificatesigningrequests", "certificates.k8s.io/v1", "CertificateSigningRequest"},
           {"validatingwebhookconfigurations", "admissionregistration.k8s.io/v1",
            "ValidatingWebhookConfiguration"},
           {"mutatingwebhookconfigurations", "admissionregistration.k8s.io/v1",
            "MutatingWebhookConfiguration"},
           {"validatingadmissionpolicies", "admissionregistration.k8s.io/v1",
            "ValidatingAdmissionPolicy"},
           {"apiservices", "apiregistration.k8s.io/v1", "APIService"},
           {"flowschemas", "flowcontrol.apiserver.k8s.io/v1", "FlowSchema"},
           {"prioritylevelconfigurations", "flowcontrol.apiserver.k8s.io/v1",
            "PriorityLevelConfiguration"},
           {"leases", "coordination.k8s.io/v1", "Lease"},
           {"resourcequotas", "v1", "ResourceQuota"},
           {"limitranges", "v1", "LimitRange"},
           {"persistentvolumes", "v1", "PersistentVolume"},
           {"persistentvolumeclaims", "v1", "PersistentVolumeClaim"},
           {"replicationcontrollers", "v1", "ReplicationController"},
           {"podtemplates", "v1", "PodTemplate"},
           {"serviceaccounts", "v1", "ServiceAccount"},
           {"endpoints", "v1", "Endpoints"},
           {"selfsubjectaccessreviews", "authorization.k8s.io/v1", "SelfSubjectAccessReview"},
           {"selfsubjectreviews", "authentication.k8s.io/v1", "SelfSubjectReview"},
       }) {
    bool found = false;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream words(line);
      std::vector<std::string> w{std::istream_iterator<std::string>(words), {}};
      if (!w.empty() && w.front() == e.name &&
          std::find(w.begin(), w.end(), e.apiVersion) != w.end() && w.back() == e.kind) {
        found = true;
      }
    }
    EXPECT_TRUE(found) << e.name << " " << e.apiVersion << " " << e.kind << " missing from\n"
                       << r.out;
  }
  EXPECT_THAT(ok({"api-resources", "--api-group=apps", "-o", "name"}),
              HasSubstr("statefulsets.apps"));
  EXPECT_THAT(ok({"api-resources", "--categories=all", "-o", "name"}), HasSubstr("cronjobs.batch"));
}

TEST_F(KubectlBuiltinApiTest, ExplainReadsTheBuiltInSchemas) {
  std::string out = ok({"explain", "pod.spec.containers"});
  EXPECT_THAT(out, HasSubstr("KIND:       Pod"));
  EXPECT_THAT(out, HasSubstr("VERSION:    v1"));
  EXPECT_THAT(out, HasSubstr("FIELD: containers <[]Container>"));
  EXPECT_THAT(out, HasSubstr("List of containers belonging to the pod."));
  EXPECT_THAT(out, HasSubstr("image\t<string>"));
  EXPECT_THAT(out, HasSubstr("name\t<string> -required-"));

  std::string pod = ok({"explain", "pods"});
  EXPECT_THAT(pod, HasSubstr("spec\t<PodSpec>"));
  EXPECT_THAT(pod, HasSubstr("Specification of the desired behavior of the Pod."));

  std::string rbac = ok({"explain", "clusterrolebinding.roleRef"});
  EXPECT_THAT(rbac, HasSubstr("GROUP:      rbac.authorization.k8s.io"));
  EXPECT_THAT(rbac, HasSubstr("apiGroup\t<string> -required-"));
  EXPECT_THAT(ok({"explain", "deployment.spec.strategy", "--recursive"}), HasSubstr("maxSurge"));
}

TEST_F(KubectlBuiltinApiTest, ExplainReadsACustomResourceSchema) {
  ok({"apply", "-f", "-"}, R"yaml(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: What the widget should be.
            properties:
              size: {type: integer, description: How many parts the widget has.}
)yaml");
  std::string out = ok({"explain", "widgets.spec"});
  EXPECT_THAT(out, HasSubstr("KIND:       Widget"));
  EXPECT_THAT(out, HasSubstr("What the widget should be."));
  EXPECT_THAT(out, HasSubstr("size\t<integer>"));
}

TEST_F(KubectlBuiltinApiTest, AuthCanIAndWhoAmI) {
  EXPECT_EQ(ok({"auth", "can-i", "create", "pods"}), "yes\n");
  EXPECT_EQ(ok({"auth", "can-i", "delete", "clusterroles"}), "yes\n");
  std::string whoami = ok({"auth", "whoami", "-o", "json"});
  fakekube::Json review = fakekube::Json::parse(whoami);
  EXPECT_EQ(review["status"]["userInfo"]["username"], "kubernetes-admin");
  EXPECT_THAT(ok({"auth", "can-i", "--list"}), HasSubstr("*.*"));
}

TEST_F(KubectlBuiltinApiTest, CreateTokenForAServiceAccount) {
  ok({"create", "serviceaccount", "builder"});
  std::string token = ok({"create", "token", "builder", "--duration=2h"});
  EXPECT_EQ(std::count(token.begin(), token.end(), '.'), 2) << token;
}

TEST_F(KubectlBuiltinApiTest, GetRawMetricsShowsTheRequestsServed) {
  ok({"get", "configmaps"});
  std::string metrics = ok({"get", "--raw", "/metrics"});
  EXPECT_THAT(metrics, HasSubstr("# TYPE apiserver_request_total counter"));
  EXPECT_THAT(metrics, HasSubstr("resource=\"configmaps\",scope=\"namespace\",subresource=\"\","
                                 "verb=\"LIST\",version=\"v1\"}"));
  EXPECT_THAT(metrics, HasSubstr("apiserver_request_duration_seconds_bucket"));
  // The controllers' metrics under controller-runtime's names.
  EXPECT_THAT(metrics, HasSubstr("controller_runtime_reconcile_total"));
  EXPECT_THAT(metrics, HasSubstr("workqueue_adds_total"));
}

TEST_F(KubectlBuiltinApiTest, ApplyKOfAnOperatorInstall) {
  write("install/kustomization.yaml", R"yaml(
namespace: widget-system
resources:
- namespace.yaml
- crd.yaml
- rbac.yaml
- manager.yaml
configMapGenerator:
- name: manager-config
  literals: [LOG_LEVEL=debug]
)yaml");
  write("install/namespace.yaml", R"yaml(
apiVersion: v1
kind: Namespace
metadata: {name: widget-system}
)yaml");
  write("install/crd.yaml", R"yaml(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
)yaml");
  write("install/rbac.yaml", R"yaml(
apiVersion: v1
kind: ServiceAccount
metadata: {name: widget-controller}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: widget-manager-role}
rules:
- apiGroups: [example.com]
  resources: [widgets, widgets/status]
  verbs: [get, list, watch, update, patch]
- apiGroups: [""]
  resources: [pods, services, events]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: widget-manager-rolebinding}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: widget-manager-role}
subjects:
- {kind: ServiceAccount, name: widget-controller, namespace: widget-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: widget-leader-election}
rules:
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [get, create, update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: widget-leader-election}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: widget-leader-election}
subjects:
- {kind: ServiceAccount, name: widget-controller}
)yaml");
  write("install/manager.yaml", R"yaml(
apiVersion: v1
kind: Service
metadata: {name: widget-metrics}
spec:
  selector: {app: widget-controller}
  ports: [{name: metrics, port: 8443}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: widget-controller}
spec:
  replicas: 1
  selector: {matchLabels: {app: widget-controller}}
  template:
    metadata: {labels: {app: widget-controller}}
    spec:
      serviceAccountName: widget-controller
      containers:
      - name: manager
        image: example.com/widget-controller:v0.1.0
        args: [--leader-elect]
)yaml");
  std::string out = ok({"apply", "-k", dir.path() + "/install"});
  for (const char* line :
       {"namespace/widget-system created",
        "customresourcedefinition.apiextensions.k8s.io/"
        "widgets.example.com created",
        "serviceaccount/widget-controller created",
        "role.rbac.authorization.k8s.io/"
        "widget-leader-election created",
        "clusterrole.rbac.authorization.k8s.io/widget-manager-role created",
        "rolebinding.rbac.authorization.k8s.io/widget-leader-election created",
        "clusterrolebinding.rbac.authorization.k8s.io/widget-manager-rolebinding created",
        "service/widget-metrics created", "deployment.apps/widget-controller created"}) {
    EXPECT_THAT(out, HasSubstr(line));
  }
  EXPECT_THAT(out, HasSubstr("configmap/manager-config-"));
  // Applying again changes nothing.
  std::string again = ok({"apply", "-k", dir.path() + "/install"});
  EXPECT_THAT(again, HasSubstr("clusterrole.rbac.authorization.k8s.io/widget-manager-role "
                               "unchanged"));
  EXPECT_THAT(ok({"get", "rolebindings", "-n", "widget-system"}),
              HasSubstr("Role/widget-leader-election"));
  EXPECT_EQ(ok({"get", "clusterrolebinding", "widget-manager-rolebinding", "-o",
                "jsonpath={.subjects[0].namespace}"}),
            "widget-system");
}

// An install whose CRD is over 256 KiB (controller-gen's pod templates get there): client-side
// apply cannot keep it in the last-applied annotation, as on a real cluster; --server-side can.
TEST_F(KubectlBuiltinApiTest, ApplyKServerSideOfAnInstallWithALargeCrd) {
  write("large/kustomization.yaml", "resources:\n- crd.yaml\n- manager.yaml\n");
  std::string crd = R"yaml(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: DESCRIPTION
            properties:
              size: {type: integer}
)yaml";
  crd.replace(crd.find("DESCRIPTION"), 11, std::string(300 * 1024, 'x'));
  write("large/crd.yaml", crd);
  write("large/manager.yaml", R"yaml(
apiVersion: apps/v1
kind: Deployment
metadata: {name: gadget-controller, namespace: default}
spec:
  selector: {matchLabels: {app: gadget-controller}}
  template:
    metadata: {labels: {app: gadget-controller}}
    spec:
      containers: [{name: manager, image: example.com/gadget-controller:v1}]
)yaml");
  ProcessResult clientSide = kubectl({"apply", "-k", dir.path() + "/large"});
  EXPECT_NE(clientSide.exitCode, 0);
  EXPECT_THAT(clientSide.err, HasSubstr("metadata.annotations: Too long: must have at most "
                                        "262144 bytes"));
  std::string out = ok({"apply", "--server-side", "-k", dir.path() + "/large"});
  EXPECT_THAT(out, HasSubstr("customresourcedefinition.apiextensions.k8s.io/gadgets.example.com "
                             "serverside-applied"));
  EXPECT_THAT(out, HasSubstr("deployment.apps/gadget-controller serverside-applied"));
  ok({"wait", "--for=condition=Established", "crd/gadgets.example.com", "--timeout=30s"});
  EXPECT_EQ(ok({"apply", "-f", "-"}, R"({"apiVersion": "example.com/v1", "kind": "Gadget",
       "metadata": {"name": "g1", "namespace": "default"}, "spec": {"size": 3}})"),
            "gadget.example.com/g1 created\n");
  EXPECT_EQ(ok({"get", "gadget", "g1", "-o", "jsonpath={.spec.size}"}), "3");
}

}  // namespace
}  // namespace fakekube::e2e
