// Cache: a Reader served from informers (controller-runtime's cache.Cache).
//
// One Informer per resource, created on demand the first time the resource is read (or up front
// through informerFor, which is how a controller registers its event handlers). Reads answer
// what the informer has seen, which may be behind the server: that is the point, and
// InformerOptions::deliveryDelay makes the gap as wide as a test wants. An object the informer
// has not seen is a 404 with exactly the Status the server would give (Status::notFound).
//
// controller-runtime blocks a read of a resource whose informer has not synced yet. A blocked
// executor task would stall the simulation, so instead the read makes the informer do its
// initial list right away (Informer::syncNow): the same answer, without waiting.
//
// Per-resource options (namespace, label and field selector restriction, delivery delay) must
// be set before the resource's informer exists. Objects outside a restriction are invisible: a
// get of one is a 404, as with controller-runtime's ByObject label selectors.
//
// Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "fakekube/cache/informer.h"
#include "fakekube/client/client.h"

namespace fakekube {

struct CacheOptions {
  // What every informer gets unless setResourceOptions says otherwise for its resource.
  InformerOptions defaults;
};

class Cache : public Reader {
 public:
  // `client` (which the informers list and watch through) and `executor` must outlive the cache.
  Cache(Client& client, Executor& executor, CacheOptions options = {});
  ~Cache() override;
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  // Sets the informer options of one resource. False (and nothing changes) once its informer
  // exists.
  bool setResourceOptions(const GroupVersionResource& gvr, InformerOptions options);

  // The informer of `gvr`, created if needed; started if the cache was started. The reference
  // stays valid for the cache's lifetime.
  Informer& informerFor(const GroupVersionResource& gvr);

  // Starts every informer, and every informer created later. Run the executor until synced()
  // before starting workers, as a manager waits for caches to sync.
  void start();
  // Stops every informer. Reads keep answering the last state.
  void stop();
  // True when every informer created so far has synced (controller-runtime's WaitForCacheSync,
  // as a question rather than a wait).
  bool synced() const;
  // True when some informer has events its store and handlers have not seen yet
  // (Informer::hasPendingEvents).
  bool hasPendingEvents() const;

  // --- Reader ---
  // Copies of the cached document. `ns` is ignored for cluster-scoped objects.
  Result<Json> get(const GroupVersionResource& gvr, std::string_view ns,
                   std::string_view name) override;
  // Items in key order, filtered by namespace ("" = all), label and field selector; `limit`
  // truncates (there is no continue token, as with controller-runtime's cache). The list's
  // resourceVersion is the newest the informer applied.
  Result<Json> list(const GroupVersionResource& gvr, std::string_view ns,
                    const ListOptions& options = {}) override;

  // The cached document itself, shared and immutable (no copy).
  Result<ObjectPtr> getShared(const GroupVersionResource& gvr, std::string_view ns,
                              std::string_view name) override;

 private:
  // The informer, synced; or why it cannot be.
  Result<Informer*> syncedInformer(const GroupVersionResource& gvr);
  static std::string keyOf(const GroupVersionResource& gvr);

  Client& client_;
  Executor& executor_;
  const CacheOptions options_;
  mutable std::mutex mu_;
  bool started_ = false;
  std::map<std::string, InformerOptions> resourceOptions_;
  std::map<std::string, std::unique_ptr<Informer>> informers_;
};

}  // namespace fakekube
