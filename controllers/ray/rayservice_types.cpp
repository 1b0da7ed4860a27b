#include "controllers/ray/internal/rayservice_types.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "controllers/ray/internal/raycluster_status.h"
#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/json_lookup.h"

namespace fakekube::ray {

namespace {

const std::string& stringAtPath(const Json& j, std::initializer_list<std::string_view> path) {
  static const std::string empty;
  const Json& v = jsonAt(j, path);
  return v.is_string() ? v.get_ref<const std::string&>() : empty;
}

// Go's time.ParseDuration: an optional sign, then one or more decimal numbers each with a unit
// (ns, us, µs, ms, s, m, h). nullopt when the text is not one.
std::optional<Duration> parseGoDuration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  bool negative = false;
  if (text[0] == '-' || text[0] == '+') {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text == "0") return Duration{0};
  if (text.empty()) return std::nullopt;
  long double total = 0;  // nanoseconds
  while (!text.empty()) {
    std::size_t i = 0;
    long double value = 0;
    bool digits = false;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      value = value * 10 + (text[i] - '0');
      ++i;
      digits = true;
    }
    if (i < text.size() && text[i] == '.') {
      ++i;
      long double scale = 0.1L;
      while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
        value += (text[i] - '0') * scale;
        scale /= 10;
        ++i;
        digits = true;
      }
    }
    if (!digits) return std::nullopt;
    std::size_t unitEnd = i;
    while (unitEnd < text.size() && !(text[unitEnd] >= '0' && text[unitEnd] <= '9') &&
           text[unitEnd] != '.') {
      ++unitEnd;
    }
    const std::string_view unit = text.substr(i, unitEnd - i);
    long double nanos = 0;
    if (unit == "ns") {
      nanos = 1;
    } else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") {
      nanos = 1e3L;
    } else if (unit == "ms") {
      nanos = 1e6L;
    } else if (unit == "s") {
      nanos = 1e9L;
    } else if (unit == "m") {
      nanos = 60e9L;
    } else if (unit == "h") {
      nanos = 3600e9L;
    } else {
      return std::nullopt;
    }
    total += value * nanos;
    text.remove_prefix(unitEnd);
  }
  if (total > 9.2e18L) return std::nullopt;
  auto nanos = std::chrono::nanoseconds(static_cast<std::int64_t>(total));
  return std::chrono::duration_cast<Duration>(negative ? -nanos : nanos);
}

// strconv.Atoi on the whole text.
std::optional<std::int64_t> parseInteger(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::size_t i = text[0] == '-' || text[0] == '+' ? 1 : 0;
  if (i == text.size()) return std::nullopt;
  std::int64_t value = 0;
  for (std::size_t k = i; k < text.size(); ++k) {
    if (text[k] < '0' || text[k] > '9') return std::nullopt;
    if (value > 922337203685477580) return std::nullopt;
    value = value * 10 + (text[k] - '0');
  }
  return text[0] == '-' ? -value : value;
}

