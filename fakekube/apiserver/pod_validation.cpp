#include "fakekube/apiserver/internal/pod_validation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/quantity.h"
#include "fakekube/api/validation.h"
#include "fakekube/apiserver/internal/field_rules.h"

namespace fakekube::strategy {

namespace {

constexpr std::string_view kQuantityFormatError =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

// A quantity's text: Quantity.UnmarshalJSON takes a string or a bare number.
std::optional<std::string> quantityText(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number()) return value.dump();
  return std::nullopt;
}

// --- resources (ValidateResourceRequirements) ---

bool isHugePages(std::string_view name) { return name.starts_with("hugepages-"); }

// helper.IsNativeResource: no domain, or a kubernetes.io one.
bool isNative(std::string_view name) {
  return name.find('/') == std::string_view::npos ||
         name.find("kubernetes.io/") != std::string_view::npos;
}

// Requests may be below limits only for native resources other than huge pages.
bool overcommitAllowed(std::string_view name) { return isNative(name) && !isHugePages(name); }

bool isStandardContainerResource(std::string_view name) {
  return name == "cpu" || name == "memory" || name == "ephemeral-storage" || isHugePages(name);
}

// helper.IsStandardResourceName, for the names a container may meet.
bool isStandardResource(std::string_view name) {
  static const std::set<std::string_view> kStandard = {"cpu",
                                                       "memory",
                                                       "ephemeral-storage",
                                                       "storage",
                                                       "pods",
                                                       "services",
                                                       "configmaps",
                                                       "secrets",
                                                       "persistentvolumeclaims",
                                                       "replicationcontrollers",
                                                       "resourcequotas"};
  return kStandard.contains(name) || isHugePages(name) || name.starts_with("requests.") ||
         name.starts_with("limits.");
}

// validateContainerResourceName.
void validateResourceName(FieldErrors& errors, std::string_view name, const std::string& path) {
  std::vector<std::string> reasons = isQualifiedName(name);
  for (std::string& reason : reasons) {
    errors.push_back(FieldError::invalidString(path, name, std::move(reason)));
  }
  if (!reasons.empty()) return;
  if (name.find('/') == std::string_view::npos) {
    if (!isStandardResource(name)) {
      errors.push_back(FieldError::invalidString(
          path, name, "must be a standard resource type or fully qualified"));
    }
    if (!isStandardContainerResource(name)) {
      errors.push_back(
          FieldError::invalidString(path, name, "must be a standard resource for containers"));
    }
  } else if (!isNative(name) && !isQualifiedName("requests." + std::string(name)).empty()) {
    errors.push_back(
        FieldError::invalidString(path, name, "doesn't follow extended resource name standard"));
  }
}

// A quantity in milli-units, or in units when that overflows; nullopt when it does not parse.
struct Amount {
  std::int64_t value = 0;
  bool milli = true;
};
std::optional<Amount> amountOf(const Json& value) {
  auto text = quantityText(value);
  if (!text) return std::nullopt;
  if (auto milli = parseMilliQuantity(*text)) return Amount{*milli, true};
  if (auto units = parseQuantity(*text)) return Amount{*units, false};
  return std::nullopt;
}

// <0, 0, >0 as Quantity.Cmp; 0 when either side is unknown.
int compare(const std::optional<Amount>& a, const std::optional<Amount>& b) {
  if (!a || !b) return 0;
  if (a->milli == b->milli) return a->value < b->value ? -1 : (a->value > b->value ? 1 : 0);
  // One side overflowed milli-units: it is the larger in magnitude.
  const std::int64_t big = a->milli ? b->value : a->value;
  const int sign = big < 0 ? -1 : 1;
  return a->milli ? -sign : sign;
}

// One entry of limits or requests: its name, and a quantity that is not negative.
void validateQuantity(FieldErrors& errors, std::string_view name, const Json& value,
                      const std::string& path) {
  validateResourceName(errors, name, path);
  auto amount = amountOf(value);
  if (amount && amount->value < 0) {
    errors.push_back(FieldError::invalidString(path, quantityText(value).value_or(""),
                                               "must be greater than or equal to 0"));
  }
}

// A request against its limit: at most the limit, equal to it for a resource that cannot be
// overcommitted (which needs a limit).
void validateRequestAgainstLimit(FieldErrors& errors, const std::string& name, const Json& request,
                                 const Json* limit, const std::string& path) {
  if (limit == nullptr) {
    if (!overcommitAllowed(name)) {
      errors.push_back(FieldError::required(path + ".limits",
                                            "Limit must be set for non overcommitable resources"));
    }
    return;
  }
  const std::string shown = quantityText(request).value_or("");
  const std::string limitText = quantityText(*limit).value_or("");
  const int order = compare(amountOf(request), amountOf(*limit));
  if (order != 0 && !overcommitAllowed(name)) {
    errors.push_back(
        FieldError::invalidString(path + ".requests", shown,
                                  fmt::format("must be equal to {} limit of {}", name, limitText)));
  } else if (order > 0) {
    errors.push_back(FieldError::invalidString(
        path + ".requests", shown,
        fmt::format("must be less than or equal to {} limit of {}", name, limitText)));
  }
}

// ValidateResourceRequirements: the limits, then each request with its limit.
void validateResources(FieldErrors& errors, const Json& resources, const std::string& path) {
  const Json& limits = jsonObjectAt(resources, "limits");
  for (const auto& [name, value] : limits.get_ref<const Json::object_t&>()) {
    validateQuantity(errors, name, value, keyPath(path + ".limits", name));
  }
  const Json& requests = jsonObjectAt(resources, "requests");
  for (const auto& [name, value] : requests.get_ref<const Json::object_t&>()) {
    validateQuantity(errors, name, value, keyPath(path + ".requests", name));
    validateRequestAgainstLimit(errors, name, value, jsonFind(limits, name), path);
  }
}

// --- ports (validateContainerPorts) ---

void validatePortNumber(FieldErrors& errors, const Json& value, const std::string& path,
                        bool required) {
  std::int64_t port = 0;
  integerValue(value, port);  // absent: 0, as Go's zero value
  if (port == 0) {
    if (required) errors.push_back(FieldError::required(path));
    return;
  }
  for (std::string& reason : isValidPortNum(port)) {
    errors.push_back(FieldError::invalid(path, std::to_string(port), std::move(reason)));
  }
}

void validateContainerPorts(FieldErrors& errors, const Json& ports, const std::string& path) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < ports.size(); ++i) {
    const Json& port = ports[i];
    const std::string portPath = indexPath(path, i);
    const Json& name = jsonAt(port, {"name"});
    if (name.is_string() && !name.get_ref<const std::string&>().empty()) {
      const std::string& text = name.get_ref<const std::string&>();
      std::vector<std::string> reasons = isValidPortName(text);
      for (std::string& reason : reasons) {
        errors.push_back(FieldError::invalidString(portPath + ".name", text, std::move(reason)));
      }
      if (reasons.empty() && !names.insert(text).second) {
        errors.push_back(FieldError::duplicate(portPath + ".name", goQuote(text)));
      }
    }
    validatePortNumber(errors, jsonAt(port, {"containerPort"}), portPath + ".containerPort", true);
    validatePortNumber(errors, jsonAt(port, {"hostPort"}), portPath + ".hostPort", false);
    checkEnumeration(errors, jsonAt(port, {"protocol"}), portPath + ".protocol",
                     {"SCTP", "TCP", "UDP"});
  }
}

