#include "fakekube/api/internal/protobuf_schema.h"

#include <map>
#include <utility>

namespace fakekube {

const ProtobufField* ProtobufMessage::field(int number) const {
  for (const ProtobufField& f : fields) {
    if (f.number == number) return &f;
  }
  return nullptr;
}

namespace {

// The proto packages of the messages below.
constexpr std::string_view kMeta = "k8s.io.apimachinery.pkg.apis.meta.v1.";
constexpr std::string_view kCore = "k8s.io.api.core.v1.";
constexpr std::string_view kApps = "k8s.io.api.apps.v1.";
constexpr std::string_view kBatch = "k8s.io.api.batch.v1.";
constexpr std::string_view kPolicy = "k8s.io.api.policy.v1.";
constexpr std::string_view kRbac = "k8s.io.api.rbac.v1.";
constexpr std::string_view kScheduling = "k8s.io.api.scheduling.v1.";
constexpr std::string_view kNetworking = "k8s.io.api.networking.v1.";
constexpr std::string_view kAutoscaling = "k8s.io.api.autoscaling.v1.";
constexpr std::string_view kCoordination = "k8s.io.api.coordination.v1.";
constexpr std::string_view kAuthorization = "k8s.io.api.authorization.v1.";
constexpr std::string_view kAuthentication = "k8s.io.api.authentication.v1.";

std::string qualified(std::string_view package, std::string_view name) {
  return std::string(package) + std::string(name);
}

// Field constructors. `keep` marks a Go pointer (or a field without omitempty): see the header.
constexpr bool kKeep = true;

ProtobufField scalar(int number, std::string_view name, ProtobufValue value, bool keep) {
  ProtobufField f;
  f.number = number;
  f.jsonName = name;
  f.value = value;
  f.keepZero = keep;
  return f;
}
ProtobufField Str(int n, std::string_view name, bool keep = false) {
  return scalar(n, name, ProtobufValue::String, keep);
}
ProtobufField Bool(int n, std::string_view name, bool keep = false) {
  return scalar(n, name, ProtobufValue::Bool, keep);
}
ProtobufField I32(int n, std::string_view name, bool keep = false) {
  return scalar(n, name, ProtobufValue::Int32, keep);
}
ProtobufField I64(int n, std::string_view name, bool keep = false) {
  return scalar(n, name, ProtobufValue::Int64, keep);
}
// The special messages become JSON scalars; present means set, so they are always kept.
ProtobufField Time(int n, std::string_view name) {
  return scalar(n, name, ProtobufValue::Time, kKeep);
}
ProtobufField MicroTime(int n, std::string_view name) {
  return scalar(n, name, ProtobufValue::MicroTime, kKeep);
}
ProtobufField Qty(int n, std::string_view name) {
  return scalar(n, name, ProtobufValue::Quantity, kKeep);
}
ProtobufField IntOrStr(int n, std::string_view name) {
  return scalar(n, name, ProtobufValue::IntOrString, kKeep);
}
ProtobufField Fields(int n, std::string_view name) {
  return scalar(n, name, ProtobufValue::FieldsV1, kKeep);
}
ProtobufField Msg(int n, std::string_view name, std::string message) {
  ProtobufField f = scalar(n, name, ProtobufValue::Message, kKeep);
  f.message = std::move(message);
  return f;
}
ProtobufField Inline(int n, std::string message) {
  ProtobufField f = Msg(n, "", std::move(message));
  f.inlined = true;
  return f;
}
ProtobufField repeated(ProtobufField f) {
  f.shape = ProtobufShape::Repeated;
  return f;
}
ProtobufField Msgs(int n, std::string_view name, std::string message) {
  return repeated(Msg(n, name, std::move(message)));
}
// A slice without omitempty.
ProtobufField NullWhenUnset(ProtobufField f) {
  f.nullWhenUnset = true;
  return f;
}
ProtobufField Strs(int n, std::string_view name) { return repeated(Str(n, name)); }
ProtobufField I32s(int n, std::string_view name) { return repeated(I32(n, name)); }
ProtobufField I64s(int n, std::string_view name) { return repeated(I64(n, name)); }
ProtobufField asMap(ProtobufField f) {
  f.shape = ProtobufShape::Map;
  f.keepZero = true;  // map values are never omitted
  return f;
}
ProtobufField StrMap(int n, std::string_view name) { return asMap(Str(n, name)); }
ProtobufField BytesMap(int n, std::string_view name) {
  return asMap(scalar(n, name, ProtobufValue::Bytes, kKeep));
}
ProtobufField QtyMap(int n, std::string_view name) { return asMap(Qty(n, name)); }
ProtobufField TimeMap(int n, std::string_view name) { return asMap(Time(n, name)); }

struct Table {
  std::map<std::string, ProtobufMessage, std::less<>> messages;
  std::map<std::pair<std::string, std::string>, std::string, std::less<>> kinds;

  void add(std::string_view package, std::string_view name, std::vector<ProtobufField> fields) {
    std::string full = qualified(package, name);
    messages[full] = ProtobufMessage{full, std::move(fields)};
  }
  void kind(std::string apiVersion, std::string kind, std::string_view package,
            std::string_view message) {
    kinds[{std::move(apiVersion), std::move(kind)}] = qualified(package, message);
  }

  Table() {
    addMeta();
    addCoreObjects();
    addPodSpec();
    addContainer();
    addVolumes();
    addScheduling();
    addWorkloads();
    addOthers();
    addReviews();
  }

