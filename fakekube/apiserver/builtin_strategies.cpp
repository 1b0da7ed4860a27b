#include "fakekube/apiserver/internal/builtin_strategies.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/apiserver/internal/field_rules.h"

namespace fakekube::strategy {

namespace {

void setDefault(Json& object, const char* key, Json value) {
  if (!object.is_object()) return;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) object[key] = std::move(value);
}

bool present(const Json& j) {
  if (j.is_null()) return false;
  if (j.is_string()) return !j.get_ref<const std::string&>().empty();
  if (j.is_array() || j.is_object()) return !j.empty();
  return true;
}

std::string quoted(const Json& j) { return goQuote(stringValue(j)); }

bool oneOf(const Json& j, std::initializer_list<const char*> values) {
  if (!j.is_string()) return false;
  for (const char* v : values) {
    if (j.get_ref<const std::string&>() == v) return true;
  }
  return false;
}

const Json& items(const Json& j) {
  static const Json kEmpty = Json::array();
  return j.is_array() ? j : kEmpty;
}

// Go's %#v of a []string: []string{"a", "b"}.
std::string goStringSlice(const Json& list) {
  std::string out = "[]string{";
  bool first = true;
  for (const auto& v : items(list)) {
    if (!first) out += ", ";
    out += goQuote(stringValue(v));
    first = false;
  }
  return out + "}";
}

// --- RBAC ---

void validateRules(const Json& object, bool namespaced, FieldErrors& errors) {
  const Json& rules = items(jsonAt(object, {"rules"}));
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const Json& rule = rules[i];
    const std::string path = indexPath("rules", i);
    if (!present(jsonAt(rule, {"verbs"}))) {
      errors.push_back(
          FieldError::required(path + ".verbs", "verbs must contain at least one value"));
    }
    if (present(jsonAt(rule, {"nonResourceURLs"}))) {
      if (namespaced) {
        errors.push_back(FieldError::invalid(path + ".nonResourceURLs",
                                             goStringSlice(jsonAt(rule, {"nonResourceURLs"})),
                                             "namespaced rules cannot apply to non-resource URLs"));
      } else if (present(jsonAt(rule, {"apiGroups"})) || present(jsonAt(rule, {"resources"})) ||
                 present(jsonAt(rule, {"resourceNames"}))) {
        errors.push_back(FieldError::invalid(
            path + ".nonResourceURLs", goStringSlice(jsonAt(rule, {"nonResourceURLs"})),
            "rules cannot apply to both regular resources and non-resource "
            "URLs"));
      }
      continue;
    }
    if (jsonAt(rule, {"apiGroups"}).is_null() || !jsonAt(rule, {"apiGroups"}).is_array() ||
        jsonAt(rule, {"apiGroups"}).empty()) {
      errors.push_back(FieldError::required(path + ".apiGroups",
                                            "resource rules must supply at least one api group"));
    }
    if (!present(jsonAt(rule, {"resources"}))) {
      errors.push_back(FieldError::required(path + ".resources",
                                            "resource rules must supply at least one resource"));
    }
  }
}

std::string goRoleRef(const Json& ref) {
  return fmt::format("rbac.RoleRef{{APIGroup:{}, Kind:{}, Name:{}}}",
                     quoted(jsonAt(ref, {"apiGroup"})), quoted(jsonAt(ref, {"kind"})),
                     quoted(jsonAt(ref, {"name"})));
}