// --- containers (validateContainerCommon) ---

void validateContainer(FieldErrors& errors, const Json& container, const std::string& path) {
  const Json& name = jsonAt(container, {"name"});
  const std::string nameText = name.is_string() ? name.get<std::string>() : "";
  if (nameText.empty()) {
    errors.push_back(FieldError::required(path + ".name"));
  } else {
    for (std::string& reason : isDns1123Label(nameText)) {
      errors.push_back(FieldError::invalidString(path + ".name", nameText, std::move(reason)));
    }
  }
  const Json& image = jsonAt(container, {"image"});
  if (!image.is_string() || image.get_ref<const std::string&>().empty()) {
    errors.push_back(FieldError::required(path + ".image"));
  }
  checkEnumeration(errors, jsonAt(container, {"terminationMessagePolicy"}),
                   path + ".terminationMessagePolicy", {"File", "FallbackToLogsOnError"},
                   "must be 'File' or 'FallbackToLogsOnError'");
  validateContainerPorts(errors, jsonArrayAt(container, "ports"), path + ".ports");
  checkEnumeration(errors, jsonAt(container, {"imagePullPolicy"}), path + ".imagePullPolicy",
                   {"Always", "IfNotPresent", "Never"});
  validateResources(errors, jsonObjectAt(container, "resources"), path + ".resources");
}

