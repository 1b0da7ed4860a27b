// The submitter's shell script: KubeRay's BuildJobSubmitCommand, token for token.
//
// In K8sJobMode the RayJob controller runs a batch/v1 Job whose `ray-job-submitter` container
// has command ["/bin/bash", "-ce", "--"] and one argument, the tokens below joined by spaces
// (ADDR = "http://" + status.dashboardURL, ID = status.jobId):
//
//   until python -c "import urllib.request; r=urllib.request.urlopen('ADDR/api/gcs_healthz',
//       timeout=10); exit(0 if b'success' in r.read() else 1)" >/dev/null 2>&1 ;
//   do echo "Waiting for Ray Dashboard GCS to become healthy at ADDR ..." ; sleep 2 ; done ;
//   if ! ray job status --address ADDR ID >/dev/null 2>&1 ;
//   then ray job submit --address ADDR --no-wait [--runtime-env-json "<json>"]
//       [--metadata-json "<json>"] --submission-id ID [--entrypoint-num-cpus N]
//       [--entrypoint-num-gpus N] [--entrypoint-resources "<json>"] -- ENTRYPOINT ; fi ;
//   ray job logs --address ADDR --follow ID
//
// The status check before the submit is what lets a retried submitter pod find the submission
// an earlier pod made instead of submitting twice. In SidecarMode the submitter shares the head
// pod's network: ADDR is http://127.0.0.1:<dashboard port> (the head container's port named
// "dashboard", else 8265), the health check asks localhost, and there is no status check and no
// --no-wait unless the SidecarSubmitterRestart feature gate is on.
//
// Quoted tokens are quoted as Go's strconv.Quote quotes; JSON is written as Go's json.Marshal
// writes it (keys sorted, <, > and & escaped). runtimeEnvYAML is converted from YAML; metadata
// needs Ray 2.6.0 or later when the cluster spec names a rayVersion.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube::ray {

// The gcs_healthz check of a URL: BasePythonHealthCommand with a 10 s timeout.
std::string pythonHealthCommand(std::string_view url);

// The tokens of the submitter script for `rayJob` (a RayJob document) in `submissionMode`
// ("K8sJobMode" or "SidecarMode"; any other mode is a 400 error). Errors: runtimeEnvYAML that does
// not parse, metadata with a rayVersion below 2.6.0 (or one that does not parse).
Result<std::vector<std::string>> buildJobSubmitCommand(const Json& rayJob,
                                                       std::string_view submissionMode,
                                                       bool sidecarSubmitterRestart = false);

// The container's one argument: the tokens joined by single spaces.
std::string joinCommand(const std::vector<std::string>& tokens);

}  // namespace fakekube::ray
