#include "fakekube/apiserver/workload_validation.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"
#include "fakekube/apiserver/field_rules.h"
#include "fakekube/apiserver/pod_validation.h"

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

// ValidatePodTemplateSpecForReplicaSet: labels selected, the pod spec, restartPolicy Always.
void validateReplicatedTemplate(FieldErrors& errors, const Json& spec) {
  const Json& selector = jsonAt(spec, {"selector"});
  const Json& labels = jsonAt(spec, {"template", "metadata", "labels"});
  if (!selector.is_null() && !emptySelector(selector) && !selects(selector, labels)) {
    errors.push_back(FieldError::invalid("spec.template.metadata.labels", goStringMap(labels),
                                         "`selector` does not match template `labels`"));
  }
  const Json& podSpec = jsonAt(spec, {"template", "spec"});
  validatePodSpec(errors, podSpec, "spec.template.spec");
  const Json& restartPolicy = jsonAt(podSpec, {"restartPolicy"});
  if (stringValue(restartPolicy) != "Always") {
    errors.push_back(FieldError::notSupported("spec.template.spec.restartPolicy",
                                              goQuote(stringValue(restartPolicy)),
                                              supportedValues({"Always"})));
  }
  if (!jsonAt(podSpec, {"activeDeadlineSeconds"}).is_null()) {
    errors.push_back(FieldError::forbidden("spec.template.spec.activeDeadlineSeconds",
                                           "activeDeadlineSeconds in ReplicaSet is not Supported"));
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

// The selector of a Deployment or ReplicaSet: Required, not empty (kube says "deployment" for
// both), then the template.
void validateReplicatedSelector(FieldErrors& errors, const Json& spec) {
  const Json& selector = jsonAt(spec, {"selector"});
  if (selector.is_null()) {
    errors.push_back(FieldError::required("spec.selector"));
  } else if (emptySelector(selector)) {
    errors.push_back(FieldError::invalid("spec.selector", goEmptyLabelSelector(selector),
                                         "empty selector is invalid for deployment"));
  }
  validateReplicatedTemplate(errors, spec);
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

}  // namespace

void validateSelectorMatchesTemplate(FieldErrors& errors, const Json& workload) {
  const Json& selector = jsonAt(workload, {"spec", "selector"});
  if (selector.is_null() || emptySelector(selector)) {
    errors.push_back(FieldError::required("spec.selector"));
    return;
  }
  const Json& labels = jsonAt(workload, {"spec", "template", "metadata", "labels"});
  if (!selects(selector, labels)) {
    errors.push_back(FieldError::invalid("spec.template.metadata.labels", goStringMap(labels),
                                         "`selector` does not match template `labels`"));
  }
}

void validateDeployment(FieldErrors& errors, const Json& deployment) {
  const Json& spec = jsonAt(deployment, {"spec"});
  checkNonNegative(errors, jsonAt(spec, {"replicas"}), "spec.replicas");
  validateReplicatedSelector(errors, spec);
  validateDeploymentStrategy(errors, jsonAt(spec, {"strategy"}));
  checkNonNegative(errors, jsonAt(spec, {"minReadySeconds"}), "spec.minReadySeconds");
  checkNonNegative(errors, jsonAt(spec, {"revisionHistoryLimit"}), "spec.revisionHistoryLimit");
  validateProgressDeadline(errors, spec);
}

void validateReplicaSet(FieldErrors& errors, const Json& replicaSet) {
  const Json& spec = jsonAt(replicaSet, {"spec"});
  checkNonNegative(errors, jsonAt(spec, {"replicas"}), "spec.replicas");
  checkNonNegative(errors, jsonAt(spec, {"minReadySeconds"}), "spec.minReadySeconds");
  validateReplicatedSelector(errors, spec);
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
