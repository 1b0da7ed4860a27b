#include "controllers/ray/internal/gateway_api.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/api/yaml.h"
#include "fakekube/client/client.h"

namespace fakekube::ray {
namespace {

// The Gateway API's standard-channel definitions cut to what KubeRay and the simulated
// implementation touch, with the Gateway API's types, bounds and defaults there; every other
// field is kept as written (x-kubernetes-preserve-unknown-fields), so that objects written for the
// full definitions are accepted unchanged.
constexpr const char* kGatewayDefinition = R"(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gateways.gateway.networking.k8s.io
spec:
  group: gateway.networking.k8s.io
  names:
    categories: [gateway-api]
    kind: Gateway
    listKind: GatewayList
    plural: gateways
    shortNames: [gtw]
    singular: gateway
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    additionalPrinterColumns:
    - {jsonPath: .spec.gatewayClassName, name: Class, type: string}
    - {jsonPath: '.status.addresses[*].value', name: Address, type: string}
    - {jsonPath: '.status.conditions[?(@.type=="Programmed")].status', name: Programmed, type: string}
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
            properties:
              conditions:
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

constexpr const char* kHttpRouteDefinition = R"(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: httproutes.gateway.networking.k8s.io
spec:
  group: gateway.networking.k8s.io
  names:
    categories: [gateway-api]
    kind: HTTPRoute
    listKind: HTTPRouteList
    plural: httproutes
    singular: httproute
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    additionalPrinterColumns:
    - {jsonPath: .spec.hostnames, name: Hostnames, type: string}
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
                    conditions:
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
                    controllerName: {type: string, minLength: 1, maxLength: 253}
                    parentRef: *parentRef
)";

Json parseDefinition(const char* yaml) {
  auto document = decodeYaml(yaml);
  // The documents are constants of this file: failing to parse them is a bug, not bad input.
  if (!document) throw std::logic_error("gateway_api: " + document.error().message);
  return std::move(*document);
}

}  // namespace

Json gatewayCustomResourceDefinition() {
  static const Json definition = parseDefinition(kGatewayDefinition);
  return definition;
}

Json httpRouteCustomResourceDefinition() {
  static const Json definition = parseDefinition(kHttpRouteDefinition);
  return definition;
}

Result<void> installGatewayApi(Client& client) {
  for (Json definition : {gatewayCustomResourceDefinition(), httpRouteCustomResourceDefinition()}) {
    auto existing = client.get(kCustomResourceDefinitions, "", meta::name(definition));
    if (existing) continue;
    if (!isNotFound(existing.error())) return tl::unexpected(existing.error());
    auto created = client.create(kCustomResourceDefinitions, std::move(definition));
    if (!created && !isAlreadyExists(created.error())) return tl::unexpected(created.error());
  }
  return {};
}

}  // namespace fakekube::ray
