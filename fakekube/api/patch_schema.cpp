#include "fakekube/api/internal/patch_schema.h"

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

namespace fakekube {

struct PatchSchema::Node {
  std::map<std::string, Field, std::less<>> fields;
  // The field every key not in `fields` has (an OpenAPI map's additionalProperties).
  std::optional<Field> otherFields;
};

class PatchSchemaBuilder {
 public:
  static PatchSchema make(PatchSchema::Node node) {
    return PatchSchema(std::make_shared<const PatchSchema::Node>(std::move(node)));
  }
};

namespace {

using Field = PatchSchema::Field;
using NamedFields = std::initializer_list<std::pair<const std::string, Field>>;

PatchSchema object(NamedFields fields) {
  PatchSchema::Node node;
  node.fields = std::map<std::string, Field, std::less<>>(fields);
  return PatchSchemaBuilder::make(std::move(node));
}

// A field whose value is an object of `schema`.
Field nested(PatchSchema schema) {
  Field f;
  f.schema = std::move(schema);
  return f;
}

// `patchStrategy:"merge" patchMergeKey:"<key>"` on a list of objects of `element`.
Field mergeBy(std::string key, PatchSchema element = {}) {
  Field f;
  f.list = ListStrategy::Map;
  f.keys = {std::move(key)};
  f.schema = std::move(element);
  return f;
}

// An object server-side apply takes whole (+structType=atomic or +mapType=atomic).
Field atomicForApply() {
  Field f;
  f.atomicForApply = true;
  return f;
}

// `patchStrategy:"merge"` on a list of strings.
Field stringSet() {
  Field f;
  f.list = ListStrategy::Set;
  return f;
}

// k8s.io/api, the tagged fields. Only the merge lists and the path down to them are listed.
struct BuiltinSchemas {
  PatchSchema objectMeta = object({
      {"ownerReferences", mergeBy("uid")},
      {"finalizers", stringSet()},
  });
  PatchSchema container = object({
      {"ports", mergeBy("containerPort")},
      {"env", mergeBy("name")},
      {"volumeMounts", mergeBy("mountPath")},
      {"volumeDevices", mergeBy("devicePath")},
  });
  PatchSchema podSpec = object({
      {"nodeSelector", atomicForApply()},
      {"volumes", mergeBy("name")},  // patchStrategy "merge,retainKeys"
      {"initContainers", mergeBy("name", container)},
      {"containers", mergeBy("name", container)},
      {"ephemeralContainers", mergeBy("name", container)},
      {"imagePullSecrets", mergeBy("name")},
      {"hostAliases", mergeBy("ip")},
      {"topologySpreadConstraints", mergeBy("topologyKey")},
      {"schedulingGates", mergeBy("name")},
      {"resourceClaims", mergeBy("name")},  // "merge,retainKeys"
  });
  PatchSchema podStatus = object({
      {"conditions", mergeBy("type")},
      {"podIPs", mergeBy("ip")},
      {"hostIPs", mergeBy("ip")},
      {"resourceClaimStatuses", mergeBy("name")},
  });
  PatchSchema podTemplateSpec = object({
      {"metadata", nested(objectMeta)},
      {"spec", nested(podSpec)},
  });
  // status.conditions merged by type: Deployment, ReplicaSet, StatefulSet, DaemonSet, Job,
  // ReplicationController, Namespace, PersistentVolumeClaim, Service (metav1.Condition).
  PatchSchema conditionsStatus = object({{"conditions", mergeBy("type")}});

  // A workload whose spec.template is a pod template.
  PatchSchema workload = object({
      {"metadata", nested(objectMeta)},
      {"spec", nested(object({
                   {"selector", atomicForApply()},
                   {"template", nested(podTemplateSpec)},
               }))},
      {"status", nested(conditionsStatus)},
  });
  PatchSchema pod = object({
      {"metadata", nested(objectMeta)},
      {"spec", nested(podSpec)},
      {"status", nested(podStatus)},
  });
  PatchSchema cronJob = object({
      {"metadata", nested(objectMeta)},
      {"spec",
       nested(object(
           {{"jobTemplate", nested(object({
                                {"metadata", nested(objectMeta)},
                                {"spec", nested(object({{"template", nested(podTemplateSpec)}}))},
                            }))}}))},
  });
  PatchSchema podTemplate = object({
      {"metadata", nested(objectMeta)},
      {"template", nested(podTemplateSpec)},
  });
  PatchSchema service = object({
      {"metadata", nested(objectMeta)},
      {"spec", nested(object({
                   {"ports", mergeBy("port")},
                   {"selector", atomicForApply()},
               }))},
      {"status", nested(conditionsStatus)},
  });
  PatchSchema node = object({
      {"metadata", nested(objectMeta)},
      {"spec", nested(object({{"podCIDRs", stringSet()}}))},
      {"status", nested(object({
                     {"conditions", mergeBy("type")},
                     {"addresses", mergeBy("type")},
                 }))},
  });
  PatchSchema withConditions = object({
      {"metadata", nested(objectMeta)},
      {"status", nested(conditionsStatus)},
  });
  PatchSchema serviceAccount = object({
      {"metadata", nested(objectMeta)},
      {"secrets", mergeBy("name")},
  });
  PatchSchema metadataOnly = object({{"metadata", nested(objectMeta)}});

