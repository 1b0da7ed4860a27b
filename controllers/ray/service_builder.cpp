#include "controllers/ray/internal/service_builder.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "controllers/ray/constants.h"
#include "controllers/ray/internal/naming.h"
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

namespace {

// What the head Service is built from: the defaults a user-provided headService is completed
// with.
struct HeadServiceParts {
  Json selector;
  Json annotations = Json::object();
  Json ports = Json::array();
  std::string name;
  std::string ns;
  std::string type;
};

HeadServiceParts headServiceParts(const Json& rayCluster) {
  const Json& head = headGroupSpec(rayCluster);
  HeadServiceParts parts;
  // reconcileHeadService passes the head template's app.kubernetes.io/name, if any.
  parts.selector = headServiceLabels(rayCluster);
  if (auto t = head.find("template"); t != head.end() && t->is_object()) {
    const Json& templateLabels = meta::labels(*t);
    if (templateLabels.is_object()) {
      auto app = templateLabels.find(std::string(kKubernetesApplicationNameLabelKey));
      if (app != templateLabels.end()) {
        parts.selector[std::string(kKubernetesApplicationNameLabelKey)] = *app;
      }
    }
  }
  if (rayCluster.contains("spec") && rayCluster["spec"].is_object()) {
    auto a = rayCluster["spec"].find("headServiceAnnotations");
    if (a != rayCluster["spec"].end() && a->is_object()) parts.annotations = *a;
  }
  parts.name = headServiceName(CrdType::RayCluster, rayCluster, meta::name(rayCluster));
  parts.ns = meta::namespace_(rayCluster);
  parts.type = head.contains("serviceType") && head["serviceType"].is_string()
                   ? head["serviceType"].get<std::string>()
                   : "";
  for (const auto& [portName, port] : servicePorts(rayCluster)) {  // sorted by name
    parts.ports.push_back({{"name", portName},
                           {"port", port},
                           {"appProtocol", std::string(kDefaultServiceAppProtocol)}});
  }
  return parts;
}

// headGroupSpec.headService completed: the selector, the annotations, the ports and the labels
// added; the name, when it has none; the namespace; the serviceType, when it names no type.
Json userProvidedHeadService(const Json& custom, const HeadServiceParts& parts) {
  Json service = custom;
  service["apiVersion"] = "v1";
  service["kind"] = "Service";
  if (!service.contains("metadata") || !service["metadata"].is_object()) {
    service["metadata"] = Json::object();
  }
  if (!service.contains("spec") || !service["spec"].is_object()) service["spec"] = Json::object();
  Json& metadata = service["metadata"];
  Json& spec = service["spec"];
  spec["selector"] = parts.selector;
  if (!metadata.contains("annotations") || !metadata["annotations"].is_object()) {
    metadata["annotations"] = Json::object();
  }
  for (const auto& [k, v] : parts.annotations.items()) metadata["annotations"][k] = v;
  if (!spec.contains("ports") || !spec["ports"].is_array()) spec["ports"] = Json::array();
  for (const Json& p : parts.ports) spec["ports"].push_back(p);
  if (!metadata.contains("labels") || !metadata["labels"].is_object()) {
    metadata["labels"] = Json::object();
  }
  for (const auto& [k, v] : parts.selector.items()) metadata["labels"][k] = v;
  if (!metadata.contains("name") || !metadata["name"].is_string() ||
      metadata["name"].get<std::string>().empty()) {
    metadata["name"] = parts.name;
  }
  metadata["namespace"] = parts.ns;
  if (!spec.contains("type") || !spec["type"].is_string() ||
      spec["type"].get<std::string>().empty()) {
    if (!parts.type.empty()) spec["type"] = parts.type;
  }
  return service;
}

}  // namespace

Result<Json> buildHeadService(const Json& rayCluster, const OperatorOptions& options) {
  const Json& head = headGroupSpec(rayCluster);
  const HeadServiceParts parts = headServiceParts(rayCluster);
  Json service;
  if (auto custom = head.find("headService"); custom != head.end() && custom->is_object()) {
    service = userProvidedHeadService(*custom, parts);
  } else {
    service = {{"apiVersion", "v1"},
               {"kind", "Service"},
               {"metadata",
                {{"name", parts.name},
                 {"namespace", parts.ns},
                 {"labels", parts.selector},
                 {"annotations", parts.annotations}}},
               {"spec", {{"selector", parts.selector}, {"ports", parts.ports}}}};
    if (!parts.type.empty()) service["spec"]["type"] = parts.type;
    if (!options.enableRayHeadClusterIpService &&
        (parts.type.empty() || parts.type == "ClusterIP")) {
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

Result<Json> buildServeService(const Json& rayCluster) {
  const std::string name = meta::name(rayCluster);
  Json ports = Json::array();
  for (const auto& [portName, port] : servicePorts(rayCluster)) {
    if (portName == kServingPortName ||
        portName.rfind(std::string(kServingPortName) + "-", 0) == 0) {
      ports.push_back({{"name", portName}, {"port", port}});
    }
  }
  if (ports.empty()) {
    return tl::unexpected(Status::badRequest(
        "Please specify a port named 'serve' (or with the prefix 'serve-', e.g. 'serve-grpc') in "
        "the Ray head container; otherwise, the Kubernetes service for Ray Serve will not be "
        "created."));
  }
  Json service = {
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata",
       {{"name", name + "-" + std::string(kServeServiceSuffix)},
        {"namespace", meta::namespace_(rayCluster)},
        {"labels",
         {{std::string(kRayOriginatedFromCRNameLabelKey), name},
          {std::string(kRayOriginatedFromCRDLabelKey), std::string(kRayClusterKind)},
          {std::string(kRayClusterServingServiceLabelKey), name + "-serve"}}}}},
      {"spec", {{"selector", {{std::string(kRayClusterLabelKey), name}}}, {"ports", ports}}}};
  const std::string type = stringField(headGroupSpec(rayCluster), "serviceType");
  if (!type.empty()) service["spec"]["type"] = type;
  return service;
}

Json buildHeadlessService(const Json& rayCluster) {
  const std::string name = meta::name(rayCluster);
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata",
           {{"name", headlessServiceName(name)},
            {"namespace", meta::namespace_(rayCluster)},
            {"labels", {{std::string(kRayClusterHeadlessServiceLabelKey), name}}}}},
          {"spec",
           {{"clusterIP", "None"},
            {"selector",
             {{std::string(kRayClusterLabelKey), name},
              {std::string(kRayNodeTypeLabelKey), std::string(kWorkerNode)}}},
            {"type", "ClusterIP"},
            {"publishNotReadyAddresses", true}}}};
}

}  // namespace fakekube::ray
