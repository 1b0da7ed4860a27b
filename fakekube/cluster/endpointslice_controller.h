// The EndpointSlice controller of kube-controller-manager (pkg/controller/endpointslice), on a
// Manager: for every Service with a selector, EndpointSlices that list the pods it selects.
//
//   endpoints   one per selected pod that has an IP and has not finished (shouldPodBeInEndpoints):
//               addresses [podIP], nodeName, targetRef (the Pod), hostname when the pod's
//               spec.hostname is set and its spec.subdomain names the Service; conditions
//               serving = the pod is Ready, terminating = the pod is being deleted, ready =
//               serving and not terminating. Under spec.publishNotReadyAddresses every endpoint
//               is ready and serving.
//   ports       each Service port resolved on the pod (service_endpoints.h); pods whose ports
//               resolve alike share slices, at most maxEndpointsPerSlice endpoints each.
//   slices      addressType IPv4, named generateName "<service>-", labelled
//               kubernetes.io/service-name=<service> and endpointslice.kubernetes.io/managed-by=
//               endpointslice-controller.k8s.io (plus the Service's own labels, and
//               service.kubernetes.io/headless for a headless Service), controlled by the Service
//               (the garbage collector removes them with it). A Service that selects no ready or
//               unready pod keeps one empty placeholder slice, as upstream.
//
// Existing slices are reused in name order (updated only when their content differs); slices
// left over are deleted. Slices not managed by this controller (another managed-by) are left
// alone. Topology hints, zones, dual-stack and the per-sync slice-churn optimisations upstream
// makes are left out.
#pragma once

#include "fakekube/api/status.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/manager.h"

namespace fakekube {

struct EndpointSliceControllerOptions {
  // --concurrent-service-endpoint-syncs.
  int workers = 5;
  // --max-endpoints-per-slice.
  int maxEndpointsPerSlice = 100;
};

// Registers the controller on `manager`; its name is "endpointslice".
Result<Controller*> addEndpointSliceController(Manager& manager,
                                               EndpointSliceControllerOptions options = {});

}  // namespace fakekube
