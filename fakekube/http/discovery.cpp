#include "fakekube/http/internal/discovery.h"

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

std::vector<std::string> verbsOf(const ResourceInfo& info) {
  if (!info.verbs.empty()) return info.verbs;
  if (info.is("", "namespaces")) {
    return {"create", "delete", "get", "list", "patch", "update", "watch"};
  }
  if (info.is("", "componentstatuses")) return {"get", "list"};
  return {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
}

Json resourceEntry(const ResourceInfo& info) {
  Json entry = {{"name", info.resource},
                {"singularName", info.singular},
                {"namespaced", info.namespaced},
                {"kind", info.kind},
                {"verbs", stringArray(verbsOf(info))}};
  if (!info.shortNames.empty()) entry["shortNames"] = stringArray(info.shortNames);
  if (!info.categories.empty()) entry["categories"] = stringArray(info.categories);
  return entry;
}

// A subresource as both discovery forms describe it: its name, the kind it answers with (an
// empty group/version for the parent's) and its verbs, status and scale first.
struct Subresource {
  std::string name;
  std::string group;
  std::string version;
  std::string kind;
  std::vector<std::string> verbs;
};

std::vector<Subresource> subresourcesOf(const ResourceInfo& info) {
  std::vector<Subresource> out;
  for (const auto& s : info.subresources) {
    out.push_back({s.name, s.group, s.version, s.kind, s.verbs});
  }
  if (info.hasScale) {
    out.push_back({"scale", "autoscaling", "v1", "Scale", {"get", "patch", "update"}});
  }
  if (info.hasStatus) out.push_back({"status", "", "", info.kind, {"get", "patch", "update"}});
  std::sort(out.begin(), out.end(),
            [](const Subresource& a, const Subresource& b) { return a.name < b.name; });
  return out;
}

Json subresourceEntry(const ResourceInfo& info, const Subresource& s) {
  Json entry = {{"name", info.resource + "/" + s.name},
                {"singularName", ""},
                {"namespaced", info.namespaced},
                {"kind", s.kind},
                {"verbs", stringArray(s.verbs)}};
  if (!s.group.empty()) entry["group"] = s.group;
  if (!s.version.empty()) entry["version"] = s.version;
  return entry;
}

Json responseKind(const std::string& group, const std::string& version, const std::string& kind) {
  return {{"group", group}, {"version", version}, {"kind", kind}};
}

// One resource of an aggregated discovery document (apidiscovery.k8s.io APIResourceDiscovery).
Json aggregatedResource(const ResourceInfo& info, const std::string& version) {
  Json entry = {{"resource", info.resource},
                {"responseKind", responseKind(info.group, version, info.kind)},
                {"scope", info.namespaced ? "Namespaced" : "Cluster"},
                {"singularResource", info.singular},
                {"verbs", stringArray(verbsOf(info))}};
  if (!info.shortNames.empty()) entry["shortNames"] = stringArray(info.shortNames);
  if (!info.categories.empty()) entry["categories"] = stringArray(info.categories);
  Json subresources = Json::array();
  for (const auto& s : subresourcesOf(info)) {
    subresources.push_back(
        {{"subresource", s.name},
         {"responseKind", responseKind(s.group.empty() ? info.group : s.group,
                                       s.version.empty() ? version : s.version, s.kind)},
         {"verbs", stringArray(s.verbs)}});
  }
  if (!subresources.empty()) entry["subresources"] = std::move(subresources);
  return entry;
}

// The versions of `group` with their resources, preferred version first.
Json aggregatedGroup(const ResourceRegistry& registry, const GroupVersions& g) {
  Json versions = Json::array();
  for (const auto& version : g.versions) {
    Json resources = Json::array();
    for (const auto& info : registry.all()) {
      if (info->group != g.group || !info->serves(version)) continue;
      resources.push_back(aggregatedResource(*info, version));
    }
    versions.push_back(
        {{"version", version}, {"resources", std::move(resources)}, {"freshness", "Current"}});
  }
  Json metadata = {{"creationTimestamp", nullptr}};
  if (!g.group.empty()) metadata["name"] = g.group;
  return {{"metadata", std::move(metadata)}, {"versions", std::move(versions)}};
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
    for (const auto& sub : subresourcesOf(*info)) {
      resources.push_back(subresourceEntry(*info, sub));
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

Json aggregatedDiscoveryDocument(const ResourceRegistry& registry, bool legacy,
                                 std::string_view discoveryVersion) {
  Json items = Json::array();
  if (legacy) {
    items.push_back(aggregatedGroup(registry, {"", {"v1"}}));
  } else {
    for (const auto& g : servedGroups(registry)) items.push_back(aggregatedGroup(registry, g));
  }
  return {{"kind", "APIGroupDiscoveryList"},
          {"apiVersion", "apidiscovery.k8s.io/" + std::string(discoveryVersion)},
          {"metadata", Json::object()},
          {"items", std::move(items)}};
}

std::string aggregatedDiscoveryContentType(std::string_view discoveryVersion) {
  return "application/json;g=apidiscovery.k8s.io;v=" + std::string(discoveryVersion) +
         ";as=APIGroupDiscoveryList";
}

}  // namespace fakekube