// validateContainers and validateInitContainers: names are unique among the regular containers,
// and an init container's also among all of them.
void validateContainerList(FieldErrors& errors, const Json& containers, const std::string& path,
                           std::set<std::string>& names) {
  for (std::size_t i = 0; i < containers.size(); ++i) {
    const std::string containerPath = indexPath(path, i);
    validateContainer(errors, containers[i], containerPath);
    const Json& name = jsonAt(containers[i], {"name"});
    const std::string text = name.is_string() ? name.get<std::string>() : "";
    if (!names.insert(text).second) {
      errors.push_back(FieldError::duplicate(containerPath + ".name", goQuote(text)));
    }
  }
}

void validateActiveDeadline(FieldErrors& errors, const Json& value, const std::string& path) {
  std::int64_t seconds = 0;
  if (!integerValue(value, seconds)) return;
  if (seconds < 1 || seconds > 2147483647) {
    errors.push_back(FieldError::invalid(path, std::to_string(seconds),
                                         "must be between 1 and 2147483647, inclusive"));
  }
}

}  // namespace

void validatePodSpec(FieldErrors& errors, const Json& spec, const std::string& path) {
  const Json& containers = jsonArrayAt(spec, "containers");
  if (containers.empty()) {
    errors.push_back(FieldError::required(path + ".containers"));
  }
  std::set<std::string> names;
  validateContainerList(errors, containers, path + ".containers", names);
  // An empty init container name is Required above, not also a duplicate of another empty one.
  names.erase("");
  validateContainerList(errors, jsonArrayAt(spec, "initContainers"), path + ".initContainers",
                        names);
  checkEnumeration(errors, jsonAt(spec, {"restartPolicy"}), path + ".restartPolicy",
                   {"Always", "OnFailure", "Never"});
  checkEnumeration(errors, jsonAt(spec, {"dnsPolicy"}), path + ".dnsPolicy",
                   {"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"});
  validateActiveDeadline(errors, jsonAt(spec, {"activeDeadlineSeconds"}),
                         path + ".activeDeadlineSeconds");
}

namespace {

// Where a built-in kind keeps its pod spec; null for kinds without one.
const Json& podSpecOf(std::string_view kind, const Json& object) {
  static const Json kNull;
  if (kind == "Pod") return jsonAt(object, {"spec"});
  if (kind == "PodTemplate") return jsonAt(object, {"template", "spec"});
  if (kind == "CronJob") return jsonAt(object, {"spec", "jobTemplate", "spec", "template", "spec"});
  if (kind == "Deployment" || kind == "ReplicaSet" || kind == "StatefulSet" ||
      kind == "DaemonSet" || kind == "Job" || kind == "ReplicationController") {
    return jsonAt(object, {"spec", "template", "spec"});
  }
  return kNull;
}

}  // namespace

std::optional<Status> checkQuantities(std::string_view apiVersion, std::string_view kind,
                                      const Json& object) {
  const Json& podSpec = podSpecOf(kind, object);
  for (std::string_view list : {"initContainers", "containers"}) {
    for (const Json& container : jsonArrayAt(podSpec, list)) {
      const Json& resources = jsonObjectAt(container, "resources");
      for (std::string_view bag : {"limits", "requests"}) {
        for (const auto& [name, value] :
             jsonObjectAt(resources, bag).get_ref<const Json::object_t&>()) {
          auto text = quantityText(value);
          if (!text) continue;  // typed decoding reports the type
          auto parsed = parseMilliQuantity(*text);
          if (parsed || parsed.error().message.starts_with("quantity is too large")) continue;
          const bool suffix =
              parsed.error().message.starts_with("unable to parse quantity's suffix");
          return Status::badRequest(
              fmt::format("{} in version {} cannot be handled as a {}: {}", kind,
                          goQuote(apiVersion.substr(apiVersion.find('/') + 1)), kind,
                          suffix ? std::string_view("unable to parse quantity's suffix")
                                 : kQuantityFormatError));
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace fakekube::strategy
