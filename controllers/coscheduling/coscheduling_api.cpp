#include "controllers/coscheduling/internal/coscheduling_api.h"

#include <nlohmann/json.hpp>

#include "fakekube/api/internal/custom_resource_definition_builder.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/client/internal/create_if_missing.h"

namespace fakekube::coscheduling {
namespace {

// The spec and status of scheduler-plugins' schema, its descriptions left out: minMember an int32
// >= 1, minResources quantities, scheduleTimeoutSeconds an int32; the status counts and phase.
constexpr const char* kPodGroupProperties = R"(
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
  static const Json definition = customResourceDefinition(
      {.group = "scheduling.x-k8s.io",
       .version = "v1alpha1",
       .kind = "PodGroup",
       .plural = "podgroups",
       .shortNames = {"pg", "pgs"},
       .annotations = {{"api-approved.kubernetes.io",
                        "https://github.com/kubernetes-sigs/scheduler-plugins/pull/50"}},
       .printerColumns = {{"Phase", "string", ".status.phase", "Current phase of PodGroup."},
                          {"MinMember", "integer", ".spec.minMember"},
                          {"Running", "integer", ".status.running"},
                          {"Succeeded", "integer", ".status.succeeded"},
                          {"Failed", "integer", ".status.failed"},
                          {"Age", "date", ".metadata.creationTimestamp"}},
       .properties = schemaFromYaml(kPodGroupProperties)});
  return definition;
}

Result<void> installCoschedulingApi(Client& client) {
  return createIfMissing(client, kCustomResourceDefinitions, podGroupCustomResourceDefinition());
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