void validateBinding(const Json& object, bool namespaced, FieldErrors& errors) {
  const Json& ref = jsonAt(object, {"roleRef"});
  if (!present(jsonAt(ref, {"name"}))) errors.push_back(FieldError::required("roleRef.name"));
  if (stringValue(jsonAt(ref, {"apiGroup"})) != "rbac.authorization.k8s.io") {
    errors.push_back(FieldError::notSupported("roleRef.apiGroup", quoted(jsonAt(ref, {"apiGroup"})),
                                              supportedValues({"rbac.authorization.k8s.io"})));
  }
  const std::string kind = stringValue(jsonAt(ref, {"kind"}));
  if (namespaced && kind != "Role" && kind != "ClusterRole") {
    errors.push_back(FieldError::notSupported("roleRef.kind", goQuote(kind),
                                              supportedValues({"Role", "ClusterRole"})));
  } else if (!namespaced && kind != "ClusterRole") {
    errors.push_back(
        FieldError::notSupported("roleRef.kind", goQuote(kind), supportedValues({"ClusterRole"})));
  }
  const Json& subjects = items(jsonAt(object, {"subjects"}));
  for (std::size_t i = 0; i < subjects.size(); ++i) {
    const Json& s = subjects[i];
    const std::string path = indexPath("subjects", i);
    const std::string subjectKind = stringValue(jsonAt(s, {"kind"}));
    if (!present(jsonAt(s, {"name"}))) errors.push_back(FieldError::required(path + ".name"));
    if (subjectKind == "ServiceAccount") {
      if (present(jsonAt(s, {"apiGroup"}))) {
        errors.push_back(FieldError::notSupported(
            path + ".apiGroup", quoted(jsonAt(s, {"apiGroup"})), supportedValues({""})));
      }
      if (!namespaced && !present(jsonAt(s, {"namespace"}))) {
        errors.push_back(FieldError::required(path + ".namespace"));
      }
    } else if (subjectKind == "User" || subjectKind == "Group") {
      if (stringValue(jsonAt(s, {"apiGroup"})) != "rbac.authorization.k8s.io") {
        errors.push_back(FieldError::notSupported(path + ".apiGroup",
                                                  quoted(jsonAt(s, {"apiGroup"})),
                                                  supportedValues({"rbac.authorization.k8s.io"})));
      }
    } else {
      errors.push_back(
          FieldError::notSupported(path + ".kind", goQuote(subjectKind),
                                   supportedValues({"ServiceAccount", "User", "Group"})));
    }
  }
}

// --- networking ---

void validateBackend(const Json& backend, const std::string& path, FieldErrors& errors) {
  const Json& service = jsonAt(backend, {"service"});
  const Json& resource = jsonAt(backend, {"resource"});
  if (service.is_null() && resource.is_null()) {
    errors.push_back(
        FieldError::invalid(path, backend.dump(), "must specify a resource or service"));
    return;
  }
  if (!service.is_null()) {
    if (!present(jsonAt(service, {"name"})))
      errors.push_back(FieldError::required(path + ".service.name"));
    const Json& port = jsonAt(service, {"port"});
    if (!present(jsonAt(port, {"name"})) && !present(jsonAt(port, {"number"}))) {
      errors.push_back(FieldError::invalid(path + ".service.port",
                                           port.is_null() ? "{}" : port.dump(),
                                           "port name or number is required"));
    }
  }
}

void validateIngress(const Json& ingress, FieldErrors& errors) {
  const Json& spec = jsonAt(ingress, {"spec"});
  if (const Json& backend = jsonAt(spec, {"defaultBackend"}); !backend.is_null()) {
    validateBackend(backend, "spec.defaultBackend", errors);
  }
  const Json& rules = items(jsonAt(spec, {"rules"}));
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const Json& paths = items(jsonAt(rules[i], {"http", "paths"}));
    const std::string rulePath = indexPath("spec.rules", i) + ".http";
    if (!jsonAt(rules[i], {"http"}).is_null() && paths.empty()) {
      errors.push_back(FieldError::required(rulePath + ".paths"));
    }
    for (std::size_t j = 0; j < paths.size(); ++j) {
      const Json& p = paths[j];
      const std::string path = indexPath(rulePath + ".paths", j);
      const Json& type = jsonAt(p, {"pathType"});
      if (type.is_null()) {
        errors.push_back(FieldError::required(path + ".pathType", "pathType must be specified"));
      } else if (!oneOf(type, {"Exact", "Prefix", "ImplementationSpecific"})) {
        errors.push_back(FieldError::notSupported(
            path + ".pathType", quoted(type),
            supportedValues({"Exact", "ImplementationSpecific", "Prefix"})));
      } else if (oneOf(type, {"Exact", "Prefix"}) &&
                 !stringValue(jsonAt(p, {"path"})).starts_with("/")) {
        errors.push_back(FieldError::invalidString(path + ".path", stringValue(jsonAt(p, {"path"})),
                                                   "must be an absolute path"));
      }
      validateBackend(jsonAt(p, {"backend"}), path + ".backend", errors);
    }
  }
}