bool inconsistentServiceStatus(const Json& oldStatus, const Json& newStatus) {
  if (stringField(oldStatus, "rayClusterName") != stringField(newStatus, "rayClusterName")) {
    return true;
  }
  // The incremental upgrade's fields, by value (upstream compares the pointers: see
  // rayservice_incremental_upgrade.h).
  for (const char* field : {"targetCapacity", "trafficRoutedPercent", "lastTrafficMigratedTime"}) {
    const Json* before = jsonFind(oldStatus, field);
    const Json* after = jsonFind(newStatus, field);
    if ((before == nullptr) != (after == nullptr)) return true;
    if (before != nullptr && !sameJson(*before, *after)) return true;
  }
  const Json& oldApps = jsonObjectAt(oldStatus, "applicationStatuses");
  const Json& newApps = jsonObjectAt(newStatus, "applicationStatuses");
  if (oldApps.size() != newApps.size()) return true;
  for (const auto& [name, app] : newApps.items()) {
    const Json* old = jsonFind(oldApps, name);
    if (old == nullptr) return true;
    if (stringField(*old, "status") != stringField(app, "status") ||
        stringField(*old, "message") != stringField(app, "message")) {
      return true;
    }
    const Json& oldDeployments = jsonObjectAt(*old, "serveDeploymentStatuses");
    const Json& newDeployments = jsonObjectAt(app, "serveDeploymentStatuses");
    if (oldDeployments.size() != newDeployments.size()) return true;
    for (const auto& [deploymentName, deployment] : newDeployments.items()) {
      const Json* oldDeployment = jsonFind(oldDeployments, deploymentName);
      if (oldDeployment == nullptr) return true;
      if (stringField(*oldDeployment, "status") != stringField(deployment, "status") ||
          stringField(*oldDeployment, "message") != stringField(deployment, "message")) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

std::string serveConfigV2(const Json& rayService) {
  return stringAtPath(rayService, {"spec", "serveConfigV2"});
}

bool isRayServiceSuspendRequested(const Json& rayService) {
  const Json& v = jsonAt(rayService, {"spec", "suspend"});
  return v.is_boolean() && v.get<bool>();
}

bool excludeHeadPodFromServeSvc(const Json& rayService) {
  const Json& v = jsonAt(rayService, {"spec", "excludeHeadPodFromServeSvc"});
  return v.is_boolean() && v.get<bool>();
}

std::optional<std::int64_t> rayClusterDeletionDelaySeconds(const Json& rayService) {
  const Json& v = jsonAt(rayService, {"spec", "rayClusterDeletionDelaySeconds"});
  if (!v.is_number_integer()) return std::nullopt;
  return v.get<std::int64_t>();
}

std::optional<std::string> rayServiceUpgradeType(const Json& rayService) {
  const Json& v = jsonAt(rayService, {"spec", "upgradeStrategy", "type"});
  if (!v.is_string()) return std::nullopt;
  return v.get<std::string>();
}

bool isIncrementalUpgradeEnabled(const Json& rayService, bool featureGate) {
  if (!featureGate) return false;
  const auto type = rayServiceUpgradeType(rayService);
  return type && *type == kRayServiceNewClusterWithIncrementalUpgrade;
}

std::string activeClusterName(const Json& rayService) {
  return stringAtPath(rayService, {"status", "activeServiceStatus", "rayClusterName"});
}

std::string pendingClusterName(const Json& rayService) {
  return stringAtPath(rayService, {"status", "pendingServiceStatus", "rayClusterName"});
}

const Json* findRayServiceCondition(const Json& rayService, std::string_view type) {
  return findStatusCondition(jsonAt(rayService, {"status", "conditions"}), type);
}

bool isRayServiceConditionTrue(const Json& rayService, std::string_view type) {
  return isStatusConditionTrue(jsonAt(rayService, {"status", "conditions"}), type);
}

void setRayServiceCondition(Json& rayService, std::string_view type, std::string_view status,
                            std::string_view reason, std::string_view message, TimePoint now) {
  Json& statusObject = jsonMember(rayService, "status");
  if (!statusObject.is_object()) statusObject = Json::object();
  Json& conditions = jsonMember(statusObject, "conditions");
  setStatusCondition(conditions, type, status, reason, message, now);
  const Json& generation = jsonAt(statusObject, {"observedGeneration"});
  for (Json& c : conditions) {
    if (c.is_object() && stringField(c, "type") == type) {
      jsonMember(c, "observedGeneration") =
          generation.is_number_integer() ? generation.get<std::int64_t>() : 0;
    }
  }
}

void removeRayServiceCondition(Json& rayService, std::string_view type) {
  Json& statusObject = jsonMember(rayService, "status");
  if (!statusObject.is_object()) return;
  Json& conditions = jsonMember(statusObject, "conditions");
  removeStatusCondition(conditions, type);
}

bool inconsistentRayServiceStatuses(const Json& oldStatus, const Json& newStatus) {
  if (stringField(oldStatus, "serviceStatus") != stringField(newStatus, "serviceStatus")) {
    return true;
  }
  const Json& oldEndpoints = jsonAt(oldStatus, {"numServeEndpoints"});
  const Json& newEndpoints = jsonAt(newStatus, {"numServeEndpoints"});
  auto count = [](const Json& v) { return v.is_number_integer() ? v.get<std::int64_t>() : 0; };
  if (count(oldEndpoints) != count(newEndpoints)) return true;
  const Json& oldConditions = jsonAt(oldStatus, {"conditions"});
  const Json& newConditions = jsonAt(newStatus, {"conditions"});
  const bool oldEmpty = !oldConditions.is_array() || oldConditions.empty();
  const bool newEmpty = !newConditions.is_array() || newConditions.empty();
  if (oldEmpty != newEmpty) return true;
  if (!oldEmpty && !sameJson(oldConditions, newConditions)) return true;
  return inconsistentServiceStatus(jsonObjectAt(oldStatus, "activeServiceStatus"),
                                   jsonObjectAt(newStatus, "activeServiceStatus")) ||
         inconsistentServiceStatus(jsonObjectAt(oldStatus, "pendingServiceStatus"),
                                   jsonObjectAt(newStatus, "pendingServiceStatus"));
}

InitializingTimeout initializingTimeout(const Json& rayService) {
  const std::string& text = stringAtPath(
      rayService, {"metadata", "annotations", kRayServiceInitializingTimeoutAnnotation});
  InitializingTimeout result;
  if (text.empty()) return result;
  const std::string key(kRayServiceInitializingTimeoutAnnotation);
  if (auto duration = parseGoDuration(text)) {
    if (*duration <= Duration{0}) {
      result.invalid = fmt::format("annotation {} must be a positive duration, got: {}", key, text);
      return result;
    }
    result.timeout = *duration;
    return result;
  }
  if (auto seconds = parseInteger(text)) {
    if (*seconds <= 0) {
      result.invalid =
          fmt::format("annotation {} must be a positive integer (seconds), got: {}", key, text);
      return result;
    }
    result.timeout = std::chrono::seconds(*seconds);
    return result;
  }
  result.invalid = fmt::format(
      "annotation {} has invalid format: {}. Expected Go duration format (e.g., '5m', '1h') or "
      "positive integer seconds",
      key, text);
  return result;
}

std::string goDurationString(Duration d) {
  auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
  if (nanos == 0) return "0s";
  std::string sign = nanos < 0 ? "-" : "";
  std::uint64_t u = static_cast<std::uint64_t>(nanos < 0 ? -nanos : nanos);
  if (u < 1000000000ULL) {
    // Below a second Go prints the largest fitting unit with a fraction.
    auto fraction = [&](std::uint64_t unit, const char* name) {
      std::string whole = std::to_string(u / unit);
      std::string rest = fmt::format("{:0{}}", u % unit, static_cast<int>(std::log10(unit)));
      while (!rest.empty() && rest.back() == '0') rest.pop_back();
      return sign + whole + (rest.empty() ? "" : "." + rest) + name;
    };
    if (u < 1000ULL) return sign + std::to_string(u) + "ns";
    if (u < 1000000ULL) return fraction(1000ULL, "µs");
    return fraction(1000000ULL, "ms");
  }
  const std::uint64_t hours = u / 3600000000000ULL;
  u %= 3600000000000ULL;
  const std::uint64_t minutes = u / 60000000000ULL;
  u %= 60000000000ULL;
  std::string seconds = std::to_string(u / 1000000000ULL);
  std::string rest = fmt::format("{:09}", u % 1000000000ULL);
  while (!rest.empty() && rest.back() == '0') rest.pop_back();
  if (!rest.empty()) seconds += "." + rest;
  std::string out = sign;
  if (hours > 0) out += std::to_string(hours) + "h";
  if (hours > 0 || minutes > 0) out += std::to_string(minutes) + "m";
  return out + seconds + "s";
}

}  // namespace fakekube::ray
