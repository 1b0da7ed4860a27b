#include "controllers/volcano/internal/volcano_api.h"

#include <nlohmann/json.hpp>

#include "fakekube/api/internal/custom_resource_definition_builder.h"
#include "fakekube/api/resources.h"
#include "fakekube/client/internal/create_if_missing.h"

namespace fakekube::volcano {
namespace {

// The spec and status of Volcano's definitions (config/crd/volcano/bases), their descriptions left
// out and the fields this simulation neither reads nor writes kept as Volcano types them, so that
// the API server prunes, defaults and validates PodGroups and Queues as it does with Volcano's own
// files: queue defaults to "default", minMember is an int32 >= 0, phase is one of Volcano's five,
// quantities are int-or-string with the quantity pattern. Both kinds get the status subresource,
// so the scheduler's status writes and a client's spec writes cannot overwrite each other.
constexpr const char* kPodGroupProperties = R"(
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

constexpr const char* kQueueProperties = R"(
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

}  // namespace

Json podGroupCustomResourceDefinition() {
  static const Json definition =
      customResourceDefinition({.group = "scheduling.volcano.sh",
                                .version = "v1beta1",
                                .kind = "PodGroup",
                                .plural = "podgroups",
                                .shortNames = {"pg", "podgroup-v1beta1"},
                                .printerColumns = {{"STATUS", "string", ".status.phase"},
                                                   {"minMember", "integer", ".spec.minMember"},
                                                   {"RUNNINGS", "integer", ".status.running"},
                                                   {"AGE", "date", ".metadata.creationTimestamp"},
                                                   {"QUEUE", "string", ".spec.queue", "", 1}},
                                .properties = schemaFromYaml(kPodGroupProperties)});
  return definition;
}

Json queueCustomResourceDefinition() {
  static const Json definition =
      customResourceDefinition({.group = "scheduling.volcano.sh",
                                .version = "v1beta1",
                                .kind = "Queue",
                                .plural = "queues",
                                .namespaced = false,
                                .shortNames = {"q", "queue-v1beta1"},
                                .printerColumns = {{"PARENT", "string", ".spec.parent"}},
                                .properties = schemaFromYaml(kQueueProperties)});
  return definition;
}

Json defaultQueue() {
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
          {"kind", "Queue"},
          {"metadata", {{"name", std::string(kDefaultQueue)}}},
          {"spec", {{"reclaimable", true}, {"weight", 1}}}};
}

Result<void> installVolcanoApi(Client& client) {
  if (auto installed = createEachIfMissing(
          client, kCustomResourceDefinitions,
          {podGroupCustomResourceDefinition(), queueCustomResourceDefinition()});
      !installed) {
    return installed;
  }
  return createIfMissing(client, kQueues, defaultQueue());
}

}  // namespace fakekube::volcano