void validateNetworkPolicy(const Json& policy, FieldErrors& errors) {
  const Json& types = items(jsonAt(policy, {"spec", "policyTypes"}));
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (!oneOf(types[i], {"Ingress", "Egress"})) {
      errors.push_back(FieldError::notSupported(indexPath("spec.policyTypes", i), quoted(types[i]),
                                                supportedValues({"Egress", "Ingress"})));
    }
  }
}

// --- autoscaling ---

void validateHorizontalPodAutoscaler(const Json& hpa, FieldErrors& errors) {
  const Json& spec = jsonAt(hpa, {"spec"});
  const Json& ref = jsonAt(spec, {"scaleTargetRef"});
  if (!present(jsonAt(ref, {"kind"})))
    errors.push_back(FieldError::required("spec.scaleTargetRef.kind"));
  if (!present(jsonAt(ref, {"name"})))
    errors.push_back(FieldError::required("spec.scaleTargetRef.name"));
  const Json& max = jsonAt(spec, {"maxReplicas"});
  const Json& min = jsonAt(spec, {"minReplicas"});
  const std::int64_t maxValue = max.is_number_integer() ? max.get<std::int64_t>() : 0;
  if (maxValue < 1) {
    errors.push_back(FieldError::invalid("spec.maxReplicas", std::to_string(maxValue),
                                         "must be greater than or equal to 1"));
  }
  if (min.is_number_integer()) {
    if (min.get<std::int64_t>() < 1) {
      errors.push_back(FieldError::invalid("spec.minReplicas", min.dump(),
                                           "must be greater than or equal to 1"));
    } else if (maxValue >= 1 && min.get<std::int64_t>() > maxValue) {
      errors.push_back(FieldError::invalid("spec.minReplicas", min.dump(),
                                           "must be less than or equal to maxReplicas"));
    }
  }
}

// --- batch ---

// A cron schedule as robfig/cron's standard parser takes it: five fields of digits, '*', ',',
// '-', '/', '?', month and weekday names, or a @descriptor; an optional TZ=/CRON_TZ= prefix is
// forbidden (spec.timeZone says it).
std::optional<std::string> cronError(const std::string& schedule) {
  if (schedule.starts_with("TZ=") || schedule.starts_with("CRON_TZ=")) {
    return "cannot use TZ or CRON_TZ in schedule, use timeZone field instead";
  }
  if (schedule.starts_with("@")) {
    static const char* kDescriptors[] = {"@yearly", "@annually", "@monthly", "@weekly",
                                         "@daily",  "@midnight", "@hourly"};
    for (const char* d : kDescriptors) {
      if (schedule == d) return std::nullopt;
    }
    if (schedule.starts_with("@every ")) return std::nullopt;
    return "unrecognized descriptor: " + schedule;
  }
  std::vector<std::string> fields;
  std::string current;
  for (char c : schedule) {
    if (c == ' ' || c == '\t') {
      if (!current.empty()) fields.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) fields.push_back(std::move(current));
  if (fields.size() != 5) {
    return fmt::format("expected exactly 5 fields, found {}: [{}]", fields.size(),
                       fmt::join(fields, " "));
  }
  for (const auto& f : fields) {
    for (char c : f) {
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '*' || c == ',' || c == '-' ||
            c == '/' || c == '?')) {
        return fmt::format("failed to parse int from {}: strconv.Atoi: parsing {}: invalid syntax",
                           f, goQuote(f));
      }
    }
  }
  return std::nullopt;
}

