// The names KubeRay's operator and Ray's pods agree on: labels, annotations, finalizers, ports,
// container and group names, timings. Everything in controllers/ray/ spells them through these
// constants, with KubeRay's Go names in the comments so that a reader of the upstream operator
// finds each one.
#pragma once

#include <chrono>
#include <string_view>

namespace fakekube::ray {

// --- API ---
inline constexpr std::string_view kGroup = "ray.io";
inline constexpr std::string_view kVersion = "v1";
inline constexpr std::string_view kApiVersion = "ray.io/v1";
inline constexpr std::string_view kRayClusterKind = "RayCluster";
inline constexpr std::string_view kRayJobKind = "RayJob";
inline constexpr std::string_view kRayServiceKind = "RayService";

// --- Labels ---
inline constexpr std::string_view kRayClusterLabelKey = "ray.io/cluster";     // RayClusterLabelKey
inline constexpr std::string_view kRayNodeTypeLabelKey = "ray.io/node-type";  // RayNodeTypeLabelKey
inline constexpr std::string_view kRayNodeGroupLabelKey = "ray.io/group";  // RayNodeGroupLabelKey
inline constexpr std::string_view kRayNodeLabelKey =
    "ray.io/is-ray-node";                                                // RayNodeLabelKey ("yes")
inline constexpr std::string_view kRayIdLabelKey = "ray.io/identifier";  // RayIDLabelKey
inline constexpr std::string_view kKubernetesApplicationNameLabelKey = "app.kubernetes.io/name";
inline constexpr std::string_view kKubernetesCreatedByLabelKey = "app.kubernetes.io/created-by";
inline constexpr std::string_view kApplicationName = "kuberay";         // ApplicationName
inline constexpr std::string_view kComponentName = "kuberay-operator";  // ComponentName
inline constexpr std::string_view kRayOriginatedFromCRNameLabelKey =
    "ray.io/originated-from-cr-name";
inline constexpr std::string_view kRayOriginatedFromCRDLabelKey = "ray.io/originated-from-crd";
inline constexpr std::string_view kRayJobSubmissionModeLabelKey = "ray.io/job-submission-mode";
inline constexpr std::string_view kRayClusterServingServiceLabelKey = "ray.io/serve";
inline constexpr std::string_view kRayClusterHeadlessServiceLabelKey = "ray.io/headless-worker-svc";
inline constexpr std::string_view kRayWorkerReplicaNameKey = "ray.io/worker-group-replica-name";
inline constexpr std::string_view kRayWorkerReplicaIndexKey = "ray.io/worker-group-replica-index";
inline constexpr std::string_view kRayHostIndexKey = "ray.io/replica-host-index";
inline constexpr std::string_view kRayPriorityClassName = "ray.io/priority-class-name";
inline constexpr std::string_view kRayGangSchedulingEnabled = "ray.io/gang-scheduling-enabled";

// Values of ray.io/node-type.
inline constexpr std::string_view kHeadNode = "head";
inline constexpr std::string_view kWorkerNode = "worker";
inline constexpr std::string_view kRedisCleanupNode = "redis-cleanup";
// ray.io/group of the head pod and of the submitter pod.
inline constexpr std::string_view kHeadGroupName = "headgroup";
inline constexpr std::string_view kSubmitterGroupName = "submittergroup";

// --- Annotations ---
inline constexpr std::string_view kRayFTEnabledAnnotationKey = "ray.io/ft-enabled";
inline constexpr std::string_view kRayExternalStorageNSAnnotationKey =
    "ray.io/external-storage-namespace";
inline constexpr std::string_view kRayOverwriteContainerCmdAnnotationKey =
    "ray.io/overwrite-container-cmd";
inline constexpr std::string_view kEnableServeServiceKey = "ray.io/enable-serve-service";
inline constexpr std::string_view kDisableProvisionedHeadRestartAnnotationKey =
    "ray.io/disable-provisioned-head-restart";
inline constexpr std::string_view kUpgradeStrategyRecreateHashKey =
    "ray.io/upgrade-strategy-recreate-hash";
inline constexpr std::string_view kKubeRayVersion = "ray.io/kuberay-version";
inline constexpr std::string_view kHashWithoutReplicasAndWorkersToDeleteKey =
    "ray.io/hash-without-replicas-and-workers-to-delete";
inline constexpr std::string_view kNumWorkerGroupsKey = "ray.io/num-worker-groups";
inline constexpr std::string_view kRayClusterInitializingTimeoutAnnotation =
    "ray.io/initializing-timeout";
inline constexpr std::string_view kGCSFaultToleranceDeletionTimeoutAnnotation =
    "ray.io/gcs-ft-deletion-timeout";

// --- Finalizers ---
inline constexpr std::string_view kRayJobStopJobFinalizer = "ray.io/rayjob-finalizer";
inline constexpr std::string_view kGCSFaultToleranceRedisCleanupFinalizer =
    "ray.io/gcs-ft-redis-cleanup-finalizer";
inline constexpr std::string_view kRayServiceFinalizer = "ray.io/rayservice-finalizer";

// --- Ports (DefaultXxxPort) and their names ---
inline constexpr int kDefaultClientPort = 10001;
inline constexpr int kDefaultGcsServerPort = 6379;
inline constexpr int kDefaultDashboardPort = 8265;
inline constexpr int kDefaultMetricsPort = 8080;
inline constexpr int kDefaultServingPort = 8000;
inline constexpr int kDefaultDashboardAgentListenPort = 52365;
inline constexpr std::string_view kClientPortName = "client";
inline constexpr std::string_view kGcsServerPortName = "gcs-server";
inline constexpr std::string_view kDashboardPortName = "dashboard";
inline constexpr std::string_view kMetricsPortName = "metrics";
inline constexpr std::string_view kServingPortName = "serve";
inline constexpr std::string_view kDefaultServiceAppProtocol = "tcp";

// --- Containers ---
inline constexpr int kRayContainerIndex = 0;  // RayContainerIndex: the Ray container of a pod
inline constexpr std::string_view kSubmitterContainerName = "ray-job-submitter";
inline constexpr std::string_view kWaitGcsReadyInitContainerName = "wait-gcs-ready";
inline constexpr std::string_view kRayDashboardAddressEnv = "RAY_DASHBOARD_ADDRESS";
inline constexpr std::string_view kRayJobSubmissionIdEnv = "RAY_JOB_SUBMISSION_ID";

// --- Names ---
inline constexpr std::string_view kHeadServiceSuffix = "head-svc";      // <owner>-head-svc
inline constexpr std::string_view kServeServiceSuffix = "serve-svc";    // <name>-serve-svc
inline constexpr std::string_view kHeadlessServiceSuffix = "headless";  // <cluster>-headless
inline constexpr std::string_view kDefaultClusterDomain = "cluster.local";
// Longest accepted metadata.name (MaxRayClusterNameLength, MaxRayJobNameLength, ...).
inline constexpr std::size_t kMaxRayClusterNameLength = 53;
inline constexpr std::size_t kMaxRayJobNameLength = 47;
inline constexpr std::size_t kMaxRayServiceNameLength = 47;

// --- Timing ---
// How long a recorded pod create or delete holds its group back (ExpectationsTimeout).
inline constexpr std::chrono::seconds kExpectationsTimeout{30};
// RayCluster's requeue after an error or a status change (DefaultRequeueDuration).
inline constexpr std::chrono::seconds kRayClusterDefaultRequeueDuration{2};
// RayJob's requeue (RayJobDefaultRequeueDuration).
inline constexpr std::chrono::seconds kRayJobDefaultRequeueDuration{3};
// A submitter Job finished this long ago without a terminal Ray job fails the RayJob
// (DefaultSubmitterFinishedTimeout).
inline constexpr std::chrono::seconds kDefaultSubmitterFinishedTimeout{30};

}  // namespace fakekube::ray
