#include "fakekube/api/resource_registry.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/structural_schema.h"

namespace fakekube {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct Builtin {
  const char* group;
  const char* version;
  const char* resource;
  const char* kind;
  bool namespaced;
  bool hasStatus;
  GenerationRule generation;
  NameRule nameRule;
  std::vector<std::string> shortNames;
  std::vector<std::string> fieldSelectors;
};

ResourceInfo fromBuiltin(const Builtin& b) {
  ResourceInfo info;
  info.group = b.group;
  info.versions = {b.version};
  info.resource = b.resource;
  info.kind = b.kind;
  info.singular = lower(b.kind);
  info.listKind = std::string(b.kind) + "List";
  info.namespaced = b.namespaced;
  info.hasStatus = b.hasStatus;
  info.generation = b.generation;
  info.nameRule = b.nameRule;
  info.shortNames = b.shortNames;
  info.fieldSelectors = b.fieldSelectors;
  return info;
}

}  // namespace

bool ResourceInfo::serves(std::string_view version) const {
  return std::find(versions.begin(), versions.end(), version) != versions.end();
}

const StructuralSchema* ResourceInfo::schemaFor(std::string_view version) const {
  for (const auto& [v, schema] : schemas) {
    if (v == version) return schema.get();
  }
  return nullptr;
}

bool ResourceInfo::supportsFieldSelector(std::string_view field) const {
  if (field == "metadata.name") return true;
  if (field == "metadata.namespace") return namespaced;
  return std::find(fieldSelectors.begin(), fieldSelectors.end(), field) != fieldSelectors.end();
}

ResourceRegistry::ResourceRegistry() {
  using G = GenerationRule;
  using N = NameRule;
  const std::vector<Builtin> builtins = {
      {"",
       "v1",
       "namespaces",
       "Namespace",
       false,
       true,
       G::None,
       N::Dns1123Label,
       {"ns"},
       {"status.phase"}},
      {"",
       "v1",
       "pods",
       "Pod",
       true,
       true,
       G::SpecChange,
       N::Dns1123Subdomain,
       {"po"},
       {"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
        "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"}},
      {"",
       "v1",
       "services",
       "Service",
       true,
       true,
       G::None,
       N::Dns1035Label,
       {"svc"},
       {"spec.clusterIP", "spec.type"}},
      {"", "v1", "configmaps", "ConfigMap", true, false, G::None, N::Dns1123Subdomain, {"cm"}, {}},
      {"", "v1", "secrets", "Secret", true, false, G::None, N::Dns1123Subdomain, {}, {"type"}},
      {"",
       "v1",
       "nodes",
       "Node",
       false,
       true,
       G::None,
       N::Dns1123Subdomain,
       {"no"},
       {"spec.unschedulable"}},
      {"",
       "v1",
       "events",
       "Event",
       true,
       false,
       G::None,
       N::Dns1123Subdomain,
       {"ev"},
       {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
        "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
        "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"}},
      {"",
       "v1",
       "serviceaccounts",
       "ServiceAccount",
       true,
       false,
       G::None,
       N::Dns1123Subdomain,
       {"sa"},
       {}},
      {"",
       "v1",
       "persistentvolumeclaims",
       "PersistentVolumeClaim",
       true,
       true,
       G::None,
       N::Dns1123Subdomain,
       {"pvc"},
       {}},
      {"", "v1", "endpoints", "Endpoints", true, false, G::None, N::Dns1123Subdomain, {"ep"}, {}},
      {"apps",
       "v1",
       "deployments",
       "Deployment",
       true,
       true,
       G::SpecChange,
       N::Dns1123Subdomain,
       {"deploy"},
       {}},
      {"apps",
       "v1",
       "replicasets",
       "ReplicaSet",
       true,
       true,
       G::SpecChange,
       N::Dns1123Subdomain,
       {"rs"},
       {"status.replicas"}},
      {"batch",
       "v1",
       "jobs",
       "Job",
       true,
       true,
       G::SpecChange,
       N::Dns1123Subdomain,
       {},
       {"status.successful"}},
      {"coordination.k8s.io",
       "v1",
       "leases",
       "Lease",
       true,
       false,
       G::None,
       N::Dns1123Subdomain,
       {},
       {}},
      {"apiextensions.k8s.io",
       "v1",
       "customresourcedefinitions",
       "CustomResourceDefinition",
       false,
       true,
       G::SpecChange,
       N::Dns1123Subdomain,
       {"crd", "crds"},
       {}},
  };
  for (const auto& b : builtins) {
    ResourceInfo info = fromBuiltin(b);
    if (info.resource == "pods" || info.resource == "serviceaccounts") {
      info.deleteReturnsObject = true;
    }
    if (info.resource == "leases" || info.resource == "endpoints" || info.resource == "events") {
      info.allowCreateOnUpdate = true;
    }
    if (info.resource == "pods" || info.resource == "deployments" ||
        info.resource == "replicasets" || info.resource == "jobs" || info.resource == "services" ||
        info.resource == "configmaps" || info.resource == "secrets" ||
        info.resource == "serviceaccounts" || info.resource == "persistentvolumeclaims") {
      info.categories = {"all"};
      if (info.resource == "configmaps" || info.resource == "secrets" ||
          info.resource == "serviceaccounts" || info.resource == "persistentvolumeclaims") {
        info.categories.clear();
      }
    }
    entries_.push_back(std::make_shared<const ResourceInfo>(std::move(info)));
  }
}