void validateCronJob(const Json& cj, FieldErrors& errors) {
  const Json& spec = jsonAt(cj, {"spec"});
  const Json& schedule = jsonAt(spec, {"schedule"});
  if (!present(schedule)) {
    errors.push_back(FieldError::required("spec.schedule"));
  } else if (auto error = cronError(stringValue(schedule))) {
    errors.push_back(FieldError::invalidString("spec.schedule", stringValue(schedule), *error));
  }
  const Json& policy = jsonAt(spec, {"concurrencyPolicy"});
  if (!policy.is_null() && !oneOf(policy, {"Allow", "Forbid", "Replace"})) {
    errors.push_back(FieldError::notSupported("spec.concurrencyPolicy", quoted(policy),
                                              supportedValues({"Allow", "Forbid", "Replace"})));
  }
}

// --- core ---

void validatePersistentVolumeClaim(const Json& pvc, FieldErrors& errors) {
  const Json& spec = jsonAt(pvc, {"spec"});
  const Json& modes = items(jsonAt(spec, {"accessModes"}));
  if (modes.empty()) {
    errors.push_back(
        FieldError::required("spec.accessModes", "at least 1 access mode is required"));
  }
  for (const auto& m : modes) {
    if (!oneOf(m, {"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"})) {
      errors.push_back(FieldError::notSupported(
          "spec.accessModes", quoted(m),
          supportedValues({"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"})));
    }
  }
  if (jsonAt(spec, {"resources", "requests", "storage"}).is_null()) {
    errors.push_back(FieldError::required("spec.resources[storage]"));
  }
}

void validatePriorityClass(const Json& pc, FieldErrors& errors) {
  const Json& value = jsonAt(pc, {"value"});
  const bool system = meta::name(pc).starts_with("system-");
  if (value.is_number_integer() && value.get<std::int64_t>() > 1000000000 && !system) {
    errors.push_back(FieldError::forbidden(
        "value", "maximum allowed value of a user defined priority is 1000000000"));
  }
  const Json& preemption = jsonAt(pc, {"preemptionPolicy"});
  if (!preemption.is_null() && !oneOf(preemption, {"PreemptLowerPriority", "Never"})) {
    errors.push_back(FieldError::notSupported("preemptionPolicy", quoted(preemption),
                                              supportedValues({"Never", "PreemptLowerPriority"})));
  }
}

void validateWebhooks(const Json& configuration, FieldErrors& errors) {
  const Json& webhooks = items(jsonAt(configuration, {"webhooks"}));
  for (std::size_t i = 0; i < webhooks.size(); ++i) {
    const Json& w = webhooks[i];
    const std::string path = indexPath("webhooks", i);
    if (!present(jsonAt(w, {"name"}))) errors.push_back(FieldError::required(path + ".name"));
    const Json& sideEffects = jsonAt(w, {"sideEffects"});
    if (sideEffects.is_null()) {
      errors.push_back(
          FieldError::required(path + ".sideEffects", "must specify one of None, NoneOnDryRun"));
    } else if (!oneOf(sideEffects, {"None", "NoneOnDryRun"})) {
      errors.push_back(FieldError::notSupported(path + ".sideEffects", quoted(sideEffects),
                                                supportedValues({"None", "NoneOnDryRun"})));
    }
    if (!present(jsonAt(w, {"admissionReviewVersions"}))) {
      errors.push_back(FieldError::required(path + ".admissionReviewVersions",
                                            "must specify one of v1, v1beta1"));
    }
  }
}

