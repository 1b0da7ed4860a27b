// The typed view of a RayJob (KubeRay's apis/ray/v1/rayjob_types.go) over its JSON document:
// KubeRay's names for its statuses, reasons and modes, and accessors that give the CRD's defaults
// where a field is absent (submissionMode K8sJobMode, backoffLimit unset, ttlSecondsAfterFinished
// 0). As with the RayCluster, the RayJob stays JSON end to end so that a status write never drops
// a field the user sent; the accessors never throw (a badly typed field reads as absent).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fakekube/api/json.h"

namespace fakekube::ray {

// status.jobDeploymentStatus (JobDeploymentStatus). New is "".
inline constexpr std::string_view kJobDeploymentStatusNew = "";
inline constexpr std::string_view kJobDeploymentStatusInitializing = "Initializing";
inline constexpr std::string_view kJobDeploymentStatusRunning = "Running";
inline constexpr std::string_view kJobDeploymentStatusComplete = "Complete";
inline constexpr std::string_view kJobDeploymentStatusFailed = "Failed";
inline constexpr std::string_view kJobDeploymentStatusValidationFailed = "ValidationFailed";
inline constexpr std::string_view kJobDeploymentStatusSuspending = "Suspending";
inline constexpr std::string_view kJobDeploymentStatusSuspended = "Suspended";
inline constexpr std::string_view kJobDeploymentStatusRetrying = "Retrying";
inline constexpr std::string_view kJobDeploymentStatusWaiting = "Waiting";

// status.reason (JobFailedReason).
inline constexpr std::string_view kSubmissionFailed = "SubmissionFailed";
inline constexpr std::string_view kDeadlineExceeded = "DeadlineExceeded";
inline constexpr std::string_view kPreRunningDeadlineExceeded = "PreRunningDeadlineExceeded";
inline constexpr std::string_view kAppFailed = "AppFailed";
inline constexpr std::string_view kJobDeploymentStatusTransitionGracePeriodExceeded =
    "JobDeploymentStatusTransitionGracePeriodExceeded";
inline constexpr std::string_view kJobStatusCheckTimeoutExceeded = "JobStatusCheckTimeoutExceeded";
inline constexpr std::string_view kValidationFailed = "ValidationFailed";

// Ray's job statuses as status.jobStatus holds them (JobStatus). New is "".
inline constexpr std::string_view kJobStatusNew = "";
inline constexpr std::string_view kJobStatusPending = "PENDING";
inline constexpr std::string_view kJobStatusRunning = "RUNNING";
inline constexpr std::string_view kJobStatusStopped = "STOPPED";
inline constexpr std::string_view kJobStatusSucceeded = "SUCCEEDED";
inline constexpr std::string_view kJobStatusFailed = "FAILED";

// spec.submissionMode (JobSubmissionMode).
inline constexpr std::string_view kK8sJobMode = "K8sJobMode";
inline constexpr std::string_view kHttpMode = "HTTPMode";
inline constexpr std::string_view kInteractiveMode = "InteractiveMode";
inline constexpr std::string_view kSidecarMode = "SidecarMode";

// Deletion policies of spec.deletionStrategy (DeletionPolicyType).
inline constexpr std::string_view kDeleteCluster = "DeleteCluster";
inline constexpr std::string_view kDeleteWorkers = "DeleteWorkers";
inline constexpr std::string_view kDeleteSelf = "DeleteSelf";
inline constexpr std::string_view kDeleteNone = "DeleteNone";

// The RayJob's cluster selector key (RayJobClusterSelectorKey).
inline constexpr std::string_view kRayJobClusterSelectorKey = "ray.io/cluster";

// IsJobDeploymentTerminal: Complete or Failed.
bool isJobDeploymentTerminal(std::string_view jobDeploymentStatus);

// Spec accessors, with the CRD's defaults.
std::string submissionMode(const Json& rayJob);  // default K8sJobMode
// spec.suspend == true.
bool isRayJobSuspendRequested(const Json& rayJob);
bool shutdownAfterJobFinishes(const Json& rayJob);
std::int64_t ttlSecondsAfterFinished(const Json& rayJob);  // default 0
std::optional<std::int64_t> optionalIntegerSpec(const Json& rayJob, const char* field);
// spec.clusterSelector["ray.io/cluster"], or "" (and whether a selector is set at all).
bool hasClusterSelector(const Json& rayJob);
std::string clusterSelectorName(const Json& rayJob);
// HasSubmitter: K8sJobMode or SidecarMode.
bool hasSubmitter(const Json& rayJob);

// Status accessors.
std::string statusString(const Json& rayJob, const char* field);
std::int64_t statusCounter(const Json& rayJob, const char* field);  // succeeded / failed

}  // namespace fakekube::ray
