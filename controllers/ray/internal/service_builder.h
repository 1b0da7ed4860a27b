// The head Service of a RayCluster (KubeRay's common/service.go, BuildServiceForHeadPod).
//
// Workers find the head, and users find the dashboard and the client port, through it:
//   name       <cluster>-head-svc, or spec.headGroupSpec.headService.metadata.name
//   labels     = selector: ray.io/cluster, ray.io/node-type=head, ray.io/identifier,
//              app.kubernetes.io/name (kuberay, or the head template's own value),
//              app.kubernetes.io/created-by=kuberay-operator
//   ports      one per port of the head's Ray container (an unnamed one is "<port>-port"); the
//              defaults client 10001, gcs-server 6379, dashboard 8265, metrics 8080, serve 8000
//              when it has none; always a `metrics` port 8080; appProtocol tcp; sorted by name
//   type       spec.headGroupSpec.serviceType; headless (clusterIP None,
//              publishNotReadyAddresses) when that is empty or ClusterIP, unless
//              ENABLE_RAY_HEAD_CLUSTER_IP_SERVICE=true — a RayCluster has at most one head pod,
//              so a virtual IP buys nothing
//   annotations spec.headServiceAnnotations
// A user-provided headService keeps its own metadata and spec; KubeRay forces the selector,
// adds its labels and annotations over the user's, appends its ports (unsorted) and fills in the
// name, namespace and type when missing.
#pragma once

#include "controllers/ray/operator_options.h"
#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube::ray {

// HeadServiceLabels.
Json headServiceLabels(const Json& rayCluster);

// The Service to create, or a 400 when it would have no ports.
Result<Json> buildHeadService(const Json& rayCluster, const OperatorOptions& options);

// BuildServeServiceForRayCluster: <cluster>-serve-svc (made when the RayCluster carries
// ray.io/enable-serve-service=true), labelled ray.io/originated-from-cr-name,
// ray.io/originated-from-crd=RayCluster and ray.io/serve=<cluster>-serve, selecting every pod of
// the cluster, with the head's ports named "serve" or "serve-*"; a 400 when there is none.
Result<Json> buildServeService(const Json& rayCluster);

// BuildHeadlessServiceForRayCluster: <cluster>-headless, labelled ray.io/headless-worker-svc,
// selecting the cluster's workers, headless and publishing not-ready addresses, so that the
// hosts of a multi-host worker group (numOfHosts > 1) find each other by DNS.
Json buildHeadlessService(const Json& rayCluster);

}  // namespace fakekube::ray
