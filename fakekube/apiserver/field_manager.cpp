// The API server's side of field ownership (api/internal/managed_fields.h): which schema, scope and
// manager a write is recorded with. kube-apiserver's field manager runs on the decoded and
// defaulted object, before the strategy's PrepareFor* hooks; here it runs on the object the
// strategy prepared (defaults are filled there), leaving out what those hooks own: the status of
// a kind with a status subresource on the main resource.
#include <nlohmann/json.hpp>

#include "fakekube/api/internal/managed_fields.h"
#include "fakekube/api/internal/object_fields.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/apiserver/internal/api_server_impl.h"

namespace fakekube {

namespace {

// The strategy's reset fields: the main resource of a kind with a status subresource does not
// write its status; the status subresource writes nothing else.
object_fields::Scope writeScope(const ResourceInfo& info, std::string_view subresource) {
  if (subresource == "status") return {.only = "status"};
  if (subresource.empty() && info.hasStatus) return {.ignored = "status"};
  return {};
}

}  // namespace

PatchSchema ApiServer::Impl::patchSchema(const ResourceInfo& info, std::string_view version) {
  if (!info.custom) return PatchSchema::forKind(info.group, info.kind);
  auto crds = registry_.find("apiextensions.k8s.io", "customresourcedefinitions");
  ObjectPtr crd =
      crds != nullptr ? store_->get(key(*crds, "", info.resource + "." + info.group)) : nullptr;
  if (crd == nullptr) return PatchSchema::forKind(info.group, info.kind);
  const std::string cacheKey = info.group + "/" + info.resource + "/" + std::string(version);
  const std::int64_t revision = std::stoll("0" + meta::resourceVersion(*crd));
  auto cached = patchSchemas_.find(cacheKey);
  if (cached != patchSchemas_.end() && cached->second.first == revision) {
    return cached->second.second;
  }
  PatchSchema schema = PatchSchema::forCustomResource(*crd, version);
  patchSchemas_.insert_or_assign(cacheKey, std::make_pair(revision, schema));
  return schema;
}

void ApiServer::Impl::recordUpdate(const ResourceInfo& info, const Json* old, Json& updated,
                                   std::string_view subresource, const Writer& writer) {
  if (writer.applied) return;
  const std::string apiVersion = meta::apiVersion(updated);
  const std::string time = now();
  managed_fields::Write write{
      .manager = writer.manager,
      .apiVersion = apiVersion,
      .subresource = subresource,
      .time = time,
      .schema = patchSchema(info, GroupVersion::parse(apiVersion).version),
      .scope = writeScope(info, subresource),
  };
  managed_fields::recordUpdate(old, object_fields::zeroValue(info.group, info.kind, info.custom),
                               updated, write);
}

std::optional<Status> ApiServer::Impl::recordApply(const ResourceInfo& info, const Json* live,
                                                   Json& merged, const Json& configuration,
                                                   std::string_view subresource,
                                                   const PatchOptions& options,
                                                   const PatchSchema& schema) {
  const std::string apiVersion = meta::apiVersion(configuration);
  const std::string time = now();
  managed_fields::Write write{
      .manager = options.fieldManager,
      .apiVersion = apiVersion,
      .subresource = subresource,
      .time = time,
      .schema = schema,
      .scope = writeScope(info, subresource),
  };
  return managed_fields::recordApply(live,
                                     object_fields::zeroValue(info.group, info.kind, info.custom),
                                     merged, configuration, write, options.force);
}

}  // namespace fakekube
