#include "fakekube/cache/cached_client.h"

#include <nlohmann/json.hpp>
#include <utility>

namespace fakekube {

Result<Json> CachedClient::get(const GroupVersionResource& gvr, std::string_view ns,
                               std::string_view name) {
  return cache_.get(gvr, ns, name);
}

Result<ObjectPtr> CachedClient::getShared(const GroupVersionResource& gvr, std::string_view ns,
                                          std::string_view name) {
  return cache_.getShared(gvr, ns, name);
}

Result<Json> CachedClient::list(const GroupVersionResource& gvr, std::string_view ns,
                                const ListOptions& options) {
  return cache_.list(gvr, ns, options);
}

Result<Json> CachedClient::create(const GroupVersionResource& gvr, Json object,
                                  const CreateOptions& options) {
  return client_.create(gvr, std::move(object), options);
}

Result<Json> CachedClient::update(const GroupVersionResource& gvr, Json object,
                                  const UpdateOptions& options) {
  return client_.update(gvr, std::move(object), options);
}

Result<Json> CachedClient::updateStatus(const GroupVersionResource& gvr, Json object,
                                        const UpdateOptions& options) {
  return client_.updateStatus(gvr, std::move(object), options);
}

Result<ObjectPtr> CachedClient::createShared(const GroupVersionResource& gvr, Json object,
                                             const CreateOptions& options) {
  return client_.createShared(gvr, std::move(object), options);
}

Result<ObjectPtr> CachedClient::updateShared(const GroupVersionResource& gvr, Json object,
                                             const UpdateOptions& options) {
  return client_.updateShared(gvr, std::move(object), options);
}

Result<ObjectPtr> CachedClient::updateStatusShared(const GroupVersionResource& gvr, Json object,
                                                   const UpdateOptions& options) {
  return client_.updateStatusShared(gvr, std::move(object), options);
}

Result<Json> CachedClient::patch(const GroupVersionResource& gvr, std::string_view ns,
                                 std::string_view name, PatchType type, std::string patch,
                                 const PatchOptions& options, std::string subresource) {
  return client_.patch(gvr, ns, name, type, std::move(patch), options, std::move(subresource));
}

Result<Json> CachedClient::deleteObject(const GroupVersionResource& gvr, std::string_view ns,
                                        std::string_view name, const DeleteOptions& options) {
  return client_.deleteObject(gvr, ns, name, options);
}

Result<void> CachedClient::deleteAllOf(const GroupVersionResource& gvr, std::string_view ns,
                                       const ListOptions& listOptions,
                                       const DeleteOptions& deleteOptions) {
  return client_.deleteAllOf(gvr, ns, listOptions, deleteOptions);
}

Result<std::shared_ptr<Watch>> CachedClient::watch(const GroupVersionResource& gvr,
                                                   std::string_view ns,
                                                   const WatchOptions& options) {
  return client_.watch(gvr, ns, options);
}

Result<Json> CachedClient::createSubresource(const GroupVersionResource& gvr, std::string_view ns,
                                             std::string_view name, std::string_view subresource,
                                             Json body, const CreateOptions& options) {
  return client_.createSubresource(gvr, ns, name, subresource, std::move(body), options);
}

}  // namespace fakekube