void forbidChange(const Json& updated, const Json& old,
                  std::initializer_list<std::string_view> path, const std::string& field,
                  const std::string& detail, FieldErrors& errors) {
  if (jsonAt(updated, path) != jsonAt(old, path))
    errors.push_back(FieldError::forbidden(field, detail));
}

// The defaults kube-apiserver's scheme gives each built-in kind (SetDefaults_<Kind>) that the
// per-kind strategies do not set elsewhere, one function a kind.

void defaultStatefulSet(Json& object) {
  Json& spec = objectMember(object, "spec");
  setDefault(spec, "replicas", 1);
  setDefault(spec, "podManagementPolicy", "OrderedReady");
  setDefault(spec, "revisionHistoryLimit", 10);
  Json& strategy = objectMember(spec, "updateStrategy");
  setDefault(strategy, "type", "RollingUpdate");
  if (strategy["type"] == "RollingUpdate")
    setDefault(objectMember(strategy, "rollingUpdate"), "partition", 0);
  Json& retention = objectMember(spec, "persistentVolumeClaimRetentionPolicy");
  setDefault(retention, "whenDeleted", "Retain");
  setDefault(retention, "whenScaled", "Retain");
}

void defaultDaemonSet(Json& object) {
  Json& spec = objectMember(object, "spec");
  setDefault(spec, "revisionHistoryLimit", 10);
  Json& strategy = objectMember(spec, "updateStrategy");
  setDefault(strategy, "type", "RollingUpdate");
  if (strategy["type"] == "RollingUpdate") {
    Json& rolling = objectMember(strategy, "rollingUpdate");
    setDefault(rolling, "maxUnavailable", 1);
    setDefault(rolling, "maxSurge", 0);
  }
}

void defaultCronJob(Json& object) {
  Json& spec = objectMember(object, "spec");
  setDefault(spec, "concurrencyPolicy", "Allow");
  setDefault(spec, "suspend", false);
  setDefault(spec, "successfulJobsHistoryLimit", 3);
  setDefault(spec, "failedJobsHistoryLimit", 1);
}

void defaultReplicationController(Json& object) {
  Json& spec = objectMember(object, "spec");
  setDefault(spec, "replicas", 1);
  const Json& labels = jsonAt(spec, {"template", "metadata", "labels"});
  if (!present(jsonAt(spec, {"selector"})) && labels.is_object()) spec["selector"] = labels;
}

void defaultPersistentVolume(Json& object) {
  setDefault(objectMember(object, "spec"), "persistentVolumeReclaimPolicy", "Retain");
  setDefault(objectMember(object, "spec"), "volumeMode", "Filesystem");
  object["status"] = {{"phase", "Pending"}};
}

void defaultPersistentVolumeClaim(Json& object) {
  setDefault(objectMember(object, "spec"), "volumeMode", "Filesystem");
}

void defaultHorizontalPodAutoscaler(Json& object) {
  Json& spec = objectMember(object, "spec");
  setDefault(spec, "minReplicas", 1);
  // autoscaling/v2's default metric; a v1 body names its CPU target instead.
  if (stringValue(jsonAt(object, {"apiVersion"})) == "autoscaling/v2" &&
      !present(jsonAt(spec, {"metrics"}))) {
    spec["metrics"] = Json::array(
        {{{"type", "Resource"},
          {"resource",
           {{"name", "cpu"}, {"target", {{"type", "Utilization"}, {"averageUtilization", 80}}}}}}});
  }
}

void defaultPriorityClass(Json& object) {
  setDefault(object, "preemptionPolicy", "PreemptLowerPriority");
}

void defaultStorageClass(Json& object) {
  setDefault(object, "reclaimPolicy", "Delete");
  setDefault(object, "volumeBindingMode", "Immediate");
}

void defaultPodDisruptionBudget(Json& object) {
  object["status"] = {
      {"disruptionsAllowed", 0}, {"currentHealthy", 0}, {"desiredHealthy", 0}, {"expectedPods", 0}};
}

