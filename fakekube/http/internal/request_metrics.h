// RequestMetrics: kube-apiserver's request metrics, for the /metrics endpoint of the HTTP server.
//
//   apiserver_request_total{code,component,dry_run,group,resource,scope,subresource,verb,version}
//   apiserver_request_duration_seconds{component,dry_run,group,resource,scope,subresource,verb,
//                                      version}   (histogram, kube-apiserver's buckets)
//
// The labels are worked out from the request as kube-apiserver's RequestInfo and CleanVerb do:
// verb GET, LIST, WATCH (a GET with watch=true), POST, PUT, PATCH, APPLY (a PATCH with an
// apply-patch body), DELETE, DELETECOLLECTION; scope "resource" for one object, "namespace" for a
// collection in a namespace, "cluster" for a cluster-wide one; component "apiserver". A request
// outside the resource paths (discovery, /openapi, /healthz) has empty group/version/resource,
// its method as verb and, for the health and metrics paths, the path as subresource, as
// kube-apiserver reports them. A watch is counted when it ends; its duration is not observed
// (kube-apiserver leaves long-running requests out of the latency histogram too).
//
// Thread-safe (the registry is).
#pragma once

#include <string>

#include "fakekube/http/internal/rest_types.h"
#include "fakekube/metrics/metrics_registry.h"

namespace fakekube {

// The labels of one request.
struct RequestLabels {
  std::string verb;
  std::string dryRun;
  std::string group;
  std::string version;
  std::string resource;
  std::string subresource;
  std::string scope;
  std::string component;
};

// `request` must carry method, path, query and contentType.
RequestLabels requestLabels(const RestRequest& request);

class RequestMetrics {
 public:
  // Registers the two families in `registry`, which must outlive this object.
  explicit RequestMetrics(MetricsRegistry& registry);

  // Counts a finished request with its HTTP status code; observes its duration unless it was a
  // watch.
  void record(const RequestLabels& labels, int code, double seconds);

 private:
  CounterFamily total_;
  HistogramFamily duration_;
};

}  // namespace fakekube
