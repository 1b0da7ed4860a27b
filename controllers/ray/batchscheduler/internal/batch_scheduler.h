// KubeRay's batch-scheduler interface (batchscheduler/interface and schedulermanager.go): how
// the RayCluster and RayJob controllers hand their pods to a gang scheduler.
//
//   DoBatchSchedulingOnSubmission  before the head pod (RayCluster) or the RayCluster (RayJob) is
//                                  reconciled: create or update the group object (a PodGroup)
//   AddMetadataToChildResource     on each pod, the submitter's pod template and a RayJob's
//                                  RayCluster before they are created: labels, annotations and
//                                  spec.schedulerName that tie them to the group
//   CleanupOnCompletion            when a RayJob is Complete or Failed: release what the group
//                                  still reserves; answers whether it changed anything
//   ownedResource                  ConfigureReconciler: the group kind the RayCluster controller
//                                  owns (its events enqueue the RayCluster)
//
// newBatchScheduler picks the plug-in as getSchedulerFactory does: "volcano", "scheduler-plugins"
// or empty (none: nullptr); any other name is an error "the scheduler is not supported,
// name=<name>"; the legacy enableBatchScheduler picks volcano whatever the name says. Operator
// option `batchScheduler` (OperatorOptions), flag `--batch-scheduler`.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "fakekube/api/group_version.h"
#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {
class Client;
}

namespace fakekube::ray::batchscheduler {

// What AddMetadataToChildResource is given: a pod, a pod template (the submitter's), or another
// object (a RayJob's RayCluster), which gets no schedulerName.
enum class ChildKind { Pod, PodTemplate, Other };

class BatchScheduler {
 public:
  virtual ~BatchScheduler() = default;
  // The spec.schedulerName the pods get.
  virtual std::string name() const = 0;
  // `object` is a RayCluster or a RayJob as read.
  virtual Result<void> doBatchSchedulingOnSubmission(Client& client, const Json& object) = 0;
  virtual void addMetadataToChildResource(const Json& parent, Json& child, ChildKind kind,
                                          std::string_view groupName) const = 0;
  virtual Result<bool> cleanupOnCompletion(Client& client, const Json& object) = 0;
  virtual std::optional<GroupVersionResource> ownedResource() const = 0;
};

// ValidateBatchSchedulerConfig, which stops the operator at start: both switches set ("both
// feature flags enable-batch-scheduler (deprecated) and batch-scheduler are set. Please use
// batch-scheduler only"), or an unknown name ("scheduler is not supported, name=<name>").
Result<void> validateBatchSchedulerConfig(std::string_view batchScheduler,
                                          bool enableBatchScheduler);

// The plug-in for `batchScheduler` (nullptr for none), or the configuration's error.
Result<std::shared_ptr<BatchScheduler>> newBatchScheduler(std::string_view batchScheduler,
                                                          bool enableBatchScheduler = false);

}  // namespace fakekube::ray::batchscheduler