void defaultCertificateSigningRequest(Json& object) {
  Json& spec = objectMember(object, "spec");
  spec["username"] = "kubernetes-admin";
  spec["groups"] = Json::array({"kubeadm:cluster-admins", "system:authenticated"});
}

void defaultNetworkPolicy(Json& object) {
  Json& spec = objectMember(object, "spec");
  if (!present(jsonAt(spec, {"policyTypes"}))) {
    Json types = Json::array({"Ingress"});
    if (present(jsonAt(spec, {"egress"}))) types.push_back("Egress");
    spec["policyTypes"] = std::move(types);
  }
  setDefault(spec, "podSelector", Json::object());
}

}  // namespace

bool defaultBuiltin(const ResourceInfo& info, Json& object) {
  struct KindDefaults {
    std::string_view group;
    std::string_view resource;
    void (*apply)(Json& object);
  };
  static constexpr KindDefaults kKindDefaults[] = {
      {"apps", "statefulsets", defaultStatefulSet},
      {"apps", "daemonsets", defaultDaemonSet},
      {"batch", "cronjobs", defaultCronJob},
      {"", "replicationcontrollers", defaultReplicationController},
      {"", "persistentvolumes", defaultPersistentVolume},
      {"", "persistentvolumeclaims", defaultPersistentVolumeClaim},
      {"autoscaling", "horizontalpodautoscalers", defaultHorizontalPodAutoscaler},
      {"scheduling.k8s.io", "priorityclasses", defaultPriorityClass},
      {"storage.k8s.io", "storageclasses", defaultStorageClass},
      {"policy", "poddisruptionbudgets", defaultPodDisruptionBudget},
      {"certificates.k8s.io", "certificatesigningrequests", defaultCertificateSigningRequest},
      {"networking.k8s.io", "networkpolicies", defaultNetworkPolicy},
  };
  for (const KindDefaults& kind : kKindDefaults) {
    if (info.is(kind.group, kind.resource)) {
      kind.apply(object);
      return true;
    }
  }
  return false;
}

