#include "fakekube/apiserver/internal/service_validation.h"

#include <nlohmann/json.hpp>
#include <set>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/validation.h"
#include "fakekube/apiserver/internal/field_rules.h"

namespace fakekube::strategy {

namespace {

// ValidatePortNumOrName: an IntOrString naming a port by number or by IANA_SVC_NAME.
void validateTargetPort(FieldErrors& errors, const Json& value, const std::string& path) {
  std::int64_t number = 0;
  if (integerValue(value, number)) {
    for (std::string& reason : isValidPortNum(number)) {
      errors.push_back(FieldError::invalid(path, std::to_string(number), std::move(reason)));
    }
  } else if (value.is_string()) {
    const std::string& name = value.get_ref<const std::string&>();
    for (std::string& reason : isValidPortName(name)) {
      errors.push_back(FieldError::invalidString(path, name, std::move(reason)));
    }
  }
}

// validateServicePort.
void validateServicePort(FieldErrors& errors, const Json& port, bool requireName,
                         std::set<std::string>& names, const std::string& path) {
  const std::string name = stringValue(jsonAt(port, {"name"}));
  if (requireName && name.empty()) {
    errors.push_back(FieldError::required(path + ".name"));
  } else if (!name.empty()) {
    for (std::string& reason : isDns1123Label(name)) {
      errors.push_back(FieldError::invalidString(path + ".name", name, std::move(reason)));
    }
    if (!names.insert(name).second) {
      errors.push_back(FieldError::duplicate(path + ".name", goQuote(name)));
    }
  }
  std::int64_t number = 0;
  integerValue(jsonAt(port, {"port"}), number);
  for (std::string& reason : isValidPortNum(number)) {
    errors.push_back(
        FieldError::invalid(path + ".port", std::to_string(number), std::move(reason)));
  }
  checkEnumeration(errors, jsonAt(port, {"protocol"}), path + ".protocol", {"SCTP", "TCP", "UDP"});
  validateTargetPort(errors, jsonAt(port, {"targetPort"}), path + ".targetPort");
}

void validateExternalTrafficPolicy(FieldErrors& errors, const Json& spec) {
  const std::string type = stringValue(jsonAt(spec, {"type"}));
  const Json& policy = jsonAt(spec, {"externalTrafficPolicy"});
  const bool external =
      type == "NodePort" || type == "LoadBalancer" || !jsonArrayAt(spec, "externalIPs").empty();
  if (!external) {
    if (!stringValue(policy).empty()) {
      errors.push_back(
          FieldError::invalidString("spec.externalTrafficPolicy", stringValue(policy),
                                    "may only be set for externally-accessible services"));
    }
    return;
  }
  checkEnumeration(errors, policy, "spec.externalTrafficPolicy", {"Cluster", "Local"});
}

}  // namespace

void validateService(FieldErrors& errors, const Json& service) {
  const Json& spec = jsonAt(service, {"spec"});
  const std::string type = stringValue(jsonAt(spec, {"type"}));
  const Json& ports = jsonArrayAt(spec, "ports");
  const bool headless = stringValue(jsonAt(spec, {"clusterIP"})) == "None";
  if (ports.empty() && !headless && type != "ExternalName") {
    errors.push_back(FieldError::required("spec.ports"));
  }
  if (type == "ExternalName" && stringValue(jsonAt(spec, {"externalName"})).empty()) {
    errors.push_back(FieldError::required("spec.externalName"));
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < ports.size(); ++i) {
    validateServicePort(errors, ports[i], ports.size() > 1, names, indexPath("spec.ports", i));
  }
  checkEnumeration(errors, jsonAt(spec, {"sessionAffinity"}), "spec.sessionAffinity",
                   {"ClientIP", "None"});
  checkEnumeration(errors, jsonAt(spec, {"type"}), "spec.type",
                   {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"});
  validateExternalTrafficPolicy(errors, spec);
}

}  // namespace fakekube::strategy
