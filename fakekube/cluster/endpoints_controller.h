// The Endpoints controller of kube-controller-manager (pkg/controller/endpoint), on a Manager:
// for every Service with a selector, the Endpoints object of the same name.
//
//   subsets   pods whose Service ports resolve alike share a subset (service_endpoints.h); a Ready
//             pod's address goes to addresses, the others to notReadyAddresses (each address:
//             ip, nodeName, targetRef to the Pod, hostname under the Service's subdomain), sorted
//             by IP. Terminating pods are left out, unless spec.publishNotReadyAddresses, which
//             also puts every address in addresses.
//   labels    the Service's labels, plus service.kubernetes.io/headless for a headless Service.
//
// The Endpoints of a deleted Service is deleted; a Service without a selector keeps whatever
// Endpoints its user writes. The last-change-trigger-time annotation and the over-capacity
// truncation at 1000 addresses are left out.
#pragma once

#include "fakekube/api/status.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/manager.h"

namespace fakekube {

struct EndpointsControllerOptions {
  // --concurrent-endpoint-syncs.
  int workers = 5;
};

// Registers the controller on `manager`; its name is "endpoints".
Result<Controller*> addEndpointsController(Manager& manager,
                                           EndpointsControllerOptions options = {});

}  // namespace fakekube
