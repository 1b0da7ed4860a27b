// PatchSchema: how the fields of a kind merge, for strategic merge patch and server-side apply.
//
// JSON merge patch replaces every list. Kubernetes knows better for the lists it defines: the Go
// structs of the built-in kinds carry `patchStrategy:"merge" patchMergeKey:"name"` tags (containers
// merge by name, conditions by type, ownerReferences by uid, finalizers as a set of strings), and
// a CustomResourceDefinition's schema says the same with `x-kubernetes-list-type: map|set` and
// `x-kubernetes-list-map-keys`. A PatchSchema is that knowledge for one object type: for each
// field, whether its list merges (and by which keys) and the schema of its value or elements.
//
// The built-in table (forKind) covers metadata for every kind and the merge lists of Pod and every
// pod template (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob,
// ReplicationController, PodTemplate), Service, Node, Namespace, PersistentVolumeClaim and
// ServiceAccount, and the status conditions of the workload kinds. Fields it does not name behave
// as the Go types without tags do: objects merge key by key, lists are replaced whole.
//
// Schemas are immutable values that share their nodes; copying one is cheap.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/json.h"

namespace fakekube {

// How a list field merges.
enum class ListStrategy {
  Atomic,  // replaced whole (no patchStrategy; x-kubernetes-list-type atomic or unset)
  Map,     // elements are objects identified by `keys` (patchMergeKey; list-type map)
  Set,     // elements are scalars merged as a set (patchStrategy merge on []string; list-type set)
};

class PatchSchema {
 public:
  struct Field;

  // The empty schema: every object merges key by key, every list is replaced.
  PatchSchema() = default;

  // The schema of `field` in the object this schema describes: its list strategy and the schema
  // of its value (an object) or of its elements (a list). A field the schema does not name gets
  // an atomic list strategy and the empty schema.
  const Field& field(std::string_view name) const;

  // The schema of a built-in kind, by API group ("" for core) and kind. Kinds the table does not
  // list get the metadata schema every object has.
  static const PatchSchema& forKind(std::string_view group, std::string_view kind);

  // The schema a CustomResourceDefinition declares for `version` (its openAPIV3Schema with the
  // x-kubernetes-list-type / -list-map-keys / -map-type extensions), plus the metadata schema.
  // A definition without a schema for that version gives the metadata schema alone.
  static PatchSchema forCustomResource(const Json& crd, std::string_view version);

  // The schema an OpenAPI v3 (structural) schema describes.
  static PatchSchema fromOpenApi(const Json& openApiSchema);

  struct Node;  // the fields of one object type; defined in the .cpp

 private:
  explicit PatchSchema(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  std::shared_ptr<const Node> node_;
  friend class PatchSchemaBuilder;
};

struct PatchSchema::Field {
  ListStrategy list = ListStrategy::Atomic;
  // For ListStrategy::Map: the keys that identify an element. Strategic merge patch uses the first
  // (Go's patchMergeKey is a single field); server-side apply matches on all of them.
  std::vector<std::string> keys;
  // The object is replaced whole rather than merged (x-kubernetes-map-type: atomic).
  bool atomicObject = false;
  // Server-side apply and field ownership take the object as one value, as the Go type's
  // +structType=atomic / +mapType=atomic says (a LabelSelector, a Service's or a PodSpec's
  // selector maps); strategic merge patch, which reads patch tags only, still merges it.
  bool atomicForApply = false;
  bool appliedWhole() const { return atomicObject || atomicForApply; }
  // The schema of the field's value (an object) or of each element (a list).
  PatchSchema schema;

  // Strategic merge patch's view: `patchStrategy:"merge"` and its `patchMergeKey`.
  bool mergesList() const { return list != ListStrategy::Atomic; }
  std::string_view mergeKey() const {
    return list == ListStrategy::Map && !keys.empty() ? std::string_view(keys.front())
                                                      : std::string_view();
  }
};

}  // namespace fakekube
