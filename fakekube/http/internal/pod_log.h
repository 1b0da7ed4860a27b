// The pods/log subresource over HTTP: what `kubectl logs` asks for.
//
//   GET /api/v1/namespaces/<ns>/pods/<name>/log?container=c&follow=true&tailLines=10
//       &sinceSeconds=60 | &sinceTime=2024-01-01T00:00:00Z &previous=true &timestamps=true
//       &limitBytes=1024
//
// The query is decoded into PodLogOptions (a malformed boolean, integer or time is 400, as the
// API server's parameter decoding answers) and handed to PodLogs (fakekube/apiserver/pod_logs.h),
// which checks it and the pod as kube-apiserver and the kubelet do and reads the kubelet's
// logs. The answer is text/plain: the whole log, or with follow=true a chunked stream
// (a ResponseStream) that carries each line as the container prints it and ends when the
// container ends — the transport ends it earlier when the client goes away or the server stops.
// Errors are Status documents. Other methods than GET are 405.
#pragma once

#include <string>
#include <vector>

#include "fakekube/apiserver/api_server.h"
#include "fakekube/http/internal/rest_types.h"

namespace fakekube {

class ContainerLogSource;

// Whether the path's segments address pods/<name>/log.
bool isPodLogPath(const std::vector<std::string>& segments);

// Serves one pods/log request. `logs` may be null (no kubelet: every log is empty).
RestResponse podLogRequest(ApiServer& server, ContainerLogSource* logs, const RestRequest& request,
                           const std::vector<std::string>& segments);

}  // namespace fakekube
