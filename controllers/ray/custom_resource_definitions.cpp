#include "controllers/ray/custom_resource_definitions.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "fakekube/api/yaml.h"
#include "fakekube/client/client.h"

namespace fakekube::ray {
namespace {

// The printer columns are KubeRay's (kubectl get raycluster / rayjob prints them).
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
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
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
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
)";

Json parse(const char* yaml) {
  auto document = decodeYaml(yaml);
  // The documents are constants of this file: failing to parse them is a bug, not bad input.
  if (!document) throw std::logic_error("custom_resource_definitions: " + document.error().message);
  return std::move(*document);
}

}  // namespace

Json rayClusterCustomResourceDefinition() { return parse(kRayClusterDefinition); }
Json rayJobCustomResourceDefinition() { return parse(kRayJobDefinition); }

Result<void> installCustomResourceDefinitions(Client& client) {
  for (Json definition : {rayClusterCustomResourceDefinition(), rayJobCustomResourceDefinition()}) {
    auto created = client.create(kCustomResourceDefinitions, std::move(definition));
    if (!created && !isAlreadyExists(created.error())) return tl::unexpected(created.error());
  }
  return {};
}

}  // namespace fakekube::ray
