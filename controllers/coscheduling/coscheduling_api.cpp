#include "controllers/coscheduling/coscheduling_api.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/api/yaml.h"
#include "fakekube/client/client.h"

namespace fakekube::coscheduling {
namespace {

// scheduler-plugins' definition, its descriptions left out: minMember an int32 >= 1,
// minResources quantities, scheduleTimeoutSeconds an int32; the status counts and phase.
constexpr const char* kCoschedulingPodGroupDefinition = R"(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: podgroups.scheduling.x-k8s.io
  annotations:
    api-approved.kubernetes.io: https://github.com/kubernetes-sigs/scheduler-plugins/pull/50
spec:
  group: scheduling.x-k8s.io
  names:
    kind: PodGroup
    listKind: PodGroupList
    plural: podgroups
    shortNames: [pg, pgs]
    singular: podgroup
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: true
    subresources:
      status: {}
    additionalPrinterColumns:
    - {jsonPath: .status.phase, name: Phase, type: string, description: Current phase of PodGroup.}
    - {jsonPath: .spec.minMember, name: MinMember, type: integer}
    - {jsonPath: .status.running, name: Running, type: integer}
    - {jsonPath: .status.succeeded, name: Succeeded, type: integer}
    - {jsonPath: .status.failed, name: Failed, type: integer}
    - {jsonPath: .metadata.creationTimestamp, name: Age, type: date}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec:
            type: object
            properties:
              minMember: {type: integer, format: int32, minimum: 1}
              minResources:
                type: object
                additionalProperties:
                  anyOf: [{type: integer}, {type: string}]
                  pattern: '^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$'
                  x-kubernetes-int-or-string: true
              scheduleTimeoutSeconds: {type: integer, format: int32}
          status:
            type: object
            properties:
              failed: {type: integer, format: int32}
              occupiedBy: {type: string}
              phase: {type: string}
              running: {type: integer, format: int32}
              scheduleStartTime: {type: string, format: date-time}
              succeeded: {type: integer, format: int32}
)";

}  // namespace

Json podGroupCustomResourceDefinition() {
  static const Json definition = [] {
    auto document = decodeYaml(kCoschedulingPodGroupDefinition);
    // A constant of this file: failing to parse it is a bug, not bad input.
    if (!document) throw std::logic_error("coscheduling_api: " + document.error().message);
    return std::move(*document);
  }();
  return definition;
}

Result<void> installCoschedulingApi(Client& client) {
  Json definition = podGroupCustomResourceDefinition();
  auto existing = client.get(kCustomResourceDefinitions, "", meta::name(definition));
  if (existing) return {};
  if (!isNotFound(existing.error())) return tl::unexpected(existing.error());
  auto created = client.create(kCustomResourceDefinitions, std::move(definition));
  if (!created && !isAlreadyExists(created.error())) return tl::unexpected(created.error());
  return {};
}

std::string podGroupLabel(const Json& pod) {
  auto label = meta::labelIfPresent(pod, kPodGroupLabel);
  return label ? std::string(*label) : std::string();
}

std::string podGroupFullName(const Json& pod) {
  std::string group = podGroupLabel(pod);
  return group.empty() ? group : meta::namespace_(pod) + "/" + group;
}

}  // namespace fakekube::coscheduling
