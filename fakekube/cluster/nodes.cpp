#include "fakekube/cluster/nodes.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"

namespace fakekube {

namespace {

constexpr int kMaxUpdateAttempts = 5;

Json condition(std::string_view type, std::string_view status, std::string_view reason,
               std::string_view message, const std::string& now) {
  return {{"type", type},       {"status", status},         {"reason", reason},
          {"message", message}, {"lastHeartbeatTime", now}, {"lastTransitionTime", now}};
}

Json healthyConditions(const std::string& now) {
  return Json::array({
      condition("MemoryPressure", "False", "KubeletHasSufficientMemory",
                "kubelet has sufficient memory available", now),
      condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure",
                now),
      condition("PIDPressure", "False", "KubeletHasSufficientPID",
                "kubelet has sufficient PID available", now),
      condition("Ready", "True", "KubeletReady", "kubelet is posting ready status", now),
  });
}

// The pod range index of a node: N of spec.podCIDR "10.244.N.0/24", or -1.
int podRangeIndex(const Json& node) {
  const Json& spec = jsonAt(node, {"spec"});
  if (!spec.is_object()) return -1;
  std::string cidr = spec.value("podCIDR", "");
  int index = -1;
  if (std::sscanf(cidr.c_str(), "10.244.%d.0/24", &index) != 1) return -1;
  return index;
}

// get, change, updateStatus; again on a conflict.
Result<Json> updateNodeStatus(Client& client, std::string_view name,
                              const std::function<void(Json& node)>& change) {
  for (int attempt = 1;; ++attempt) {
    auto node = client.get(kNodes, "", name);
    if (!node) return node;
    change(*node);
    auto updated = client.updateStatus(kNodes, *node);
    if (updated || !isConflict(updated) || attempt == kMaxUpdateAttempts) return updated;
  }
}

}  // namespace

Json nodeObject(const NodeConfig& config, int index, TimePoint now) {
  const std::string time = formatRfc3339(now);
  Json labels = {{"kubernetes.io/hostname", config.name},
                 {"kubernetes.io/os", "linux"},
                 {"kubernetes.io/arch", "amd64"},
                 {"beta.kubernetes.io/os", "linux"},
                 {"beta.kubernetes.io/arch", "amd64"}};
  for (const auto& [key, value] : config.labels) labels[key] = value;
  const std::string podCidr = fmt::format("10.244.{}.0/24", index);
  Json spec = {{"podCIDR", podCidr}, {"podCIDRs", Json::array({podCidr})}};
  if (config.unschedulable) spec["unschedulable"] = true;
  Json resources = {{"cpu", config.cpu},
                    {"memory", config.memory},
                    {"pods", config.pods},
                    {"ephemeral-storage", config.ephemeralStorage}};
  if (!config.gpu.empty() && config.gpu != "0") resources["nvidia.com/gpu"] = config.gpu;
  return {
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata", {{"name", config.name}, {"labels", labels}}},
      {"spec", spec},
      {"status",
       {{"capacity", resources},
        {"allocatable", resources},
        {"conditions", healthyConditions(time)},
        {"addresses",
         Json::array({{{"type", "InternalIP"}, {"address", fmt::format("172.18.0.{}", index + 2)}},
                      {{"type", "Hostname"}, {"address", config.name}}})},
        {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 10250}}}}},
        {"nodeInfo",
         {{"machineID", fmt::format("{:032x}", index + 1)},
          {"systemUUID", fmt::format("{:032x}", index + 1)},
          {"bootID", fmt::format("{:032x}", index + 1)},
          {"kernelVersion", "6.1.0-fakekube"},
          {"osImage", "Debian GNU/Linux 12 (bookworm)"},
          {"containerRuntimeVersion", "containerd://1.7.18"},
          {"kubeletVersion", "v1.30.0"},
          {"kubeProxyVersion", "v1.30.0"},
          {"operatingSystem", "linux"},
          {"architecture", "amd64"}}}}}};
}

Result<Json> addNode(Client& client, Clock& clock, const NodeConfig& config) {
  auto nodes = client.list(kNodes, "");
  if (!nodes) return nodes;
  std::set<int> used;
  for (const auto& node : (*nodes)["items"]) used.insert(podRangeIndex(node));
  int index = 0;
  while (used.count(index)) ++index;
  return client.create(kNodes, nodeObject(config, index, clock.now()));
}

Result<Json> setNodeNotReady(Client& client, Clock& clock, std::string_view name,
                             NodeFailure failure) {
  const std::string now = formatRfc3339(clock.now());
  return updateNodeStatus(client, name, [&](Json& node) {
    for (auto& c : node["status"]["conditions"]) {
      std::string type = c.value("type", "");
      if (failure == NodeFailure::Unreachable) {
        // monitorNodeHealth: every condition the kubelet owns becomes Unknown.
        if (c.value("status", "") != "Unknown") c["lastTransitionTime"] = now;
        c["status"] = "Unknown";
        c["reason"] = "NodeStatusUnknown";
        c["message"] = "Kubelet stopped posting node status.";
      } else if (type == "Ready") {
        if (c.value("status", "") != "False") c["lastTransitionTime"] = now;
        c["status"] = "False";
        c["reason"] = "KubeletNotReady";
        c["message"] = "container runtime is down";
        c["lastHeartbeatTime"] = now;
      }
    }
  });
}

Result<Json> setNodeReady(Client& client, Clock& clock, std::string_view name) {
  const std::string now = formatRfc3339(clock.now());
  return updateNodeStatus(client, name, [&](Json& node) {
    Json healthy = healthyConditions(now);
    Json& conditions = node["status"]["conditions"];
    for (auto& c : healthy) {
      for (const auto& old : conditions) {
        if (old.value("type", "") == c["type"] && old.value("status", "") == c["status"]) {
          c["lastTransitionTime"] = old["lastTransitionTime"];
        }
      }
    }
    conditions = std::move(healthy);
  });
}

Result<Json> setNodeUnschedulable(Client& client, std::string_view name, bool unschedulable) {
  Json patch = {{"spec", {{"unschedulable", unschedulable ? Json(true) : Json(nullptr)}}}};
  return client.patch(kNodes, "", name, PatchType::Merge, patch.dump());
}

}  // namespace fakekube
