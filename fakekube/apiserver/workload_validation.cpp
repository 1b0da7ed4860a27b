#include "fakekube/apiserver/internal/workload_validation.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"
#include "fakekube/apiserver/internal/field_rules.h"
#include "fakekube/apiserver/internal/pod_validation.h"

namespace fakekube::strategy {

namespace {

// Go's %#v of a map[string]string, which the selector/labels mismatch prints.
std::string goStringMap(const Json& labels) {
  std::string out = "map[string]string{";
  bool first = true;
  if (!labels.is_object()) return out + "}";
  for (const auto& [key, value] : labels.items()) {
    if (!first) out += ", ";
    out += goQuote(key) + ":" + goQuote(stringValue(value));
    first = false;
  }
  return out + "}";
}

// Whether a LabelSelector's matchLabels and matchExpressions select `labels`.
bool selects(const Json& selector, const Json& labels) {
  for (const auto& [key, value] : jsonObjectAt(selector, "matchLabels").items()) {
    const Json* label = jsonFind(labels, key);
    if (label == nullptr || *label != value) return false;
  }
  for (const Json& expression : jsonArrayAt(selector, "matchExpressions")) {
    const std::string key = stringValue(jsonAt(expression, {"key"}));
    const std::string op = stringValue(jsonAt(expression, {"operator"}));
    const Json* label = jsonFind(labels, key);
    bool inValues = false;
    for (const Json& value : jsonArrayAt(expression, "values")) {
      if (label != nullptr && *label == value) inValues = true;
    }
    if ((op == "In" && !inValues) || (op == "NotIn" && inValues) ||
        (op == "Exists" && label == nullptr) || (op == "DoesNotExist" && label != nullptr)) {
      return false;
    }
  }
  return true;
}

bool emptySelector(const Json& selector) {
  return jsonObjectAt(selector, "matchLabels").empty() &&
         jsonArrayAt(selector, "matchExpressions").empty();
}

// ValidatePodTemplateSpecForReplicaSet (and the same rules of StatefulSets and DaemonSets):
// labels selected, the pod spec, restartPolicy Always, no activeDeadlineSeconds. `owner` names
// the kind in that last message ("ReplicaSet" for Deployments too). A StatefulSet's pod spec is
// not validated (ValidatePodTemplateSpecForStatefulSet leaves it to a TODO): its pods' creates
// are.
void validateReplicatedTemplate(FieldErrors& errors, const Json& spec, std::string_view owner) {
  const Json& selector = jsonAt(spec, {"selector"});
  const Json& labels = jsonAt(spec, {"template", "metadata", "labels"});
  if (!selector.is_null() && !emptySelector(selector) && !selects(selector, labels)) {
    errors.push_back(FieldError::invalid("spec.template.metadata.labels", goStringMap(labels),
                                         "`selector` does not match template `labels`"));
  }
  const Json& podSpec = jsonAt(spec, {"template", "spec"});
  if (owner != "StatefulSet") validatePodSpec(errors, podSpec, "spec.template.spec");
  const Json& restartPolicy = jsonAt(podSpec, {"restartPolicy"});
  if (stringValue(restartPolicy) != "Always") {
    errors.push_back(FieldError::notSupported("spec.template.spec.restartPolicy",
                                              goQuote(stringValue(restartPolicy)),
                                              supportedValues({"Always"})));
  }
  if (!jsonAt(podSpec, {"activeDeadlineSeconds"}).is_null()) {
    errors.push_back(
        FieldError::forbidden("spec.template.spec.activeDeadlineSeconds",
                              fmt::format("activeDeadlineSeconds in {} is not Supported", owner)));
  }
}

// Go's %#v of the metav1.LabelSelector an empty selector is (nil and empty told apart).
std::string goEmptyLabelSelector(const Json& selector) {
  return fmt::format(
      "v1.LabelSelector{{MatchLabels:map[string]string{}, "
      "MatchExpressions:[]v1.LabelSelectorRequirement{}}}",
      jsonAt(selector, {"matchLabels"}).is_object() ? "{}" : "(nil)",
      jsonAt(selector, {"matchExpressions"}).is_array() ? "{}" : "(nil)");
}

// The selector of a workload: Required, not empty ("empty selector is invalid for deployment",
// which kube also says of a ReplicaSet's).
void validateReplicatedSelector(FieldErrors& errors, const Json& spec, std::string_view kindWord) {
  const Json& selector = jsonAt(spec, {"selector"});
  if (selector.is_null()) {
    errors.push_back(FieldError::required("spec.selector"));
  } else if (emptySelector(selector)) {
    errors.push_back(
        FieldError::invalid("spec.selector", goEmptyLabelSelector(selector),
                            fmt::format("empty selector is invalid for {}", kindWord)));
  }
}

// Go's %#v of apps.DeploymentStrategy, the value kube shows for an unsupported strategy type.
// A set rollingUpdate is a pointer, which Go prints as its address; a fixed one stands for it.
std::string goDeploymentStrategy(const Json& strategy) {
  const bool rolling = !jsonAt(strategy, {"rollingUpdate"}).is_null();
  return fmt::format(
      "apps.DeploymentStrategy{{Type:{}, RollingUpdate:(*apps.RollingUpdateDeployment)({})}}",
      goQuote(stringValue(jsonAt(strategy, {"type"}))), rolling ? "0xc000000000" : "nil");
}

void validateDeploymentStrategy(FieldErrors& errors, const Json& strategy) {
  const std::string type = stringValue(jsonAt(strategy, {"type"}));
  if (type == "Recreate") {
    if (!jsonAt(strategy, {"rollingUpdate"}).is_null()) {
      errors.push_back(
          FieldError::forbidden("spec.strategy.rollingUpdate",
                                "may not be specified when strategy `type` is 'Recreate'"));
    }
  } else if (type != "RollingUpdate") {
    errors.push_back(FieldError::notSupported("spec.strategy", goDeploymentStrategy(strategy),
                                              supportedValues({"Recreate", "RollingUpdate"})));
  }
}

void validateProgressDeadline(FieldErrors& errors, const Json& spec) {
  std::int64_t minReady = 0;
  std::int64_t deadline = 0;
  integerValue(jsonAt(spec, {"minReadySeconds"}), minReady);
  if (!integerValue(jsonAt(spec, {"progressDeadlineSeconds"}), deadline)) return;
  checkNonNegative(errors, jsonAt(spec, {"progressDeadlineSeconds"}),
                   "spec.progressDeadlineSeconds");
  if (deadline <= minReady) {
    errors.push_back(FieldError::invalid("spec.progressDeadlineSeconds", std::to_string(deadline),
                                         "must be greater than minReadySeconds"));
  }
}

void validateCompletionMode(FieldErrors& errors, const Json& spec) {
  const Json& mode = jsonAt(spec, {"completionMode"});
  if (!mode.is_string()) return;
  const std::string& text = mode.get_ref<const std::string&>();
  if (text != "NonIndexed" && text != "Indexed") {
    errors.push_back(FieldError::notSupported("spec.completionMode", goQuote(text),
                                              supportedValues({"NonIndexed", "Indexed"})));
  }
  if (text == "Indexed" && jsonAt(spec, {"completions"}).is_null()) {
    errors.push_back(FieldError::required("spec.completions", "when completion mode is Indexed"));
  }
}

// An enumeration that only a create defaults: checked when present.
void checkSetEnumeration(FieldErrors& errors, const Json& value, const std::string& path,
                         std::string_view first, std::string_view second) {
  if (value.is_null()) return;
  const std::string text = stringValue(value);
  if (text == first || text == second) return;
  if (text.empty()) {
    errors.push_back(FieldError::required(path));
    return;
  }
  errors.push_back(
      FieldError::invalidString(path, text, fmt::format("must be '{}' or '{}'", first, second)));
}

}  // namespace

void validateStatefulSet(FieldErrors& errors, const Json& statefulSet) {
  const Json& spec = jsonAt(statefulSet, {"spec"});
  checkSetEnumeration(errors, jsonAt(spec, {"podManagementPolicy"}), "spec.podManagementPolicy",
                      "OrderedReady", "Parallel");
  checkNonNegative(errors, jsonAt(spec, {"replicas"}), "spec.replicas");
  checkNonNegative(errors, jsonAt(spec, {"minReadySeconds"}), "spec.minReadySeconds");
  validateReplicatedSelector(errors, spec, "statefulset");
  validateReplicatedTemplate(errors, spec, "StatefulSet");
}

void validateDaemonSet(FieldErrors& errors, const Json& daemonSet) {
  const Json& spec = jsonAt(daemonSet, {"spec"});
  validateReplicatedSelector(errors, spec, "daemonset");
  validateReplicatedTemplate(errors, spec, "DaemonSet");
  checkNonNegative(errors, jsonAt(spec, {"minReadySeconds"}), "spec.minReadySeconds");
  checkNonNegative(errors, jsonAt(spec, {"revisionHistoryLimit"}), "spec.revisionHistoryLimit");
}

void validateDeployment(FieldErrors& errors, const Json& deployment) {
  const Json& spec = jsonAt(deployment, {"spec"});
  checkNonNegative(errors, jsonAt(spec, {"replicas"}), "spec.replicas");
  validateReplicatedSelector(errors, spec, "deployment");
  validateReplicatedTemplate(errors, spec, "ReplicaSet");
  validateDeploymentStrategy(errors, jsonAt(spec, {"strategy"}));
  checkNonNegative(errors, jsonAt(spec, {"minReadySeconds"}), "spec.minReadySeconds");
  checkNonNegative(errors, jsonAt(spec, {"revisionHistoryLimit"}), "spec.revisionHistoryLimit");
  validateProgressDeadline(errors, spec);
}

void validateReplicaSet(FieldErrors& errors, const Json& replicaSet) {
  const Json& spec = jsonAt(replicaSet, {"spec"});
  checkNonNegative(errors, jsonAt(spec, {"replicas"}), "spec.replicas");
  checkNonNegative(errors, jsonAt(spec, {"minReadySeconds"}), "spec.minReadySeconds");
  validateReplicatedSelector(errors, spec, "deployment");
  validateReplicatedTemplate(errors, spec, "ReplicaSet");
}

void validateJob(FieldErrors& errors, const Json& job) {
  const Json& spec = jsonAt(job, {"spec"});
  for (std::string_view field : {"parallelism", "completions", "activeDeadlineSeconds",
                                 "backoffLimit", "ttlSecondsAfterFinished"}) {
    checkNonNegative(errors, jsonAt(spec, {field}), "spec." + std::string(field));
  }
  validateCompletionMode(errors, spec);
  // Without manualSelector the server generates the selector once the Job has its uid.
  const Json& selector = jsonAt(spec, {"selector"});
  if (selector.is_null()) {
    if (jsonAt(spec, {"manualSelector"}) == Json(true)) {
      errors.push_back(FieldError::required("spec.selector"));
    }
  } else if (!selects(selector, jsonAt(spec, {"template", "metadata", "labels"}))) {
    errors.push_back(
        FieldError::invalid("spec.template.metadata.labels",
                            goStringMap(jsonAt(spec, {"template", "metadata", "labels"})),
                            "`selector` does not match template `labels`"));
  }
  const Json& podSpec = jsonAt(spec, {"template", "spec"});
  validatePodSpec(errors, podSpec, "spec.template.spec");
  const std::string restartPolicy = stringValue(jsonAt(podSpec, {"restartPolicy"}));
  if (restartPolicy != "OnFailure" && restartPolicy != "Never") {
    errors.push_back(FieldError::notSupported("spec.template.spec.restartPolicy",
                                              goQuote(restartPolicy),
                                              supportedValues({"OnFailure", "Never"})));
  }
}

}  // namespace fakekube::strategy