  // k8s.io/api/authorization/v1 and authentication/v1: what `kubectl auth can-i`,
  // `kubectl auth whoami` and `kubectl create token` send.
  void addReviews() {
    const std::string meta = qualified(kMeta, "ObjectMeta");
    const std::string z(kAuthorization);
    add(kAuthorization, "ResourceAttributes",
        {Str(1, "namespace"), Str(2, "verb"), Str(3, "group"), Str(4, "version"),
         Str(5, "resource"), Str(6, "subresource"), Str(7, "name"),
         Msg(8, "fieldSelector", z + "FieldSelectorAttributes"),
         Msg(9, "labelSelector", z + "LabelSelectorAttributes")});
    add(kAuthorization, "FieldSelectorAttributes",
        {Str(1, "rawSelector"), Msgs(2, "requirements", z + "FieldSelectorRequirement")});
    add(kAuthorization, "FieldSelectorRequirement",
        {Str(1, "key", kKeep), Str(2, "operator", kKeep), Strs(3, "values")});
    add(kAuthorization, "LabelSelectorAttributes",
        {Str(1, "rawSelector"),
         Msgs(2, "requirements", qualified(kMeta, "LabelSelectorRequirement"))});
    add(kAuthorization, "NonResourceAttributes", {Str(1, "path"), Str(2, "verb")});
    add(kAuthorization, "SelfSubjectAccessReviewSpec",
        {Msg(1, "resourceAttributes", z + "ResourceAttributes"),
         Msg(2, "nonResourceAttributes", z + "NonResourceAttributes")});
    add(kAuthorization, "SubjectAccessReviewSpec",
        {Msg(1, "resourceAttributes", z + "ResourceAttributes"),
         Msg(2, "nonResourceAttributes", z + "NonResourceAttributes"), Str(3, "user"),
         Strs(4, "groups"), Str(6, "uid")});
    // The statuses are what the server fills in; clients send them empty.
    add(kAuthorization, "SubjectAccessReviewStatus",
        {Bool(1, "allowed", kKeep), Bool(4, "denied"), Str(2, "reason"),
         Str(3, "evaluationError")});
    add(kAuthorization, "SelfSubjectAccessReview",
        {Msg(1, "metadata", meta), Msg(2, "spec", z + "SelfSubjectAccessReviewSpec"),
         Msg(3, "status", z + "SubjectAccessReviewStatus")});
    add(kAuthorization, "SubjectAccessReview",
        {Msg(1, "metadata", meta), Msg(2, "spec", z + "SubjectAccessReviewSpec"),
         Msg(3, "status", z + "SubjectAccessReviewStatus")});
    add(kAuthorization, "LocalSubjectAccessReview",
        {Msg(1, "metadata", meta), Msg(2, "spec", z + "SubjectAccessReviewSpec"),
         Msg(3, "status", z + "SubjectAccessReviewStatus")});
    add(kAuthorization, "SelfSubjectRulesReviewSpec", {Str(1, "namespace")});
    add(kAuthorization, "ResourceRule",
        {NullWhenUnset(Strs(1, "verbs")), Strs(2, "apiGroups"), Strs(3, "resources"),
         Strs(4, "resourceNames")});
    add(kAuthorization, "NonResourceRule",
        {NullWhenUnset(Strs(1, "verbs")), Strs(2, "nonResourceURLs")});
    add(kAuthorization, "SubjectRulesReviewStatus",
        {NullWhenUnset(Msgs(1, "resourceRules", z + "ResourceRule")),
         NullWhenUnset(Msgs(2, "nonResourceRules", z + "NonResourceRule")),
         Bool(3, "incomplete", kKeep), Str(4, "evaluationError")});
    add(kAuthorization, "SelfSubjectRulesReview",
        {Msg(1, "metadata", meta), Msg(2, "spec", z + "SelfSubjectRulesReviewSpec"),
         Msg(3, "status", z + "SubjectRulesReviewStatus")});

    const std::string n(kAuthentication);
    add(kAuthentication, "UserInfo", {Str(1, "username"), Str(2, "uid"), Strs(3, "groups")});
    add(kAuthentication, "SelfSubjectReviewStatus", {Msg(1, "userInfo", n + "UserInfo")});
    add(kAuthentication, "SelfSubjectReview",
        {Msg(1, "metadata", meta), Msg(2, "status", n + "SelfSubjectReviewStatus")});
    add(kAuthentication, "TokenRequestStatus",
        {Str(1, "token", kKeep), Time(2, "expirationTimestamp")});
    add(kAuthentication, "TokenReviewStatus",
        {Bool(1, "authenticated"), Msg(2, "user", n + "UserInfo"), Strs(4, "audiences"),
         Str(3, "error")});
    add(kAuthentication, "BoundObjectReference",
        {Str(1, "kind"), Str(2, "apiVersion"), Str(3, "name"), Str(4, "uid")});
    add(kAuthentication, "TokenRequestSpec",
        {NullWhenUnset(Strs(1, "audiences")), I64(4, "expirationSeconds", kKeep),
         Msg(3, "boundObjectRef", n + "BoundObjectReference")});
    add(kAuthentication, "TokenRequest",
        {Msg(1, "metadata", meta), Msg(2, "spec", n + "TokenRequestSpec"),
         Msg(3, "status", n + "TokenRequestStatus")});
    add(kAuthentication, "TokenReviewSpec", {Str(1, "token"), Strs(2, "audiences")});
    add(kAuthentication, "TokenReview",
        {Msg(1, "metadata", meta), Msg(2, "spec", n + "TokenReviewSpec"),
         Msg(3, "status", n + "TokenReviewStatus")});

    for (const char* k : {"SelfSubjectAccessReview", "SubjectAccessReview",
                          "LocalSubjectAccessReview", "SelfSubjectRulesReview"}) {
      kind("authorization.k8s.io/v1", k, kAuthorization, k);
    }
    for (const char* k : {"SelfSubjectReview", "TokenRequest", "TokenReview"}) {
      kind("authentication.k8s.io/v1", k, kAuthentication, k);
    }
  }

  // k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto
  void addMeta() {
    const std::string m(kMeta);
    add(kMeta, "ObjectMeta",
        {Str(1, "name"), Str(2, "generateName"), Str(3, "namespace"), Str(4, "selfLink"),
         Str(5, "uid"), Str(6, "resourceVersion"), I64(7, "generation"),
         Time(8, "creationTimestamp"), Time(9, "deletionTimestamp"),
         I64(10, "deletionGracePeriodSeconds", kKeep), StrMap(11, "labels"),
         StrMap(12, "annotations"), Msgs(13, "ownerReferences", m + "OwnerReference"),
         Strs(14, "finalizers"), Msgs(17, "managedFields", m + "ManagedFieldsEntry")});
    add(kMeta, "OwnerReference",
        {Str(5, "apiVersion", kKeep), Str(1, "kind", kKeep), Str(3, "name", kKeep),
         Str(4, "uid", kKeep), Bool(6, "controller", kKeep), Bool(7, "blockOwnerDeletion", kKeep)});
    add(kMeta, "ManagedFieldsEntry",
        {Str(1, "manager"), Str(2, "operation"), Str(3, "apiVersion"), Time(4, "time"),
         Str(6, "fieldsType"), Fields(7, "fieldsV1"), Str(8, "subresource")});
    add(kMeta, "LabelSelector",
        {StrMap(1, "matchLabels"), Msgs(2, "matchExpressions", m + "LabelSelectorRequirement")});
    add(kMeta, "LabelSelectorRequirement",
        {Str(1, "key", kKeep), Str(2, "operator", kKeep), Strs(3, "values")});
    add(kMeta, "Condition",
        {Str(1, "type", kKeep), Str(2, "status", kKeep), I64(3, "observedGeneration"),
         Time(4, "lastTransitionTime"), Str(5, "reason", kKeep), Str(6, "message", kKeep)});
    add(kMeta, "DeleteOptions",
        {I64(1, "gracePeriodSeconds", kKeep), Msg(2, "preconditions", m + "Preconditions"),
         Bool(3, "orphanDependents", kKeep), Str(4, "propagationPolicy", kKeep), Strs(5, "dryRun"),
         Bool(6, "ignoreStoreReadErrorWithClusterBreakingPotential", kKeep)});
    add(kMeta, "Preconditions", {Str(1, "uid", kKeep), Str(2, "resourceVersion", kKeep)});
  }

