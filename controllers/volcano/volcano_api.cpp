#include "controllers/volcano/volcano_api.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/api/yaml.h"
#include "fakekube/client/client.h"

namespace fakekube::volcano {
namespace {

// Volcano's definitions (config/crd/volcano/bases), their descriptions left out and the fields
// this simulation neither reads nor writes kept as Volcano types them, so that the API server
// prunes, defaults and validates PodGroups and Queues as it does with Volcano's own files: queue
// defaults to "default", minMember is an int32 >= 0, phase is one of Volcano's five, quantities
// are int-or-string with the quantity pattern. Both kinds get the status subresource, so the
// scheduler's status writes and a client's spec writes cannot overwrite each other.
constexpr const char* kPodGroupDefinition = R"(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: podgroups.scheduling.volcano.sh
spec:
  group: scheduling.volcano.sh
  names:
    kind: PodGroup
    listKind: PodGroupList
    plural: podgroups
    shortNames: [pg, podgroup-v1beta1]
    singular: podgroup
  scope: Namespaced
  versions:
  - name: v1beta1
    served: true
    storage: true
    subresources:
      status: {}
    additionalPrinterColumns:
    - {jsonPath: .status.phase, name: STATUS, type: string}
    - {jsonPath: .spec.minMember, name: minMember, type: integer}
    - {jsonPath: .status.running, name: RUNNINGS, type: integer}
    - {jsonPath: .metadata.creationTimestamp, name: AGE, type: date}
    - {jsonPath: .spec.queue, name: QUEUE, priority: 1, type: string}
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
              minMember: {type: integer, format: int32, minimum: 0}
              minResources: &resources
                type: object
                additionalProperties: &quantity
                  anyOf: [{type: integer}, {type: string}]
                  pattern: '^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$'
                  x-kubernetes-int-or-string: true
              minTaskMember:
                type: object
                additionalProperties: {type: integer, format: int32}
              networkTopology: &networkTopology
                type: object
                properties:
                  highestTierAllowed: {type: integer, minimum: 0}
                  highestTierName: {type: string, maxLength: 253}
                  mode: {type: string, default: hard, enum: [hard, soft]}
              priorityClassName: {type: string, maxLength: 253}
              queue:
                type: string
                default: default
                maxLength: 253
                pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'
              subGroupPolicy:
                type: array
                items:
                  type: object
                  properties:
                    labelSelector: {type: object, x-kubernetes-preserve-unknown-fields: true}
                    matchLabelKeys: {type: array, items: {type: string}}
                    minSubGroups: {type: integer, format: int32, minimum: 0, default: 0}
                    name: {type: string, maxLength: 253}
                    networkTopology: *networkTopology
                    subGroupSize: {type: integer, format: int32, minimum: 1, default: 1}
          status:
            type: object
            properties:
              conditions:
                type: array
                items:
                  type: object
                  properties:
                    lastTransitionTime: {type: string, format: date-time}
                    message: {type: string}
                    reason: {type: string}
                    status: {type: string}
                    transitionID: {type: string}
                    type: {type: string}
              failed: {type: integer, format: int32, minimum: 0}
              phase: {type: string, enum: [Pending, Running, Unknown, Inqueue, Completed]}
              running: {type: integer, format: int32, minimum: 0}
              succeeded: {type: integer, format: int32, minimum: 0}
)";

constexpr const char* kQueueDefinition = R"(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: queues.scheduling.volcano.sh
spec:
  group: scheduling.volcano.sh
  names:
    kind: Queue
    listKind: QueueList
    plural: queues
    shortNames: [q, queue-v1beta1]
    singular: queue
  scope: Cluster
  versions:
  - name: v1beta1
    served: true
    storage: true
    subresources:
      status: {}
    additionalPrinterColumns:
    - {jsonPath: .spec.parent, name: PARENT, type: string}
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
              affinity: {type: object, x-kubernetes-preserve-unknown-fields: true}
              capability: &resources
                type: object
                additionalProperties:
                  anyOf: [{type: integer}, {type: string}]
                  pattern: '^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$'
                  x-kubernetes-int-or-string: true
              dequeueStrategy: {type: string, default: traverse, enum: [fifo, traverse]}
              deserved: *resources
              extendClusters:
                type: array
                items:
                  type: object
                  properties:
                    capacity: *resources
                    name: {type: string}
                    weight: {type: integer, format: int32}
              guarantee:
                type: object
                properties:
                  resource: *resources
              parent:
                type: string
                maxLength: 253
                pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'
              priority: {type: integer, format: int32, minimum: 0}
              reclaimable: {type: boolean}
              type: {type: string, maxLength: 253}
              weight: {type: integer, format: int32, default: 1, minimum: 1, maximum: 65535}
          status:
            type: object
            properties:
              allocated: *resources
              completed: {type: integer, format: int32, minimum: 0}
              inqueue: {type: integer, format: int32, minimum: 0}
              pending: {type: integer, format: int32, minimum: 0}
              reservation:
                type: object
                properties:
                  nodes: {type: array, items: {type: string}}
                  resource: *resources
              running: {type: integer, format: int32, minimum: 0}
              state: {type: string, enum: [Open, Closed, Closing, Unknown]}
              unknown: {type: integer, format: int32, minimum: 0}
)";

Json parse(const char* yaml) {
  auto document = decodeYaml(yaml);
  // The documents are constants of this file: failing to parse them is a bug, not bad input.
  if (!document) throw std::logic_error("volcano_api: " + document.error().message);
  return std::move(*document);
}

Result<void> createIfMissing(Client& client, const GroupVersionResource& gvr, Json object) {
  auto existing = client.get(gvr, "", meta::name(object));
  if (existing) return {};
  if (!isNotFound(existing.error())) return tl::unexpected(existing.error());
  auto created = client.create(gvr, std::move(object));
  if (!created && !isAlreadyExists(created.error())) return tl::unexpected(created.error());
  return {};
}

}  // namespace

Json podGroupCustomResourceDefinition() {
  static const Json definition = parse(kPodGroupDefinition);
  return definition;
}

Json queueCustomResourceDefinition() {
  static const Json definition = parse(kQueueDefinition);
  return definition;
}

Json defaultQueue() {
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
          {"kind", "Queue"},
          {"metadata", {{"name", std::string(kDefaultQueue)}}},
          {"spec", {{"reclaimable", true}, {"weight", 1}}}};
}

Result<void> installVolcanoApi(Client& client) {
  for (Json definition : {podGroupCustomResourceDefinition(), queueCustomResourceDefinition()}) {
    if (auto r = createIfMissing(client, kCustomResourceDefinitions, std::move(definition)); !r) {
      return r;
    }
  }
  return createIfMissing(client, kQueues, defaultQueue());
}

}  // namespace fakekube::volcano
