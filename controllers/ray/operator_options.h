// OperatorOptions: the KubeRay operator's settings, one field per environment variable (and the
// command-line flags) of the upstream operator. `fakekube serve` and `fakekube operator` read
// them from the environment with fromEnvironment(); tests set the fields directly.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "controllers/ray/dashboard_client_factory.h"
#include "controllers/ray/httpproxy_client.h"
#include "fakekube/api/json.h"

namespace fakekube::ray {

struct OperatorOptions {
  // --reconcile-concurrency: workers per controller.
  int reconcileConcurrency = 1;

  // RAYCLUSTER_DEFAULT_REQUEUE_SECONDS_ENV: the RayCluster's unconditional requeue (300 s).
  std::chrono::seconds rayClusterDefaultRequeue{300};
  // ENABLE_RANDOM_POD_DELETE: scale down without the autoscaler deletes pods.
  bool enableRandomPodDelete = false;
  // ENABLE_GCS_FT_REDIS_CLEANUP: on unless "false".
  bool enableGcsFtRedisCleanup = true;
  // ENABLE_PROBES_INJECTION: readiness/liveness probes on Ray containers.
  bool enableProbesInjection = true;
  // ENABLE_INIT_CONTAINER_INJECTION: workers wait for GCS in an init container.
  bool enableInitContainerInjection = true;
  // ENABLE_RAY_HEAD_CLUSTER_IP_SERVICE: the head Service gets a ClusterIP (default headless).
  bool enableRayHeadClusterIpService = false;
  // ENABLE_DETERMINISTIC_HEAD_POD_NAME: the head pod is named "<cluster>-head".
  bool enableDeterministicHeadPodName = false;
  // ENABLE_LOGIN_SHELL: "/bin/bash -lc" instead of "/bin/bash -c".
  bool enableLoginShell = false;
  // DELETE_RAYJOB_CR_AFTER_JOB_FINISHES: TTL cleanup deletes the RayJob itself.
  bool deleteRayJobAfterJobFinishes = false;
  // ENABLE_ZERO_DOWNTIME: a RayService without spec.upgradeStrategy.type upgrades by preparing a
  // new cluster (on unless "false").
  bool enableZeroDowntime = true;
  // The RayServiceIncrementalUpgrade feature gate (--feature-gates; Beta, on by default
  // upstream): upgradeStrategy.type NewClusterWithIncrementalUpgrade moves traffic in steps
  // through a Gateway API Gateway and HTTPRoute (rayservice_incremental_upgrade.h). Off: that
  // type upgrades no cluster. Not read from the environment.
  bool rayServiceIncrementalUpgrade = true;
  // CLUSTER_DOMAIN.
  std::string clusterDomain = "cluster.local";
  // RAYJOB_STATUS_CHECK_TIMEOUT_SECONDS (non-integer or <= 0: the default).
  std::chrono::seconds rayJobStatusCheckTimeout{300};
  // RAYJOB_DEPLOYMENT_STATUS_TRANSITION_GRACE_PERIOD_SECONDS.
  std::chrono::seconds rayJobDeploymentStatusTransitionGracePeriod{300};
  // RAYCLUSTER_GCS_FT_DELETION_TIMEOUT_DEFAULT.
  std::chrono::seconds gcsFtDeletionTimeout{300};
  // --use-kubernetes-proxy: reach Ray dashboards through the API server's service proxy.
  bool useKubernetesProxy = false;
  // --batch-scheduler (the Configuration's batchScheduler): the gang scheduler the pods are
  // handed to, "volcano" or "scheduler-plugins"; empty: none (batchscheduler/batch_scheduler.h).
  std::string batchScheduler;
  // --enable-batch-scheduler (enableBatchScheduler), the legacy switch: volcano.
  bool enableBatchScheduler = false;
  // Seeds the five random characters of the names the RayJob controller generates (jobId and
  // rayClusterName, `<rayjob>-<rand5>`), so that a run on the SimExecutor replays; unset = a
  // random seed, as upstream's utilrand.
  std::optional<std::uint64_t> randomSeed;
  // The operator configuration's headSidecarContainers / workerSidecarContainers (the
  // Configuration file of `--config`, operator_configuration.h): containers appended to every
  // head / worker pod after KubeRay's own.
  std::vector<Json> headSidecarContainers;
  std::vector<Json> workerSidecarContainers;
  // Not upstream's: fakekube's operator installs KubeRay's CRDs itself when they are missing
  // (ray_operator.h). False when the installer applied them, as `kubectl apply -k
  // config/default` does: the operator running under KubeRay's own ClusterRole may not read
  // CustomResourceDefinitions. Not read from the environment.
  bool installCustomResourceDefinitions = true;

  // How the RayJob controller reaches a RayCluster's dashboard (upstream's ClientProvider
  // GetDashboardClient). Unset: over HTTP to the dashboardURL, or through the API server's proxy
  // with useKubernetesProxy (`fakekube serve` passes inProcessDashboardClients). A test sets its
  // own factory returning a fake RayDashboardClientInterface (dashboard_client.h), as KubeRay's
  // tests install their FakeRayDashboardClient. Not read from the environment.
  DashboardClientFactory dashboardClients;
  // How the RayService controller asks a head pod's Serve proxy for its health (upstream's
  // ClientProvider GetHttpProxyClient; httpproxy_client.h). Unset: as the dashboards are reached
  // (`fakekube serve` passes inProcessHttpProxyClients). A test sets its own. Not read from the
  // environment.
  HttpProxyClientFactory httpProxyClients;

  // Reads every variable above from `getenv` (the process environment by default); an unset
  // variable keeps the default.
  static OperatorOptions fromEnvironment(
      const std::function<const char*(const char*)>& getenv = nullptr);
};

}  // namespace fakekube::ray
