#include "controllers/ray/sim/internal/gateway_controller.h"

#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "controllers/ray/internal/gateway_api.h"
#include "controllers/ray/internal/raycluster_status.h"
#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/runtime/builder.h"
#include "fakekube/runtime/manager.h"

namespace fakekube::ray {
namespace {

// A condition as a Gateway API implementation sets it: metav1 SetStatusCondition, with the
// object's generation observed.
void setGatewayApiCondition(Json& conditions, std::string_view type, bool isTrue,
                            std::string_view reason, std::string_view message,
                            std::int64_t generation, TimePoint now) {
  setStatusCondition(conditions, type, isTrue ? "True" : "False", reason, message, now);
  for (Json& condition : conditions) {
    if (stringField(condition, "type") == type) condition["observedGeneration"] = generation;
  }
}

ReconcileOutcome writeStatusIfChanged(Manager& manager, const GroupVersionResource& gvr,
                                      const Json& original, Json& object) {
  if (jsonAt(original, {"status"}) == jsonAt(object, {"status"})) return ReconcileResult{};
  if (auto written = manager.client().updateStatus(gvr, object); !written) {
    return reconcileError(written.error());
  }
  return ReconcileResult{};
}

ReconcileOutcome reconcileGatewayStatus(Manager& manager, const ReconcileRequest& request) {
  auto got = manager.client().get(kGateways, request.namespace_, request.name);
  if (!got) {
    if (isNotFound(got.error())) return ReconcileResult{};
    return reconcileError(got.error());
  }
  const Json original = *got;
  Json& gateway = *got;
  if (meta::isDeleting(gateway)) return ReconcileResult{};
  const std::int64_t generation = meta::generation(gateway);
  const TimePoint now = manager.executor().clock().now();
  Json& conditions = gateway["status"]["conditions"];
  setGatewayApiCondition(conditions, kGatewayConditionAccepted, true, "Accepted",
                         "Resource accepted", generation, now);
  setGatewayApiCondition(conditions, kGatewayConditionProgrammed, true, "Programmed",
                         "Resource programmed", generation, now);
  return writeStatusIfChanged(manager, kGateways, original, gateway);
}

// A parentRef names a Gateway when its group and kind are the Gateway API's (their defaults).
bool refersToGateway(const Json& parentRef) {
  const Json& group = jsonAt(parentRef, {"group"});
  const Json& kind = jsonAt(parentRef, {"kind"});
  return (!group.is_string() || group == kGatewayApiGroup) &&
         (!kind.is_string() || kind == "Gateway");
}

// The message of ResolvedRefs False: the first backend Service that does not exist, or "".
Result<std::string> findMissingBackend(Manager& manager, const Json& route) {
  for (const Json& rule : jsonArrayAt(jsonObjectAt(route, "spec"), "rules")) {
    for (const Json& backend : jsonArrayAt(rule, "backendRefs")) {
      const std::string& kind = stringField(backend, "kind");
      if (!kind.empty() && kind != "Service") continue;
      std::string ns = stringField(backend, "namespace");
      if (ns.empty()) ns = meta::namespace_(route);
      const std::string& name = stringField(backend, "name");
      auto service = manager.client().get(kServices, ns, name);
      if (service) continue;
      if (!isNotFound(service.error())) return tl::unexpected(service.error());
      return fmt::format("Service \"{}\" not found", name);
    }
  }
  return std::string();
}

// One status.parents entry: the parentRef, this controller's name, Accepted and ResolvedRefs.
Result<Json> routeParentStatus(Manager& manager, const GatewayControllerOptions& options,
                               const Json& route, const Json& parentRef, const Json& previous,
                               const std::string& missingBackend) {
  std::string ns = stringField(parentRef, "namespace");
  if (ns.empty()) ns = meta::namespace_(route);
  auto gateway = manager.client().get(kGateways, ns, stringField(parentRef, "name"));
  if (!gateway && !isNotFound(gateway.error())) return tl::unexpected(gateway.error());
  const std::int64_t generation = meta::generation(route);
  const TimePoint now = manager.executor().clock().now();
  Json conditions = jsonAt(previous, {"conditions"});
  if (gateway.has_value()) {
    setGatewayApiCondition(conditions, kRouteConditionAccepted, true, "Accepted", "Route was valid",
                           generation, now);
  } else {
    setGatewayApiCondition(conditions, kRouteConditionAccepted, false, kRouteReasonNoMatchingParent,
                           "No Gateway matches this parentRef", generation, now);
  }
  if (missingBackend.empty()) {
    setGatewayApiCondition(conditions, kRouteConditionResolvedRefs, true, "ResolvedRefs",
                           "Resolved all the Object references for the Route", generation, now);
  } else {
    setGatewayApiCondition(conditions, kRouteConditionResolvedRefs, false,
                           kRouteReasonBackendNotFound, missingBackend, generation, now);
  }
  return Json{{"parentRef", parentRef},
              {"controllerName", options.controllerName},
              {"conditions", std::move(conditions)}};
}

ReconcileOutcome reconcileHttpRouteStatus(Manager& manager, const GatewayControllerOptions& options,
                                          const ReconcileRequest& request) {
  auto got = manager.client().get(kHttpRoutes, request.namespace_, request.name);
  if (!got) {
    if (isNotFound(got.error())) return ReconcileResult{};
    return reconcileError(got.error());
  }
  const Json original = *got;
  Json& route = *got;
  if (meta::isDeleting(route)) return ReconcileResult{};
  auto missingBackend = findMissingBackend(manager, route);
  if (!missingBackend) return reconcileError(missingBackend.error());
  const Json previousParents = jsonArrayAt(jsonObjectAt(route, "status"), "parents");
  Json parents = Json::array();
  for (const Json& parentRef : jsonArrayAt(jsonObjectAt(route, "spec"), "parentRefs")) {
    if (!refersToGateway(parentRef)) continue;
    Json previous;
    for (const Json& entry : previousParents) {
      if (jsonAt(entry, {"parentRef"}) == parentRef) previous = entry;
    }
    auto entry = routeParentStatus(manager, options, route, parentRef, previous, *missingBackend);
    if (!entry) return reconcileError(entry.error());
    parents.push_back(std::move(*entry));
  }
  route["status"]["parents"] = std::move(parents);
  return writeStatusIfChanged(manager, kHttpRoutes, original, route);
}

// Every HTTPRoute of the object's namespace (a Gateway or a Service changed: routes naming it may
// now resolve, or no longer).
MapFunc httpRoutesOfNamespace(Manager& manager) {
  return [&manager](const Json& object) {
    std::vector<ReconcileRequest> requests;
    const std::string ns = meta::namespace_(object);
    auto routes = manager.client().list(kHttpRoutes, ns);
    if (!routes) return requests;
    for (const Json& route : jsonArrayAt(*routes, "items")) {
      requests.push_back({ns, meta::name(route)});
    }
    return requests;
  };
}

}  // namespace

Result<void> addGatewayControllers(Manager& manager, GatewayControllerOptions options) {
  auto gateways = ControllerBuilder(manager)
                      .named("gateway")
                      .forResource(kGateways)
                      .forKind("Gateway")
                      .complete([&manager](const ReconcileRequest& request) {
                        return reconcileGatewayStatus(manager, request);
                      });
  if (!gateways) return tl::unexpected(gateways.error());
  auto shared = std::make_shared<const GatewayControllerOptions>(std::move(options));
  auto routes = ControllerBuilder(manager)
                    .named("httproute")
                    .forResource(kHttpRoutes)
                    .forKind("HTTPRoute")
                    .watches(kGateways, enqueueRequestsFromMapFunc(httpRoutesOfNamespace(manager)))
                    .watches(kServices, enqueueRequestsFromMapFunc(httpRoutesOfNamespace(manager)))
                    .complete([&manager, shared](const ReconcileRequest& request) {
                      return reconcileHttpRouteStatus(manager, *shared, request);
                    });
  if (!routes) return tl::unexpected(routes.error());
  return {};
}

}  // namespace fakekube::ray
