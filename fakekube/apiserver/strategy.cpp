#include "fakekube/apiserver/internal/strategy.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/json_writer.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/apiserver/internal/builtin_strategies.h"
#include "fakekube/apiserver/internal/event_validation.h"
#include "fakekube/apiserver/internal/field_rules.h"
#include "fakekube/apiserver/internal/pod_validation.h"
#include "fakekube/apiserver/internal/service_validation.h"
#include "fakekube/apiserver/internal/workload_validation.h"

namespace fakekube::strategy {

namespace {

// Sets object[key] = value unless the client gave one. `object` must be an object. The value is
// only built when it is used, and the key is looked up once (try_emplace leaves `value` alone when
// the name is present): defaulting runs on every create.
template <class Value>
void setDefault(Json& object, std::string_view key, Value&& value) {
  auto [it, added] = object.get_ref<Json::object_t&>().try_emplace(key, std::forward<Value>(value));
  if (!added && it->second.is_null()) it->second = std::forward<Value>(value);
}

// The same for a Go string field (not a pointer): an empty string is its zero value, which the
// defaulting functions replace as they replace an absent one.
void setDefaultString(Json& object, std::string_view key, std::string_view value) {
  auto [it, added] = object.get_ref<Json::object_t&>().try_emplace(key, value);
  if (added) return;
  if (it->second.is_null() ||
      (it->second.is_string() && it->second.get_ref<const std::string&>().empty())) {
    it->second = value;
  }
}

// The defaults the real API server fills into a PodSpec (pkg/apis/core/v1/defaults.go), limited
// to the fields controllers and kubectl read.
void defaultPodSpec(Json& spec) {
  if (!spec.is_object()) return;
  setDefaultString(spec, "restartPolicy", "Always");
  setDefaultString(spec, "schedulerName", "default-scheduler");
  setDefault(spec, "terminationGracePeriodSeconds", 30);
  setDefaultString(spec, "dnsPolicy", "ClusterFirst");
  setDefault(spec, "securityContext", Json::object());
  for (std::string_view list : {"containers", "initContainers"}) {
    auto it = spec.find(list);
    if (it == spec.end() || !it->is_array()) continue;
    for (auto& c : *it) {
      if (!c.is_object()) continue;
      setDefaultString(c, "terminationMessagePath", "/dev/termination-log");
      setDefaultString(c, "terminationMessagePolicy", "File");
      auto imageField = c.find(std::string_view("image"));
      std::string_view image = imageField != c.end() && imageField->is_string()
                                   ? std::string_view(imageField->get_ref<const std::string&>())
                                   : std::string_view();
      auto lastSlash = image.rfind('/');
      std::string_view tail =
          lastSlash == std::string_view::npos ? image : image.substr(lastSlash + 1);
      bool latest = tail.find(':') == std::string_view::npos || tail.ends_with(":latest");
      if (image.find('@') != std::string_view::npos) latest = false;
      setDefaultString(c, "imagePullPolicy", latest ? "Always" : "IfNotPresent");
      if (auto ports = c.find(std::string_view("ports")); ports != c.end() && ports->is_array()) {
        for (auto& p : *ports) {
          if (p.is_object()) setDefaultString(p, "protocol", "TCP");
        }
      }
    }
  }
}

void defaultTemplate(Json& spec) {
  if (!spec.is_object()) return;
  auto t = spec.find("template");
  if (t == spec.end() || !t->is_object()) return;
  auto podSpec = t->find("spec");
  if (podSpec != t->end()) defaultPodSpec(*podSpec);
}

// QoS class of a pod (pkg/apis/core/helper/qos): Guaranteed when every container sets equal
// cpu and memory requests and limits, BestEffort when none sets any, Burstable otherwise.
const char* qosClass(const Json& spec) {
  bool any = false;
  bool guaranteed = true;
  const Json& containers = jsonAt(spec, {"containers"});
  if (!containers.is_array()) return "BestEffort";
  for (const auto& c : containers) {
    const Json& requests = jsonAt(c, {"resources", "requests"});
    const Json& limits = jsonAt(c, {"resources", "limits"});
    if ((requests.is_object() && !requests.empty()) || (limits.is_object() && !limits.empty())) {
      any = true;
    }
    for (std::string_view r : {"cpu", "memory"}) {
      const Json& limit = jsonAt(limits, {r});
      if (limit.is_null()) {
        guaranteed = false;
        continue;
      }
      const Json& request = jsonAt(requests, {r});
      if (!request.is_null() && request != limit) guaranteed = false;
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

void prepareCustomResourceDefinition(Json& crd) {
  Json status = Json::object();
  const Json& spec = jsonAt(crd, {"spec"});
  if (spec.is_object() && spec.contains("names")) status["acceptedNames"] = spec["names"];
  Json stored = Json::array();
  if (spec.is_object() && spec.contains("versions") && spec["versions"].is_array()) {
    for (const auto& v : spec["versions"]) {
      if (v.is_object() && v.value("storage", false)) stored.push_back(v.value("name", ""));
    }
  }
  status["storedVersions"] = stored;
  const std::string now = meta::creationTimestamp(crd);
  status["conditions"] = Json::array({
      {{"type", "NamesAccepted"},
       {"status", "True"},
       {"reason", "NoConflicts"},
       {"message", "no conflicts found"},
       {"lastTransitionTime", now}},
      {{"type", "Established"},
       {"status", "True"},
       {"reason", "InitialNamesAccepted"},
       {"message", "the initial names have been accepted"},
       {"lastTransitionTime", now}},
  });
  crd["status"] = std::move(status);
}

// The defaults of a Job's spec (pkg/apis/batch/v1/defaults.go): both parallelism and
// completions 1 when neither is set, otherwise parallelism 1 when unset (completions stay unset:
// a work-queue Job); backoffLimit 6; completionMode NonIndexed; suspend false;
// podReplacementPolicy Failed with a podFailurePolicy, TerminatingOrFailed without.
void defaultJobSpec(Json& spec) {
  bool noCompletions = !spec.contains("completions") || spec["completions"].is_null();
  bool noParallelism = !spec.contains("parallelism") || spec["parallelism"].is_null();
  if (noCompletions && noParallelism) spec["completions"] = 1;
  if (noParallelism) spec["parallelism"] = 1;
  setDefault(spec, "backoffLimit", 6);
  setDefault(spec, "completionMode", "NonIndexed");
  setDefault(spec, "suspend", false);
  bool failurePolicy = spec.contains("podFailurePolicy") && !spec["podFailurePolicy"].is_null();
  setDefault(spec, "podReplacementPolicy", failurePolicy ? "Failed" : "TerminatingOrFailed");
  defaultTemplate(spec);
}

// A Job's generated selector: the controller-uid label on selector and template.
void defaultJobSelector(Json& job) {
  Json& spec = objectMember(job, "spec");
  bool manual = spec.value("manualSelector", false);
  if (!manual) {
    const std::string uid = meta::uid(job);
    const std::string name = meta::name(job);
    Json labels = {{"batch.kubernetes.io/controller-uid", uid},
                   {"batch.kubernetes.io/job-name", name},
                   {"controller-uid", uid},
                   {"job-name", name}};
    Json& selector = objectMember(spec, "selector");
    Json& matchLabels = objectMember(selector, "matchLabels");
    matchLabels["batch.kubernetes.io/controller-uid"] = uid;
    Json& tmpl = objectMember(spec, "template");
    Json& tmplMeta = objectMember(tmpl, "metadata");
    Json& tmplLabels = objectMember(tmplMeta, "labels");
    for (auto& [k, v] : labels.items()) tmplLabels[k] = v;
  }
}

// The defaults of a Deployment's spec (pkg/apis/apps/v1/defaults.go), also for a strategy given
// only in part.
void defaultDeploymentSpec(Json& spec) {
  setDefault(spec, "replicas", 1);
  setDefault(spec, "revisionHistoryLimit", 10);
  setDefault(spec, "progressDeadlineSeconds", 600);
  Json& strategy = objectMember(spec, "strategy");
  setDefaultString(strategy, "type", "RollingUpdate");
  if (strategy["type"] == "RollingUpdate") {
    Json& rollingUpdate = objectMember(strategy, "rollingUpdate");
    setDefault(rollingUpdate, "maxSurge", "25%");
    setDefault(rollingUpdate, "maxUnavailable", "25%");
  }
  defaultTemplate(spec);
}

void immutable(FieldErrors& errors, const Json& updated, const Json& old,
               std::initializer_list<std::string_view> path, const char* field) {
  const Json& a = jsonAt(updated, path);
  const Json& b = jsonAt(old, path);
  // toJsonText, not dump(): the value may hold invalid UTF-8, on which dump() throws.
  if (a != b) errors.push_back(FieldError::invalid(field, toJsonText(a), "field is immutable"));
}

// IsConfigMapKey: the keys of ConfigMap.data/binaryData and Secret.data.
std::vector<std::string> configMapKeyErrors(const std::string& key) {
  std::vector<std::string> errors;
  if (key.size() > 253) errors.push_back("must be no more than 253 characters");
  const bool matches = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_';
  });
  if (!matches) {
    errors.push_back(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
        "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
        "'[-._a-zA-Z0-9]+')");
  }
  if (key == ".") {
    errors.push_back("must not be '.'");
  } else if (key == "..") {
    errors.push_back("must not be '..'");
  } else if (key.starts_with("..")) {
    errors.push_back("must not start with '..'");
  }
  return errors;
}

// ValidateConfigMap's and ValidateSecret's key rules (and a ConfigMap key in both bags).
void validateConfigKeys(FieldErrors& errors, const Json& object, bool configMap) {
  const Json& data = jsonAt(object, {"data"});
  const Json& binaryData = jsonAt(object, {"binaryData"});
  if (data.is_object()) {
    for (const auto& [key, value] : data.get_ref<const Json::object_t&>()) {
      for (std::string& message : configMapKeyErrors(key)) {
        errors.push_back(FieldError::invalidString("data[" + key + "]", key, std::move(message)));
      }
      if (configMap && binaryData.is_object() && binaryData.contains(key)) {
        errors.push_back(FieldError::invalidString("data[" + key + "]", key,
                                                   "duplicate of key present in binaryData"));
      }
    }
  }
  if (configMap && binaryData.is_object()) {
    for (const auto& [key, value] : binaryData.get_ref<const Json::object_t&>()) {
      for (std::string& message : configMapKeyErrors(key)) {
        errors.push_back(
            FieldError::invalidString("binaryData[" + key + "]", key, std::move(message)));
      }
    }
  }
}
}  // namespace

namespace {

// The defaults of a Service's spec (pkg/apis/core/v1/defaults.go SetDefaults_Service).
void defaultService(Json& spec) {
  setDefaultString(spec, "type", "ClusterIP");
  setDefaultString(spec, "sessionAffinity", "None");
  if (auto ports = spec.find("ports"); ports != spec.end() && ports->is_array()) {
    for (auto& p : *ports) {
      if (!p.is_object()) continue;
      setDefaultString(p, "protocol", "TCP");
      // An absent, 0 or "" targetPort is the port itself.
      const Json* port = jsonFind(p, "port");
      const Json* target = jsonFind(p, "targetPort");
      if (port == nullptr) continue;
      if (target == nullptr || target->is_null() || *target == 0 || *target == "") {
        Json value = *port;
        p["targetPort"] = std::move(value);
      }
    }
  }
  const std::string type =
      jsonAt(spec, {"type"}).is_string() ? spec["type"].get<std::string>() : "";
  if (type == "NodePort" || type == "LoadBalancer") {
    setDefaultString(spec, "externalTrafficPolicy", "Cluster");
  }
}

// The defaults kube-apiserver's decoder fills into every body it reads, a create's or an
// update's, before anything validates it: those of the pod specs (in pods and pod templates) and
// of the workloads' specs.
void applyDecodingDefaults(const ResourceInfo& info, Json& object) {
  if (info.is("", "pods")) {
    defaultPodSpec(objectMember(object, "spec"));
  } else if (info.is("", "services")) {
    defaultService(objectMember(object, "spec"));
  } else if (info.is("apps", "deployments")) {
    defaultDeploymentSpec(objectMember(object, "spec"));
  } else if (info.is("apps", "replicasets")) {
    Json& spec = objectMember(object, "spec");
    setDefault(spec, "replicas", 1);
    defaultTemplate(spec);
  } else if (info.is("batch", "jobs")) {
    defaultJobSpec(objectMember(object, "spec"));
  } else if (info.is("apps", "statefulsets") || info.is("apps", "daemonsets") ||
             info.is("", "replicationcontrollers") || info.is("", "podtemplates")) {
    defaultTemplate(info.is("", "podtemplates") ? object : objectMember(object, "spec"));
  } else if (info.is("batch", "cronjobs")) {
    defaultTemplate(
        objectMember(objectMember(objectMember(object, "spec"), "jobTemplate"), "spec"));
  }
}

}  // namespace

void prepareForCreate(const ResourceInfo& info, Json& object) {
  Json& metadata = meta::metadata(object);
  if (info.generation == GenerationRule::None) {
    metadata.erase("generation");
  } else {
    jsonMember(metadata, "generation") = 1;
  }
  // Nodes are created by their kubelet with a status; every other kind with a status
  // subresource starts with an empty one.
  if (info.hasStatus && !info.is("", "nodes")) object.erase("status");

  applyDecodingDefaults(info, object);
  if (info.is("", "namespaces")) {
    Json& spec = objectMember(object, "spec");
    spec["finalizers"] = Json::array({"kubernetes"});
    object["status"] = {{"phase", "Active"}};
  } else if (info.is("", "pods")) {
    // Before status is added: adding a member to `object` moves its members, spec among them.
    const char* qos = qosClass(jsonAt(object, {"spec"}));
    Json& status = jsonMember(object, "status");
    status = Json::object();
    auto& fields = status.get_ref<Json::object_t&>();
    fields.emplace("phase", "Pending");
    fields.emplace("qosClass", qos);
  } else if (info.is("", "services")) {
    object["status"] = {{"loadBalancer", Json::object()}};
  } else if (info.is("", "persistentvolumeclaims")) {
    object["status"] = {{"phase", "Pending"}};
  } else if (info.is("apiextensions.k8s.io", "customresourcedefinitions")) {
    prepareCustomResourceDefinition(object);
  }
  defaultBuiltin(info, object);
}

void prepareWithUid(const ResourceInfo& info, Json& object) {
  if (info.is("batch", "jobs")) defaultJobSelector(object);
}

void prepareForUpdate(const ResourceInfo& info, Json& updated, const Json& old) {
  applyDecodingDefaults(info, updated);
  if (!info.is("", "services")) return;
  const Json& oldSpec = jsonAt(old, {"spec"});
  Json& spec = objectMember(updated, "spec");
  for (const char* field : {"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"}) {
    auto it = spec.find(field);
    bool missing = it == spec.end() || it->is_null() || (it->is_string() && it->empty()) ||
                   (it->is_array() && it->empty());
    if (missing && oldSpec.is_object() && oldSpec.contains(field)) spec[field] = oldSpec[field];
  }
}

bool generationChanged(const ResourceInfo& info, const Json& updated, const Json& old) {
  switch (info.generation) {
    case GenerationRule::None:
      return false;
    case GenerationRule::SpecChange:
      return jsonAt(updated, {"spec"}) != jsonAt(old, {"spec"});
    case GenerationRule::NonMetadataChange: {
      for (const auto& [key, value] : updated.items()) {
        if (key == "metadata") continue;
        if (!old.contains(key) || old[key] != value) return true;
      }
      for (const auto& [key, value] : old.items()) {
        if (key != "metadata" && !updated.contains(key)) return true;
      }
      return false;
    }
  }
  return false;
}

FieldErrors validateCreate(const ResourceInfo& info, const Json& object) {
  FieldErrors errors;
  if (isEvent(info)) {
    validateEventCreate(info, object, errors);
  } else if (info.is("", "configmaps") || info.is("", "secrets")) {
    validateConfigKeys(errors, object, info.is("", "configmaps"));
  } else if (info.is("", "pods")) {
    validatePodSpec(errors, jsonAt(object, {"spec"}), "spec");
  } else if (info.is("", "services")) {
    validateService(errors, object);
  } else if (info.is("apps", "deployments")) {
    validateDeployment(errors, object);
  } else if (info.is("apps", "replicasets")) {
    validateReplicaSet(errors, object);
  } else if (info.is("batch", "jobs")) {
    validateJob(errors, object);
  } else if (info.is("apps", "statefulsets")) {
    validateStatefulSet(errors, object);
  } else if (info.is("apps", "daemonsets")) {
    validateDaemonSet(errors, object);
  } else if (info.is("", "replicationcontrollers")) {
    checkNonNegative(errors, jsonAt(object, {"spec", "replicas"}), "spec.replicas");
    validatePodSpec(errors, jsonAt(object, {"spec", "template", "spec"}), "spec.template.spec");
  } else if (info.is("batch", "cronjobs")) {
    const Json& podSpec = jsonAt(object, {"spec", "jobTemplate", "spec", "template", "spec"});
    validatePodSpec(errors, podSpec, "spec.jobTemplate.spec.template.spec");
    const Json& policy = jsonAt(podSpec, {"restartPolicy"});
    if (policy != "OnFailure" && policy != "Never") {
      errors.push_back(
          FieldError::notSupported("spec.jobTemplate.spec.template.spec.restartPolicy",
                                   goQuote(policy.is_string() ? policy.get<std::string>() : ""),
                                   supportedValues({"OnFailure", "Never"})));
    }
  }
  validateBuiltinCreate(info, object, errors);
  return errors;
}

namespace {

// Whether two objects have the same members apart from those named in `ignored`, comparing the
// values of the others with same(key, a, b); anything that is not an object compares with ==.
// Walks both (sorted) maps side by side: nothing is copied.
template <class SameValue>
bool sameMembersIgnoring(const Json& a, const Json& b,
                         std::initializer_list<std::string_view> ignored, SameValue same) {
  if (!a.is_object() || !b.is_object()) return a == b;
  auto skip = [&](const std::string& key) {
    return std::find(ignored.begin(), ignored.end(), key) != ignored.end();
  };
  const auto& x = a.get_ref<const Json::object_t&>();
  const auto& y = b.get_ref<const Json::object_t&>();
  auto i = x.begin();
  auto j = y.begin();
  while (true) {
    while (i != x.end() && skip(i->first)) ++i;
    while (j != y.end() && skip(j->first)) ++j;
    if (i == x.end() || j == y.end()) return i == x.end() && j == y.end();
    if (i->first != j->first || !same(i->first, i->second, j->second)) return false;
    ++i;
    ++j;
  }
}

// ValidatePodUpdate's rule: a pod's spec may change only in its container and init-container
// images, activeDeadlineSeconds, tolerations (additions) and terminationGracePeriodSeconds.
bool podSpecChangesOnlyMutableFields(const Json& updated, const Json& old) {
  auto sameContainers = [](const Json& a, const Json& b) {
    if (!a.is_array() || !b.is_array() || a.size() != b.size()) return a == b;
    auto same = [](const std::string&, const Json& x, const Json& y) { return x == y; };
    for (std::size_t k = 0; k < a.size(); ++k) {
      if (!sameMembersIgnoring(a[k], b[k], {"image"}, same)) return false;
    }
    return true;
  };
  return sameMembersIgnoring(
      jsonAt(updated, {"spec"}), jsonAt(old, {"spec"}),
      {"activeDeadlineSeconds", "tolerations", "terminationGracePeriodSeconds"},
      [&](const std::string& key, const Json& a, const Json& b) {
        if (key == "containers" || key == "initContainers") return sameContainers(a, b);
        return a == b;
      });
}

}  // namespace

FieldErrors validateUpdate(const ResourceInfo& info, const Json& updated, const Json& old) {
  // An Event's update has rules of its own, not the create's.
  if (isEvent(info)) {
    FieldErrors errors;
    validateEventUpdate(info, updated, old, errors);
    return errors;
  }
  FieldErrors errors = validateCreate(info, updated);
  if (info.is("", "pods")) {
    if (!podSpecChangesOnlyMutableFields(updated, old)) {
      errors.push_back(FieldError::forbidden(
          "spec",
          "pod updates may not change fields other than `spec.containers[*].image`,"
          "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` "
          "(only additions to existing tolerations),`spec.terminationGracePeriodSeconds` "
          "(allow it to be set to 1 if it was previously negative)"));
    }
  } else if (info.is("", "services")) {
    // The allocated address stays (an update that omits it keeps it, as the real strategy fills
    // it in from the old object before validating).
    immutable(errors, updated, old, {"spec", "clusterIP"}, "spec.clusterIP");
  } else if (info.is("", "configmaps") || info.is("", "secrets")) {
    // `immutable: true` freezes the contents and the flag itself.
    if (jsonAt(old, {"immutable"}) == Json(true)) {
      constexpr const char* kFrozen = "field is immutable when `immutable` is set";
      if (jsonAt(updated, {"immutable"}) != Json(true)) {
        errors.push_back(FieldError::forbidden("immutable", kFrozen));
      }
      for (const char* field : {"data", "binaryData"}) {
        if (info.is("", "secrets") && std::string_view(field) == "binaryData") continue;
        if (jsonAt(updated, {field}) != jsonAt(old, {field})) {
          errors.push_back(FieldError::forbidden(field, kFrozen));
        }
      }
    }
  } else if (info.is("apps", "deployments") || info.is("apps", "replicasets")) {
    immutable(errors, updated, old, {"spec", "selector"}, "spec.selector");
  } else if (info.is("batch", "jobs")) {
    immutable(errors, updated, old, {"spec", "selector"}, "spec.selector");
    immutable(errors, updated, old, {"spec", "completions"}, "spec.completions");
  }
  validateBuiltinUpdate(info, updated, old, errors);
  return errors;
}

}  // namespace fakekube::strategy
