#include "fakekube/api/builtin_resources.h"

#include <cctype>

#include "fakekube/api/internal/event_conversion.h"

namespace fakekube {

namespace {

using G = GenerationRule;
using N = NameRule;

// Row flags.
constexpr unsigned kCluster = 1 << 0;         // cluster-scoped
constexpr unsigned kStatus = 1 << 1;          // has the status subresource
constexpr unsigned kScale = 1 << 2;           // has the scale subresource
constexpr unsigned kGeneration = 1 << 3;      // generation moves with .spec
constexpr unsigned kCreateOnly = 1 << 4;      // answered, never stored
constexpr unsigned kCreateOnUpdate = 1 << 5;  // PUT of a missing object creates it
constexpr unsigned kDeleteReturnsObject = 1 << 6;
constexpr unsigned kPathSegmentNames = 1 << 7;  // names are path segments (RBAC)
constexpr unsigned kLabelNames = 1 << 8;        // names are DNS-1123 labels
constexpr unsigned kDns1035Names = 1 << 9;      // names are DNS-1035 labels

struct Row {
  const char* group;
  std::vector<std::string> versions;
  const char* resource;
  const char* kind;
  unsigned flags;
  std::vector<std::string> shortNames;
  std::vector<std::string> categories;
  std::vector<SubresourceInfo> subresources;
  std::vector<std::string> fieldSelectors;
};

std::string singularOf(std::string_view kind) {
  std::string out(kind);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

const std::vector<std::string> kAll = {"all"};
const std::vector<std::string> kApiExtensions = {"api-extensions"};

SubresourceInfo sub(const char* name, const char* kind, std::vector<std::string> verbs,
                    const char* group = "", const char* version = "") {
  return {name, group, version, kind, std::move(verbs)};
}

const std::vector<std::string> kGetCreate = {"create", "get"};
const std::vector<std::string> kCreate = {"create"};
const std::vector<std::string> kGet = {"get"};
const std::vector<std::string> kProxy = {"create", "delete", "get", "patch", "update"};

std::vector<Row> rows() {
  return {
      // --- core ---
      {"", {"v1"}, "bindings", "Binding", kCreateOnly, {}, {}, {}, {}},
      {"", {"v1"}, "componentstatuses", "ComponentStatus", kCluster, {"cs"}, {}, {}, {}},
      {"", {"v1"}, "configmaps", "ConfigMap", 0, {"cm"}, {}, {}, {}},
      {"", {"v1"}, "endpoints", "Endpoints", kCreateOnUpdate, {"ep"}, {}, {}, {}},
      {"", {"v1"}, "events", "Event", kCreateOnUpdate, {"ev"}, {}, {}, coreEventFieldSelectors()},
      {"", {"v1"}, "limitranges", "LimitRange", 0, {"limits"}, {}, {}, {}},
      {"",
       {"v1"},
       "namespaces",
       "Namespace",
       kCluster | kStatus | kLabelNames,
       {"ns"},
       {},
       {sub("finalize", "Namespace", {"update"})},
       {"status.phase"}},
      {"",
       {"v1"},
       "nodes",
       "Node",
       kCluster | kStatus,
       {"no"},
       {},
       {sub("proxy", "NodeProxyOptions", kProxy)},
       {"spec.unschedulable"}},
      {"", {"v1"}, "persistentvolumeclaims", "PersistentVolumeClaim", kStatus, {"pvc"}, {}, {}, {}},
      {"", {"v1"}, "persistentvolumes", "PersistentVolume", kCluster | kStatus, {"pv"}, {}, {}, {}},
      {"",
       {"v1"},
       "pods",
       "Pod",
       kStatus | kGeneration | kDeleteReturnsObject,
       {"po"},
       kAll,
       {sub("attach", "PodAttachOptions", kGetCreate), sub("binding", "Binding", kCreate),
        sub("ephemeralcontainers", "Pod", {"get", "patch", "update"}),
        sub("eviction", "Eviction", kCreate, "policy", "v1"),
        sub("exec", "PodExecOptions", kGetCreate), sub("log", "Pod", kGet),
        sub("portforward", "PodPortForwardOptions", kGetCreate),
        sub("proxy", "PodProxyOptions", kProxy)},
       {"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
        "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"}},
      {"", {"v1"}, "podtemplates", "PodTemplate", 0, {}, {}, {}, {}},
      {"",
       {"v1"},
       "replicationcontrollers",
       "ReplicationController",
       kStatus | kScale | kGeneration,
       {"rc"},
       kAll,
       {},
       {"status.replicas"}},
      {"", {"v1"}, "resourcequotas", "ResourceQuota", kStatus, {"quota"}, {}, {}, {}},
      {"", {"v1"}, "secrets", "Secret", 0, {}, {}, {}, {"type"}},
      {"",
       {"v1"},
       "serviceaccounts",
       "ServiceAccount",
       kDeleteReturnsObject,
       {"sa"},
       {},
       {sub("token", "TokenRequest", kCreate, "authentication.k8s.io", "v1")},
       {}},
      {"",
       {"v1"},
       "services",
       "Service",
       kStatus | kDns1035Names,
       {"svc"},
       kAll,
       {sub("proxy", "ServiceProxyOptions", kProxy)},
       {"spec.clusterIP", "spec.type"}},
      // --- admissionregistration.k8s.io (stored; webhooks are not called) ---
      {"admissionregistration.k8s.io",
       {"v1"},
       "mutatingwebhookconfigurations",
       "MutatingWebhookConfiguration",
       kCluster | kGeneration,
       {},
       kApiExtensions,
       {},
       {}},
      {"admissionregistration.k8s.io",
       {"v1"},
       "validatingadmissionpolicies",
       "ValidatingAdmissionPolicy",
       kCluster | kStatus | kGeneration,
       {},
       kApiExtensions,
       {},
       {}},
      {"admissionregistration.k8s.io",
       {"v1"},
       "validatingadmissionpolicybindings",
       "ValidatingAdmissionPolicyBinding",
       kCluster | kGeneration,
       {},
       kApiExtensions,
       {},
       {}},
      {"admissionregistration.k8s.io",
       {"v1"},
       "validatingwebhookconfigurations",
       "ValidatingWebhookConfiguration",
       kCluster | kGeneration,
       {},
       kApiExtensions,
       {},
       {}},
      // --- apiextensions.k8s.io ---
      {"apiextensions.k8s.io",
       {"v1"},
       "customresourcedefinitions",
       "CustomResourceDefinition",
       kCluster | kStatus | kGeneration,
       {"crd", "crds"},
       kApiExtensions,
       {},
       {}},
      // --- apiregistration.k8s.io ---
      {"apiregistration.k8s.io",
       {"v1"},
       "apiservices",
       "APIService",
       kCluster | kStatus,
       {},
       kApiExtensions,
       {},
       {}},
      // --- apps ---
      {"apps", {"v1"}, "controllerrevisions", "ControllerRevision", 0, {}, {}, {}, {}},
      {"apps", {"v1"}, "daemonsets", "DaemonSet", kStatus | kGeneration, {"ds"}, kAll, {}, {}},
      {"apps",
       {"v1"},
       "deployments",
       "Deployment",
       kStatus | kScale | kGeneration,
       {"deploy"},
       kAll,
       {},
       {}},
      {"apps",
       {"v1"},
       "replicasets",
       "ReplicaSet",
       kStatus | kScale | kGeneration,
       {"rs"},
       kAll,
       {},
       {"status.replicas"}},
      {"apps",
       {"v1"},
       "statefulsets",
       "StatefulSet",
       kStatus | kScale | kGeneration,
       {"sts"},
       kAll,
       {},
       {}},
      // --- authentication.k8s.io, authorization.k8s.io (answered, not stored) ---
      {"authentication.k8s.io",
       {"v1"},
       "selfsubjectreviews",
       "SelfSubjectReview",
       kCluster | kCreateOnly,
       {},
       {},
       {},
       {}},
      {"authentication.k8s.io",
       {"v1"},
       "tokenreviews",
       "TokenReview",
       kCluster | kCreateOnly,
       {},
       {},
       {},
       {}},
      {"authorization.k8s.io",
       {"v1"},
       "localsubjectaccessreviews",
       "LocalSubjectAccessReview",
       kCreateOnly,
       {},
       {},
       {},
       {}},
      {"authorization.k8s.io",
       {"v1"},
       "selfsubjectaccessreviews",
       "SelfSubjectAccessReview",
       kCluster | kCreateOnly,
       {},
       {},
       {},
       {}},
      {"authorization.k8s.io",
       {"v1"},
       "selfsubjectrulesreviews",
       "SelfSubjectRulesReview",
       kCluster | kCreateOnly,
       {},
       {},
       {},
       {}},
      {"authorization.k8s.io",
       {"v1"},
       "subjectaccessreviews",
       "SubjectAccessReview",
       kCluster | kCreateOnly,
       {},
       {},
       {},
       {}},
      // --- autoscaling (v2 preferred; both versions read the same stored object) ---
      {"autoscaling",
       {"v2", "v1"},
       "horizontalpodautoscalers",
       "HorizontalPodAutoscaler",
       kStatus,
       {"hpa"},
       kAll,
       {},
       {}},
      // --- batch ---
      {"batch", {"v1"}, "cronjobs", "CronJob", kStatus | kGeneration, {"cj"}, kAll, {}, {}},
      {"batch", {"v1"}, "jobs", "Job", kStatus | kGeneration, {}, kAll, {}, {"status.successful"}},
      // --- certificates.k8s.io ---
      {"certificates.k8s.io",
       {"v1"},
       "certificatesigningrequests",
       "CertificateSigningRequest",
       kCluster | kStatus,
       {"csr"},
       {},
       {sub("approval", "CertificateSigningRequest", {"get", "patch", "update"})},
       {"spec.signerName"}},
      // --- coordination.k8s.io ---
      {"coordination.k8s.io", {"v1"}, "leases", "Lease", kCreateOnUpdate, {}, {}, {}, {}},
      // --- discovery.k8s.io ---
      {"discovery.k8s.io", {"v1"}, "endpointslices", "EndpointSlice", 0, {}, {}, {}, {}},
      // --- events.k8s.io ---
      // The core/v1 Events, served in this group too (api/internal/event_conversion.h).
      {"events.k8s.io",
       {"v1"},
       "events",
       "Event",
       kCreateOnUpdate,
       {"ev"},
       {},
       {},
       eventsV1EventFieldSelectors()},
      // --- flowcontrol.apiserver.k8s.io ---
      {"flowcontrol.apiserver.k8s.io",
       {"v1"},
       "flowschemas",
       "FlowSchema",
       kCluster | kStatus | kGeneration,
       {},
       {},
       {},
       {}},
      {"flowcontrol.apiserver.k8s.io",
       {"v1"},
       "prioritylevelconfigurations",
       "PriorityLevelConfiguration",
       kCluster | kStatus | kGeneration,
       {},
       {},
       {},
       {}},
      // --- networking.k8s.io ---
      {"networking.k8s.io", {"v1"}, "ingressclasses", "IngressClass", kCluster, {}, {}, {}, {}},
      {"networking.k8s.io",
       {"v1"},
       "ingresses",
       "Ingress",
       kStatus | kGeneration,
       {"ing"},
       {},
       {},
       {}},
      {"networking.k8s.io",
       {"v1"},
       "networkpolicies",
       "NetworkPolicy",
       kGeneration,
       {"netpol"},
       {},
       {},
       {}},
      // --- node.k8s.io ---
      {"node.k8s.io", {"v1"}, "runtimeclasses", "RuntimeClass", kCluster, {}, {}, {}, {}},
      // --- policy ---
      {"policy",
       {"v1"},
       "poddisruptionbudgets",
       "PodDisruptionBudget",
       kStatus | kGeneration,
       {"pdb"},
       {},
       {},
       {}},
      // --- rbac.authorization.k8s.io (stored; not enforced) ---
      {"rbac.authorization.k8s.io",
       {"v1"},
       "clusterrolebindings",
       "ClusterRoleBinding",
       kCluster | kPathSegmentNames,
       {},
       {},
       {},
       {}},
      {"rbac.authorization.k8s.io",
       {"v1"},
       "clusterroles",
       "ClusterRole",
       kCluster | kPathSegmentNames,
       {},
       {},
       {},
       {}},
      {"rbac.authorization.k8s.io",
       {"v1"},
       "rolebindings",
       "RoleBinding",
       kPathSegmentNames,
       {},
       {},
       {},
       {}},
      {"rbac.authorization.k8s.io", {"v1"}, "roles", "Role", kPathSegmentNames, {}, {}, {}, {}},
      // --- scheduling.k8s.io ---
      {"scheduling.k8s.io",
       {"v1"},
       "priorityclasses",
       "PriorityClass",
       kCluster,
       {"pc"},
       {},
       {},
       {}},
      // --- storage.k8s.io ---
      {"storage.k8s.io", {"v1"}, "csidrivers", "CSIDriver", kCluster, {}, {}, {}, {}},
      {"storage.k8s.io", {"v1"}, "csinodes", "CSINode", kCluster, {}, {}, {}, {}},
      {"storage.k8s.io", {"v1"}, "csistoragecapacities", "CSIStorageCapacity", 0, {}, {}, {}, {}},
      {"storage.k8s.io", {"v1"}, "storageclasses", "StorageClass", kCluster, {"sc"}, {}, {}, {}},
      {"storage.k8s.io",
       {"v1"},
       "volumeattachments",
       "VolumeAttachment",
       kCluster | kStatus,
       {},
       {},
       {},
       {}},
  };
}

}  // namespace

std::vector<ResourceInfo> builtinResources() {
  std::vector<ResourceInfo> out;
  for (auto& row : rows()) {
    ResourceInfo info;
    info.group = row.group;
    info.versions = std::move(row.versions);
    info.resource = row.resource;
    info.kind = row.kind;
    info.singular = singularOf(row.kind);
    info.listKind = std::string(row.kind) + "List";
    info.namespaced = (row.flags & kCluster) == 0;
    info.hasStatus = (row.flags & kStatus) != 0;
    info.hasScale = (row.flags & kScale) != 0;
    info.generation = (row.flags & kGeneration) != 0 ? G::SpecChange : G::None;
    info.nameRule = (row.flags & kPathSegmentNames) != 0 ? N::PathSegment
                    : (row.flags & kLabelNames) != 0     ? N::Dns1123Label
                    : (row.flags & kDns1035Names) != 0   ? N::Dns1035Label
                                                         : N::Dns1123Subdomain;
    if ((row.flags & kCreateOnly) != 0) info.verbs = {"create"};
    info.allowCreateOnUpdate = (row.flags & kCreateOnUpdate) != 0;
    info.deleteReturnsObject = (row.flags & kDeleteReturnsObject) != 0;
    info.shortNames = std::move(row.shortNames);
    info.categories = std::move(row.categories);
    info.subresources = std::move(row.subresources);
    info.fieldSelectors = std::move(row.fieldSelectors);
    if (info.kind == "Event") {
      info.selectableField = &eventSelectableField;
      if (info.group == "events.k8s.io") info.conversion = &eventsV1EventConversion();
    }
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace fakekube
