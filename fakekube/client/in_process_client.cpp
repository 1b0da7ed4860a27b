#include "fakekube/client/in_process_client.h"

#include <nlohmann/json.hpp>

namespace fakekube {
namespace {

// The caller's own copy of a shared document.
Result<Json> copied(Result<ObjectPtr> result) {
  if (!result) return tl::unexpected(std::move(result.error()));
  return Json(**result);
}

}  // namespace

Result<Json> InProcessClient::get(const GroupVersionResource& gvr, std::string_view ns,
                                  std::string_view name) {
  RequestUserScope asUser(user());
  return copied(server_.get(gvr, ns, name));
}

Result<ObjectPtr> InProcessClient::getShared(const GroupVersionResource& gvr, std::string_view ns,
                                             std::string_view name) {
  RequestUserScope asUser(user());
  return server_.get(gvr, ns, name);
}

Result<Json> InProcessClient::list(const GroupVersionResource& gvr, std::string_view ns,
                                   const ListOptions& options) {
  RequestUserScope asUser(user());
  auto listed = server_.list(gvr, ns, options);
  if (!listed) return tl::unexpected(std::move(listed.error()));
  return listed->toJson();
}

Result<ObjectList> InProcessClient::listShared(const GroupVersionResource& gvr, std::string_view ns,
                                               const ListOptions& options) {
  RequestUserScope asUser(user());
  return server_.list(gvr, ns, options);
}

Result<Json> InProcessClient::create(const GroupVersionResource& gvr, Json object,
                                     const CreateOptions& options) {
  RequestUserScope asUser(user());
  // An empty namespace tells the server to use the object's own.
  return copied(server_.create(gvr, "", std::move(object), options));
}

Result<Json> InProcessClient::update(const GroupVersionResource& gvr, Json object,
                                     const UpdateOptions& options) {
  RequestUserScope asUser(user());
  return copied(server_.update(gvr, "", std::move(object), options));
}

Result<Json> InProcessClient::updateStatus(const GroupVersionResource& gvr, Json object,
                                           const UpdateOptions& options) {
  RequestUserScope asUser(user());
  return copied(server_.updateStatus(gvr, "", std::move(object), options));
}

Result<ObjectPtr> InProcessClient::createShared(const GroupVersionResource& gvr, Json object,
                                                const CreateOptions& options) {
  RequestUserScope asUser(user());
  return server_.create(gvr, "", std::move(object), options);
}

Result<ObjectPtr> InProcessClient::updateShared(const GroupVersionResource& gvr, Json object,
                                                const UpdateOptions& options) {
  RequestUserScope asUser(user());
  return server_.update(gvr, "", std::move(object), options);
}

Result<ObjectPtr> InProcessClient::updateStatusShared(const GroupVersionResource& gvr, Json object,
                                                      const UpdateOptions& options) {
  RequestUserScope asUser(user());
  return server_.updateStatus(gvr, "", std::move(object), options);
}

Result<Json> InProcessClient::patch(const GroupVersionResource& gvr, std::string_view ns,
                                    std::string_view name, PatchType type, std::string patch,
                                    const PatchOptions& options, std::string subresource) {
  RequestUserScope asUser(user());
  return copied(server_.patch(gvr, ns, name, type, patch, options, subresource));
}

Result<Json> InProcessClient::deleteObject(const GroupVersionResource& gvr, std::string_view ns,
                                           std::string_view name, const DeleteOptions& options) {
  RequestUserScope asUser(user());
  auto deleted = server_.deleteObject(gvr, ns, name, options);
  if (!deleted) return tl::unexpected(std::move(deleted.error()));
  return server_.deleteResponse(gvr, *deleted);
}

Result<void> InProcessClient::deleteAllOf(const GroupVersionResource& gvr, std::string_view ns,
                                          const ListOptions& listOptions,
                                          const DeleteOptions& deleteOptions) {
  RequestUserScope asUser(user());
  auto deleted = server_.deleteCollection(gvr, ns, listOptions, deleteOptions);
  if (!deleted) return tl::unexpected(std::move(deleted.error()));
  return {};
}

Result<std::shared_ptr<Watch>> InProcessClient::watch(const GroupVersionResource& gvr,
                                                      std::string_view ns,
                                                      const WatchOptions& options) {
  RequestUserScope asUser(user());
  return server_.watch(gvr, ns, options);
}

Result<Json> InProcessClient::createSubresource(const GroupVersionResource& gvr,
                                                std::string_view ns, std::string_view name,
                                                std::string_view subresource, Json body,
                                                const CreateOptions& options) {
  RequestUserScope asUser(user());
  return server_.createSubresource(gvr, ns, name, subresource, std::move(body), options);
}

}  // namespace fakekube
