#include "controllers/ray/service_builder.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "controllers/ray/constants.h"
#include "controllers/ray/naming.h"
#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/object_meta.h"

namespace fakekube::ray {

namespace {

// getServicePorts: name -> port.
std::map<std::string, std::int64_t> servicePorts(const Json& rayCluster) {
  std::map<std::string, std::int64_t> ports;
  const Json& podSpec = podSpecOf(headGroupSpec(rayCluster));
  auto containers = podSpec.find("containers");
  if (containers != podSpec.end() && containers->is_array() && !containers->empty()) {
    const Json& container = (*containers)[kRayContainerIndex];
    if (auto list = container.find("ports"); list != container.end() && list->is_array()) {
      for (const Json& p : *list) {
        if (!p.is_object() || !p.contains("containerPort") ||
            !p["containerPort"].is_number_integer()) {
          continue;
        }
        const std::int64_t port = p["containerPort"].get<std::int64_t>();
        std::string name = p.contains("name") && p["name"].is_string()
                               ? p["name"].get<std::string>()
                               : std::string();
        if (name.empty()) name = std::to_string(port) + "-port";
        ports[name] = port;
      }
    }
  }
  if (ports.empty()) {
    ports = {{std::string(kClientPortName), kDefaultClientPort},
             {std::string(kGcsServerPortName), kDefaultGcsServerPort},
             {std::string(kDashboardPortName), kDefaultDashboardPort},
             {std::string(kMetricsPortName), kDefaultMetricsPort},
             {std::string(kServingPortName), kDefaultServingPort}};
  }
  ports.try_emplace(std::string(kMetricsPortName), kDefaultMetricsPort);
  return ports;
}

}  // namespace

Json headServiceLabels(const Json& rayCluster) {
  const std::string name = meta::name(rayCluster);
  return {{std::string(kRayClusterLabelKey), name},
          {std::string(kRayNodeTypeLabelKey), std::string(kHeadNode)},
          {std::string(kRayIdLabelKey), checkLabel(generateIdentifier(name, kHeadNode))},
          {std::string(kKubernetesApplicationNameLabelKey), std::string(kApplicationName)},
          {std::string(kKubernetesCreatedByLabelKey), std::string(kComponentName)}};
}

Result<Json> buildHeadService(const Json& rayCluster, const OperatorOptions& options) {
  const Json& head = headGroupSpec(rayCluster);
  // reconcileHeadService passes the head template's app.kubernetes.io/name, if any.
  Json selector = headServiceLabels(rayCluster);
  if (auto t = head.find("template"); t != head.end() && t->is_object()) {
    const Json& templateLabels = meta::labels(*t);
    if (templateLabels.is_object()) {
      auto app = templateLabels.find(std::string(kKubernetesApplicationNameLabelKey));
      if (app != templateLabels.end()) {
        selector[std::string(kKubernetesApplicationNameLabelKey)] = *app;
      }
    }
  }
  Json annotations = Json::object();
  if (rayCluster.contains("spec") && rayCluster["spec"].is_object()) {
    auto a = rayCluster["spec"].find("headServiceAnnotations");
    if (a != rayCluster["spec"].end() && a->is_object()) annotations = *a;
  }
  const std::string name = headServiceName(CrdType::RayCluster, rayCluster, meta::name(rayCluster));
  const std::string ns = meta::namespace_(rayCluster);
  const std::string type = head.contains("serviceType") && head["serviceType"].is_string()
                               ? head["serviceType"].get<std::string>()
                               : "";

  Json ports = Json::array();
  for (const auto& [portName, port] : servicePorts(rayCluster)) {  // sorted by name
    ports.push_back({{"name", portName},
                     {"port", port},
                     {"appProtocol", std::string(kDefaultServiceAppProtocol)}});
  }

  Json service;
  if (auto custom = head.find("headService"); custom != head.end() && custom->is_object()) {
    service = *custom;
    service["apiVersion"] = "v1";
    service["kind"] = "Service";
    if (!service.contains("metadata") || !service["metadata"].is_object()) {
      service["metadata"] = Json::object();
    }
    if (!service.contains("spec") || !service["spec"].is_object()) service["spec"] = Json::object();
    Json& metadata = service["metadata"];
    Json& spec = service["spec"];
    spec["selector"] = selector;
    if (!metadata.contains("annotations") || !metadata["annotations"].is_object()) {
      metadata["annotations"] = Json::object();
    }
    for (const auto& [k, v] : annotations.items()) metadata["annotations"][k] = v;
    if (!spec.contains("ports") || !spec["ports"].is_array()) spec["ports"] = Json::array();
    for (const Json& p : ports) spec["ports"].push_back(p);
    if (!metadata.contains("labels") || !metadata["labels"].is_object()) {
      metadata["labels"] = Json::object();
    }
    for (const auto& [k, v] : selector.items()) metadata["labels"][k] = v;
    if (metadata.value("name", Json("")).get<std::string>().empty()) metadata["name"] = name;
    metadata["namespace"] = ns;
    if (!spec.contains("type") || !spec["type"].is_string() ||
        spec["type"].get<std::string>().empty()) {
      if (!type.empty()) spec["type"] = type;
    }
  } else {
    service = {
        {"apiVersion", "v1"},
        {"kind", "Service"},
        {"metadata",
         {{"name", name}, {"namespace", ns}, {"labels", selector}, {"annotations", annotations}}},
        {"spec", {{"selector", selector}, {"ports", ports}}}};
    if (!type.empty()) service["spec"]["type"] = type;
    if (!options.enableRayHeadClusterIpService && (type.empty() || type == "ClusterIP")) {
      service["spec"]["clusterIP"] = "None";
      service["spec"]["publishNotReadyAddresses"] = true;
    }
  }
  if (service["spec"]["ports"].empty()) {
    return tl::unexpected(Status::badRequest(
        "ray head service does not have any ports set up. Service specification: " +
        service["spec"].dump()));
  }
  return service;
}

}  // namespace fakekube::ray
