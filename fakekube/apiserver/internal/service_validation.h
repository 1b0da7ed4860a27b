// ValidateService of kube-apiserver (pkg/apis/core/validation), after defaults, with its field
// paths and messages:
//
//   spec.ports                   Required unless the Service is headless (clusterIP None) or
//                                ExternalName; each port: name Required when there are several,
//                                a DNS-1123 label and unique (Duplicate value); port 1-65535;
//                                protocol SCTP | TCP | UDP; targetPort 1-65535 or an
//                                IANA_SVC_NAME
//   spec.externalName            Required for type ExternalName
//   spec.sessionAffinity         ClientIP | None
//   spec.type                    ClusterIP | ExternalName | LoadBalancer | NodePort
//   spec.externalTrafficPolicy   Cluster | Local for NodePort and LoadBalancer Services; not set
//                                on others ("may only be set for externally-accessible services")
#pragma once

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube::strategy {

void validateService(FieldErrors& errors, const Json& service);

}  // namespace fakekube::strategy
