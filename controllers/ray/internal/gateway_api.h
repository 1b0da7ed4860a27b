// The Gateway API (gateway.networking.k8s.io/v1) as far as KubeRay's incremental upgrade uses it:
// Gateway (a load balancer's listeners, of a GatewayClass an implementation such as Istio owns)
// and HTTPRoute (rules sending a share of requests to each backend Service by weight), as
// CustomResourceDefinitions with structural schemas of the project's own: the fields KubeRay
// writes and reads with the Gateway API's types and defaults (a backendRef's weight 1, kind
// Service; a parentRef's group and kind), the rest kept as written; the status subresource and
// the Gateway API's printer columns.
//
// installGatewayApi() creates the definitions that do not exist yet: the Gateway API's own CRD
// files, applied before with `kubectl apply --server-side`, take over (as with Volcano's).
//
// What an implementation reports (GatewayConditionType, RouteConditionType and their reasons)
// is named here too; sim/gateway_controller.h is a simulated implementation that reports them.
#pragma once

#include <string_view>

#include "fakekube/api/group_version.h"
#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {
class Client;
}

namespace fakekube::ray {

inline constexpr std::string_view kGatewayApiGroup = "gateway.networking.k8s.io";
inline const GroupVersionResource kGateways{"gateway.networking.k8s.io", "v1", "gateways"};
inline const GroupVersionResource kHttpRoutes{"gateway.networking.k8s.io", "v1", "httproutes"};

// Gateway conditions (GatewayConditionAccepted, GatewayConditionProgrammed) and the reasons of
// their True status.
inline constexpr std::string_view kGatewayConditionAccepted = "Accepted";
inline constexpr std::string_view kGatewayConditionProgrammed = "Programmed";
// Route conditions (RouteConditionAccepted, RouteConditionResolvedRefs) and their reasons.
inline constexpr std::string_view kRouteConditionAccepted = "Accepted";
inline constexpr std::string_view kRouteConditionResolvedRefs = "ResolvedRefs";
inline constexpr std::string_view kRouteReasonNoMatchingParent = "NoMatchingParent";
inline constexpr std::string_view kRouteReasonBackendNotFound = "BackendNotFound";

// gateways.gateway.networking.k8s.io and httproutes.gateway.networking.k8s.io as
// apiextensions.k8s.io/v1 objects.
Json gatewayCustomResourceDefinition();
Json httpRouteCustomResourceDefinition();

// Creates each definition that does not exist yet; an existing one is kept.
Result<void> installGatewayApi(Client& client);

}  // namespace fakekube::ray
