// Server-side printing: objects as meta.k8s.io Tables, the form `kubectl get` asks for.
//
// kubectl prints whatever columns the server sends, so the columns and cells here are the ones
// Kubernetes' printers produce (pkg/printers/internalversion): pods NAME READY STATUS RESTARTS AGE
// plus IP NODE NOMINATED NODE READINESS GATES at priority 1 (shown by -o wide), with STATUS worked
// out as kubectl users know it (the pod's reason, a container's waiting or terminated reason,
// Init:…, Terminating, else the phase); deployments NAME READY UP-TO-DATE AVAILABLE AGE; the
// column sets of the other common kinds (StatefulSet, DaemonSet, Job, CronJob,
// ReplicationController, Ingress, IngressClass, NetworkPolicy, PodDisruptionBudget,
// HorizontalPodAutoscaler, PriorityClass, StorageClass, PersistentVolume(Claim),
// ServiceAccount, Endpoints, EndpointSlice, Role(Binding)s and ClusterRole(Binding)s, Lease,
// ControllerRevision, CertificateSigningRequest, APIService, ResourceQuota, LimitRange); custom
// resources their CRD's additionalPrinterColumns (JSONPath); and NAME AGE for every other kind.
// AGE is measured against the API server's clock.
//
// Each row carries the object as the request's includeObject asks: Metadata (the default, a
// PartialObjectMetadata), Object (the whole object) or None.
#pragma once

#include <string>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/api/object.h"
#include "fakekube/api/resource_registry.h"
#include "fakekube/sim/clock.h"

namespace fakekube {

struct TableOptions {
  std::string apiVersion = "meta.k8s.io/v1";
  std::string includeObject = "Metadata";  // "None", "Metadata" or "Object"
  bool noHeaders = false;                  // omit columnDefinitions (watch events after the first)
  TimePoint now;                           // what AGE is measured against
};

// The Table of `objects` (one object for a GET, a list's items otherwise). `resourceVersion` and
// `continueToken` go to the Table's metadata.
Json tableOf(const ResourceInfo& info, const std::vector<ObjectPtr>& objects,
             const TableOptions& options, const std::string& resourceVersion,
             const std::string& continueToken = "");

// Go's duration.HumanDuration of `now - timestamp` ("0s", "5m30s", "3h", "12d"); "<unknown>"
// when the timestamp does not parse, "<invalid>" when it lies more than a second ahead.
std::string humanAge(const std::string& rfc3339, TimePoint now);

}  // namespace fakekube
