#include "controllers/ray/custom_resource_definitions.h"

#include <nlohmann/json.hpp>
#include <vector>

#include "fakekube/api/internal/custom_resource_definition_builder.h"
#include "fakekube/api/resources.h"
#include "fakekube/client/internal/create_if_missing.h"

namespace fakekube::ray {
namespace {

// The schemas are the project's own, written after KubeRay's CRDs: every field the RayCluster and
// RayJob controllers read or write, with KubeRay's types and defaults where they sit upstream
// (worker replicas 0, minReplicas 0, maxReplicas 2147483647, numOfHosts 1; RayJob submissionMode
// K8sJobMode, backoffLimit 0, ttlSecondsAfterFinished 0; RayJob status succeeded and failed 0).
// Pod templates and the options the controllers pass through unread keep unknown fields
// (x-kubernetes-preserve-unknown-fields); everywhere else unknown fields are pruned, as the API
// server prunes them with KubeRay's own files. Validation is KubeRay's where the API server
// enforces it (types, the upgrade strategy enum, required head group and templates, condition
// status); the checks KubeRay leaves to the controller (min <= max, deadlines > 0) stay there.

// spec of a RayCluster (also a RayJob's spec.rayClusterSpec).
constexpr const char* kRayClusterSpecSchema = R"(
type: object
required: [headGroupSpec]
properties:
  authOptions: {type: object, x-kubernetes-preserve-unknown-fields: true}
  autoscalerOptions: {type: object, x-kubernetes-preserve-unknown-fields: true}
  enableInTreeAutoscaling: {type: boolean}
  gcsFaultToleranceOptions: {type: object, x-kubernetes-preserve-unknown-fields: true}
  headGroupSpec:
    type: object
    required: [template]
    properties:
      enableIngress: {type: boolean}
      headService: {type: object, x-kubernetes-preserve-unknown-fields: true}
      ingressOptions: {type: object, x-kubernetes-preserve-unknown-fields: true}
      labels: {type: object, additionalProperties: {type: string}}
      rayStartParams: {type: object, additionalProperties: {type: string}}
      resources: {type: object, additionalProperties: {type: string}}
      serviceType: {type: string}
      template: {type: object, x-kubernetes-preserve-unknown-fields: true}
  headServiceAnnotations: {type: object, additionalProperties: {type: string}}
  historyServerOptions: {type: object, x-kubernetes-preserve-unknown-fields: true}
  managedBy: {type: string}
  networkPolicy: {type: object, x-kubernetes-preserve-unknown-fields: true}
  rayVersion: {type: string}
  suspend: {type: boolean}
  tlsOptions: {type: object, x-kubernetes-preserve-unknown-fields: true}
  upgradeStrategy:
    type: object
    properties:
      type: {type: string, enum: [Recreate, None]}
  workerGroupSpecs:
    type: array
    items:
      type: object
      required: [groupName, maxReplicas, minReplicas, template]
      properties:
        groupName: {type: string}
        idleTimeoutSeconds: {type: integer, format: int32}
        labels: {type: object, additionalProperties: {type: string}}
        maxReplicas: {type: integer, format: int32, default: 2147483647}
        minReplicas: {type: integer, format: int32, default: 0}
        numOfHosts: {type: integer, format: int32, default: 1}
        priority: {type: integer, format: int32}
        rayStartParams: {type: object, additionalProperties: {type: string}}
        replicas: {type: integer, format: int32, default: 0}
        resources: {type: object, additionalProperties: {type: string}}
        scaleStrategy:
          type: object
          properties:
            workersToDelete: {type: array, items: {type: string}}
        suspend: {type: boolean}
        template: {type: object, x-kubernetes-preserve-unknown-fields: true}
)";

// status of a RayCluster (also a RayJob's status.rayClusterStatus).
constexpr const char* kRayClusterStatusSchema = R"(
type: object
properties:
  availableWorkerReplicas: {type: integer, format: int32}
  conditions:
    type: array
    items:
      type: object
      required: [status, type]
      properties:
        lastTransitionTime: {type: string, format: date-time}
        message: {type: string, maxLength: 32768}
        observedGeneration: {type: integer, format: int64, minimum: 0}
        reason: {type: string}
        status: {type: string, enum: ["True", "False", Unknown]}
        type: {type: string, maxLength: 316}
  desiredCPU: &quantity
    x-kubernetes-int-or-string: true
    pattern: '^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$'
  desiredGPU: *quantity
  desiredMemory: *quantity
  desiredTPU: *quantity
  desiredWorkerReplicas: {type: integer, format: int32}
  endpoints: {type: object, additionalProperties: {type: string}}
  head:
    type: object
    properties:
      podIP: {type: string}
      podName: {type: string}
      serviceIP: {type: string}
      serviceName: {type: string}
  lastUpdateTime: {type: string, format: date-time, nullable: true}
  maxWorkerReplicas: {type: integer, format: int32}
  minWorkerReplicas: {type: integer, format: int32}
  observedGeneration: {type: integer, format: int64}
  readyWorkerReplicas: {type: integer, format: int32}
  reason: {type: string}
  state: {type: string}
  stateTransitionTimes: {type: object, additionalProperties: {type: string, format: date-time}}
)";

