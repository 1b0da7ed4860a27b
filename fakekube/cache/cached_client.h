// CachedClient: the client a controller manager hands its reconcilers (controller-runtime's
// default client): reads come from the Cache, writes go straight to the API server.
//
// So a reconcile can read back less than it just wrote: a create succeeds, and a get right after
// it still answers NotFound until the informer delivers the event. Controllers must tolerate that
// (KubeRay's scale expectations exist because of it); tests widen the gap with
// InformerOptions::deliveryDelay. When a read must see the server's current state (the answer to
// a 409, an expectation check), read through uncachedReader(), as controller-runtime's
// APIReader does.
//
// It lives in cache/ because it depends on the Cache; client/ never depends on cache/.
#pragma once

#include "fakekube/cache/cache.h"
#include "fakekube/client/client.h"

namespace fakekube {

class CachedClient final : public Client {
 public:
  // `cache` and `client` must outlive this object. The cache normally lists and watches through
  // the same client.
  CachedClient(Cache& cache, Client& client) : cache_(cache), client_(client) {}

  // --- reads: from the cache ---
  // (Defined in cached_client.cpp: Result<Json> needs the complete document type.)
  Result<Json> get(const GroupVersionResource& gvr, std::string_view ns,
                   std::string_view name) override;
  Result<Json> list(const GroupVersionResource& gvr, std::string_view ns,
                    const ListOptions& options = {}) override;
  // The cache's own document, not a copy.
  Result<ObjectPtr> getShared(const GroupVersionResource& gvr, std::string_view ns,
                              std::string_view name) override;

  // --- writes and watches: through the client ---
  Result<Json> create(const GroupVersionResource& gvr, Json object,
                      const CreateOptions& options = {}) override;
  Result<Json> update(const GroupVersionResource& gvr, Json object,
                      const UpdateOptions& options = {}) override;
  Result<Json> updateStatus(const GroupVersionResource& gvr, Json object,
                            const UpdateOptions& options = {}) override;
  Result<ObjectPtr> createShared(const GroupVersionResource& gvr, Json object,
                                 const CreateOptions& options = {}) override;
  Result<ObjectPtr> updateShared(const GroupVersionResource& gvr, Json object,
                                 const UpdateOptions& options = {}) override;
  Result<ObjectPtr> updateStatusShared(const GroupVersionResource& gvr, Json object,
                                       const UpdateOptions& options = {}) override;
  Result<Json> patch(const GroupVersionResource& gvr, std::string_view ns, std::string_view name,
                     PatchType type, std::string patch, const PatchOptions& options = {},
                     std::string subresource = "") override;
  Result<Json> deleteObject(const GroupVersionResource& gvr, std::string_view ns,
                            std::string_view name, const DeleteOptions& options = {}) override;
  Result<void> deleteAllOf(const GroupVersionResource& gvr, std::string_view ns,
                           const ListOptions& listOptions = {},
                           const DeleteOptions& deleteOptions = {}) override;
  Result<std::shared_ptr<Watch>> watch(const GroupVersionResource& gvr, std::string_view ns,
                                       const WatchOptions& options = {}) override;
  Result<Json> createSubresource(const GroupVersionResource& gvr, std::string_view ns,
                                 std::string_view name, std::string_view subresource, Json body,
                                 const CreateOptions& options = {}) override;

  // Reads that bypass the cache and see the server's current state (controller-runtime's
  // manager.GetAPIReader()).
  Reader& uncachedReader() const { return client_; }
  // The client writes go through.
  Client& underlyingClient() const { return client_; }
  Cache& cache() const { return cache_; }

 private:
  Cache& cache_;
  Client& client_;
};

}  // namespace fakekube