  // k8s.io/api/core/v1: the objects kubectl creates and what they hold, besides pods.
  void addCoreObjects() {
    const std::string c(kCore);
    const std::string meta = qualified(kMeta, "ObjectMeta");
    add(kCore, "ConfigMap",
        {Msg(1, "metadata", meta), Bool(4, "immutable", kKeep), StrMap(2, "data"),
         BytesMap(3, "binaryData")});
    add(kCore, "Secret",
        {Msg(1, "metadata", meta), Bool(5, "immutable", kKeep), BytesMap(2, "data"),
         StrMap(4, "stringData"), Str(3, "type")});
    add(kCore, "Namespace",
        {Msg(1, "metadata", meta), Msg(2, "spec", c + "NamespaceSpec"),
         Msg(3, "status", c + "NamespaceStatus")});
    add(kCore, "NamespaceSpec", {Strs(1, "finalizers")});
    add(kCore, "NamespaceStatus",
        {Str(1, "phase"), Msgs(2, "conditions", c + "NamespaceCondition")});
    add(kCore, "NamespaceCondition",
        {Str(1, "type", kKeep), Str(2, "status", kKeep), Time(4, "lastTransitionTime"),
         Str(5, "reason"), Str(6, "message")});
    add(kCore, "ServiceAccount",
        {Msg(1, "metadata", meta), Msgs(2, "secrets", c + "ObjectReference"),
         Msgs(3, "imagePullSecrets", c + "LocalObjectReference"),
         Bool(4, "automountServiceAccountToken", kKeep)});
    add(kCore, "ObjectReference",
        {Str(1, "kind"), Str(2, "namespace"), Str(3, "name"), Str(4, "uid"), Str(5, "apiVersion"),
         Str(6, "resourceVersion"), Str(7, "fieldPath")});
    add(kCore, "LocalObjectReference", {Str(1, "name")});
    add(kCore, "TypedLocalObjectReference",
        {Str(1, "apiGroup", kKeep), Str(2, "kind", kKeep), Str(3, "name", kKeep)});

    add(kCore, "Service",
        {Msg(1, "metadata", meta), Msg(2, "spec", c + "ServiceSpec"),
         Msg(3, "status", c + "ServiceStatus")});
    add(kCore, "ServiceSpec",
        {Msgs(1, "ports", c + "ServicePort"),
         StrMap(2, "selector"),
         Str(3, "clusterIP"),
         Strs(18, "clusterIPs"),
         Str(4, "type"),
         Strs(5, "externalIPs"),
         Str(7, "sessionAffinity"),
         Str(8, "loadBalancerIP"),
         Strs(9, "loadBalancerSourceRanges"),
         Str(10, "externalName"),
         Str(11, "externalTrafficPolicy"),
         I32(12, "healthCheckNodePort"),
         Bool(13, "publishNotReadyAddresses"),
         Msg(14, "sessionAffinityConfig", c + "SessionAffinityConfig"),
         Strs(19, "ipFamilies"),
         Str(17, "ipFamilyPolicy", kKeep),
         Bool(20, "allocateLoadBalancerNodePorts", kKeep),
         Str(21, "loadBalancerClass", kKeep),
         Str(22, "internalTrafficPolicy", kKeep),
         Str(23, "trafficDistribution", kKeep)});
    add(kCore, "SessionAffinityConfig", {Msg(1, "clientIP", c + "ClientIPConfig")});
    add(kCore, "ClientIPConfig", {I32(1, "timeoutSeconds", kKeep)});
    add(kCore, "ServicePort",
        {Str(1, "name"), Str(2, "protocol"), Str(6, "appProtocol", kKeep), I32(3, "port", kKeep),
         IntOrStr(4, "targetPort"), I32(5, "nodePort")});
    add(kCore, "ServiceStatus",
        {Msg(1, "loadBalancer", c + "LoadBalancerStatus"),
         Msgs(2, "conditions", qualified(kMeta, "Condition"))});
    add(kCore, "LoadBalancerStatus", {Msgs(1, "ingress", c + "LoadBalancerIngress")});
    add(kCore, "LoadBalancerIngress",
        {Str(1, "ip"), Str(2, "hostname"), Str(3, "ipMode", kKeep),
         Msgs(4, "ports", c + "PortStatus")});
    add(kCore, "PortStatus",
        {I32(1, "port", kKeep), Str(2, "protocol", kKeep), Str(3, "error", kKeep)});

    add(kCore, "ResourceQuota",
        {Msg(1, "metadata", meta), Msg(2, "spec", c + "ResourceQuotaSpec"),
         Msg(3, "status", c + "ResourceQuotaStatus")});
    add(kCore, "ResourceQuotaSpec",
        {QtyMap(1, "hard"), Strs(2, "scopes"), Msg(3, "scopeSelector", c + "ScopeSelector")});
    add(kCore, "ScopeSelector",
        {Msgs(1, "matchExpressions", c + "ScopedResourceSelectorRequirement")});
    add(kCore, "ScopedResourceSelectorRequirement",
        {Str(1, "scopeName", kKeep), Str(2, "operator", kKeep), Strs(3, "values")});
    add(kCore, "ResourceQuotaStatus", {QtyMap(1, "hard"), QtyMap(2, "used")});

    add(kCore, "Event",
        {Msg(1, "metadata", meta), Msg(2, "involvedObject", c + "ObjectReference"),
         Str(3, "reason"), Str(4, "message"), Msg(5, "source", c + "EventSource"),
         Time(6, "firstTimestamp"), Time(7, "lastTimestamp"), I32(8, "count"), Str(9, "type"),
         MicroTime(10, "eventTime"), Msg(11, "series", c + "EventSeries"), Str(12, "action"),
         Msg(13, "related", c + "ObjectReference"), Str(14, "reportingComponent", kKeep),
         Str(15, "reportingInstance", kKeep)});
    add(kCore, "EventSource", {Str(1, "component"), Str(2, "host")});
    add(kCore, "EventSeries", {I32(1, "count"), MicroTime(2, "lastObservedTime")});
  }

