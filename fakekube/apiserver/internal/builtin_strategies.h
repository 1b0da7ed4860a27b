// The per-kind rules of the built-in kinds beyond the workloads strategy.cpp handles: the
// defaults kube-apiserver fills on create and the validation users meet in practice (required
// fields, enumerations, immutable fields), with kube-apiserver's field paths and messages.
//
//   rbac.authorization.k8s.io  rules need verbs (and apiGroups + resources, or nonResourceURLs
//                              outside a Role); aggregationRule is kept as data; a binding's
//                              roleRef is required, names Role/ClusterRole in the RBAC group,
//                              and cannot change; subjects are User, Group or ServiceAccount
//   networking.k8s.io          Ingress paths need a pathType of Exact, Prefix or
//                              ImplementationSpecific and a backend; NetworkPolicy policyTypes
//   policy                     PodDisruptionBudget: minAvailable and maxUnavailable exclusive
//   autoscaling                HorizontalPodAutoscaler: scaleTargetRef, 1 <= minReplicas <=
//                              maxReplicas; minReplicas 1 and (v2) the 80% CPU metric by default
//   apps                       StatefulSet and DaemonSet: their defaults (their validation is
//                              workload_validation.h's), a DaemonSet's update strategy's
//   batch                      CronJob: a schedule of five fields (or @hourly, ...), the
//                              concurrencyPolicy enumeration, history-limit defaults
//   core                       PersistentVolumeClaim access modes and storage request,
//                              PersistentVolume reclaim policy, ReplicationController's selector
//                              defaulted from its template
//   scheduling.k8s.io          PriorityClass: value at most 10^9 outside system- names,
//                              value immutable, preemptionPolicy default
//   storage.k8s.io             StorageClass: provisioner required and immutable, its defaults
//   discovery.k8s.io           EndpointSlice: addressType required, one of IPv4/IPv6/FQDN,
//                              immutable
//   admissionregistration      webhooks need sideEffects and admissionReviewVersions (stored;
//                              never called)
//
// Everything else of these kinds is stored as sent. Called from strategy.cpp.
#pragma once

#include "fakekube/api/json.h"
#include "fakekube/api/resource_registry.h"
#include "fakekube/api/status.h"

namespace fakekube::strategy {

// Fills the kind's defaults; false when the kind has none here.
bool defaultBuiltin(const ResourceInfo& info, Json& object);

void validateBuiltinCreate(const ResourceInfo& info, const Json& object, FieldErrors& errors);
// The checks of an update beyond validateBuiltinCreate's of the updated object.
void validateBuiltinUpdate(const ResourceInfo& info, const Json& updated, const Json& old,
                           FieldErrors& errors);

}  // namespace fakekube::strategy
