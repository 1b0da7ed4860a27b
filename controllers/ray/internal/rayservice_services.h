// The two Services a RayService keeps in front of whichever cluster serves (KubeRay's
// BuildHeadServiceForRayService and BuildServeServiceForRayService, common/service.go). Their
// selectors name one RayCluster; the RayService controller moves both to the pending cluster
// when its applications all run, keeping each Service's clusterIP.
//
//   <rayservice>-head-svc   the cluster's head Service (service_builder.h: the head's ports,
//                           headless by default) renamed, labelled
//                           ray.io/originated-from-cr-name=<rayservice>,
//                           ray.io/originated-from-crd=RayService, ray.io/node-type=head,
//                           ray.io/identifier=<rayservice>-head
//   <rayservice>-serve-svc  selector ray.io/cluster=<cluster>, ray.io/serve=true (the head while
//                           its proxy is healthy, workers while Ready); the head container's
//                           ports named "serve" or "serve-*"; type the head group's serviceType;
//                           labelled ray.io/originated-from-cr-name, -crd and
//                           ray.io/serve=<rayservice>-serve. spec.serveService, when given, is the
//                           Service's base (its own selector ignored, its ports of the same names
//                           kept). Without a serving port and without spec.serveService: 400
//                           "Please specify a port named 'serve' ...".
#pragma once

#include <string>

#include "controllers/ray/operator_options.h"
#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube::ray {

std::string headServiceNameForRayService(const Json& rayService);
std::string serveServiceNameForRayService(const Json& rayService);

Result<Json> buildHeadServiceForRayService(const Json& rayService, const Json& rayCluster,
                                           const OperatorOptions& options);
// With NewClusterWithIncrementalUpgrade (and `incrementalUpgradeGate`, the feature gate, on) the
// Service is the cluster's own: <cluster>-serve-svc, labelled with the cluster's name, without
// spec.serveService (BuildServeService's per-cluster form).
Result<Json> buildServeServiceForRayService(const Json& rayService, const Json& rayCluster,
                                            bool incrementalUpgradeGate = true);

}  // namespace fakekube::ray