  const PatchSchema& forKind(std::string_view group, std::string_view kind) const {
    if (group.empty()) {
      if (kind == "Pod") return pod;
      if (kind == "ReplicationController") return workload;
      if (kind == "PodTemplate") return podTemplate;
      if (kind == "Service") return service;
      if (kind == "Node") return node;
      if (kind == "Namespace" || kind == "PersistentVolumeClaim") return withConditions;
      if (kind == "ServiceAccount") return serviceAccount;
    } else if (group == "apps") {
      if (kind == "Deployment" || kind == "ReplicaSet" || kind == "StatefulSet" ||
          kind == "DaemonSet") {
        return workload;
      }
    } else if (group == "batch") {
      if (kind == "Job") return workload;
      if (kind == "CronJob") return cronJob;
    }
    return metadataOnly;
  }
};

const BuiltinSchemas& builtins() {
  static const BuiltinSchemas schemas;
  return schemas;
}

const Json* member(const Json& object, std::string_view name) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(name);
  return it == object.end() ? nullptr : &*it;
}

std::string stringMember(const Json& object, std::string_view name) {
  const Json* value = member(object, name);
  return value != nullptr && value->is_string() ? value->get<std::string>() : std::string();
}

// The Field an OpenAPI property schema describes.
Field fieldFromOpenApi(const Json& property) {
  Field f;
  if (!property.is_object()) return f;
  const std::string type = stringMember(property, "type");
  if (type == "array") {
    const std::string listType = stringMember(property, "x-kubernetes-list-type");
    if (listType == "map") {
      f.list = ListStrategy::Map;
      if (const Json* keys = member(property, "x-kubernetes-list-map-keys");
          keys != nullptr && keys->is_array()) {
        for (const auto& key : *keys) {
          if (key.is_string()) f.keys.push_back(key.get<std::string>());
        }
      }
      if (f.keys.empty()) f.list = ListStrategy::Atomic;  // not a valid structural schema
    } else if (listType == "set") {
      f.list = ListStrategy::Set;
    }
    if (const Json* items = member(property, "items")) f.schema = PatchSchema::fromOpenApi(*items);
    return f;
  }
  f.atomicObject = stringMember(property, "x-kubernetes-map-type") == "atomic";
  f.schema = PatchSchema::fromOpenApi(property);
  return f;
}

}  // namespace

const PatchSchema::Field& PatchSchema::field(std::string_view name) const {
  static const Field kUnknown;
  if (node_ == nullptr) return kUnknown;
  auto it = node_->fields.find(name);
  if (it != node_->fields.end()) return it->second;
  return node_->otherFields ? *node_->otherFields : kUnknown;
}

const PatchSchema& PatchSchema::forKind(std::string_view group, std::string_view kind) {
  return builtins().forKind(group, kind);
}

PatchSchema PatchSchema::fromOpenApi(const Json& openApiSchema) {
  if (!openApiSchema.is_object()) return {};
  Node node;
  if (const Json* properties = member(openApiSchema, "properties");
      properties != nullptr && properties->is_object()) {
    for (const auto& [name, property] : properties->items()) {
      node.fields.emplace(name, fieldFromOpenApi(property));
    }
  }
  if (const Json* additional = member(openApiSchema, "additionalProperties");
      additional != nullptr && additional->is_object()) {
    node.otherFields = fieldFromOpenApi(*additional);
  }
  if (node.fields.empty() && !node.otherFields) return {};
  return PatchSchemaBuilder::make(std::move(node));
}

PatchSchema PatchSchema::forCustomResource(const Json& crd, std::string_view version) {
  Json schema = Json::object();
  const Json* spec = member(crd, "spec");
  const Json* versions = spec != nullptr ? member(*spec, "versions") : nullptr;
  if (versions != nullptr && versions->is_array()) {
    for (const auto& v : *versions) {
      if (stringMember(v, "name") != version) continue;
      const Json* validation = member(v, "schema");
      const Json* openApi =
          validation != nullptr ? member(*validation, "openAPIV3Schema") : nullptr;
      if (openApi != nullptr && openApi->is_object()) schema = *openApi;
    }
  }
  // metadata is ObjectMeta whatever the definition says (it may only restrict name and
  // generateName).
  if (!schema.contains("properties") || !schema["properties"].is_object()) {
    schema["properties"] = Json::object();
  }
  schema["properties"].erase("metadata");
  PatchSchema parsed = fromOpenApi(schema);
  Node node = parsed.node_ != nullptr ? *parsed.node_ : Node{};
  node.fields.insert_or_assign("metadata", nested(builtins().objectMeta));
  return PatchSchemaBuilder::make(std::move(node));
}

}  // namespace fakekube
