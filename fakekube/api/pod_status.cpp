#include "fakekube/api/pod_status.h"

#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"

namespace fakekube {

namespace {

std::string stringAt(const Json& object, std::string_view parent, std::string_view key) {
  const Json& value = jsonAt(object, {parent, key});
  return value.is_string() ? value.get<std::string>() : std::string();
}

}  // namespace

std::string podPhase(const Json& pod) { return stringAt(pod, "status", "phase"); }

std::string podNodeName(const Json& pod) { return stringAt(pod, "spec", "nodeName"); }

bool isPodTerminal(const Json& pod) {
  std::string phase = podPhase(pod);
  return phase == "Succeeded" || phase == "Failed";
}

bool isPodReady(const Json& pod) { return isConditionTrue(pod, "Ready"); }

bool isNodeReady(const Json& node) { return isConditionTrue(node, "Ready"); }

}  // namespace fakekube