  // Pod, PodTemplateSpec, PodSpec and PodStatus (container statuses are not listed).
  void addPodSpec() {
    const std::string c(kCore);
    const std::string meta = qualified(kMeta, "ObjectMeta");
    add(kCore, "Pod",
        {Msg(1, "metadata", meta), Msg(2, "spec", c + "PodSpec"),
         Msg(3, "status", c + "PodStatus")});
    add(kCore, "PodTemplateSpec", {Msg(1, "metadata", meta), Msg(2, "spec", c + "PodSpec")});
    // ephemeralContainers (34) are added through their own subresource, not in a create body.
    add(kCore, "PodSpec",
        {Msgs(1, "volumes", c + "Volume"),
         Msgs(20, "initContainers", c + "Container"),
         NullWhenUnset(Msgs(2, "containers", c + "Container")),
         Str(3, "restartPolicy"),
         I64(4, "terminationGracePeriodSeconds", kKeep),
         I64(5, "activeDeadlineSeconds", kKeep),
         Str(6, "dnsPolicy"),
         StrMap(7, "nodeSelector"),
         Str(8, "serviceAccountName"),
         Str(9, "serviceAccount"),
         Bool(21, "automountServiceAccountToken", kKeep),
         Str(10, "nodeName"),
         Bool(11, "hostNetwork"),
         Bool(12, "hostPID"),
         Bool(13, "hostIPC"),
         Bool(27, "shareProcessNamespace", kKeep),
         Msg(14, "securityContext", c + "PodSecurityContext"),
         Msgs(15, "imagePullSecrets", c + "LocalObjectReference"),
         Str(16, "hostname"),
         Str(17, "subdomain"),
         Msg(18, "affinity", c + "Affinity"),
         Str(19, "schedulerName"),
         Msgs(22, "tolerations", c + "Toleration"),
         Msgs(23, "hostAliases", c + "HostAlias"),
         Str(24, "priorityClassName"),
         I32(25, "priority", kKeep),
         Msg(26, "dnsConfig", c + "PodDNSConfig"),
         Msgs(28, "readinessGates", c + "PodReadinessGate"),
         Str(29, "runtimeClassName", kKeep),
         Bool(30, "enableServiceLinks", kKeep),
         Str(31, "preemptionPolicy", kKeep),
         QtyMap(32, "overhead"),
         Msgs(33, "topologySpreadConstraints", c + "TopologySpreadConstraint"),
         Bool(35, "setHostnameAsFQDN", kKeep),
         Msg(36, "os", c + "PodOS"),
         Bool(37, "hostUsers", kKeep),
         Msgs(38, "schedulingGates", c + "PodSchedulingGate"),
         Msgs(39, "resourceClaims", c + "PodResourceClaim"),
         Msg(40, "resources", c + "ResourceRequirements")});
    add(kCore, "PodSecurityContext",
        {Msg(1, "seLinuxOptions", c + "SELinuxOptions"),
         Msg(8, "windowsOptions", c + "WindowsSecurityContextOptions"), I64(2, "runAsUser", kKeep),
         I64(6, "runAsGroup", kKeep), Bool(3, "runAsNonRoot", kKeep), I64s(4, "supplementalGroups"),
         Str(12, "supplementalGroupsPolicy", kKeep), I64(5, "fsGroup", kKeep),
         Msgs(7, "sysctls", c + "Sysctl"), Str(9, "fsGroupChangePolicy", kKeep),
         Msg(10, "seccompProfile", c + "SeccompProfile"),
         Msg(11, "appArmorProfile", c + "AppArmorProfile"), Str(13, "seLinuxChangePolicy", kKeep)});
    add(kCore, "Sysctl", {Str(1, "name", kKeep), Str(2, "value", kKeep)});
    add(kCore, "Toleration",
        {Str(1, "key"), Str(2, "operator"), Str(3, "value"), Str(4, "effect"),
         I64(5, "tolerationSeconds", kKeep)});
    add(kCore, "HostAlias", {Str(1, "ip", kKeep), Strs(2, "hostnames")});
    add(kCore, "PodDNSConfig",
        {Strs(1, "nameservers"), Strs(2, "searches"),
         Msgs(3, "options", c + "PodDNSConfigOption")});
    add(kCore, "PodDNSConfigOption", {Str(1, "name"), Str(2, "value", kKeep)});
    add(kCore, "PodReadinessGate", {Str(1, "conditionType", kKeep)});
    add(kCore, "TopologySpreadConstraint",
        {I32(1, "maxSkew", kKeep), Str(2, "topologyKey", kKeep), Str(3, "whenUnsatisfiable", kKeep),
         Msg(4, "labelSelector", qualified(kMeta, "LabelSelector")), I32(5, "minDomains", kKeep),
         Str(6, "nodeAffinityPolicy", kKeep), Str(7, "nodeTaintsPolicy", kKeep),
         Strs(8, "matchLabelKeys")});
    add(kCore, "PodOS", {Str(1, "name", kKeep)});
    add(kCore, "PodSchedulingGate", {Str(1, "name", kKeep)});
    add(kCore, "PodResourceClaim",
        {Str(1, "name", kKeep), Str(3, "resourceClaimName", kKeep),
         Str(4, "resourceClaimTemplateName", kKeep)});
    // containerStatuses (8), initContainerStatuses (10), ephemeralContainerStatuses (13) and
    // resourceClaimStatuses (15) are the kubelet's, not a client's.
    add(kCore, "PodStatus",
        {Str(1, "phase"), Msgs(2, "conditions", c + "PodCondition"), Str(3, "message"),
         Str(4, "reason"), Str(11, "nominatedNodeName"), Str(5, "hostIP"),
         Msgs(16, "hostIPs", c + "HostIP"), Str(6, "podIP"), Msgs(12, "podIPs", c + "PodIP"),
         Time(7, "startTime"), Str(9, "qosClass"), Str(14, "resize")});
    add(kCore, "PodCondition",
        {Str(1, "type", kKeep), Str(2, "status", kKeep), Time(3, "lastProbeTime"),
         Time(4, "lastTransitionTime"), Str(5, "reason"), Str(6, "message")});
    add(kCore, "HostIP", {Str(1, "ip", kKeep)});
    add(kCore, "PodIP", {Str(1, "ip", kKeep)});
  }