// spec and status of a RayJob; rayClusterSpec and rayClusterStatus are filled in from the
// RayCluster schemas above.
constexpr const char* kRayJobProperties = R"(
spec:
  type: object
  properties:
    activeDeadlineSeconds: {type: integer, format: int32}
    backoffLimit: {type: integer, format: int32, default: 0}
    clusterSelector: {type: object, additionalProperties: {type: string}}
    deletionStrategy: {type: object, x-kubernetes-preserve-unknown-fields: true}
    entrypoint: {type: string}
    entrypointNumCpus: {type: number}
    entrypointNumGpus: {type: number}
    entrypointResources: {type: string}
    jobId: {type: string}
    managedBy: {type: string}
    metadata: {type: object, additionalProperties: {type: string}}
    preRunningDeadlineSeconds: {type: integer, format: int32}
    rayClusterSpec: {}
    runtimeEnvYAML: {type: string}
    shutdownAfterJobFinishes: {type: boolean}
    submissionMode: {type: string, default: K8sJobMode}
    submitterConfig:
      type: object
      properties:
        backoffLimit: {type: integer, format: int32}
    submitterPodTemplate: {type: object, x-kubernetes-preserve-unknown-fields: true}
    suspend: {type: boolean}
    ttlSecondsAfterFinished: {type: integer, format: int32, default: 0}
status:
  type: object
  properties:
    dashboardURL: {type: string}
    endTime: {type: string, format: date-time}
    failed: {type: integer, format: int32, default: 0}
    jobDeploymentStatus: {type: string}
    jobId: {type: string}
    jobStatus: {type: string}
    jobStatusCheckFailureStartTime: {type: string, format: date-time}
    message: {type: string}
    observedGeneration: {type: integer, format: int64}
    rayClusterName: {type: string}
    rayClusterStatus: {}
    rayJobInfo:
      type: object
      properties:
        endTime: {type: string, format: date-time}
        startTime: {type: string, format: date-time}
    reason: {type: string}
    startTime: {type: string, format: date-time}
    succeeded: {type: integer, format: int32, default: 0}
)";

// spec and status of a RayService; rayClusterConfig and each rayClusterStatus are filled in from
// the RayCluster schemas above. serveService is a Service, kept as written.
constexpr const char* kRayServiceProperties = R"(
spec:
  type: object
  required: [rayClusterConfig]
  properties:
    deploymentUnhealthySecondThreshold: {type: integer, format: int32}
    excludeHeadPodFromServeSvc: {type: boolean}
    managedBy: {type: string}
    rayClusterConfig: {}
    rayClusterDeletionDelaySeconds: {type: integer, format: int32, minimum: 0}
    serveConfigV2: {type: string}
    serveService: {type: object, x-kubernetes-preserve-unknown-fields: true}
    serviceUnhealthySecondThreshold: {type: integer, format: int32}
    suspend: {type: boolean}
    upgradeStrategy:
      type: object
      properties:
        clusterUpgradeOptions: {type: object, x-kubernetes-preserve-unknown-fields: true}
        type: {type: string}
status:
  type: object
  properties:
    activeServiceStatus: &serviceStatus
      type: object
      properties:
        applicationStatuses:
          type: object
          additionalProperties:
            type: object
            properties:
              message: {type: string}
              serveDeploymentStatuses:
                type: object
                additionalProperties:
                  type: object
                  properties:
                    message: {type: string}
                    status: {type: string}
              status: {type: string}
        lastTrafficMigratedTime: {type: string, format: date-time}
        rayClusterName: {type: string}
        rayClusterStatus: {}
        targetCapacity: {type: integer, format: int32}
        trafficRoutedPercent: {type: integer, format: int32}
    conditions:
      type: array
      items:
        type: object
        required: [lastTransitionTime, message, reason, status, type]
        properties:
          lastTransitionTime: {type: string, format: date-time}
          message: {type: string, maxLength: 32768}
          observedGeneration: {type: integer, format: int64, minimum: 0}
          reason: {type: string}
          status: {type: string, enum: ["True", "False", Unknown]}
          type: {type: string, maxLength: 316}
    lastUpdateTime: {type: string, format: date-time}
    numServeEndpoints: {type: integer, format: int32}
    observedGeneration: {type: integer, format: int64}
    pendingServiceStatus: *serviceStatus
    serviceStatus: {type: string}
)";

