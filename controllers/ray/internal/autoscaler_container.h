// The Ray autoscaler in the head pod (KubeRay's common/pod.go: BuildAutoscalerContainer,
// mergeAutoscalerOverrides and the in-tree autoscaling part of DefaultHeadPodTemplate and
// BuildPod).
//
// With spec.enableInTreeAutoscaling the head pod gets:
//   - the container `autoscaler`: the Ray container's image, imagePullPolicy IfNotPresent, env
//     RAY_CLUSTER_NAME (from the pod's ray.io/cluster label), RAY_CLUSTER_NAMESPACE,
//     RAY_HEAD_POD_NAME, KUBERAY_CRD_VER=v1 and KUBERAY_GEN_AUTOSCALER_START_CMD, command
//     ["/bin/bash", "-c", "--"] (-cl with ENABLE_LOGIN_SHELL), args ["ray kuberay-autoscaler
//     --cluster-name $(RAY_CLUSTER_NAME) --cluster-namespace $(RAY_CLUSTER_NAMESPACE)"], 500m CPU
//     and 512Mi memory as requests and limits; then spec.autoscalerOptions overrides resources,
//     image, imagePullPolicy, securityContext, command and args, and appends env, envFrom and
//     volumeMounts;
//   - serviceAccountName: the template's, else the cluster's name, clipped by checkName (the
//     ServiceAccount reconcileAutoscalerServiceAccount creates, autoscaler_rbac.h);
//   - rayStartParams no-monitor (the head runs no monitor of its own; the caller adds it);
//   - autoscalerOptions.version v1: RAY_enable_autoscaler_v2=false on the Ray container; v2:
//     RAY_enable_autoscaler_v2=true and restartPolicy Never (workers too);
//   - the emptyDir `ray-logs` mounted at /tmp/ray in the Ray and the autoscaler containers (the
//     autoscaler writes the event logs the head reads).
#pragma once

#include <string>

#include "controllers/ray/operator_options.h"
#include "fakekube/api/json.h"

namespace fakekube::ray {

inline constexpr std::string_view kAutoscalerContainerName = "autoscaler";
inline constexpr std::string_view kRayLogVolumeName = "ray-logs";
inline constexpr std::string_view kRayLogVolumeMountPath = "/tmp/ray";
// The autoscaler's start command, also in its KUBERAY_GEN_AUTOSCALER_START_CMD.
inline constexpr std::string_view kAutoscalerStartCommand =
    "ray kuberay-autoscaler --cluster-name $(RAY_CLUSTER_NAME) --cluster-namespace "
    "$(RAY_CLUSTER_NAMESPACE)";

// BuildAutoscalerContainer.
Json buildAutoscalerContainer(const std::string& image, const OperatorOptions& options);

// mergeAutoscalerOverrides: `autoscalerOptions` (spec.autoscalerOptions; null or absent: none)
// onto the container.
void mergeAutoscalerOverrides(Json& container, const Json& autoscalerOptions);

// getAutoscalerContainerIndex: the index of the container named `autoscaler`, -1 when none.
int autoscalerContainerIndex(const Json& pod);

// spec.autoscalerOptions.version is "v1" / "v2" (IsAutoscalingV1Enabled / V2).
bool isAutoscalingV1Enabled(const Json& rayCluster);
bool isAutoscalingV2Enabled(const Json& rayCluster);

// DefaultHeadPodTemplate's in-tree autoscaling block on a head pod being built: the service
// account, the autoscaler container and the v1 / v2 settings.
void addAutoscalerToHeadPod(Json& pod, const Json& rayCluster, const OperatorOptions& options);

// BuildPod's shared log volume of the Ray and autoscaler containers.
void addRayLogVolume(Json& pod);

}  // namespace fakekube::ray