  void addContainer() {
    const std::string c(kCore);
    add(kCore, "Container",
        {Str(1, "name", kKeep),
         Str(2, "image"),
         Strs(3, "command"),
         Strs(4, "args"),
         Str(5, "workingDir"),
         Msgs(6, "ports", c + "ContainerPort"),
         Msgs(19, "envFrom", c + "EnvFromSource"),
         Msgs(7, "env", c + "EnvVar"),
         Msg(8, "resources", c + "ResourceRequirements"),
         Msgs(23, "resizePolicy", c + "ContainerResizePolicy"),
         Str(24, "restartPolicy", kKeep),
         Msgs(9, "volumeMounts", c + "VolumeMount"),
         Msgs(21, "volumeDevices", c + "VolumeDevice"),
         Msg(10, "livenessProbe", c + "Probe"),
         Msg(11, "readinessProbe", c + "Probe"),
         Msg(22, "startupProbe", c + "Probe"),
         Msg(12, "lifecycle", c + "Lifecycle"),
         Str(13, "terminationMessagePath"),
         Str(20, "terminationMessagePolicy"),
         Str(14, "imagePullPolicy"),
         Msg(15, "securityContext", c + "SecurityContext"),
         Bool(16, "stdin"),
         Bool(17, "stdinOnce"),
         Bool(18, "tty")});
    add(kCore, "ContainerPort",
        {Str(1, "name"), I32(2, "hostPort"), I32(3, "containerPort", kKeep), Str(4, "protocol"),
         Str(5, "hostIP")});
    add(kCore, "ContainerResizePolicy",
        {Str(1, "resourceName", kKeep), Str(2, "restartPolicy", kKeep)});
    add(kCore, "EnvVar",
        {Str(1, "name", kKeep), Str(2, "value"), Msg(3, "valueFrom", c + "EnvVarSource")});
    add(kCore, "EnvVarSource",
        {Msg(1, "fieldRef", c + "ObjectFieldSelector"),
         Msg(2, "resourceFieldRef", c + "ResourceFieldSelector"),
         Msg(3, "configMapKeyRef", c + "ConfigMapKeySelector"),
         Msg(4, "secretKeyRef", c + "SecretKeySelector")});
    add(kCore, "ObjectFieldSelector", {Str(1, "apiVersion"), Str(2, "fieldPath", kKeep)});
    add(kCore, "ResourceFieldSelector",
        {Str(1, "containerName"), Str(2, "resource", kKeep), Qty(3, "divisor")});
    for (const char* selector : {"ConfigMapKeySelector", "SecretKeySelector"}) {
      add(kCore, selector,
          {Inline(1, c + "LocalObjectReference"), Str(2, "key", kKeep),
           Bool(3, "optional", kKeep)});
    }
    add(kCore, "EnvFromSource",
        {Str(1, "prefix"), Msg(2, "configMapRef", c + "ConfigMapEnvSource"),
         Msg(3, "secretRef", c + "SecretEnvSource")});
    for (const char* source : {"ConfigMapEnvSource", "SecretEnvSource"}) {
      add(kCore, source, {Inline(1, c + "LocalObjectReference"), Bool(2, "optional", kKeep)});
    }
    add(kCore, "ResourceRequirements",
        {QtyMap(1, "limits"), QtyMap(2, "requests"), Msgs(3, "claims", c + "ResourceClaim")});
    add(kCore, "ResourceClaim", {Str(1, "name", kKeep), Str(2, "request")});
    add(kCore, "VolumeMount",
        {Str(1, "name", kKeep), Bool(2, "readOnly"), Str(7, "recursiveReadOnly", kKeep),
         Str(3, "mountPath", kKeep), Str(4, "subPath"), Str(5, "mountPropagation", kKeep),
         Str(6, "subPathExpr")});
    add(kCore, "VolumeDevice", {Str(1, "name", kKeep), Str(2, "devicePath", kKeep)});
    add(kCore, "Probe",
        {Inline(1, c + "ProbeHandler"), I32(2, "initialDelaySeconds"), I32(3, "timeoutSeconds"),
         I32(4, "periodSeconds"), I32(5, "successThreshold"), I32(6, "failureThreshold"),
         I64(7, "terminationGracePeriodSeconds", kKeep)});
    add(kCore, "ProbeHandler",
        {Msg(1, "exec", c + "ExecAction"), Msg(2, "httpGet", c + "HTTPGetAction"),
         Msg(3, "tcpSocket", c + "TCPSocketAction"), Msg(4, "grpc", c + "GRPCAction")});
    add(kCore, "ExecAction", {Strs(1, "command")});
    add(kCore, "HTTPGetAction",
        {Str(1, "path"), IntOrStr(2, "port"), Str(3, "host"), Str(4, "scheme"),
         Msgs(5, "httpHeaders", c + "HTTPHeader")});
    add(kCore, "HTTPHeader", {Str(1, "name", kKeep), Str(2, "value", kKeep)});
    add(kCore, "TCPSocketAction", {IntOrStr(1, "port"), Str(2, "host")});
    add(kCore, "GRPCAction", {I32(1, "port", kKeep), Str(2, "service", kKeep)});
    add(kCore, "Lifecycle",
        {Msg(1, "postStart", c + "LifecycleHandler"), Msg(2, "preStop", c + "LifecycleHandler")});
    add(kCore, "LifecycleHandler",
        {Msg(1, "exec", c + "ExecAction"), Msg(2, "httpGet", c + "HTTPGetAction"),
         Msg(3, "tcpSocket", c + "TCPSocketAction"), Msg(4, "sleep", c + "SleepAction")});
    add(kCore, "SleepAction", {I64(1, "seconds", kKeep)});
    add(kCore, "SecurityContext",
        {Msg(1, "capabilities", c + "Capabilities"), Bool(2, "privileged", kKeep),
         Msg(3, "seLinuxOptions", c + "SELinuxOptions"),
         Msg(10, "windowsOptions", c + "WindowsSecurityContextOptions"), I64(4, "runAsUser", kKeep),
         I64(8, "runAsGroup", kKeep), Bool(5, "runAsNonRoot", kKeep),
         Bool(6, "readOnlyRootFilesystem", kKeep), Bool(7, "allowPrivilegeEscalation", kKeep),
         Str(9, "procMount", kKeep), Msg(11, "seccompProfile", c + "SeccompProfile"),
         Msg(12, "appArmorProfile", c + "AppArmorProfile")});
    add(kCore, "Capabilities", {Strs(1, "add"), Strs(2, "drop")});
    add(kCore, "SELinuxOptions", {Str(1, "user"), Str(2, "role"), Str(3, "type"), Str(4, "level")});
    add(kCore, "WindowsSecurityContextOptions",
        {Str(1, "gmsaCredentialSpecName", kKeep), Str(2, "gmsaCredentialSpec", kKeep),
         Str(3, "runAsUserName", kKeep), Bool(4, "hostProcess", kKeep)});
    for (const char* profile : {"SeccompProfile", "AppArmorProfile"}) {
      add(kCore, profile, {Str(1, "type", kKeep), Str(2, "localhostProfile", kKeep)});
    }
  }