// A definition in KubeRay's frame: group ray.io, category all, Namespaced, v1 served and stored,
// the printer columns KubeRay gives the kind (what kubectl get raycluster / rayjob / rayservice
// prints).
Json rayDefinition(std::string kind, std::string plural, std::vector<PrinterColumn> columns,
                   Json properties) {
  Json definition = customResourceDefinition({.group = "ray.io",
                                              .version = "v1",
                                              .kind = std::move(kind),
                                              .plural = std::move(plural),
                                              .categories = {"all"},
                                              .printerColumns = std::move(columns),
                                              .properties = std::move(properties)});
  // v1alpha1 is served with the same schema, as an older name of the same objects.
  Json& versions = definition["spec"]["versions"];
  Json alpha = versions[0];
  alpha["name"] = "v1alpha1";
  alpha["storage"] = false;
  versions.push_back(std::move(alpha));
  return definition;
}

}  // namespace

// The definitions are read from their YAML once per process: every start of the operator asks
// for them (installCustomResourceDefinitions), and reading the YAML cost more than the rest of
// a start (a crash-point enumeration starts the operator a few hundred times).
Json rayClusterCustomResourceDefinition() {
  static const Json definition =
      rayDefinition("RayCluster", "rayclusters",
                    {{"desired workers", "integer", ".status.desiredWorkerReplicas"},
                     {"available workers", "integer", ".status.availableWorkerReplicas"},
                     {"cpus", "string", ".status.desiredCPU"},
                     {"memory", "string", ".status.desiredMemory"},
                     {"gpus", "string", ".status.desiredGPU"},
                     {"tpus", "string", ".status.desiredTPU", "", 1},
                     {"status", "string", ".status.state"},
                     {"age", "date", ".metadata.creationTimestamp"},
                     {"head pod IP", "string", ".status.head.podIP", "", 1},
                     {"head service IP", "string", ".status.head.serviceIP", "", 1}},
                    {{"spec", schemaFromYaml(kRayClusterSpecSchema)},
                     {"status", schemaFromYaml(kRayClusterStatusSchema)}});
  return definition;
}

Json rayJobCustomResourceDefinition() {
  static const Json definition = [] {
    Json properties = schemaFromYaml(kRayJobProperties);
    properties["spec"]["properties"]["rayClusterSpec"] = schemaFromYaml(kRayClusterSpecSchema);
    properties["status"]["properties"]["rayClusterStatus"] =
        schemaFromYaml(kRayClusterStatusSchema);
    return rayDefinition("RayJob", "rayjobs",
                         {{"job status", "string", ".status.jobStatus"},
                          {"deployment status", "string", ".status.jobDeploymentStatus"},
                          {"ray cluster name", "string", ".status.rayClusterName"},
                          {"start time", "string", ".status.startTime"},
                          {"end time", "string", ".status.endTime"},
                          {"age", "date", ".metadata.creationTimestamp"}},
                         std::move(properties));
  }();
  return definition;
}

Json rayServiceCustomResourceDefinition() {
  static const Json definition = [] {
    Json properties = schemaFromYaml(kRayServiceProperties);
    properties["spec"]["properties"]["rayClusterConfig"] = schemaFromYaml(kRayClusterSpecSchema);
    for (const char* side : {"activeServiceStatus", "pendingServiceStatus"}) {
      properties["status"]["properties"][side]["properties"]["rayClusterStatus"] =
          schemaFromYaml(kRayClusterStatusSchema);
    }
    return rayDefinition("RayService", "rayservices",
                         {{"service status", "string", ".status.serviceStatus"},
                          {"num serve endpoints", "string", ".status.numServeEndpoints"}},
                         std::move(properties));
  }();
  return definition;
}

Result<void> installCustomResourceDefinitions(Client& client) {
  return installCustomResourceDefinitions(
      client, {rayClusterCustomResourceDefinition(), rayJobCustomResourceDefinition(),
               rayServiceCustomResourceDefinition()});
}

Result<void> installCustomResourceDefinitions(Client& client,
                                              const std::vector<Json>& definitions) {
  return createEachIfMissing(client, kCustomResourceDefinitions, definitions);
}

}  // namespace fakekube::ray
