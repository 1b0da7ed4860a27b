#include "fakekube/api/resource_registry.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "fakekube/api/builtin_resources.h"
#include "fakekube/api/internal/structural_schema.h"
#include "fakekube/api/object_meta.h"

namespace fakekube {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// StructuralSchema::compile, remembered per process by the schema's text and field. Compiling
// is the dearest part of serving a definition, and the same definitions are served again and
// again: by every TestCluster of a crash-point enumeration (a few hundred servers a second), and
// to every operator that creates the definitions it ships at each start. A compiled schema is
// immutable, so servers share it.
std::shared_ptr<const StructuralSchema> compileSchema(const Json& openAPIV3Schema,
                                                      const std::string& field,
                                                      FieldErrors& errors) {
  struct Compiled {
    std::shared_ptr<const StructuralSchema> schema;
    FieldErrors errors;
  };
  static std::mutex mu;
  static std::unordered_map<std::string, Compiled> compiled;
  constexpr std::size_t kMaxRemembered = 256;
  std::string key = field + '\n' + openAPIV3Schema.dump();
  {
    std::lock_guard lock(mu);
    if (auto it = compiled.find(key); it != compiled.end()) {
      errors.insert(errors.end(), it->second.errors.begin(), it->second.errors.end());
      return it->second.schema;
    }
  }
  Compiled fresh;
  fresh.schema = StructuralSchema::compile(openAPIV3Schema, field, fresh.errors);
  errors.insert(errors.end(), fresh.errors.begin(), fresh.errors.end());
  auto schema = fresh.schema;
  std::lock_guard lock(mu);
  if (compiled.size() < kMaxRemembered) compiled.emplace(std::move(key), std::move(fresh));
  return schema;
}

std::string definitionString(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return (it != j.end() && it->is_string()) ? it->get<std::string>() : "";
}

// A definition's group, names and scope into `info`, with the errors of the ones missing or
// wrong; `name` is the definition's metadata.name, which must be <plural>.<group>.
void readDefinitionNames(const Json& spec, const Json& names, const std::string& name,
                         ResourceInfo& info, FieldErrors& errors) {
  info.group = definitionString(spec, "group");
  info.resource = definitionString(names, "plural");
  info.kind = definitionString(names, "kind");
  info.singular = definitionString(names, "singular");
  if (info.singular.empty()) info.singular = lower(info.kind);
  info.listKind = definitionString(names, "listKind");
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
  std::string scope = definitionString(spec, "scope");
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
}

// The storage version's status subresource and printer columns into `info`.
void readStorageVersion(const Json& version, ResourceInfo& info) {
  auto sub = version.find("subresources");
  info.hasStatus = sub != version.end() && sub->is_object() && sub->contains("status");
  auto columns = version.find("additionalPrinterColumns");
  if (columns == version.end() || !columns->is_array()) return;
  for (const auto& c : *columns) {
    PrinterColumn column;
    column.name = definitionString(c, "name");
    column.type = definitionString(c, "type");
    column.jsonPath = definitionString(c, "jsonPath");
    column.description = definitionString(c, "description");
    column.priority = c.is_object() ? c.value("priority", 0) : 0;
    info.printerColumns.push_back(std::move(column));
  }
}

// spec.versions into `info` (the served ones, the schemas compiled, the storage version's
// subresources and columns); answers the storage version's name.
std::string readDefinitionVersions(const Json& spec, ResourceInfo& info, FieldErrors& errors) {
  auto versions = spec.find("versions");
  if (versions == spec.end() || !versions->is_array() || versions->empty()) {
    errors.push_back(FieldError::required(
        "spec.versions", "must have exactly one version marked as storage version"));
    return "";
  }
  int storageVersions = 0;
  std::string storageVersion;
  for (std::size_t i = 0; i < versions->size(); ++i) {
    const Json& v = (*versions)[i];
    std::string vname = definitionString(v, "name");
    if (vname.empty()) {
      errors.push_back(FieldError::required("spec.versions[" + std::to_string(i) + "].name"));
      continue;
    }
    if (v.is_object() && v.value("storage", false)) {
      ++storageVersions;
      storageVersion = vname;
      readStorageVersion(v, info);
    }
    if (v.is_object() && v.value("served", false)) info.versions.push_back(vname);
    const Json* schema = v.is_object() && v.contains("schema") ? &v["schema"] : nullptr;
    if (schema != nullptr && schema->is_object() && schema->contains("openAPIV3Schema")) {
      auto compiled =
          compileSchema((*schema)["openAPIV3Schema"],
                        "spec.versions[" + std::to_string(i) + "].schema.openAPIV3Schema", errors);
      if (compiled) info.schemas.emplace_back(vname, std::move(compiled));
    }
  }
  if (storageVersions != 1) {
    errors.push_back(
        FieldError::invalid("spec.versions", "[]apiextensions.CustomResourceDefinitionVersion{...}",
                            "must have exactly one version marked as storage version"));
  }
  return storageVersion;
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
  for (auto& info : builtinResources()) {
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
  static const Json kEmpty = Json::object();
  const Json& spec = crd.contains("spec") && crd["spec"].is_object() ? crd["spec"] : kEmpty;
  const Json& names = spec.contains("names") && spec["names"].is_object() ? spec["names"] : kEmpty;

  ResourceInfo info;
  info.custom = true;
  info.allowUnconditionalUpdate = false;
  info.generation = GenerationRule::NonMetadataChange;
  FieldErrors errors;
  readDefinitionNames(spec, names, name, info, errors);
  const std::string storageVersion = readDefinitionVersions(spec, info, errors);
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
