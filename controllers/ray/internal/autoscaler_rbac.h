// The Ray autoscaler's RBAC objects (KubeRay's common/rbac.go and the RayCluster controller's
// reconcileAutoscalerServiceAccount, reconcileAutoscalerRole, reconcileAutoscalerRoleBinding).
//
// The autoscaler container in the head pod (autoscaler_container.h) lists the cluster's pods and
// patches the RayCluster with the head pod's ServiceAccount, so with spec.enableInTreeAutoscaling
// each round first makes sure, in the RayCluster's namespace, of:
//   ServiceAccount  the head template's serviceAccountName, else <cluster>
//   Role            <cluster>: pods get/list/watch/patch, pods/resize patch, and ray.io
//                   rayclusters get/patch
//   RoleBinding     <cluster>: the Role to that ServiceAccount
// each labelled ray.io/cluster, app.kubernetes.io/name=kuberay and
// app.kubernetes.io/created-by=kuberay-operator, named through checkName, with a controller owner
// reference to the RayCluster (the garbage collector removes them with it).
//
// Each step reads the object from the operator's cache (its informer starts on the first read,
// as controller-runtime's cached client starts one) and creates it only when it is absent
// (an AlreadyExists answer is success: the cache had not seen it yet); an existing object is
// left as it is. Events: CreatedServiceAccount / CreatedRole / CreatedRoleBinding, or
// FailedToCreate... with the error. Skipped without in-tree autoscaling. A ServiceAccount the
// user named in the head template is never created: if it is missing the step fails with the
// NotFound error and a Warning AutoscalerServiceAccountNotFound (a ServiceAccount KubeRay made
// would break the autoscaler during a RayService's zero-downtime upgrade).
#pragma once

#include "fakekube/api/json.h"
#include "fakekube/api/resources.h"
#include "fakekube/api/status.h"
#include "fakekube/client/client.h"
#include "fakekube/runtime/event_recorder.h"

namespace fakekube::ray {

inline const GroupVersionResource kRoles{"rbac.authorization.k8s.io", "v1", "roles"};
inline const GroupVersionResource kRoleBindings{"rbac.authorization.k8s.io", "v1", "rolebindings"};

// BuildServiceAccount, BuildRole, BuildRoleBinding (names not yet clipped by checkName, except
// the RoleBinding's subject and roleRef, which upstream clips there).
Json buildServiceAccount(const Json& rayCluster);
Json buildRole(const Json& rayCluster);
Json buildRoleBinding(const Json& rayCluster);

// The reconcile steps. `client` reads (the cache) and writes; `recorder` records the Events.
Result<void> reconcileAutoscalerServiceAccount(Client& client, EventRecorder& recorder,
                                               const Json& instance);
Result<void> reconcileAutoscalerRole(Client& client, EventRecorder& recorder, const Json& instance);
Result<void> reconcileAutoscalerRoleBinding(Client& client, EventRecorder& recorder,
                                            const Json& instance);

}  // namespace fakekube::ray