void validateBuiltinCreate(const ResourceInfo& info, const Json& object, FieldErrors& errors) {
  const std::string& g = info.group;
  const std::string& r = info.resource;
  if (g == "rbac.authorization.k8s.io") {
    if (r == "roles" || r == "clusterroles") {
      const bool aggregated = r == "clusterroles" && !jsonAt(object, {"aggregationRule"}).is_null();
      if (aggregated && !present(jsonAt(object, {"aggregationRule", "clusterRoleSelectors"}))) {
        errors.push_back(FieldError::required("aggregationRule.clusterRoleSelectors"));
      }
      validateRules(object, r == "roles", errors);
    } else {
      validateBinding(object, r == "rolebindings", errors);
    }
  } else if (info.is("networking.k8s.io", "ingresses")) {
    validateIngress(object, errors);
  } else if (info.is("networking.k8s.io", "networkpolicies")) {
    validateNetworkPolicy(object, errors);
  } else if (info.is("policy", "poddisruptionbudgets")) {
    const Json& spec = jsonAt(object, {"spec"});
    if (!jsonAt(spec, {"minAvailable"}).is_null() && !jsonAt(spec, {"maxUnavailable"}).is_null()) {
      errors.push_back(FieldError::invalid("spec", spec.dump(),
                                           "minAvailable and maxUnavailable cannot be both set"));
    }
  } else if (info.is("autoscaling", "horizontalpodautoscalers")) {
    validateHorizontalPodAutoscaler(object, errors);
  } else if (info.is("batch", "cronjobs")) {
    validateCronJob(object, errors);
  } else if (info.is("", "persistentvolumeclaims")) {
    validatePersistentVolumeClaim(object, errors);
  } else if (info.is("scheduling.k8s.io", "priorityclasses")) {
    validatePriorityClass(object, errors);
  } else if (info.is("storage.k8s.io", "storageclasses")) {
    if (!present(jsonAt(object, {"provisioner"})))
      errors.push_back(FieldError::required("provisioner"));
    const Json& reclaim = jsonAt(object, {"reclaimPolicy"});
    if (!reclaim.is_null() && !oneOf(reclaim, {"Delete", "Retain"})) {
      errors.push_back(FieldError::notSupported("reclaimPolicy", quoted(reclaim),
                                                supportedValues({"Delete", "Retain"})));
    }
    const Json& binding = jsonAt(object, {"volumeBindingMode"});
    if (!binding.is_null() && !oneOf(binding, {"Immediate", "WaitForFirstConsumer"})) {
      errors.push_back(
          FieldError::notSupported("volumeBindingMode", quoted(binding),
                                   supportedValues({"Immediate", "WaitForFirstConsumer"})));
    }
  } else if (info.is("discovery.k8s.io", "endpointslices")) {
    const Json& type = jsonAt(object, {"addressType"});
    if (type.is_null()) {
      errors.push_back(FieldError::required("addressType"));
    } else if (!oneOf(type, {"IPv4", "IPv6", "FQDN"})) {
      errors.push_back(FieldError::notSupported("addressType", quoted(type),
                                                supportedValues({"FQDN", "IPv4", "IPv6"})));
    }
  } else if (info.is("admissionregistration.k8s.io", "validatingwebhookconfigurations") ||
             info.is("admissionregistration.k8s.io", "mutatingwebhookconfigurations")) {
    validateWebhooks(object, errors);
  } else if (info.is("certificates.k8s.io", "certificatesigningrequests")) {
    if (!present(jsonAt(object, {"spec", "request"})))
      errors.push_back(FieldError::required("spec.request"));
    if (!present(jsonAt(object, {"spec", "signerName"}))) {
      errors.push_back(FieldError::required("spec.signerName"));
    }
  }
}

void validateBuiltinUpdate(const ResourceInfo& info, const Json& updated, const Json& old,
                           FieldErrors& errors) {
  if (info.is("rbac.authorization.k8s.io", "rolebindings") ||
      info.is("rbac.authorization.k8s.io", "clusterrolebindings")) {
    const Json& ref = jsonAt(updated, {"roleRef"});
    if (ref != jsonAt(old, {"roleRef"})) {
      errors.push_back(FieldError::invalid("roleRef", goRoleRef(ref), "cannot change roleRef"));
    }
  } else if (info.is("scheduling.k8s.io", "priorityclasses")) {
    forbidChange(updated, old, {"value"}, "value", "may not be changed in an update.", errors);
  } else if (info.is("storage.k8s.io", "storageclasses")) {
    forbidChange(updated, old, {"provisioner"}, "provisioner",
                 "updates to provisioner are forbidden.", errors);
    forbidChange(updated, old, {"parameters"}, "parameters", "updates to parameters are forbidden.",
                 errors);
    forbidChange(updated, old, {"reclaimPolicy"}, "reclaimPolicy",
                 "updates to reclaimPolicy are forbidden.", errors);
  } else if (info.is("discovery.k8s.io", "endpointslices")) {
    if (jsonAt(updated, {"addressType"}) != jsonAt(old, {"addressType"})) {
      errors.push_back(FieldError::invalid("addressType", quoted(jsonAt(updated, {"addressType"})),
                                           "field is immutable"));
    }
  } else if (info.is("apps", "statefulsets") || info.is("apps", "daemonsets")) {
    if (jsonAt(updated, {"spec", "selector"}) != jsonAt(old, {"spec", "selector"})) {
      errors.push_back(FieldError::invalid(
          "spec.selector", jsonAt(updated, {"spec", "selector"}).dump(), "field is immutable"));
    }
  }
}

}  // namespace fakekube::strategy
