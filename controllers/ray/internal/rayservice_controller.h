// The KubeRay RayService controller (ray-operator/controllers/ray/rayservice_controller.go) on
// fakekube's runtime: Ray Serve applications on a RayCluster, behind two Services, upgraded
// without downtime by preparing a new cluster beside the serving one and switching the Services'
// selectors to it once its applications run.
//
// Wiring (SetupWithManager): For RayService filtered by or_(generationChanged, labelChanged,
// annotationChanged) (its own status writes do not trigger it), Owns RayCluster and Service;
// named "rayservice"; maxConcurrentReconciles = options.reconcileConcurrency; Events from
// "rayservice-controller". Reads go through the manager's cache, writes through its client. Ray
// dashboards are asked through the DashboardClientFactory, head pods' Serve proxies through the
// HttpProxyClientFactory (in process: the cluster's network; out of process: the API server's
// service and pods proxies).
//
// A round (Reconcile), in KubeRay's order and with its step names:
//   1. Get; NotFound -> done. spec.managedBy another controller -> skip.
//   2. cleanUpServeConfigCache: forget the cached Serve configs of clusters the status no longer
//      names.
//   3. cleanUpRayClusterInstance: every RayCluster labelled as this RayService's that the status
//      names neither active nor pending is scheduled for deletion rayClusterDeletionDelaySeconds
//      (default 60 s) after the round that first saw it (at once when the RayService is being
//      deleted), and deleted (Background) by the first round after that: DeletedRayCluster. The
//      schedule is kept in memory only, as upstream: a restarted operator schedules anew.
//   4. Being deleted: once no RayCluster is left, remove the finalizer ray.io/rayservice-finalizer
//      (Update); until then requeue 2 s. Without the finalizer: add it (Update), requeue 2 s.
//   5. validateRayService (rayservice_validation.h): Warning Event, Ready False/ValidationFailed,
//      a status write, no requeue.
//   6. handleSuspend: spec.suspend stages Suspending (status reset, Ready False
//      SuspendInProgress); the next rounds delete the RayClusters and Services it owns
//      (DeletedRayCluster, DeletedService), then Suspended True/SuspendComplete; spec.suspend
//      false on a Suspended RayService: Suspended False/RayServiceResumed, Ready and
//      UpgradeInProgress reset to Initializing (re-arming the timeout). While Suspending or
//      Suspended the round ends here (status written when changed).
//   7. Ready False/InitializingTimeout is terminal: only the cleanup runs.
//   8. reconcileRayCluster: the active and pending clusters the status names. A pending name
//      without its cluster -> create it (CreatedRayCluster). A cluster whose spec differs only by
//      appended worker groups (or the active one's KubeRay version) is updated in place
//      (UpdatedRayCluster; rayservice_cluster.h).
//   9. updateHeadPodServeLabel on both: ray.io/serve on the head pod = its Serve proxy's health
//      (GET <pod IP>:<serve port>/-/healthz), "false" with spec.excludeHeadPodFromServeSvc
//      (UpdatedHeadPodServeLabel). No head pod is an error of the round.
//  10. reconcileServe: the pending cluster if any, else the active one unless a new cluster is
//      about to be prepared. Once the cluster's HeadPodReady condition is True: the applications'
//      statuses from the dashboard; the Serve config is sent (UpdatedServeApplications) when not
//      cached for the cluster, when the cluster reports no application, or when it changed
//      (rayservice_serve.h). The cluster is ready when it has applications and all are RUNNING.
//  11. reconcileServicesToReadyCluster: when the pending (else the active) cluster is ready,
//      <rayservice>-head-svc and <rayservice>-serve-svc select it: created (CreatedService), or
//      their spec replaced with the clusterIP kept when the selector names another cluster
//      (UpdatedService) (rayservice_services.h).
//  12. calculateStatus: observedGeneration; each side's rayClusterStatus and
//      applicationStatuses; reconcilePromotionAndServingStatus (both Services select one
//      cluster, the active or the pending one; when it is not the active one the pending status
//      becomes the active one); shouldPrepareNewCluster -> pendingServiceStatus = {rayClusterName:
//      <name>-<5 random>} (the name is written before the next round creates the cluster);
//      numServeEndpoints = ready endpoints of <rayservice>-serve-svc's EndpointSlices (a pod
//      counted once); the conditions: Ready True/NonZeroServeEndpoints, False/ZeroServeEndpoints
//      once it was True, else Initializing until the ray.io/initializing-timeout annotation's
//      time (then InitializingTimeout: both cluster names cleared, Warning
//      RayServiceInitializingTimeout); UpgradeInProgress True/BothActivePendingClustersExist,
//      False/NoPendingCluster, or Unknown/NoActiveCluster; serviceStatus Running when Ready.
//  13. A status Update when InconsistentRayServiceStatuses (conditions, serviceStatus,
//      numServeEndpoints, cluster names, application statuses; lastUpdateTime = now).
//      Requeue 2 s. A step that fails returns its error (the 2 s result upstream returns with it
//      is ignored, as controller-runtime ignores it: the rate limiter's backoff applies).
//
// NewClusterWithIncrementalUpgrade (rayservice_incremental_upgrade.h) adds, after step 8, the
// rollback state (reconcileRollbackState), Serve on both clusters in step 10 (the active one
// without config updates) with the target_capacity steps, then per-cluster serve Services,
// reconcileGateway and reconcileHTTPRoute; the Services of step 11 stay on the active cluster
// and step 12 reads the traffic from the HTTPRoute and promotes once it has fully moved.
// Not modelled: metrics, token auth.
#pragma once

#include "controllers/ray/dashboard_client.h"
#include "controllers/ray/httpproxy_client.h"
#include "controllers/ray/operator_options.h"
#include "fakekube/api/status.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/manager.h"

namespace fakekube::ray {

// Registers the controller on `manager` (it starts with the manager). Install the CRDs first.
// Ray is reached through `options`' dashboard and Serve proxy clients (ray_clients.h).
Result<Controller*> addRayServiceController(Manager& manager, const OperatorOptions& options = {});

}  // namespace fakekube::ray
