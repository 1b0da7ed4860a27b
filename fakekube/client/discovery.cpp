#include "fakekube/client/discovery.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "fakekube/api/object_meta.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/client/rest_client.h"

namespace fakekube {

namespace {

Status notSupported() {
  return Status::generic(405, "MethodNotSupported",
                         "discovery needs a client that talks to a server");
}

// An answer's body as an error Status (the server's own when it sent one).
Status statusOf(const RestClient::RawResponse& response) {
  Json body = Json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_object() && body.value("kind", "") == "Status") {
    return Status::generic(response.status, body.value("reason", ""), body.value("message", ""));
  }
  return Status::generic(response.status, "InternalError", response.body);
}

Result<Json> getJson(RestClient& rest, const std::string& path) {
  auto response = rest.requestRaw("GET", path);
  if (!response) return tl::unexpected(response.error());
  if (response->status / 100 != 2) return tl::unexpected(statusOf(*response));
  Json body = Json::parse(response->body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) {
    return tl::unexpected(Status::internal(fmt::format("GET {}: not JSON", path)));
  }
  return body;
}

// The resources of one group-version document (an APIResourceList).
void addResources(const Json& list, const std::string& group, const std::string& version,
                  std::vector<ServedResource>& out) {
  auto items = list.find("resources");
  if (items == list.end() || !items->is_array()) return;
  for (const auto& r : *items) {
    if (!r.is_object()) continue;
    const std::string name = r.value("name", "");
    if (name.empty() || name.find('/') != std::string::npos) continue;  // a subresource
    ServedResource served{{group, version, name}, r.value("kind", ""), r.value("namespaced", true)};
    if (auto verbs = r.find("verbs"); verbs != r.end() && verbs->is_array()) {
      for (const auto& verb : *verbs) {
        if (verb.is_string()) served.verbs.push_back(verb.get<std::string>());
      }
    }
    out.push_back(std::move(served));
  }
}

Result<std::vector<ServedResource>> overHttp(RestClient& rest) {
  std::vector<ServedResource> out;
  auto core = getJson(rest, "/api/v1");
  if (!core) return tl::unexpected(core.error());
  addResources(*core, "", "v1", out);
  auto groups = getJson(rest, "/apis");
  if (!groups) return tl::unexpected(groups.error());
  auto list = groups->find("groups");
  if (list == groups->end() || !list->is_array()) return out;
  for (const auto& g : *list) {
    if (!g.is_object()) continue;
    const std::string name = g.value("name", "");
    std::string version;
    if (auto preferred = g.find("preferredVersion");
        preferred != g.end() && preferred->is_object()) {
      version = preferred->value("version", "");
    }
    if (name.empty() || version.empty()) continue;
    auto resources = getJson(rest, fmt::format("/apis/{}/{}", name, version));
    if (!resources) {
      // A group whose last definition went away meanwhile.
      if (isNotFound(resources.error())) continue;
      return tl::unexpected(resources.error());
    }
    addResources(*resources, name, version, out);
  }
  return out;
}

}  // namespace

bool ServedResource::supports(std::initializer_list<std::string_view> wanted) const {
  if (verbs.empty()) return true;
  for (std::string_view verb : wanted) {
    if (std::find(verbs.begin(), verbs.end(), verb) == verbs.end()) return false;
  }
  return true;
}

Result<std::vector<ServedResource>> servedResources(Reader& reader) {
  if (auto* inProcess = dynamic_cast<InProcessClient*>(&reader)) {
    std::vector<ServedResource> out;
    for (const auto& info : inProcess->server().registry().all()) {
      out.push_back(ServedResource{info->gvr(), info->kind, info->namespaced, info->verbs});
    }
    return out;
  }
  if (auto* rest = dynamic_cast<RestClient*>(&reader)) return overHttp(*rest);
  return tl::unexpected(notSupported());
}

Result<Json> finalizeNamespace(Reader& reader, Json ns) {
  const GroupVersionResource namespaces{"", "v1", "namespaces"};
  if (auto* inProcess = dynamic_cast<InProcessClient*>(&reader)) {
    auto done = inProcess->server().updateSubresource(namespaces, "", std::move(ns), "finalize");
    if (!done) return tl::unexpected(done.error());
    return Json(**done);
  }
  if (auto* rest = dynamic_cast<RestClient*>(&reader)) {
    const std::string path =
        fmt::format("/api/v1/namespaces/{}/finalize", meta::name(ns));  // names are DNS labels
    auto response = rest->requestRaw("PUT", path, ns.dump(), "application/json");
    if (!response) return tl::unexpected(response.error());
    if (response->status / 100 != 2) return tl::unexpected(statusOf(*response));
    return Json::parse(response->body, nullptr, /*allow_exceptions=*/false);
  }
  return tl::unexpected(notSupported());
}

}  // namespace fakekube