  // The volume sources pods commonly use; the cloud and legacy ones are not listed.
  void addVolumes() {
    const std::string c(kCore);
    add(kCore, "Volume", {Str(1, "name", kKeep), Inline(2, c + "VolumeSource")});
    add(kCore, "VolumeSource",
        {Msg(1, "hostPath", c + "HostPathVolumeSource"),
         Msg(2, "emptyDir", c + "EmptyDirVolumeSource"), Msg(6, "secret", c + "SecretVolumeSource"),
         Msg(7, "nfs", c + "NFSVolumeSource"),
         Msg(10, "persistentVolumeClaim", c + "PersistentVolumeClaimVolumeSource"),
         Msg(16, "downwardAPI", c + "DownwardAPIVolumeSource"),
         Msg(19, "configMap", c + "ConfigMapVolumeSource"),
         Msg(26, "projected", c + "ProjectedVolumeSource")});
    add(kCore, "HostPathVolumeSource", {Str(1, "path", kKeep), Str(2, "type", kKeep)});
    add(kCore, "EmptyDirVolumeSource", {Str(1, "medium"), Qty(2, "sizeLimit")});
    add(kCore, "SecretVolumeSource",
        {Str(1, "secretName"), Msgs(2, "items", c + "KeyToPath"), I32(3, "defaultMode", kKeep),
         Bool(4, "optional", kKeep)});
    add(kCore, "NFSVolumeSource",
        {Str(1, "server", kKeep), Str(2, "path", kKeep), Bool(3, "readOnly")});
    add(kCore, "PersistentVolumeClaimVolumeSource",
        {Str(1, "claimName", kKeep), Bool(2, "readOnly")});
    add(kCore, "DownwardAPIVolumeSource",
        {Msgs(1, "items", c + "DownwardAPIVolumeFile"), I32(2, "defaultMode", kKeep)});
    add(kCore, "DownwardAPIVolumeFile",
        {Str(1, "path", kKeep), Msg(2, "fieldRef", c + "ObjectFieldSelector"),
         Msg(3, "resourceFieldRef", c + "ResourceFieldSelector"), I32(4, "mode", kKeep)});
    add(kCore, "ConfigMapVolumeSource",
        {Inline(1, c + "LocalObjectReference"), Msgs(2, "items", c + "KeyToPath"),
         I32(3, "defaultMode", kKeep), Bool(4, "optional", kKeep)});
    add(kCore, "KeyToPath", {Str(1, "key", kKeep), Str(2, "path", kKeep), I32(3, "mode", kKeep)});
    add(kCore, "ProjectedVolumeSource",
        {Msgs(1, "sources", c + "VolumeProjection"), I32(2, "defaultMode", kKeep)});
    add(kCore, "VolumeProjection",
        {Msg(1, "secret", c + "SecretProjection"),
         Msg(2, "downwardAPI", c + "DownwardAPIProjection"),
         Msg(3, "configMap", c + "ConfigMapProjection"),
         Msg(4, "serviceAccountToken", c + "ServiceAccountTokenProjection")});
    for (const char* projection : {"SecretProjection", "ConfigMapProjection"}) {
      add(kCore, projection,
          {Inline(1, c + "LocalObjectReference"), Msgs(2, "items", c + "KeyToPath"),
           Bool(4, "optional", kKeep)});
    }
    add(kCore, "DownwardAPIProjection", {Msgs(1, "items", c + "DownwardAPIVolumeFile")});
    add(kCore, "ServiceAccountTokenProjection",
        {Str(1, "audience"), I64(2, "expirationSeconds", kKeep), Str(3, "path", kKeep)});
  }

  // Affinity (node, pod, pod anti-affinity).
  void addScheduling() {
    const std::string c(kCore);
    const std::string labelSelector = qualified(kMeta, "LabelSelector");
    add(kCore, "Affinity",
        {Msg(1, "nodeAffinity", c + "NodeAffinity"), Msg(2, "podAffinity", c + "PodAffinity"),
         Msg(3, "podAntiAffinity", c + "PodAntiAffinity")});
    add(kCore, "NodeAffinity",
        {Msg(1, "requiredDuringSchedulingIgnoredDuringExecution", c + "NodeSelector"),
         Msgs(2, "preferredDuringSchedulingIgnoredDuringExecution",
              c + "PreferredSchedulingTerm")});
    add(kCore, "NodeSelector",
        {NullWhenUnset(Msgs(1, "nodeSelectorTerms", c + "NodeSelectorTerm"))});
    add(kCore, "NodeSelectorTerm",
        {Msgs(1, "matchExpressions", c + "NodeSelectorRequirement"),
         Msgs(2, "matchFields", c + "NodeSelectorRequirement")});
    add(kCore, "NodeSelectorRequirement",
        {Str(1, "key", kKeep), Str(2, "operator", kKeep), Strs(3, "values")});
    add(kCore, "PreferredSchedulingTerm",
        {I32(1, "weight", kKeep), Msg(2, "preference", c + "NodeSelectorTerm")});
    for (const char* affinity : {"PodAffinity", "PodAntiAffinity"}) {
      add(kCore, affinity,
          {Msgs(1, "requiredDuringSchedulingIgnoredDuringExecution", c + "PodAffinityTerm"),
           Msgs(2, "preferredDuringSchedulingIgnoredDuringExecution",
                c + "WeightedPodAffinityTerm")});
    }
    add(kCore, "PodAffinityTerm",
        {Msg(1, "labelSelector", labelSelector), Strs(2, "namespaces"),
         Str(3, "topologyKey", kKeep), Msg(4, "namespaceSelector", labelSelector),
         Strs(5, "matchLabelKeys"), Strs(6, "mismatchLabelKeys")});
    add(kCore, "WeightedPodAffinityTerm",
        {I32(1, "weight", kKeep), Msg(2, "podAffinityTerm", c + "PodAffinityTerm")});
  }

