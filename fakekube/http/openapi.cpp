#include "fakekube/http/internal/openapi.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/json_writer.h"
#include "fakekube/http/internal/builtin_schemas.h"

namespace fakekube {

namespace {

std::string groupVersionPath(const std::string& group, const std::string& version) {
  return group.empty() ? "api/" + version : "apis/" + group + "/" + version;
}

Json queryParameter(const char* name) {
  return {{"name", name},
          {"in", "query"},
          {"uniqueItems", true},
          {"schema", {{"type", name == std::string_view("force") ? "boolean" : "string"}}}};
}

Json operation(const ResourceInfo& info, const std::string& version, const char* action,
               std::initializer_list<const char*> parameters) {
  Json params = Json::array();
  for (const char* p : parameters) params.push_back(queryParameter(p));
  return {{"x-kubernetes-action", action},
          {"x-kubernetes-group-version-kind",
           {{"group", info.group}, {"version", version}, {"kind", info.kind}}},
          {"parameters", std::move(params)},
          {"responses", {{"200", {{"description", "OK"}}}}}};
}

// FNV-1a over the document: a hash that changes whenever the document does, so clients that
// cache documents by URL (kubectl does) refetch after a CRD changes.
std::string contentHash(const Json& document) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (unsigned char c : toJsonText(document)) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return fmt::format("{:016X}", hash);
}

const char* const kObjectMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

// "com.example.v1.Widget" for widgets.example.com/v1, as kube-apiserver names a CRD's schema.
std::string customDefinitionName(const ResourceInfo& info, const std::string& version) {
  std::string reversed;
  std::string_view group = info.group;
  while (!group.empty()) {
    auto dot = group.rfind('.');
    std::string_view part = dot == std::string_view::npos ? group : group.substr(dot + 1);
    if (!reversed.empty()) reversed += ".";
    reversed += part;
    group = dot == std::string_view::npos ? std::string_view() : group.substr(0, dot);
  }
  return reversed + "." + version + "." + info.kind;
}

// The CRD's openAPIV3Schema for `version` with apiVersion, kind and metadata described as for
// every kind; nullopt when the definition has no schema for it.
std::optional<Json> customSchema(const ResourceInfo& info, const std::string& version,
                                 const CustomResourceDefinitions& crds, OpenApiForm form) {
  const std::string name = info.resource + "." + info.group;
  for (const auto& crd : crds) {
    if (!crd || !crd->is_object()) continue;
    const Json& metadata = jsonAt(*crd, {"metadata"});
    if (!metadata.is_object() || metadata.value("name", "") != name) continue;
    const Json& spec = jsonAt(*crd, {"spec"});
    auto versions = spec.is_object() ? spec.find("versions") : spec.end();
    if (!spec.is_object() || versions == spec.end() || !versions->is_array()) return std::nullopt;
    for (const auto& v : *versions) {
      if (!v.is_object() || v.value("name", "") != version) continue;
      auto schema = v.find("schema");
      if (schema == v.end() || !schema->is_object()) return std::nullopt;
      auto body = schema->find("openAPIV3Schema");
      if (body == schema->end() || !body->is_object()) return std::nullopt;
      Json out = *body;
      Json& properties = out["properties"];
      if (!properties.is_object()) properties = Json::object();
      properties["apiVersion"] = {
          {"type", "string"},
          {"description",
           "APIVersion defines the versioned schema of this representation of an object."}};
      properties["kind"] = {{"type", "string"},
                            {"description",
                             "Kind is a string value representing the REST resource this object "
                             "represents."}};
      const std::string ref =
          (form == OpenApiForm::V3 ? "#/components/schemas/" : "#/definitions/") +
          std::string(kObjectMeta);
      properties["metadata"] =
          form == OpenApiForm::V3
              ? Json{{"allOf", Json::array({{{"$ref", ref}}})},
                     {"description", "Standard object's metadata."}}
              : Json{{"$ref", ref}, {"description", "Standard object's metadata."}};
      if (!out.contains("type")) out["type"] = "object";
      out["x-kubernetes-group-version-kind"] =
          Json::array({{{"group", info.group}, {"kind", info.kind}, {"version", version}}});
      return out;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

// Adds the schema of each kind `info` serves at `version` (and what it refers to).
void addSchemas(const ResourceInfo& info, const std::string& version,
                const CustomResourceDefinitions& crds, OpenApiForm form, Json& schemas) {
  if (info.custom) {
    if (auto schema = customSchema(info, version, crds, form)) {
      schemas[customDefinitionName(info, version)] = std::move(*schema);
      addBuiltinDefinitions(kObjectMeta, form, schemas);
    }
    return;
  }
  const std::string definition = builtinDefinitionOf(info.group, version, info.kind);
  if (!definition.empty()) addBuiltinDefinitions(definition, form, schemas);
}

}  // namespace

Json openApiV2Document(const ResourceRegistry& registry,
                       const CustomResourceDefinitions& customResourceDefinitions) {
  Json definitions = Json::object();
  for (const auto& info : registry.all()) {
    for (const auto& version : info->versions) {
      addSchemas(*info, version, customResourceDefinitions, OpenApiForm::V2, definitions);
    }
  }
  return {{"swagger", "2.0"},
          {"info", {{"title", "Kubernetes"}, {"version", "v1.32.0"}}},
          {"paths", Json::object()},
          {"definitions", std::move(definitions)}};
}

namespace {

// The group/version document; without schemas when `withSchemas` is false (what the index
// hashes: the built-in schemas never change, and a CRD's schema changes with its
// resourceVersion, which the hash input then carries).
std::optional<Json> groupVersionDocument(const ResourceRegistry& registry, std::string_view wanted,
                                         const CustomResourceDefinitions& customResourceDefinitions,
                                         bool withSchemas) {
  Json paths = Json::object();
  Json schemas = Json::object();
  for (const auto& info : registry.all()) {
    for (const auto& version : info->versions) {
      const std::string gvPath = groupVersionPath(info->group, version);
      if (gvPath != wanted) continue;
      const std::string base =
          "/" + gvPath + (info->namespaced ? "/namespaces/{namespace}/" : "/") + info->resource;
      const std::string item = base + "/{name}";
      if (withSchemas) {
        addSchemas(*info, version, customResourceDefinitions, OpenApiForm::V3, schemas);
      } else if (info->custom) {
        for (const auto& crd : customResourceDefinitions) {
          if (!crd) continue;
          const Json& metadata = jsonAt(*crd, {"metadata"});
          if (metadata.is_object() &&
              metadata.value("name", "") == info->resource + "." + info->group) {
            schemas[info->resource] = metadata.value("resourceVersion", "");
          }
        }
      }
      if (info->verbs == std::vector<std::string>{"create"}) {
        paths[base] = {{"post", operation(*info, version, "post",
                                          {"dryRun", "fieldManager", "fieldValidation"})}};
        continue;
      }
      paths[base] = {
          {"get", operation(*info, version, "list", {"labelSelector", "fieldSelector", "limit"})},
          {"post",
           operation(*info, version, "post", {"dryRun", "fieldManager", "fieldValidation"})},
          {"delete", operation(*info, version, "deletecollection", {"dryRun"})}};
      paths[item] = {
          {"get", operation(*info, version, "get", {})},
          {"put", operation(*info, version, "put", {"dryRun", "fieldManager", "fieldValidation"})},
          {"patch", operation(*info, version, "patch",
                              {"dryRun", "fieldManager", "fieldValidation", "force"})},
          {"delete", operation(*info, version, "delete",
                               {"dryRun", "gracePeriodSeconds", "propagationPolicy"})}};
      if (info->hasStatus) {
        paths[item + "/status"] = {
            {"get", operation(*info, version, "get", {})},
            {"put",
             operation(*info, version, "put", {"dryRun", "fieldManager", "fieldValidation"})},
            {"patch", operation(*info, version, "patch",
                                {"dryRun", "fieldManager", "fieldValidation", "force"})}};
      }
    }
  }
  if (paths.empty()) return std::nullopt;
  return Json{{"openapi", "3.0.0"},
              {"info", {{"title", "Kubernetes"}, {"version", "v1.32.0"}}},
              {"paths", std::move(paths)},
              {"components", {{"schemas", std::move(schemas)}}}};
}

}  // namespace

std::optional<Json> openApiGroupVersionDocument(
    const ResourceRegistry& registry, std::string_view wanted,
    const CustomResourceDefinitions& customResourceDefinitions) {
  return groupVersionDocument(registry, wanted, customResourceDefinitions, true);
}

Json openApiIndexDocument(const ResourceRegistry& registry,
                          const CustomResourceDefinitions& customResourceDefinitions) {
  std::set<std::string> groupVersions;
  for (const auto& info : registry.all()) {
    for (const auto& version : info->versions) {
      groupVersions.insert(groupVersionPath(info->group, version));
    }
  }
  Json paths = Json::object();
  for (const auto& gv : groupVersions) {
    auto document = groupVersionDocument(registry, gv, customResourceDefinitions, false);
    if (!document) continue;
    paths[gv] = {{"serverRelativeURL", "/openapi/v3/" + gv + "?hash=" + contentHash(*document)}};
  }
  return {{"paths", std::move(paths)}};
}

}  // namespace fakekube
