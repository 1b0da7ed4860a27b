#include "fakekube/http/openapi.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "fakekube/api/json_writer.h"

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

}  // namespace

std::optional<Json> openApiGroupVersionDocument(const ResourceRegistry& registry,
                                                std::string_view wanted) {
  Json paths = Json::object();
  for (const auto& info : registry.all()) {
    for (const auto& version : info->versions) {
      const std::string gvPath = groupVersionPath(info->group, version);
      if (gvPath != wanted) continue;
      const std::string base =
          "/" + gvPath + (info->namespaced ? "/namespaces/{namespace}/" : "/") + info->resource;
      const std::string item = base + "/{name}";
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
              {"components", Json::object()}};
}

Json openApiIndexDocument(const ResourceRegistry& registry) {
  std::set<std::string> groupVersions;
  for (const auto& info : registry.all()) {
    for (const auto& version : info->versions) {
      groupVersions.insert(groupVersionPath(info->group, version));
    }
  }
  Json paths = Json::object();
  for (const auto& gv : groupVersions) {
    auto document = openApiGroupVersionDocument(registry, gv);
    if (!document) continue;
    paths[gv] = {{"serverRelativeURL", "/openapi/v3/" + gv + "?hash=" + contentHash(*document)}};
  }
  return {{"paths", std::move(paths)}};
}

}  // namespace fakekube