  // apps/v1 Deployment and ReplicaSet; batch/v1 Job and CronJob.
  void addWorkloads() {
    const std::string a(kApps);
    const std::string b(kBatch);
    const std::string meta = qualified(kMeta, "ObjectMeta");
    const std::string labelSelector = qualified(kMeta, "LabelSelector");
    const std::string podTemplate = qualified(kCore, "PodTemplateSpec");
    add(kApps, "Deployment",
        {Msg(1, "metadata", meta), Msg(2, "spec", a + "DeploymentSpec"),
         Msg(3, "status", a + "DeploymentStatus")});
    add(kApps, "DeploymentSpec",
        {I32(1, "replicas", kKeep), Msg(2, "selector", labelSelector),
         Msg(3, "template", podTemplate), Msg(4, "strategy", a + "DeploymentStrategy"),
         I32(5, "minReadySeconds"), I32(6, "revisionHistoryLimit", kKeep), Bool(7, "paused"),
         I32(9, "progressDeadlineSeconds", kKeep)});
    add(kApps, "DeploymentStrategy",
        {Str(1, "type"), Msg(2, "rollingUpdate", a + "RollingUpdateDeployment")});
    add(kApps, "RollingUpdateDeployment", {IntOrStr(1, "maxUnavailable"), IntOrStr(2, "maxSurge")});
    add(kApps, "DeploymentStatus",
        {I64(1, "observedGeneration"), I32(2, "replicas"), I32(3, "updatedReplicas"),
         I32(7, "readyReplicas"), I32(4, "availableReplicas"), I32(5, "unavailableReplicas"),
         Msgs(6, "conditions", a + "DeploymentCondition"), I32(8, "collisionCount", kKeep)});
    add(kApps, "DeploymentCondition",
        {Str(1, "type", kKeep), Str(2, "status", kKeep), Time(6, "lastUpdateTime"),
         Time(7, "lastTransitionTime"), Str(4, "reason"), Str(5, "message")});
    add(kApps, "ReplicaSet",
        {Msg(1, "metadata", meta), Msg(2, "spec", a + "ReplicaSetSpec"),
         Msg(3, "status", a + "ReplicaSetStatus")});
    add(kApps, "ReplicaSetSpec",
        {I32(1, "replicas", kKeep), I32(4, "minReadySeconds"), Msg(2, "selector", labelSelector),
         Msg(3, "template", podTemplate)});
    add(kApps, "ReplicaSetStatus",
        {I32(1, "replicas", kKeep), I32(2, "fullyLabeledReplicas"), I32(4, "readyReplicas"),
         I32(5, "availableReplicas"), I64(3, "observedGeneration"),
         Msgs(6, "conditions", a + "ReplicaSetCondition")});
    add(kApps, "ReplicaSetCondition",
        {Str(1, "type", kKeep), Str(2, "status", kKeep), Time(3, "lastTransitionTime"),
         Str(4, "reason"), Str(5, "message")});

    add(kBatch, "Job",
        {Msg(1, "metadata", meta), Msg(2, "spec", b + "JobSpec"),
         Msg(3, "status", b + "JobStatus")});
    add(kBatch, "JobSpec",
        {I32(1, "parallelism", kKeep), I32(2, "completions", kKeep),
         I64(3, "activeDeadlineSeconds", kKeep),
         Msg(11, "podFailurePolicy", b + "PodFailurePolicy"),
         Msg(16, "successPolicy", b + "SuccessPolicy"), I32(7, "backoffLimit", kKeep),
         I32(12, "backoffLimitPerIndex", kKeep), I32(13, "maxFailedIndexes", kKeep),
         Msg(4, "selector", labelSelector), Bool(5, "manualSelector", kKeep),
         Msg(6, "template", podTemplate), I32(8, "ttlSecondsAfterFinished", kKeep),
         Str(9, "completionMode", kKeep), Bool(10, "suspend", kKeep),
         Str(14, "podReplacementPolicy", kKeep), Str(15, "managedBy", kKeep)});
    add(kBatch, "JobStatus",
        {Msgs(1, "conditions", b + "JobCondition"), Time(2, "startTime"), Time(3, "completionTime"),
         I32(4, "active"), I32(5, "succeeded"), I32(6, "failed"), I32(11, "terminating", kKeep),
         Str(7, "completedIndexes"), Str(10, "failedIndexes", kKeep),
         Msg(8, "uncountedTerminatedPods", b + "UncountedTerminatedPods"), I32(9, "ready", kKeep)});
    add(kBatch, "JobCondition",
        {Str(1, "type", kKeep), Str(2, "status", kKeep), Time(3, "lastProbeTime"),
         Time(4, "lastTransitionTime"), Str(5, "reason"), Str(6, "message")});
    add(kBatch, "UncountedTerminatedPods", {Strs(1, "succeeded"), Strs(2, "failed")});
    add(kBatch, "PodFailurePolicy", {NullWhenUnset(Msgs(1, "rules", b + "PodFailurePolicyRule"))});
    add(kBatch, "PodFailurePolicyRule",
        {Str(1, "action", kKeep),
         Msg(2, "onExitCodes", b + "PodFailurePolicyOnExitCodesRequirement"),
         Msgs(3, "onPodConditions", b + "PodFailurePolicyOnPodConditionsPattern")});
    add(kBatch, "PodFailurePolicyOnExitCodesRequirement",
        {Str(1, "containerName", kKeep), Str(2, "operator", kKeep),
         NullWhenUnset(I32s(3, "values"))});
    add(kBatch, "PodFailurePolicyOnPodConditionsPattern",
        {Str(1, "type", kKeep), Str(2, "status", kKeep)});
    add(kBatch, "SuccessPolicy", {NullWhenUnset(Msgs(1, "rules", b + "SuccessPolicyRule"))});
    add(kBatch, "SuccessPolicyRule",
        {Str(1, "succeededIndexes", kKeep), I32(2, "succeededCount", kKeep)});
    add(kBatch, "CronJob",
        {Msg(1, "metadata", meta), Msg(2, "spec", b + "CronJobSpec"),
         Msg(3, "status", b + "CronJobStatus")});
    add(kBatch, "CronJobSpec",
        {Str(1, "schedule", kKeep), Str(8, "timeZone", kKeep),
         I64(2, "startingDeadlineSeconds", kKeep), Str(3, "concurrencyPolicy"),
         Bool(4, "suspend", kKeep), Msg(5, "jobTemplate", b + "JobTemplateSpec"),
         I32(6, "successfulJobsHistoryLimit", kKeep), I32(7, "failedJobsHistoryLimit", kKeep)});
    add(kBatch, "CronJobStatus",
        {Msgs(1, "active", qualified(kCore, "ObjectReference")), Time(4, "lastScheduleTime"),
         Time(5, "lastSuccessfulTime")});
    add(kBatch, "JobTemplateSpec", {Msg(1, "metadata", meta), Msg(2, "spec", b + "JobSpec")});
  }

