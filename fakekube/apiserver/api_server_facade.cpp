// ApiServer's public verbs: each hands the call to the implementation (api_server_impl.h), which
// holds the store, the watch hub and the Service IP range.
#include <nlohmann/json.hpp>

#include "fakekube/apiserver/internal/api_server_impl.h"

namespace fakekube {

Result<std::unique_ptr<ApiServer>> ApiServer::open(Clock& clock, ApiServerOptions options) {
  auto impl = Impl::open(clock, std::move(options));
  if (!impl) return tl::unexpected(impl.error());
  return std::unique_ptr<ApiServer>(new ApiServer(std::move(*impl)));
}

ApiServer::ApiServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ApiServer::~ApiServer() = default;

Result<ObjectPtr> ApiServer::create(const GroupVersionResource& gvr, std::string_view ns,
                                    Json object, const CreateOptions& options) {
  return impl_->create(gvr, ns, std::move(object), options);
}

Result<ObjectPtr> ApiServer::get(const GroupVersionResource& gvr, std::string_view ns,
                                 std::string_view name) {
  return impl_->get(gvr, ns, name);
}

Result<ObjectList> ApiServer::list(const GroupVersionResource& gvr, std::string_view ns,
                                   const ListOptions& options) {
  return impl_->list(gvr, ns, options);
}

Result<ObjectPtr> ApiServer::update(const GroupVersionResource& gvr, std::string_view ns,
                                    Json object, const UpdateOptions& options) {
  return impl_->update(gvr, ns, std::move(object), options);
}

Result<ObjectPtr> ApiServer::updateStatus(const GroupVersionResource& gvr, std::string_view ns,
                                          Json object, const UpdateOptions& options) {
  return impl_->updateStatus(gvr, ns, std::move(object), options);
}

Result<ObjectPtr> ApiServer::updateSubresource(const GroupVersionResource& gvr, std::string_view ns,
                                               Json object, std::string_view subresource,
                                               const UpdateOptions& options) {
  return impl_->updateSubresource(gvr, ns, std::move(object), subresource, options);
}

Result<Json> ApiServer::createSubresource(const GroupVersionResource& gvr, std::string_view ns,
                                          std::string_view name, std::string_view subresource,
                                          Json body, const CreateOptions& options) {
  return impl_->createSubresource(gvr, ns, name, subresource, std::move(body), options);
}

std::optional<UserInfo> ApiServer::authenticateToken(std::string_view token) const {
  return impl_->authenticateToken(token);
}

Result<ObjectPtr> ApiServer::patch(const GroupVersionResource& gvr, std::string_view ns,
                                   std::string_view name, PatchType type, std::string_view patch,
                                   const PatchOptions& options, std::string_view subresource,
                                   bool* created) {
  return impl_->patch(gvr, ns, name, type, patch, options, subresource, created);
}

Result<DeleteResult> ApiServer::deleteObject(const GroupVersionResource& gvr, std::string_view ns,
                                             std::string_view name, const DeleteOptions& options) {
  return impl_->deleteObject(gvr, ns, name, options);
}

Result<ObjectList> ApiServer::deleteCollection(const GroupVersionResource& gvr, std::string_view ns,
                                               const ListOptions& listOptions,
                                               const DeleteOptions& deleteOptions) {
  return impl_->deleteCollection(gvr, ns, listOptions, deleteOptions);
}

Result<std::shared_ptr<Watch>> ApiServer::watch(const GroupVersionResource& gvr,
                                                std::string_view ns, const WatchOptions& options) {
  return impl_->watch(gvr, ns, options);
}

void ApiServer::sendBookmarks() { impl_->sendBookmarks(); }

Result<std::size_t> ApiServer::closeWatches(const GroupVersionResource& gvr,
                                            std::optional<Status> error) {
  return impl_->closeWatches(gvr, std::move(error));
}

Json ApiServer::deleteResponse(const GroupVersionResource& gvr, const DeleteResult& result) const {
  return impl_->deleteResponse(gvr, result);
}

Result<GroupVersionResource> ApiServer::resourceFor(std::string_view apiVersion,
                                                    std::string_view kind) const {
  return impl_->resourceFor(apiVersion, kind);
}

const ResourceRegistry& ApiServer::registry() const { return impl_->registry(); }
std::int64_t ApiServer::revision() const { return impl_->revision(); }
std::int64_t ApiServer::compactedRevision() const { return impl_->compactedRevision(); }
Result<std::int64_t> ApiServer::compact(std::int64_t revision) { return impl_->compact(revision); }
Clock& ApiServer::clock() const { return impl_->clock(); }

AuthorizationResult ApiServer::authorize(const AuthorizationAttributes& attributes) const {
  return impl_->authorize(attributes);
}

void ApiServer::addInterceptor(std::shared_ptr<Interceptor> interceptor) {
  impl_->addInterceptor(std::move(interceptor));
}

void ApiServer::removeInterceptor(const Interceptor* interceptor) {
  impl_->removeInterceptor(interceptor);
}

}  // namespace fakekube
