// What the RayService controller refuses to act on (KubeRay's ValidateRayServiceMetadata and
// ValidateRayServiceSpec in utils/validation.go). Each check answers KubeRay's message, or
// nothing. A refused RayService gets a Warning Event (InvalidRayServiceMetadata /
// InvalidRayServiceSpec, "<ns>/<name>: <message>"), Ready False with reason ValidationFailed and
// the message, and no requeue (a change of the object triggers the next round).
//
//   metadata   name at most 47 characters and a DNS-1035 label; the ray.io/initializing-timeout
//              annotation, when set, a positive Go duration or positive whole seconds
//   spec       K8s token auth is refused; the rayClusterConfig passes the RayCluster's spec
//              checks (raycluster_validation.h); headGroupSpec.headService.metadata.name is not
//              set; upgradeStrategy.type is NewClusterWithIncrementalUpgrade, NewCluster or
//              None; rayClusterDeletionDelaySeconds is not negative; with
//              NewClusterWithIncrementalUpgrade (and its feature gate on),
//              ValidateClusterUpgradeOptions: enableInTreeAutoscaling, clusterUpgradeOptions
//              present, maxSurgePercent and stepSizePercent within 0..100, stepSizePercent <=
//              maxSurgePercent, intervalSeconds > 0, gatewayClassName set
//              (rayservice_incremental_upgrade.h)
#pragma once

#include <optional>
#include <string>

#include "fakekube/api/json.h"

namespace fakekube::ray {

std::optional<std::string> validateRayServiceMetadata(const Json& rayService);
// `incrementalUpgradeGate`: the RayServiceIncrementalUpgrade feature gate (on by default).
std::optional<std::string> validateRayServiceSpec(const Json& rayService,
                                                  bool incrementalUpgradeGate = true);

}  // namespace fakekube::ray
