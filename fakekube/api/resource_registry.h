// ResourceRegistry: what the API server serves, per group/resource.
//
// For each kind it records what the rules of the API server depend on: the plural and kind names,
// scope, whether it has a status subresource, when its generation moves, which names it accepts,
// which field selectors it supports. The built-in kinds are registered at construction; creating a
// CustomResourceDefinition registers its kind (fromCustomResourceDefinition), deleting it
// unregisters it. Thread-safe: entries are immutable and handed out as shared pointers.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fakekube/api/group_version.h"
#include "fakekube/api/json.h"
#include "fakekube/api/status.h"
#include "fakekube/api/validation.h"

namespace fakekube {

class StructuralSchema;

// When metadata.generation moves on update.
enum class GenerationRule {
  None,               // the kind has no generation (ConfigMap, Secret, Namespace, ...)
  SpecChange,         // built-ins with a spec: bumps when .spec changes (Deployment, Job, Pod, ...)
  NonMetadataChange,  // custom resources: bumps when anything outside metadata changes
};

struct PrinterColumn {
  std::string name;
  std::string type;
  std::string jsonPath;
  std::string description;
  int priority = 0;
};

// A subresource discovery lists beyond status and scale (pods/log, serviceaccounts/token, ...).
struct SubresourceInfo {
  std::string name;  // "log"
  // The kind it answers with; an empty group and version mean the parent's.
  std::string group;
  std::string version;
  std::string kind;
  std::vector<std::string> verbs;
};

// How a kind served over another kind's storage reaches it: kube-apiserver keeps one object in
// one place and converts it on every request in and out (events.k8s.io/v1 Event is the core/v1
// Event; api/internal/event_conversion.h). Reads, lists, watches, deletes and the resourceVersion
// sequence are the stored kind's; what a request sends and is answered is the served kind's.
struct StorageConversion {
  GroupResource storage;           // where the objects are kept: {"", "events"}
  std::string storageVersion;      // the version they are kept in: "v1"
  Json (*toStorage)(const Json&);  // a served object as the stored kind's (apiVersion included)
  Json (*fromStorage)(const Json&);
  // A field selector's label as the stored kind's (AddFieldLabelConversionFunc):
  // "regarding.name" selects on "involvedObject.name". Called only for supported labels.
  std::string_view (*fieldLabel)(std::string_view);
};

struct ResourceInfo {
  std::string group;
  std::vector<std::string> versions;  // served versions; the first is the preferred one
  std::string resource;               // plural: "pods"
  std::string singular;               // "pod"
  std::string kind;                   // "Pod"
  std::string listKind;               // "PodList"
  std::vector<std::string> shortNames;
  std::vector<std::string> categories;
  bool namespaced = true;
  bool hasStatus = false;
  // The autoscaling/v1 Scale subresource over spec.replicas (Deployment, StatefulSet, ...).
  bool hasScale = false;
  // The verbs discovery lists; empty means every verb of a stored kind. {"create"} marks a kind
  // that is answered, never stored (SelfSubjectAccessReview, TokenReview).
  std::vector<std::string> verbs;
  std::vector<SubresourceInfo> subresources;
  GenerationRule generation = GenerationRule::None;
  NameRule nameRule = NameRule::Dns1123Subdomain;
  // Field selectors beyond metadata.name and metadata.namespace, which every kind supports.
  std::vector<std::string> fieldSelectors;
  // Reads a selectable field of a stored object whose label is not its JSON path (an Event's
  // "source" is source.component, or reportingComponent); nullptr: every label is its path.
  std::optional<std::string_view> (*selectableField)(const Json& stored,
                                                     std::string_view label) = nullptr;
  // Served over another kind's storage (nullptr: stored as itself).
  const StorageConversion* conversion = nullptr;
  bool custom = false;  // served from a CustomResourceDefinition
  // PUT without a resourceVersion is unconditional for most built-ins; custom resources refuse it.
  bool allowUnconditionalUpdate = true;
  // PUT of a missing object creates it (Lease, Endpoints, Event).
  bool allowCreateOnUpdate = false;
  // DELETE answers with the object rather than a Status (Pod, ServiceAccount).
  bool deleteReturnsObject = false;
  std::vector<PrinterColumn> printerColumns;  // additionalPrinterColumns of a CRD
  // Custom resources: each version's compiled openAPIV3Schema (structural_schema.h), which
  // prunes, defaults and validates every write and decodes reads; compiled once per definition
  // change. schemaRevision is the definition's revision when they last changed: an object stored
  // before it was decoded under an older schema, so a read decodes it again.
  std::vector<std::pair<std::string, std::shared_ptr<const StructuralSchema>>> schemas;
  std::int64_t schemaRevision = 0;

  GroupResource groupResource() const { return {group, resource}; }
  // Where the objects are kept (the store's keys begin "<group>/<resource>/"): the kind's own
  // group and resource unless it is served over another kind's storage.
  const std::string& storedGroup() const { return conversion ? conversion->storage.group : group; }
  const std::string& storedResource() const {
    return conversion ? conversion->storage.resource : resource;
  }
  GroupVersionResource gvr() const { return {group, versions.front(), resource}; }
  GroupVersionKind gvk() const { return {group, versions.front(), kind}; }
  std::string apiVersion() const { return gvr().apiVersion(); }
  bool serves(std::string_view version) const;
  // Whether this is the kind served as `group`/`resource` ("" for the core group).
  bool is(std::string_view group, std::string_view resource_) const {
    return this->group == group && this->resource == resource_;
  }
  bool supportsFieldSelector(std::string_view field) const;
  // The schema of `version`, nullptr when the kind has none.
  const StructuralSchema* schemaFor(std::string_view version) const;
};

using ResourceInfoPtr = std::shared_ptr<const ResourceInfo>;

class ResourceRegistry {
 public:
  // Registers the built-in kinds.
  ResourceRegistry();

  // nullptr when the group/resource is unknown or the version is not served.
  ResourceInfoPtr find(const GroupVersionResource& gvr) const;
  ResourceInfoPtr find(std::string_view group, std::string_view resource) const;
  ResourceInfoPtr findKind(std::string_view apiVersion, std::string_view kind) const;
  // Resolves a name as kubectl users type it: plural, singular, short name or kind
  // (case-insensitive), optionally qualified with ".group".
  ResourceInfoPtr resolve(std::string_view nameOrKind) const;
  std::vector<ResourceInfoPtr> all() const;

  // Adds or replaces the entry for info's group/resource.
  void add(ResourceInfo info);
  void remove(const GroupResource& gr);

  // The ResourceInfo a CustomResourceDefinition object describes, or its validation errors as a
  // 422 Status (name must be <plural>.<group>, names and versions present, one storage version).
  static Result<ResourceInfo> fromCustomResourceDefinition(const Json& crd);

 private:
  mutable std::mutex mu_;
  std::vector<ResourceInfoPtr> entries_;
};

}  // namespace fakekube
