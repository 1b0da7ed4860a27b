// What the Endpoints and EndpointSlice controllers share (pkg/controller/util/endpoint and
// pkg/api/v1/endpoints in kube-controller-manager): which pods a Service's selector picks, which of
// them belong in its endpoints, and the port a Service port reaches on a pod.
//
//   selection  a Service with a spec.selector (a plain label map) selects the pods of its namespace
//              whose labels hold every pair; a Service without one (or of type ExternalName) has
//              its endpoints managed by someone else, and the controllers leave them alone;
//   inclusion  a pod belongs in endpoints once it has an IP (status.podIP) and while it is not
//              Succeeded or Failed; a terminating pod only when the caller asks (EndpointSlices
//              keep it with terminating true, Endpoints only under publishNotReadyAddresses);
//   ports      targetPort a number is that number; a name is looked up in the pod's container
//              ports (with the Service port's protocol); a name the pod does not have leaves the
//              port out for that pod; no targetPort means the Service port itself.
//
// The pod handler both controllers watch with maps a pod event to the Services whose selector
// matches the pod's old or new labels; an update only when it may change endpoints (the pod's
// labels, hostname, subdomain, deletion, readiness, IPs or terminal phase), as
// kube-controller-manager's GetServicesToUpdateOnPodChange does.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/cache/cache.h"
#include "fakekube/runtime/handler.h"

namespace fakekube::workload {

// Whether the controllers manage this Service's endpoints (it has a selector and is not
// ExternalName).
bool serviceHasSelector(const Json& service);
// The selector's pairs are all among the labels.
bool serviceSelects(const Json& service, const Json& labels);
// Whether the pod goes into endpoints (ShouldPodBeInEndpoints).
bool shouldPodBeInEndpoints(const Json& pod, bool includeTerminating);
// The Service is headless (clusterIP "None").
bool isHeadless(const Json& service);

// One resolved port of an endpoint: {"name","port","protocol"} (name omitted when empty).
// nullopt when the Service port names a container port the pod does not have.
std::optional<Json> endpointPort(const Json& servicePort, const Json& pod);
// Every resolvable port of the Service on the pod, in the Service's order.
Json endpointPorts(const Json& service, const Json& pod);

// Puts groups keyed by their resolved ports (endpointPorts) in the order of the ports' JSON text,
// the order both controllers list their subsets and slices in. The text is made only when there
// are two groups or more (nearly every Service's pods resolve its ports alike: one group).
void sortByPortsText(std::vector<std::pair<Json, Json>>& groups);
void sortByPortsText(std::vector<std::pair<Json, std::vector<Json>>>& groups);

// The pods in the Service's namespace its selector matches, in key order: the cache's pods filed
// under the selector's pair with the fewest pods (the label index), each checked against the
// whole selector. Listing the namespace instead cost every pod for every Service reconcile.
std::vector<ObjectPtr> podsSelectedBy(Cache& cache, const Json& service);

// A pod event's Services: those in its namespace whose selector matches its labels (old and new
// ones on update, and none for an update that changes nothing endpoints show).
EventHandler servicesOfPodHandler(Cache& cache);

}  // namespace fakekube::workload