ResourceInfoPtr ResourceRegistry::find(const GroupVersionResource& gvr) const {
  auto info = find(gvr.group, gvr.resource);
  if (info == nullptr || !info->serves(gvr.version)) return nullptr;
  return info;
}

ResourceInfoPtr ResourceRegistry::find(std::string_view group, std::string_view resource) const {
  std::lock_guard lock(mu_);
  for (const auto& e : entries_) {
    if (e->group == group && e->resource == resource) return e;
  }
  return nullptr;
}

ResourceInfoPtr ResourceRegistry::findKind(std::string_view apiVersion,
                                           std::string_view kind) const {
  GroupVersion gv = GroupVersion::parse(apiVersion);
  std::lock_guard lock(mu_);
  for (const auto& e : entries_) {
    if (e->group == gv.group && e->kind == kind && e->serves(gv.version)) return e;
  }
  return nullptr;
}

ResourceInfoPtr ResourceRegistry::resolve(std::string_view nameOrKind) const {
  std::string name = lower(nameOrKind);
  std::string group;
  std::lock_guard lock(mu_);
  auto matches = [&](const ResourceInfo& e, std::string_view n) {
    if (e.resource == n || e.singular == n || lower(e.kind) == n) return true;
    return std::find(e.shortNames.begin(), e.shortNames.end(), n) != e.shortNames.end();
  };
  for (const auto& e : entries_) {
    if (matches(*e, name)) return e;
  }
  // "widgets.example.com": the part before the first dot names the resource.
  auto dot = name.find('.');
  if (dot == std::string::npos) return nullptr;
  std::string head = name.substr(0, dot);
  group = name.substr(dot + 1);
  for (const auto& e : entries_) {
    if (e->group == group && matches(*e, head)) return e;
  }
  return nullptr;
}

std::vector<ResourceInfoPtr> ResourceRegistry::all() const {
  std::lock_guard lock(mu_);
  return entries_;
}

void ResourceRegistry::add(ResourceInfo info) {
  auto entry = std::make_shared<const ResourceInfo>(std::move(info));
  std::lock_guard lock(mu_);
  for (auto& e : entries_) {
    if (e->group == entry->group && e->resource == entry->resource) {
      e = entry;
      return;
    }
  }
  entries_.push_back(std::move(entry));
}

void ResourceRegistry::remove(const GroupResource& gr) {
  std::lock_guard lock(mu_);
  std::erase_if(entries_, [&](const ResourceInfoPtr& e) {
    return e->group == gr.group && e->resource == gr.resource;
  });
}

