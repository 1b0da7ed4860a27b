#include "controllers/ray/custom_resource_definitions.h"

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/api/yaml.h"
#include "fakekube/client/client.h"

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
constexpr const char* kRayJobSchema = R"(
type: object
properties:
  apiVersion: {type: string}
  kind: {type: string}
  metadata: {type: object}
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
constexpr const char* kRayServiceSchema = R"(
type: object
properties:
  apiVersion: {type: string}
  kind: {type: string}
  metadata: {type: object}
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

// The printer columns are KubeRay's (kubectl get raycluster / rayjob prints them). Each version
// gets the schema (openAPIV3Schema) in code; v1alpha1 is served with the same one, as an older
// name of the same objects.
constexpr const char* kRayClusterDefinition = R"(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: rayclusters.ray.io
spec:
  group: ray.io
  names:
    categories: [all]
    kind: RayCluster
    listKind: RayClusterList
    plural: rayclusters
    singular: raycluster
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    additionalPrinterColumns:
    - {jsonPath: .status.desiredWorkerReplicas, name: desired workers, type: integer}
    - {jsonPath: .status.availableWorkerReplicas, name: available workers, type: integer}
    - {jsonPath: .status.desiredCPU, name: cpus, type: string}
    - {jsonPath: .status.desiredMemory, name: memory, type: string}
    - {jsonPath: .status.desiredGPU, name: gpus, type: string}
    - {jsonPath: .status.desiredTPU, name: tpus, priority: 1, type: string}
    - {jsonPath: .status.state, name: status, type: string}
    - {jsonPath: .metadata.creationTimestamp, name: age, type: date}
    - {jsonPath: .status.head.podIP, name: head pod IP, priority: 1, type: string}
    - {jsonPath: .status.head.serviceIP, name: head service IP, priority: 1, type: string}
)";

constexpr const char* kRayJobDefinition = R"(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: rayjobs.ray.io
spec:
  group: ray.io
  names:
    categories: [all]
    kind: RayJob
    listKind: RayJobList
    plural: rayjobs
    singular: rayjob
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    additionalPrinterColumns:
    - {jsonPath: .status.jobStatus, name: job status, type: string}
    - {jsonPath: .status.jobDeploymentStatus, name: deployment status, type: string}
    - {jsonPath: .status.rayClusterName, name: ray cluster name, type: string}
    - {jsonPath: .status.startTime, name: start time, type: string}
    - {jsonPath: .status.endTime, name: end time, type: string}
    - {jsonPath: .metadata.creationTimestamp, name: age, type: date}
)";

constexpr const char* kRayServiceDefinition = R"(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: rayservices.ray.io
spec:
  group: ray.io
  names:
    categories: [all]
    kind: RayService
    listKind: RayServiceList
    plural: rayservices
    singular: rayservice
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    additionalPrinterColumns:
    - {jsonPath: .status.serviceStatus, name: service status, type: string}
    - {jsonPath: .status.numServeEndpoints, name: num serve endpoints, type: string}
)";

Json parse(const char* yaml) {
  auto document = decodeYaml(yaml);
  // The documents are constants of this file: failing to parse them is a bug, not bad input.
  if (!document) throw std::logic_error("custom_resource_definitions: " + document.error().message);
  return std::move(*document);
}

// Gives the definition's v1 version `schema` and adds v1alpha1, served (not stored) alike.
Json withSchema(Json definition, Json schema) {
  Json& versions = definition["spec"]["versions"];
  versions[0]["schema"] = {{"openAPIV3Schema", std::move(schema)}};
  Json alpha = versions[0];
  alpha["name"] = "v1alpha1";
  alpha["storage"] = false;
  versions.push_back(std::move(alpha));
  return definition;
}

Json rayClusterSchema() {
  return {{"type", "object"},
          {"properties",
           {{"apiVersion", {{"type", "string"}}},
            {"kind", {{"type", "string"}}},
            {"metadata", {{"type", "object"}}},
            {"spec", parse(kRayClusterSpecSchema)},
            {"status", parse(kRayClusterStatusSchema)}}}};
}

}  // namespace

// The definitions are read from their YAML once per process: every start of the operator asks
// for them (installCustomResourceDefinitions), and reading the YAML cost more than the rest of
// a start (a crash-point enumeration starts the operator a few hundred times).
Json rayClusterCustomResourceDefinition() {
  static const Json definition = withSchema(parse(kRayClusterDefinition), rayClusterSchema());
  return definition;
}

Json rayJobCustomResourceDefinition() {
  static const Json definition = [] {
    Json schema = parse(kRayJobSchema);
    schema["properties"]["spec"]["properties"]["rayClusterSpec"] = parse(kRayClusterSpecSchema);
    schema["properties"]["status"]["properties"]["rayClusterStatus"] =
        parse(kRayClusterStatusSchema);
    return withSchema(parse(kRayJobDefinition), std::move(schema));
  }();
  return definition;
}

Json rayServiceCustomResourceDefinition() {
  static const Json definition = [] {
    Json schema = parse(kRayServiceSchema);
    schema["properties"]["spec"]["properties"]["rayClusterConfig"] = parse(kRayClusterSpecSchema);
    for (const char* side : {"activeServiceStatus", "pendingServiceStatus"}) {
      schema["properties"]["status"]["properties"][side]["properties"]["rayClusterStatus"] =
          parse(kRayClusterStatusSchema);
    }
    return withSchema(parse(kRayServiceDefinition), std::move(schema));
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
  for (Json definition : definitions) {
    // Asked first: a create of an existing definition is refused only after the server compiled
    // its schemas, which is most of what a restart of the operator costs.
    auto existing = client.get(kCustomResourceDefinitions, "", meta::name(definition));
    if (existing) continue;
    if (!isNotFound(existing.error())) return tl::unexpected(existing.error());
    auto created = client.create(kCustomResourceDefinitions, std::move(definition));
    if (!created && !isAlreadyExists(created.error())) return tl::unexpected(created.error());
  }
  return {};
}

}  // namespace fakekube::ray
