#include "fakekube/apiserver/builtin_strategies.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"

namespace fakekube::strategy {

namespace {

Json& child(Json& parent, std::string_view key) {
  Json& c = jsonMember(parent, key);
  if (!c.is_object()) c = Json::object();
  return c;
}

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

std::string str(const Json& j) { return j.is_string() ? j.get<std::string>() : ""; }

std::string quoted(const Json& j) { return goQuote(str(j)); }

std::string supported(std::initializer_list<const char*> values) {
  std::string out = "supported values: ";
  bool first = true;
  for (const char* v : values) {
    if (!first) out += ", ";
    out += goQuote(v);
    first = false;
  }
  return out;
}

bool oneOf(const Json& j, std::initializer_list<const char*> values) {
  if (!j.is_string()) return false;
  for (const char* v : values) {
    if (j.get_ref<const std::string&>() == v) return true;
  }
  return false;
}

std::string indexed(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
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
    out += goQuote(str(v));
    first = false;
  }
  return out + "}";
}

// --- RBAC ---

void validateRules(const Json& object, bool namespaced, FieldErrors& errors) {
  const Json& rules = items(jsonAt(object, {"rules"}));
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const Json& rule = rules[i];
    const std::string path = indexed("rules", i);
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
  if (str(jsonAt(ref, {"apiGroup"})) != "rbac.authorization.k8s.io") {
    errors.push_back(FieldError::notSupported("roleRef.apiGroup", quoted(jsonAt(ref, {"apiGroup"})),
                                              supported({"rbac.authorization.k8s.io"})));
  }
  const std::string kind = str(jsonAt(ref, {"kind"}));
  if (namespaced && kind != "Role" && kind != "ClusterRole") {
    errors.push_back(FieldError::notSupported("roleRef.kind", goQuote(kind),
                                              supported({"Role", "ClusterRole"})));
  } else if (!namespaced && kind != "ClusterRole") {
    errors.push_back(
        FieldError::notSupported("roleRef.kind", goQuote(kind), supported({"ClusterRole"})));
  }
  const Json& subjects = items(jsonAt(object, {"subjects"}));
  for (std::size_t i = 0; i < subjects.size(); ++i) {
    const Json& s = subjects[i];
    const std::string path = indexed("subjects", i);
    const std::string subjectKind = str(jsonAt(s, {"kind"}));
    if (!present(jsonAt(s, {"name"}))) errors.push_back(FieldError::required(path + ".name"));
    if (subjectKind == "ServiceAccount") {
      if (present(jsonAt(s, {"apiGroup"}))) {
        errors.push_back(FieldError::notSupported(
            path + ".apiGroup", quoted(jsonAt(s, {"apiGroup"})), supported({""})));
      }
      if (!namespaced && !present(jsonAt(s, {"namespace"}))) {
        errors.push_back(FieldError::required(path + ".namespace"));
      }
    } else if (subjectKind == "User" || subjectKind == "Group") {
      if (str(jsonAt(s, {"apiGroup"})) != "rbac.authorization.k8s.io") {
        errors.push_back(FieldError::notSupported(path + ".apiGroup",
                                                  quoted(jsonAt(s, {"apiGroup"})),
                                                  supported({"rbac.authorization.k8s.io"})));
      }
    } else {
      errors.push_back(FieldError::notSupported(path + ".kind", goQuote(subjectKind),
                                                supported({"ServiceAccount", "User", "Group"})));
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
    const std::string rulePath = indexed("spec.rules", i) + ".http";
    if (!jsonAt(rules[i], {"http"}).is_null() && paths.empty()) {
      errors.push_back(FieldError::required(rulePath + ".paths"));
    }
    for (std::size_t j = 0; j < paths.size(); ++j) {
      const Json& p = paths[j];
      const std::string path = indexed(rulePath + ".paths", j);
      const Json& type = jsonAt(p, {"pathType"});
      if (type.is_null()) {
        errors.push_back(FieldError::required(path + ".pathType", "pathType must be specified"));
      } else if (!oneOf(type, {"Exact", "Prefix", "ImplementationSpecific"})) {
        errors.push_back(
            FieldError::notSupported(path + ".pathType", quoted(type),
                                     supported({"Exact", "ImplementationSpecific", "Prefix"})));
      } else if (oneOf(type, {"Exact", "Prefix"}) && !str(jsonAt(p, {"path"})).starts_with("/")) {
        errors.push_back(FieldError::invalidString(path + ".path", str(jsonAt(p, {"path"})),
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
      errors.push_back(FieldError::notSupported(indexed("spec.policyTypes", i), quoted(types[i]),
                                                supported({"Egress", "Ingress"})));
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
  } else if (auto error = cronError(str(schedule))) {
    errors.push_back(FieldError::invalidString("spec.schedule", str(schedule), *error));
  }
  const Json& policy = jsonAt(spec, {"concurrencyPolicy"});
  if (!policy.is_null() && !oneOf(policy, {"Allow", "Forbid", "Replace"})) {
    errors.push_back(FieldError::notSupported("spec.concurrencyPolicy", quoted(policy),
                                              supported({"Allow", "Forbid", "Replace"})));
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
          supported({"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"})));
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
                                              supported({"Never", "PreemptLowerPriority"})));
  }
}

void validateWebhooks(const Json& configuration, FieldErrors& errors) {
  const Json& webhooks = items(jsonAt(configuration, {"webhooks"}));
  for (std::size_t i = 0; i < webhooks.size(); ++i) {
    const Json& w = webhooks[i];
    const std::string path = indexed("webhooks", i);
    if (!present(jsonAt(w, {"name"}))) errors.push_back(FieldError::required(path + ".name"));
    const Json& sideEffects = jsonAt(w, {"sideEffects"});
    if (sideEffects.is_null()) {
      errors.push_back(
          FieldError::required(path + ".sideEffects", "must specify one of None, NoneOnDryRun"));
    } else if (!oneOf(sideEffects, {"None", "NoneOnDryRun"})) {
      errors.push_back(FieldError::notSupported(path + ".sideEffects", quoted(sideEffects),
                                                supported({"None", "NoneOnDryRun"})));
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

}  // namespace

bool defaultBuiltin(const ResourceInfo& info, Json& object) {
  if (info.is("apps", "statefulsets")) {
    Json& spec = child(object, "spec");
    setDefault(spec, "replicas", 1);
    setDefault(spec, "podManagementPolicy", "OrderedReady");
    setDefault(spec, "revisionHistoryLimit", 10);
    Json& strategy = child(spec, "updateStrategy");
    setDefault(strategy, "type", "RollingUpdate");
    if (strategy["type"] == "RollingUpdate")
      setDefault(child(strategy, "rollingUpdate"), "partition", 0);
    Json& retention = child(spec, "persistentVolumeClaimRetentionPolicy");
    setDefault(retention, "whenDeleted", "Retain");
    setDefault(retention, "whenScaled", "Retain");
    return true;
  }
  if (info.is("apps", "daemonsets")) {
    Json& spec = child(object, "spec");
    setDefault(spec, "revisionHistoryLimit", 10);
    Json& strategy = child(spec, "updateStrategy");
    setDefault(strategy, "type", "RollingUpdate");
    if (strategy["type"] == "RollingUpdate") {
      Json& rolling = child(strategy, "rollingUpdate");
      setDefault(rolling, "maxUnavailable", 1);
      setDefault(rolling, "maxSurge", 0);
    }
    return true;
  }
  if (info.is("batch", "cronjobs")) {
    Json& spec = child(object, "spec");
    setDefault(spec, "concurrencyPolicy", "Allow");
    setDefault(spec, "suspend", false);
    setDefault(spec, "successfulJobsHistoryLimit", 3);
    setDefault(spec, "failedJobsHistoryLimit", 1);
    return true;
  }
  if (info.is("", "replicationcontrollers")) {
    Json& spec = child(object, "spec");
    setDefault(spec, "replicas", 1);
    const Json& labels = jsonAt(spec, {"template", "metadata", "labels"});
    if (!present(jsonAt(spec, {"selector"})) && labels.is_object()) spec["selector"] = labels;
    return true;
  }
  if (info.is("", "persistentvolumes")) {
    setDefault(child(object, "spec"), "persistentVolumeReclaimPolicy", "Retain");
    setDefault(child(object, "spec"), "volumeMode", "Filesystem");
    object["status"] = {{"phase", "Pending"}};
    return true;
  }
  if (info.is("", "persistentvolumeclaims")) {
    setDefault(child(object, "spec"), "volumeMode", "Filesystem");
    return true;
  }
  if (info.is("autoscaling", "horizontalpodautoscalers")) {
    Json& spec = child(object, "spec");
    setDefault(spec, "minReplicas", 1);
    // autoscaling/v2's default metric; a v1 body names its CPU target instead.
    if (str(jsonAt(object, {"apiVersion"})) == "autoscaling/v2" &&
        !present(jsonAt(spec, {"metrics"}))) {
      spec["metrics"] =
          Json::array({{{"type", "Resource"},
                        {"resource",
                         {{"name", "cpu"},
                          {"target", {{"type", "Utilization"}, {"averageUtilization", 80}}}}}}});
    }
    return true;
  }
  if (info.is("scheduling.k8s.io", "priorityclasses")) {
    setDefault(object, "preemptionPolicy", "PreemptLowerPriority");
    return true;
  }
  if (info.is("storage.k8s.io", "storageclasses")) {
    setDefault(object, "reclaimPolicy", "Delete");
    setDefault(object, "volumeBindingMode", "Immediate");
    return true;
  }
  if (info.is("policy", "poddisruptionbudgets")) {
    object["status"] = {{"disruptionsAllowed", 0},
                        {"currentHealthy", 0},
                        {"desiredHealthy", 0},
                        {"expectedPods", 0}};
    return true;
  }
  if (info.is("certificates.k8s.io", "certificatesigningrequests")) {
    Json& spec = child(object, "spec");
    spec["username"] = "kubernetes-admin";
    spec["groups"] = Json::array({"kubeadm:cluster-admins", "system:authenticated"});
    return true;
  }
  if (info.is("networking.k8s.io", "networkpolicies")) {
    Json& spec = child(object, "spec");
    if (!present(jsonAt(spec, {"policyTypes"}))) {
      Json types = Json::array({"Ingress"});
      if (present(jsonAt(spec, {"egress"}))) types.push_back("Egress");
      spec["policyTypes"] = std::move(types);
    }
    setDefault(spec, "podSelector", Json::object());
    return true;
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
                                                supported({"Delete", "Retain"})));
    }
    const Json& binding = jsonAt(object, {"volumeBindingMode"});
    if (!binding.is_null() && !oneOf(binding, {"Immediate", "WaitForFirstConsumer"})) {
      errors.push_back(FieldError::notSupported("volumeBindingMode", quoted(binding),
                                                supported({"Immediate", "WaitForFirstConsumer"})));
    }
  } else if (info.is("discovery.k8s.io", "endpointslices")) {
    const Json& type = jsonAt(object, {"addressType"});
    if (type.is_null()) {
      errors.push_back(FieldError::required("addressType"));
    } else if (!oneOf(type, {"IPv4", "IPv6", "FQDN"})) {
      errors.push_back(FieldError::notSupported("addressType", quoted(type),
                                                supported({"FQDN", "IPv4", "IPv6"})));
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
