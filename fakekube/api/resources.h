// The GroupVersionResource of each built-in kind that controllers and tests address by name:
// `client.get(kPods, "default", "web-0")`, `.owns(kServices)`, `cache.informerFor(kJobs)`.
//
// One constant per resource, defined once here so that every part of the project (and every user
// of it) spells "pods" the same way; the rules of each kind (scope, subresources, short names)
// are in the ResourceRegistry (builtin_resources.h), which is what the API server serves. Custom
// resources define their own constants next to their types (controllers/ray: kRayClusters,
// kRayJobs).
#pragma once

#include "fakekube/api/group_version.h"

namespace fakekube {

// core/v1
inline const GroupVersionResource kPods{"", "v1", "pods"};
inline const GroupVersionResource kServices{"", "v1", "services"};
inline const GroupVersionResource kEndpoints{"", "v1", "endpoints"};
inline const GroupVersionResource kNodes{"", "v1", "nodes"};
inline const GroupVersionResource kNamespaces{"", "v1", "namespaces"};
inline const GroupVersionResource kEvents{"", "v1", "events"};
inline const GroupVersionResource kConfigMaps{"", "v1", "configmaps"};
inline const GroupVersionResource kSecrets{"", "v1", "secrets"};
inline const GroupVersionResource kServiceAccounts{"", "v1", "serviceaccounts"};
inline const GroupVersionResource kPersistentVolumeClaims{"", "v1", "persistentvolumeclaims"};
inline const GroupVersionResource kReplicationControllers{"", "v1", "replicationcontrollers"};

// apps/v1
inline const GroupVersionResource kDeployments{"apps", "v1", "deployments"};
inline const GroupVersionResource kReplicaSets{"apps", "v1", "replicasets"};
inline const GroupVersionResource kStatefulSets{"apps", "v1", "statefulsets"};
inline const GroupVersionResource kDaemonSets{"apps", "v1", "daemonsets"};
inline const GroupVersionResource kControllerRevisions{"apps", "v1", "controllerrevisions"};

// batch/v1
inline const GroupVersionResource kJobs{"batch", "v1", "jobs"};
inline const GroupVersionResource kCronJobs{"batch", "v1", "cronjobs"};

// discovery.k8s.io/v1, policy/v1, coordination.k8s.io/v1
inline const GroupVersionResource kEndpointSlices{"discovery.k8s.io", "v1", "endpointslices"};
inline const GroupVersionResource kPodDisruptionBudgets{"policy", "v1", "poddisruptionbudgets"};
inline const GroupVersionResource kLeases{"coordination.k8s.io", "v1", "leases"};

// apiextensions.k8s.io/v1
inline const GroupVersionResource kCustomResourceDefinitions{"apiextensions.k8s.io", "v1",
                                                             "customresourcedefinitions"};

}  // namespace fakekube
