// RestHandler: the Kubernetes REST API over an in-process ApiServer, one request at a time.
//
// It maps a decoded HTTP request to the ApiServer verb the path and method name, the way the real
// API server's handlers do:
//
//   /api/v1/[namespaces/<ns>/]<resource>[/<name>[/<subresource>]]
//   /apis/<group>/<version>/[namespaces/<ns>/]<resource>[/<name>[/<subresource>]]
//
//   collection  GET list (watch=true: a WatchStream), POST create, DELETE deletecollection
//   item        GET, PUT update, PATCH (json-patch, merge-patch, strategic-merge-patch,
//               apply-patch+yaml), DELETE (DeleteOptions in the body or the query)
//   …/status    GET, PUT, PATCH      namespaces/<n>/finalize PUT      pods/<n>/binding POST
//   services/<n>[:<port>]/proxy/…, pods/<n>[:<port>]/proxy/…   any method (proxy.h)
//   pods/<n>/log   GET, the container's log, whole or followed (pod_log.h)
//
// plus /version, /healthz, /readyz, /livez, discovery (discovery.h), OpenAPI v2 and v3
// (openapi.h), and the reviews and token requests (reviews.h).
// Query parameters become the verb's options (dryRun, fieldManager, fieldValidation, force,
// labelSelector, fieldSelector, limit, continue, resourceVersion, resourceVersionMatch,
// allowWatchBookmarks, timeoutSeconds, sendInitialEvents, gracePeriodSeconds, propagationPolicy).
// Responses take the shape the Accept header asks for (media_type.h): the object, a Table, or
// PartialObjectMetadata. Every error is a Status document with the HTTP code of its `code`; an
// unknown path is 404 "the server could not find the requested resource", a method the path does
// not serve 405.
//
// Unknown fields are accepted whatever fieldValidation says (the server keeps every field).
// Thread-safe: it holds no state of its own beyond the ApiServer, which is thread-safe.
#pragma once

#include <string>

#include "fakekube/api/status.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/http/internal/rest_types.h"

namespace fakekube {

class ContainerLogSource;
class ProxyTransport;

class RestHandler {
 public:
  // `serverAddress` ("host:port") is what /api reports as the address clients reach. `network`
  // (optional) is what the services/pods proxy subresources reach (proxy.h); `containerLogs`
  // (optional) what pods/log reads (pod_log.h).
  RestHandler(ApiServer& server, std::string serverAddress, ProxyTransport* network = nullptr,
              ContainerLogSource* containerLogs = nullptr);

  RestResponse handle(const RestRequest& request);

  // The response of an error: its Status document, the Status code as HTTP code, and
  // Retry-After when the Status asks clients to wait.
  static RestResponse errorResponse(const Status& status);

 private:
  ApiServer& server_;
  std::string serverAddress_;
  ProxyTransport* network_ = nullptr;
  ContainerLogSource* containerLogs_ = nullptr;
};

}  // namespace fakekube
