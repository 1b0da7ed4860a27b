// The head and worker pods of a RayCluster (KubeRay's common/pod.go and the controller's
// buildHeadPod / buildWorkerPod).
//
// A pod starts as a copy of its group's template, then:
//   metadata   generateName (naming.h), the RayCluster's namespace whatever the template says,
//              labels ray.io/is-ray-node=yes, ray.io/cluster, ray.io/node-type, ray.io/group
//              (headgroup for the head), ray.io/identifier, app.kubernetes.io/name=kuberay,
//              app.kubernetes.io/created-by=kuberay-operator; the template's labels and the
//              group's `labels` override all of them but cluster, node-type and group. Workers
//              also get ray.io/worker-group-replica-index (the RayMultiHostIndexing gate is on by
//              default) and, in a group of numOfHosts > 1, ray.io/worker-group-replica-name
//              and ray.io/replica-host-index. A controller owner reference to the RayCluster.
//   container 0 (the Ray container)
//              a `metrics` port 8080 unless one is named so; a /dev/shm emptyDir (medium Memory)
//              unless rayStartParams sets plasma-directory; the command becomes
//              ["/bin/bash", "-c", "--"] (-cl with ENABLE_LOGIN_SHELL) with one argument
//              "ulimit -n ${RAY_START_ULIMIT_OPEN_FILES:-65536}; ray start ..." unless the
//              template's command already says "ray start" or the RayCluster carries
//              ray.io/overwrite-container-cmd=true (a template command is kept in front,
//              "<cmd> && ulimit ..."); KubeRay's environment (RAY_CLUSTER_NAME,
//              KUBERAY_GEN_RAY_START_CMD, RAY_ADDRESS, ...; FQ_RAY_IP and RAY_IP for workers);
//              liveness and readiness probes unless ENABLE_PROBES_INJECTION=false or the template
//              has its own (exec wget checks, or httpGet /api/healthz:52365 for Ray >= 2.53).
//   ray start  rayStartParams sorted by key, "--k=v", or "--k" for "true" (dropped for "false"),
//              with the defaults KubeRay adds: head dashboard-host=0.0.0.0; workers
//              address=<head FQDN>:<port>; both metrics-export-port=8080, block,
//              dashboard-agent-listen-port=52365, num-cpus from the CPU limit (else request),
//              memory from the memory limit, num-gpus from nvidia.com/gpu.
//   workers    the init container wait-gcs-ready (unless ENABLE_INIT_CONTAINER_INJECTION=false),
//              which loops on `ray health-check` against the head until GCS answers; every init
//              container gets FQ_RAY_IP and RAY_IP.
// In-tree autoscaling adds the autoscaler container, service account and log volume to the head
// (autoscaler_container.h). The operator configuration's headSidecarContainers /
// workerSidecarContainers (OperatorOptions) are appended after the pod's own containers.
// The head pod also carries ray.io/upgrade-strategy-recreate-hash (clusterHash below) and
// ray.io/kuberay-version, which the Recreate upgrade strategy compares.
// A RayService's cluster (ray.io/originated-from-crd=RayService): the head is labelled
// ray.io/serve=false (the RayService controller relabels it by its Serve proxy's health), workers
// ray.io/serve=true; a worker's injected readiness probe also checks its Serve proxy
// (`wget ... http://localhost:<serve port>/-/healthz`, failureThreshold 1); the Ray container gets
// RAY_timeout_ms_task_wait_for_death_info=0, RAY_gcs_server_request_timeout_seconds=5 and
// RAY_SERVE_KV_TIMEOUT_S=5.
//
// Not modelled: GCS fault tolerance, token auth, TLS, the history collector, batch scheduler
// metadata, default pod labels/annotations and container envs from the
// operator's configuration, the top-level `resources` field of a group.
#pragma once

#include <string>

#include "controllers/ray/operator_options.h"
#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/json.h"

namespace fakekube::ray {

// The port workers dial on the head: rayStartParams["port"] of the head, else 6379 (GetHeadPort).
std::string headPort(const Json& rayCluster);

// The pod to create for the head group (its name is generated unless deterministic names are on).
Json buildHeadPod(const Json& rayCluster, const OperatorOptions& options,
                  const std::string& clusterHash);
// One worker of `group` with ray.io/worker-group-replica-index = replicaIndex; in a multi-host
// group (numOfHosts > 1) also ray.io/worker-group-replica-name = replicaGroupName and
// ray.io/replica-host-index = hostIndex (DefaultWorkerPodTemplate's replicaGrpName, replicaIndex,
// numHostIndex).
Json buildWorkerPod(const Json& rayCluster, const WorkerGroupSpec& group,
                    const OperatorOptions& options, const std::string& replicaGroupName,
                    int replicaIndex, int hostIndex);

// GenerateHashWithoutReplicasAndWorkersToDelete: a hash of the spec with replicas, min/max,
// workersToDelete, tolerations, scheduling gates and upgradeStrategy left out, so that scaling
// does not count as a change of the cluster. (KubeRay hashes Go's JSON with SHA-1; this hashes
// the canonical JSON with FNV-1a: the values differ from KubeRay's, the rule is the same.)
std::string clusterHash(const Json& rayCluster);

}  // namespace fakekube::ray