  // policy, rbac, scheduling, networking, autoscaling and coordination kinds.
  void addOthers() {
    const std::string meta = qualified(kMeta, "ObjectMeta");
    const std::string labelSelector = qualified(kMeta, "LabelSelector");
    const std::string p(kPolicy);
    add(kPolicy, "PodDisruptionBudget",
        {Msg(1, "metadata", meta), Msg(2, "spec", p + "PodDisruptionBudgetSpec"),
         Msg(3, "status", p + "PodDisruptionBudgetStatus")});
    add(kPolicy, "PodDisruptionBudgetSpec",
        {IntOrStr(1, "minAvailable"), Msg(2, "selector", labelSelector),
         IntOrStr(3, "maxUnavailable"), Str(4, "unhealthyPodEvictionPolicy", kKeep)});
    add(kPolicy, "PodDisruptionBudgetStatus",
        {I64(1, "observedGeneration"), TimeMap(2, "disruptedPods"),
         I32(3, "disruptionsAllowed", kKeep), I32(4, "currentHealthy", kKeep),
         I32(5, "desiredHealthy", kKeep), I32(6, "expectedPods", kKeep),
         Msgs(7, "conditions", qualified(kMeta, "Condition"))});
    add(kPolicy, "Eviction",
        {Msg(1, "metadata", meta), Msg(2, "deleteOptions", qualified(kMeta, "DeleteOptions"))});

    const std::string r(kRbac);
    add(kRbac, "PolicyRule",
        {NullWhenUnset(Strs(1, "verbs")), Strs(2, "apiGroups"), Strs(3, "resources"),
         Strs(4, "resourceNames"), Strs(5, "nonResourceURLs")});
    add(kRbac, "Role",
        {Msg(1, "metadata", meta), NullWhenUnset(Msgs(2, "rules", r + "PolicyRule"))});
    add(kRbac, "ClusterRole",
        {Msg(1, "metadata", meta), NullWhenUnset(Msgs(2, "rules", r + "PolicyRule")),
         Msg(3, "aggregationRule", r + "AggregationRule")});
    add(kRbac, "AggregationRule", {Msgs(1, "clusterRoleSelectors", labelSelector)});
    for (const char* binding : {"RoleBinding", "ClusterRoleBinding"}) {
      add(kRbac, binding,
          {Msg(1, "metadata", meta), Msgs(2, "subjects", r + "Subject"),
           Msg(3, "roleRef", r + "RoleRef")});
    }
    add(kRbac, "Subject",
        {Str(1, "kind", kKeep), Str(2, "apiGroup"), Str(3, "name", kKeep), Str(4, "namespace")});
    add(kRbac, "RoleRef",
        {Str(1, "apiGroup", kKeep), Str(2, "kind", kKeep), Str(3, "name", kKeep)});

    add(kScheduling, "PriorityClass",
        {Msg(1, "metadata", meta), I32(2, "value", kKeep), Bool(3, "globalDefault"),
         Str(4, "description"), Str(5, "preemptionPolicy", kKeep)});

    const std::string n(kNetworking);
    add(kNetworking, "Ingress",
        {Msg(1, "metadata", meta), Msg(2, "spec", n + "IngressSpec"),
         Msg(3, "status", n + "IngressStatus")});
    add(kNetworking, "IngressSpec",
        {Str(4, "ingressClassName", kKeep), Msg(1, "defaultBackend", n + "IngressBackend"),
         Msgs(2, "tls", n + "IngressTLS"), Msgs(3, "rules", n + "IngressRule")});
    add(kNetworking, "IngressBackend",
        {Msg(4, "service", n + "IngressServiceBackend"),
         Msg(3, "resource", qualified(kCore, "TypedLocalObjectReference"))});
    add(kNetworking, "IngressServiceBackend",
        {Str(1, "name", kKeep), Msg(2, "port", n + "ServiceBackendPort")});
    add(kNetworking, "ServiceBackendPort", {Str(1, "name"), I32(2, "number")});
    add(kNetworking, "IngressTLS", {Strs(1, "hosts"), Str(2, "secretName")});
    add(kNetworking, "IngressRule", {Str(1, "host"), Inline(2, n + "IngressRuleValue")});
    add(kNetworking, "IngressRuleValue", {Msg(1, "http", n + "HTTPIngressRuleValue")});
    add(kNetworking, "HTTPIngressRuleValue",
        {NullWhenUnset(Msgs(1, "paths", n + "HTTPIngressPath"))});
    add(kNetworking, "HTTPIngressPath",
        {Str(1, "path"), Str(3, "pathType", kKeep), Msg(2, "backend", n + "IngressBackend")});
    add(kNetworking, "IngressStatus", {Msg(1, "loadBalancer", n + "IngressLoadBalancerStatus")});
    add(kNetworking, "IngressLoadBalancerStatus",
        {Msgs(1, "ingress", n + "IngressLoadBalancerIngress")});
    add(kNetworking, "IngressLoadBalancerIngress",
        {Str(1, "ip"), Str(2, "hostname"), Msgs(4, "ports", n + "IngressPortStatus")});
    add(kNetworking, "IngressPortStatus",
        {I32(1, "port", kKeep), Str(2, "protocol", kKeep), Str(3, "error", kKeep)});

    // ScaleSpec.replicas is `int32 json:"replicas,omitempty"`; it is kept at zero all the same,
    // because a scale to zero must reach the server as one.
    const std::string s(kAutoscaling);
    add(kAutoscaling, "Scale",
        {Msg(1, "metadata", meta), Msg(2, "spec", s + "ScaleSpec"),
         Msg(3, "status", s + "ScaleStatus")});
    add(kAutoscaling, "ScaleSpec", {I32(1, "replicas", kKeep)});
    add(kAutoscaling, "ScaleStatus", {I32(1, "replicas", kKeep), Str(2, "selector")});

    const std::string co(kCoordination);
    add(kCoordination, "Lease", {Msg(1, "metadata", meta), Msg(2, "spec", co + "LeaseSpec")});
    add(kCoordination, "LeaseSpec",
        {Str(1, "holderIdentity", kKeep), I32(2, "leaseDurationSeconds", kKeep),
         MicroTime(3, "acquireTime"), MicroTime(4, "renewTime"), I32(5, "leaseTransitions", kKeep),
         Str(6, "strategy", kKeep), Str(7, "preferredHolder", kKeep)});

    for (const char* k : {"ConfigMap", "Secret", "Namespace", "ServiceAccount", "Service", "Pod",
                          "ResourceQuota", "Event"}) {
      kind("v1", k, kCore, k);
    }
    kind("apps/v1", "Deployment", kApps, "Deployment");
    kind("apps/v1", "ReplicaSet", kApps, "ReplicaSet");
    kind("batch/v1", "Job", kBatch, "Job");
    kind("batch/v1", "CronJob", kBatch, "CronJob");
    kind("policy/v1", "PodDisruptionBudget", kPolicy, "PodDisruptionBudget");
    kind("policy/v1", "Eviction", kPolicy, "Eviction");
    for (const char* k : {"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"}) {
      kind("rbac.authorization.k8s.io/v1", k, kRbac, k);
    }
    kind("scheduling.k8s.io/v1", "PriorityClass", kScheduling, "PriorityClass");
    kind("networking.k8s.io/v1", "Ingress", kNetworking, "Ingress");
    kind("autoscaling/v1", "Scale", kAutoscaling, "Scale");
    kind("coordination.k8s.io/v1", "Lease", kCoordination, "Lease");
    kind("v1", "DeleteOptions", kMeta, "DeleteOptions");
  }
};

const Table& table() {
  static const Table instance;
  return instance;
}

}  // namespace

const ProtobufMessage* protobufMessageForKind(std::string_view apiVersion, std::string_view kind) {
  const Table& t = table();
  if (kind == "DeleteOptions") apiVersion = "v1";
  auto it = t.kinds.find(std::pair<std::string, std::string>(apiVersion, kind));
  if (it == t.kinds.end()) return nullptr;
  return protobufMessageNamed(it->second);
}

const ProtobufMessage* protobufMessageNamed(std::string_view name) {
  const Table& t = table();
  auto it = t.messages.find(name);
  return it == t.messages.end() ? nullptr : &it->second;
}

std::vector<const ProtobufMessage*> allProtobufMessages() {
  std::vector<const ProtobufMessage*> out;
  for (const auto& [name, message] : table().messages) out.push_back(&message);
  return out;
}

std::vector<std::pair<std::string, std::string>> protobufKinds() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, message] : table().kinds) out.push_back(key);
  return out;
}

}  // namespace fakekube
