// A simulated Gateway API implementation (the part of Istio, Envoy Gateway or another controller
// that reports on Gateways and HTTPRoutes), so that KubeRay's incremental upgrade sees what it
// waits for (gateway_api.h). Two controllers on the manager given:
//
//   gateway    every Gateway, whatever its gatewayClassName (as if the class were installed and
//              its controller this one): status.conditions Accepted True / Accepted and
//              Programmed True / Programmed, with the Gateway's generation as observedGeneration.
//   httproute  every HTTPRoute: status.parents holds one entry per spec.parentRefs entry that names
//              a Gateway (controllerName as configured): Accepted True / Accepted when that Gateway
//              exists, else False / NoMatchingParent; ResolvedRefs True / ResolvedRefs when every
//              backendRef of kind Service names an existing Service, else False / BackendNotFound.
//              A Gateway or a Service of the namespace changing reconciles its HTTPRoutes.
//
// Status is written only when it changed (metav1 SetStatusCondition: lastTransitionTime moves
// with the status). No traffic flows: the weights of an HTTPRoute are what KubeRay and the tests
// read.
#pragma once

#include <string>

#include "fakekube/api/status.h"

namespace fakekube {
class Manager;
}

namespace fakekube::ray {

struct GatewayControllerOptions {
  // status.parents[].controllerName of the routes it reports on.
  std::string controllerName = "fakekube.io/gateway-controller";
};

// Registers both controllers on `manager` (they start with it). Install the definitions first
// (installGatewayApi).
Result<void> addGatewayControllers(Manager& manager, GatewayControllerOptions options = {});

}  // namespace fakekube::ray
