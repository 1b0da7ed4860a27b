// What the RayJob controller creates to submit the Ray job (KubeRay's common/job.go
// GetSubmitterTemplate / GetDefaultSubmitterContainer and rayjob_controller.go
// getSubmitterTemplate / configureSubmitterContainer / createNewK8sJob).
//
// K8sJobMode: a batch/v1 Job named as the RayJob, in its namespace:
//   labels        ray.io/originated-from-cr-name=<rayjob>, ray.io/originated-from-crd=RayJob,
//                 app.kubernetes.io/created-by=kuberay-operator (on the Job and its pod template)
//   backoffLimit  spec.submitterConfig.backoffLimit, default 2 (three submitter pods at most)
//   template      spec.submitterPodTemplate, or one container `ray-job-submitter` with the head's
//                 image, limits 1 CPU / 1Gi, requests 500m / 200Mi, restartPolicy Never
//   container     when it has no command: command ["/bin/bash", "-ce", "--"] and one argument,
//                 BuildJobSubmitCommand's tokens joined by spaces; always env PYTHONUNBUFFERED=1,
//                 RAY_DASHBOARD_ADDRESS = status.dashboardURL, RAY_JOB_SUBMISSION_ID =
//                 status.jobId
// The controller adds its controller owner reference.
//
// SidecarMode: the same container (always with the generated command) appended to the head
// pod's containers of the RayCluster it creates.
#pragma once

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube::ray {

// The submitter pod template for `rayJob` (with status.dashboardURL and status.jobId set) whose
// cluster spec is `rayClusterSpec`.
Result<Json> submitterTemplate(const Json& rayJob, const Json& rayClusterSpec);
// The submitter Job (without owner reference).
Result<Json> submitterJob(const Json& rayJob, const Json& rayClusterSpec);
// The sidecar submitter container of SidecarMode.
Result<Json> sidecarSubmitterContainer(const Json& rayJob, const Json& rayClusterSpec);

}  // namespace fakekube::ray
