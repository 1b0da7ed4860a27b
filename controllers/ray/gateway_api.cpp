#include "controllers/ray/internal/gateway_api.h"

#include <nlohmann/json.hpp>

#include "fakekube/api/internal/custom_resource_definition_builder.h"
#include "fakekube/api/resources.h"
#include "fakekube/client/internal/create_if_missing.h"

namespace fakekube::ray {
namespace {

// The spec and status of the Gateway API's standard-channel definitions, cut to what KubeRay and
// the simulated implementation touch, with the Gateway API's types, bounds and defaults there;
// every other field is kept as written (x-kubernetes-preserve-unknown-fields), so that objects
// written for the full definitions are accepted unchanged.
constexpr const char* kGatewayProperties = R"(
spec:
  type: object
  required: [gatewayClassName, listeners]
  x-kubernetes-preserve-unknown-fields: true
  properties:
    gatewayClassName: {type: string, minLength: 1, maxLength: 253}
    listeners:
      type: array
      maxItems: 64
      minItems: 1
      items:
        type: object
        required: [name, port, protocol]
        x-kubernetes-preserve-unknown-fields: true
        properties:
          hostname: {type: string, maxLength: 253}
          name: {type: string, minLength: 1, maxLength: 253}
          port: {type: integer, format: int32, minimum: 1, maximum: 65535}
          protocol: {type: string, minLength: 1, maxLength: 255}
status:
  type: object
  x-kubernetes-preserve-unknown-fields: true
  properties: {}
)";

constexpr const char* kHttpRouteProperties = R"(
spec:
  type: object
  x-kubernetes-preserve-unknown-fields: true
  properties:
    hostnames: {type: array, maxItems: 16, items: {type: string, maxLength: 253}}
    parentRefs:
      type: array
      maxItems: 32
      items: &parentRef
        type: object
        required: [name]
        properties:
          group: {type: string, default: gateway.networking.k8s.io, maxLength: 253}
          kind: {type: string, default: Gateway, minLength: 1, maxLength: 63}
          name: {type: string, minLength: 1, maxLength: 253}
          namespace: {type: string, minLength: 1, maxLength: 63}
          port: {type: integer, format: int32, minimum: 1, maximum: 65535}
          sectionName: {type: string, minLength: 1, maxLength: 253}
    rules:
      type: array
      maxItems: 16
      items:
        type: object
        x-kubernetes-preserve-unknown-fields: true
        properties:
          backendRefs:
            type: array
            maxItems: 16
            items:
              type: object
              required: [name]
              x-kubernetes-preserve-unknown-fields: true
              properties:
                group: {type: string, default: "", maxLength: 253}
                kind: {type: string, default: Service, minLength: 1, maxLength: 63}
                name: {type: string, minLength: 1, maxLength: 253}
                namespace: {type: string, minLength: 1, maxLength: 63}
                port: {type: integer, format: int32, minimum: 1, maximum: 65535}
                weight: {type: integer, format: int32, default: 1, minimum: 0, maximum: 1000000}
          matches:
            type: array
            maxItems: 64
            items:
              type: object
              x-kubernetes-preserve-unknown-fields: true
              properties:
                path:
                  type: object
                  default: {type: PathPrefix, value: /}
                  properties:
                    type: {type: string, default: PathPrefix, enum: [Exact, PathPrefix, RegularExpression]}
                    value: {type: string, default: /, maxLength: 1024}
status:
  type: object
  required: [parents]
  properties:
    parents:
      type: array
      maxItems: 32
      items:
        type: object
        required: [controllerName, parentRef]
        properties:
          controllerName: {type: string, minLength: 1, maxLength: 253}
          parentRef: *parentRef
)";

// The Gateway API's conditions (metav1.Condition, at most 8), on a Gateway's status and on each
// parent of an HTTPRoute's status.
constexpr const char* kConditionsSchema = R"(
type: array
maxItems: 8
items:
  type: object
  required: [lastTransitionTime, message, reason, status, type]
  properties:
    lastTransitionTime: {type: string, format: date-time}
    message: {type: string, maxLength: 32768}
    observedGeneration: {type: integer, format: int64, minimum: 0}
    reason: {type: string, minLength: 1, maxLength: 1024}
    status: {type: string, enum: ["True", "False", Unknown]}
    type: {type: string, maxLength: 316}
)";

Json gatewayProperties() {
  Json properties = schemaFromYaml(kGatewayProperties);
  properties["status"]["properties"]["conditions"] = schemaFromYaml(kConditionsSchema);
  return properties;
}

Json httpRouteProperties() {
  Json properties = schemaFromYaml(kHttpRouteProperties);
  properties["status"]["properties"]["parents"]["items"]["properties"]["conditions"] =
      schemaFromYaml(kConditionsSchema);
  return properties;
}

}  // namespace

Json gatewayCustomResourceDefinition() {
  static const Json definition = customResourceDefinition(
      {.group = std::string(kGatewayApiGroup),
       .version = "v1",
       .kind = "Gateway",
       .plural = "gateways",
       .shortNames = {"gtw"},
       .categories = {"gateway-api"},
       .printerColumns = {{"Class", "string", ".spec.gatewayClassName"},
                          {"Address", "string", ".status.addresses[*].value"},
                          {"Programmed", "string",
                           ".status.conditions[?(@.type==\"Programmed\")].status"},
                          {"Age", "date", ".metadata.creationTimestamp"}},
       .properties = gatewayProperties()});
  return definition;
}

Json httpRouteCustomResourceDefinition() {
  static const Json definition =
      customResourceDefinition({.group = std::string(kGatewayApiGroup),
                                .version = "v1",
                                .kind = "HTTPRoute",
                                .plural = "httproutes",
                                .categories = {"gateway-api"},
                                .printerColumns = {{"Hostnames", "string", ".spec.hostnames"},
                                                   {"Age", "date", ".metadata.creationTimestamp"}},
                                .properties = httpRouteProperties()});
  return definition;
}

Result<void> installGatewayApi(Client& client) {
  return createEachIfMissing(
      client, kCustomResourceDefinitions,
      {gatewayCustomResourceDefinition(), httpRouteCustomResourceDefinition()});
}

}  // namespace fakekube::ray
