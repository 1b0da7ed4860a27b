// The goal of a `fakekube crashtest` run: what must hold on the API server for a run to have
// converged, from --until's conditions or the files' Ray objects, and the same for --then's
// second phase.
//
// Conditions (--until, all must hold; without one: every RayJob of the files has
// status.jobDeploymentStatus Complete or Failed, every RayCluster of the files status.state
// ready and every RayService of the files status.serviceStatus Running):
//   KIND/NAME=VALUE              raycluster: status.state; rayjob: status.jobDeploymentStatus;
//                                rayservice: status.serviceStatus; pod: status.phase
//   KIND/NAME:{.a.b}=VALUE       any kind and field path (kubectl's JSONPath spelling, or a.b)
//   KIND/NAMESPACE/NAME...       an explicit namespace (else the object's in the files, else
//                                "default")
// KIND is what kubectl takes (raycluster, rayclusters, RayCluster, pod, ...). A value compares
// with the field's text (a string as is, anything else as JSON).
#pragma once

#include <string>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/api/resource_registry.h"
#include "fakekube/api/status.h"
#include "fixtures/expectation.h"
#include "tools/cli/commands.h"

namespace fakekube::cli {

// The object's namespace, "default" when it names none (as kubectl applies it).
std::string namespaceOrDefault(const Json& object);

// --until's conditions, else the default goal of the files' Ray objects; 400 with the one line
// to print for a malformed condition, an unknown kind, or files with nothing to wait for.
Result<Expectation> crashtestGoal(const CrashtestOptions& options, const ResourceRegistry& registry,
                                  const std::vector<Json>& objects);

// --then-until's conditions, else the default goal of --then's objects: a RayService's upgrade
// (rayServicesUpgraded: on the files' rayVersion, one cluster, the Services switched), every
// other Ray object's as for -f. `registry` learns --then's definitions.
Result<Expectation> crashtestThenGoal(const CrashtestOptions& options, ResourceRegistry& registry,
                                      const std::vector<Json>& thenObjects);

}  // namespace fakekube::cli
