#include "controllers/ray/internal/rayservice_services.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "controllers/ray/constants.h"
#include "controllers/ray/internal/naming.h"
#include "controllers/ray/internal/rayservice_types.h"
#include "controllers/ray/internal/service_builder.h"
#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"

namespace fakekube::ray {

std::string headServiceNameForRayService(const Json& rayService) {
  return fmt::format("{}-{}", meta::name(rayService), kHeadServiceSuffix);
}

std::string serveServiceNameForRayService(const Json& rayService) {
  return fmt::format("{}-{}", meta::name(rayService), kServeServiceSuffix);
}

Result<Json> buildHeadServiceForRayService(const Json& rayService, const Json& rayCluster,
                                           const OperatorOptions& options) {
  auto built = buildHeadService(rayCluster, options);
  if (!built) return tl::unexpected(built.error());
  Json service = std::move(*built);
  const std::string name = meta::name(rayService);
  Json& metadata = service["metadata"];
  metadata["name"] = headServiceNameForRayService(rayService);
  metadata["namespace"] = meta::namespace_(rayService);
  metadata["labels"] = {
      {std::string(kRayOriginatedFromCRNameLabelKey), name},
      {std::string(kRayOriginatedFromCRDLabelKey), std::string(kRayServiceKind)},
      {std::string(kRayNodeTypeLabelKey), std::string(kHeadNode)},
      {std::string(kRayIdLabelKey), checkLabel(generateIdentifier(name, kHeadNode))}};
  return service;
}

Result<Json> buildServeServiceForRayService(const Json& rayService, const Json& rayCluster,
                                            bool incrementalUpgradeGate) {
  // An incremental upgrade routes to each cluster's own serve Service, named after the cluster;
  // a user's serveService is not used then.
  const bool incremental = isIncrementalUpgradeEnabled(rayService, incrementalUpgradeGate);
  const std::string name = incremental ? meta::name(rayCluster) : meta::name(rayService);
  static const Json kNoCustomService;
  const Json& custom =
      incremental ? kNoCustomService : jsonAt(rayService, {"spec", "serveService"});
  auto built = buildServeService(rayCluster);
  if (!built && !custom.is_object()) return tl::unexpected(built.error());
  const Json ports = built ? jsonAt(*built, {"spec", "ports"}) : Json::array();
  const Json labels = {{std::string(kRayOriginatedFromCRNameLabelKey), name},
                       {std::string(kRayOriginatedFromCRDLabelKey), std::string(kRayServiceKind)},
                       {std::string(kRayClusterServingServiceLabelKey), name + "-serve"}};
  const Json selector = {{std::string(kRayClusterLabelKey), meta::name(rayCluster)},
                         {std::string(kRayClusterServingServiceLabelKey), "true"}};
  const std::string type =
      stringField(jsonObjectAt(jsonAt(rayService, {"spec", "rayClusterConfig"}), "headGroupSpec"),
                  "serviceType");
  const std::string defaultName = fmt::format("{}-{}", name, kServeServiceSuffix);
  if (!custom.is_object()) {
    Json service = {
        {"apiVersion", "v1"},
        {"kind", "Service"},
        {"metadata",
         {{"name", defaultName}, {"namespace", meta::namespace_(rayService)}, {"labels", labels}}},
        {"spec", {{"selector", selector}, {"ports", ports}}}};
    if (!type.empty()) service["spec"]["type"] = type;
    return service;
  }
  // The user's Service: KubeRay's selector, its ports merged by name, KubeRay's labels added,
  // name, namespace and type filled in when missing.
  Json service = custom;
  service["apiVersion"] = "v1";
  service["kind"] = "Service";
  Json& metadata = service["metadata"];
  if (!metadata.is_object()) metadata = Json::object();
  Json& spec = service["spec"];
  if (!spec.is_object()) spec = Json::object();
  spec["selector"] = selector;
  if (!metadata["annotations"].is_object()) metadata["annotations"] = Json::object();
  if (!ports.empty()) {
    Json merged = Json::array();
    for (const Json& port : ports) {
      Json chosen = port;
      for (const Json& user : jsonArrayAt(spec, "ports")) {
        if (stringField(user, "name") == stringField(port, "name")) chosen = user;
      }
      merged.push_back(std::move(chosen));
    }
    spec["ports"] = std::move(merged);
  }
  if (!metadata["labels"].is_object()) metadata["labels"] = Json::object();
  for (const auto& [k, v] : labels.items()) metadata["labels"][k] = v;
  if (stringField(metadata, "name").empty()) metadata["name"] = defaultName;
  metadata["namespace"] = meta::namespace_(rayService);
  if (stringField(spec, "type").empty() && !type.empty()) spec["type"] = type;
  return service;
}

}  // namespace fakekube::ray