Result<ResourceInfo> ResourceRegistry::fromCustomResourceDefinition(const Json& crd) {
  const std::string name = meta::name(crd);
  FieldErrors errors;
  auto str = [](const Json& j, const char* key) -> std::string {
    if (!j.is_object()) return "";
    auto it = j.find(key);
    return (it != j.end() && it->is_string()) ? it->get<std::string>() : "";
  };
  static const Json kEmpty = Json::object();
  const Json& spec = crd.contains("spec") && crd["spec"].is_object() ? crd["spec"] : kEmpty;
  const Json& names = spec.contains("names") && spec["names"].is_object() ? spec["names"] : kEmpty;

  ResourceInfo info;
  info.custom = true;
  info.allowUnconditionalUpdate = false;
  info.generation = GenerationRule::NonMetadataChange;
  info.group = str(spec, "group");
  info.resource = str(names, "plural");
  info.kind = str(names, "kind");
  info.singular = str(names, "singular");
  if (info.singular.empty()) info.singular = lower(info.kind);
  info.listKind = str(names, "listKind");
  if (info.listKind.empty()) info.listKind = info.kind + "List";
  for (const char* key : {"shortNames", "categories"}) {
    if (auto it = names.find(key); it != names.end() && it->is_array()) {
      for (const auto& s : *it) {
        if (!s.is_string()) continue;
        (std::string_view(key) == "shortNames" ? info.shortNames : info.categories)
            .push_back(s.get<std::string>());
      }
    }
  }
  std::string scope = str(spec, "scope");
  if (scope != "Namespaced" && scope != "Cluster") {
    errors.push_back(FieldError::notSupported("spec.scope", goQuote(scope),
                                              "supported values: \"Cluster\", \"Namespaced\""));
  }
  info.namespaced = scope != "Cluster";
  if (info.group.empty()) errors.push_back(FieldError::required("spec.group"));
  if (info.resource.empty()) errors.push_back(FieldError::required("spec.names.plural"));
  if (info.kind.empty()) errors.push_back(FieldError::required("spec.names.kind"));
  if (!info.group.empty() && !info.resource.empty() && name != info.resource + "." + info.group) {
    errors.push_back(FieldError::invalidString("metadata.name", name,
                                               "must be spec.names.plural+\".\"+spec.group"));
  }

  int storageVersions = 0;
  std::string storageVersion;
  auto versions = spec.find("versions");
  if (versions == spec.end() || !versions->is_array() || versions->empty()) {
    errors.push_back(FieldError::required(
        "spec.versions", "must have exactly one version marked as storage version"));
  } else {
    for (std::size_t i = 0; i < versions->size(); ++i) {
      const Json& v = (*versions)[i];
      std::string vname = str(v, "name");
      if (vname.empty()) {
        errors.push_back(FieldError::required("spec.versions[" + std::to_string(i) + "].name"));
        continue;
      }
      bool served = v.is_object() && v.value("served", false);
      bool storage = v.is_object() && v.value("storage", false);
      if (storage) {
        ++storageVersions;
        storageVersion = vname;
        auto sub = v.find("subresources");
        info.hasStatus = sub != v.end() && sub->is_object() && sub->contains("status");
        if (auto cols = v.find("additionalPrinterColumns"); cols != v.end() && cols->is_array()) {
          for (const auto& c : *cols) {
            PrinterColumn pc;
            pc.name = str(c, "name");
            pc.type = str(c, "type");
            pc.jsonPath = str(c, "jsonPath");
            pc.description = str(c, "description");
            pc.priority = c.is_object() ? c.value("priority", 0) : 0;
            info.printerColumns.push_back(std::move(pc));
          }
        }
      }
      if (served) info.versions.push_back(vname);
      const Json* schema = v.is_object() && v.contains("schema") ? &v["schema"] : nullptr;
      if (schema != nullptr && schema->is_object() && schema->contains("openAPIV3Schema")) {
        auto compiled = StructuralSchema::compile(
            (*schema)["openAPIV3Schema"],
            "spec.versions[" + std::to_string(i) + "].schema.openAPIV3Schema", errors);
        if (compiled) info.schemas.emplace_back(vname, std::move(compiled));
      }
    }
    if (storageVersions != 1) {
      errors.push_back(FieldError::invalid(
          "spec.versions", "[]apiextensions.CustomResourceDefinitionVersion{...}",
          "must have exactly one version marked as storage version"));
    }
  }
  if (!errors.empty()) {
    return tl::unexpected(
        Status::invalid("apiextensions.k8s.io", "CustomResourceDefinition", name, errors));
  }
  // The storage version is preferred when served; otherwise the first served one.
  auto pos = std::find(info.versions.begin(), info.versions.end(), storageVersion);
  if (pos != info.versions.end()) std::rotate(info.versions.begin(), pos, pos + 1);
  return info;
}

}  // namespace fakekube
