#include "fakekube/client/client.h"

#include <nlohmann/json.hpp>

namespace fakekube {

Result<ObjectPtr> Reader::getShared(const GroupVersionResource& gvr, std::string_view ns,
                                    std::string_view name) {
  auto got = get(gvr, ns, name);
  if (!got) return tl::unexpected(std::move(got.error()));
  return std::make_shared<const Json>(std::move(*got));
}

Result<ObjectList> Reader::listShared(const GroupVersionResource& gvr, std::string_view ns,
                                      const ListOptions& options) {
  auto listed = list(gvr, ns, options);
  if (!listed) return tl::unexpected(std::move(listed.error()));
  ObjectList out;
  out.apiVersion = listed->value("apiVersion", "");
  out.kind = listed->value("kind", "");
  if (auto metadata = listed->find("metadata");
      metadata != listed->end() && metadata->is_object()) {
    out.resourceVersion = metadata->value("resourceVersion", "");
    out.continueToken = metadata->value("continue", "");
  }
  if (auto items = listed->find("items"); items != listed->end() && items->is_array()) {
    out.items.reserve(items->size());
    for (auto& item : *items) out.items.push_back(std::make_shared<const Json>(std::move(item)));
  }
  return out;
}

namespace {

Result<ObjectPtr> shared(Result<Json> answer) {
  if (!answer) return tl::unexpected(std::move(answer.error()));
  return std::make_shared<const Json>(std::move(*answer));
}

}  // namespace

Result<ObjectPtr> Client::createShared(const GroupVersionResource& gvr, Json object,
                                       const CreateOptions& options) {
  return shared(create(gvr, std::move(object), options));
}

Result<ObjectPtr> Client::updateShared(const GroupVersionResource& gvr, Json object,
                                       const UpdateOptions& options) {
  return shared(update(gvr, std::move(object), options));
}

Result<ObjectPtr> Client::updateStatusShared(const GroupVersionResource& gvr, Json object,
                                             const UpdateOptions& options) {
  return shared(updateStatus(gvr, std::move(object), options));
}

Result<Json> Client::createSubresource(const GroupVersionResource& gvr, std::string_view,
                                       std::string_view, std::string_view subresource, Json,
                                       const CreateOptions&) {
  return tl::unexpected(Status::methodNotSupported(
      {gvr.group, gvr.resource + "/" + std::string(subresource)}, "create"));
}

}  // namespace fakekube
