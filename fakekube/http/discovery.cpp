#include "fakekube/http/discovery.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fakekube {

namespace {

struct GroupVersions {
  std::string group;
  std::vector<std::string> versions;  // preferred first
};

// Every group with its served versions, in registration order (built-ins first).
std::vector<GroupVersions> servedGroups(const ResourceRegistry& registry) {
  std::vector<GroupVersions> groups;
  for (const auto& info : registry.all()) {
    if (info->group.empty()) continue;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const GroupVersions& g) { return g.group == info->group; });
    if (it == groups.end()) {
      groups.push_back({info->group, {}});
      it = std::prev(groups.end());
    }
    for (const auto& v : info->versions) {
      if (std::find(it->versions.begin(), it->versions.end(), v) == it->versions.end()) {
        it->versions.push_back(v);
      }
    }
  }
  return groups;
}

Json groupDocument(const GroupVersions& g) {
  Json versions = Json::array();
  for (const auto& v : g.versions) {
    versions.push_back({{"groupVersion", g.group + "/" + v}, {"version", v}});
  }
  return {
      {"name", g.group},
      {"versions", versions},
      {"preferredVersion",
       {{"groupVersion", g.group + "/" + g.versions.front()}, {"version", g.versions.front()}}}};
}

Json stringArray(const std::vector<std::string>& items) {
  Json array = Json::array();
  for (const auto& s : items) array.push_back(s);
  return array;
}

Json resourceEntry(const ResourceInfo& info) {
  std::vector<std::string> verbs = {"create", "delete", "deletecollection", "get",
                                    "list",   "patch",  "update",           "watch"};
  if (info.is("", "namespaces")) {
    verbs = {"create", "delete", "get", "list", "patch", "update", "watch"};
  }
  Json entry = {{"name", info.resource},
                {"singularName", info.singular},
                {"namespaced", info.namespaced},
                {"kind", info.kind},
                {"verbs", stringArray(verbs)}};
  if (!info.shortNames.empty()) entry["shortNames"] = stringArray(info.shortNames);
  if (!info.categories.empty()) entry["categories"] = stringArray(info.categories);
  return entry;
}

Json subresourceEntry(const ResourceInfo& info, const std::string& subresource,
                      const std::string& kind, const std::vector<std::string>& verbs) {
  return {{"name", info.resource + "/" + subresource},
          {"singularName", ""},
          {"namespaced", info.namespaced},
          {"kind", kind},
          {"verbs", stringArray(verbs)}};
}

}  // namespace

Json apiVersionsDocument(std::string_view serverAddress) {
  return {{"kind", "APIVersions"},
          {"versions", Json::array({"v1"})},
          {"serverAddressByClientCIDRs",
           Json::array({{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", serverAddress}}})}};
}

Json apiGroupListDocument(const ResourceRegistry& registry) {
  Json groups = Json::array();
  for (const auto& g : servedGroups(registry)) groups.push_back(groupDocument(g));
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", std::move(groups)}};
}

std::optional<Json> apiGroupDocument(const ResourceRegistry& registry, std::string_view group) {
  for (const auto& g : servedGroups(registry)) {
    if (g.group != group) continue;
    Json doc = groupDocument(g);
    doc["kind"] = "APIGroup";
    doc["apiVersion"] = "v1";
    return doc;
  }
  return std::nullopt;
}

std::optional<Json> apiResourceListDocument(const ResourceRegistry& registry,
                                            std::string_view group, std::string_view version) {
  Json resources = Json::array();
  for (const auto& info : registry.all()) {
    if (info->group != group || !info->serves(version)) continue;
    resources.push_back(resourceEntry(*info));
    if (info->hasStatus) {
      resources.push_back(
          subresourceEntry(*info, "status", info->kind, {"get", "patch", "update"}));
    }
    if (info->is("", "pods"))
      resources.push_back(subresourceEntry(*info, "binding", "Binding", {"create"}));
    if (info->is("", "namespaces")) {
      resources.push_back(subresourceEntry(*info, "finalize", "Namespace", {"update"}));
    }
    if (info->is("apps", "deployments") || info->is("apps", "replicasets")) {
      Json scale = subresourceEntry(*info, "scale", "Scale", {"get", "patch", "update"});
      scale["group"] = "autoscaling";
      scale["version"] = "v1";
      resources.push_back(std::move(scale));
    }
  }
  if (resources.empty()) return std::nullopt;
  const std::string groupVersion =
      group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
  Json doc = {{"kind", "APIResourceList"},
              {"groupVersion", groupVersion},
              {"resources", std::move(resources)}};
  if (!group.empty()) doc["apiVersion"] = "v1";
  return doc;
}

}  // namespace fakekube
