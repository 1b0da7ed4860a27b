// ApiServer: the Kubernetes API server's verbs and rules, in process.
//
// Every verb answers what a real API server would: the same object metadata rules (uid,
// creationTimestamp, a global resourceVersion, generation per kind, generateName), the same
// validation with 422 causes, 409 Conflict on a stale resourceVersion, the status subresource
// split, finalizers and deletionTimestamp, graceful pod deletion, and the same Status errors.
// Objects are JSON documents and every field a caller sent is kept.
//
// The server is thread-safe (one mutex; `fakekube serve` calls it from many threads) and takes its
// time from a Clock, so a simulated run writes the same timestamps every time. Every request passes
// through the registered Interceptors before and after it acts.
//
// Results are shared, immutable documents (ObjectPtr): the server hands out the very object it
// stores, as an informer cache does, so a read or a write copies no document. Copy one
// (`Json copy = *object;`) to change it.
//
// Namespaces are addressed explicitly: `ns` is ignored for cluster-scoped kinds; for namespaced
// kinds an empty `ns` on create/update means "the namespace in the object".
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "fakekube/api/group_version.h"
#include "fakekube/api/json.h"
#include "fakekube/api/resource_registry.h"
#include "fakekube/api/status.h"
#include "fakekube/apiserver/cluster_ip_allocator.h"
#include "fakekube/apiserver/interceptor.h"
#include "fakekube/apiserver/options.h"
#include "fakekube/apiserver/watch.h"
#include "fakekube/apiserver/watch_hub.h"
#include "fakekube/sim/clock.h"
#include "fakekube/sim/executor.h"
#include "fakekube/store/store.h"

namespace fakekube {

// The answer to a LIST: the items and the list metadata.
struct ObjectList {
  std::string apiVersion;
  std::string kind;  // "<Kind>List"
  std::string resourceVersion;
  std::string continueToken;
  std::vector<ObjectPtr> items;

  // The wire form: {"apiVersion","kind","metadata":{"resourceVersion","continue"},"items":[...]}.
  Json toJson() const;
};

// The answer to a DELETE: the object as it was left, and whether it is gone (false while it waits
// for finalizers or a graceful pod shutdown).
struct DeleteResult {
  ObjectPtr object;
  bool removed = false;
};

struct ApiServerOptions {
  StoreOptions store;
  // Seeds the generator of uids and generateName suffixes; unset = a random seed.
  std::optional<std::uint64_t> seed;
  // A watcher that falls this many events behind is ended with 410 Expired and must relist.
  std::size_t watchBacklog = 10000;
  // How many recent events are kept in memory for watches that resume from a revision.
  std::size_t watchRing = 10000;
  // Where the server schedules its own timers (watch timeouts). Optional: without it a timed-out
  // watch ends when its consumer next looks at it or an event arrives.
  Executor* executor = nullptr;
};

class ApiServer {
 public:
  // Opens (or creates) the store and makes sure the system namespaces exist. `clock` must
  // outlive the server.
  static Result<std::unique_ptr<ApiServer>> open(Clock& clock, ApiServerOptions options = {});
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  // --- verbs ---
  Result<ObjectPtr> create(const GroupVersionResource& gvr, std::string_view ns, Json object,
                           const CreateOptions& options = {});
  Result<ObjectPtr> get(const GroupVersionResource& gvr, std::string_view ns,
                        std::string_view name);
  // The items with the list's resourceVersion (and a continue token when limited).
  Result<ObjectList> list(const GroupVersionResource& gvr, std::string_view ns,
                          const ListOptions& options = {});
  // The object's name comes from the object. Replaces everything but status (when the kind has
  // a status subresource).
  Result<ObjectPtr> update(const GroupVersionResource& gvr, std::string_view ns, Json object,
                           const UpdateOptions& options = {});
  // PUT …/status: replaces status only.
  Result<ObjectPtr> updateStatus(const GroupVersionResource& gvr, std::string_view ns, Json object,
                                 const UpdateOptions& options = {});
  // PUT …/<subresource>: "status", or "finalize" for a namespace's spec.finalizers.
  Result<ObjectPtr> updateSubresource(const GroupVersionResource& gvr, std::string_view ns,
                                      Json object, std::string_view subresource,
                                      const UpdateOptions& options = {});
  // POST …/<name>/<subresource>: "binding" on pods (what the scheduler does: sets spec.nodeName
  // and the PodScheduled condition; 409 if the pod is bound already or being deleted). Answers
  // the wire body (a 201 Success Status for a binding).
  Result<Json> createSubresource(const GroupVersionResource& gvr, std::string_view ns,
                                 std::string_view name, std::string_view subresource, Json body,
                                 const CreateOptions& options = {});
  // subresource: "" or "status". JSON, merge and strategic merge patches (the last for built-in
  // kinds only; 415 for custom resources) change an existing object. Server-side apply
  // (PatchType::Apply; the body is JSON or YAML and options.fieldManager is required) creates the
  // object when it is missing and merges into it otherwise; `created`, when given, tells which
  // (the HTTP answer is 201 for a creation).
  Result<ObjectPtr> patch(const GroupVersionResource& gvr, std::string_view ns,
                          std::string_view name, PatchType type, std::string_view patch,
                          const PatchOptions& options = {}, std::string_view subresource = "",
                          bool* created = nullptr);
  Result<DeleteResult> deleteObject(const GroupVersionResource& gvr, std::string_view ns,
                                    std::string_view name, const DeleteOptions& options = {});
  // Deletes every object the list options select; answers the list of what it deleted.
  Result<ObjectList> deleteCollection(const GroupVersionResource& gvr, std::string_view ns,
                                      const ListOptions& listOptions,
                                      const DeleteOptions& deleteOptions = {});
  // WATCH: events after options.resourceVersion (or the current state first, for "" and "0"),
  // delivered through the returned Watch until it is stopped, times out or falls too far
  // behind. A compacted resourceVersion yields one ERROR event (410 Expired), as on the wire.
  Result<std::shared_ptr<Watch>> watch(const GroupVersionResource& gvr, std::string_view ns,
                                       const WatchOptions& options = {});
  // Sends a BOOKMARK at the current revision to every watch that allows them.
  void sendBookmarks();
  // Ends every open watch of `gvr` (a watch fault for tests; see WatchHub::closeWatches): with
  // no error the streams just end, with one (Status::expired) each ends with that ERROR event.
  // Answers how many it ended (404 if `gvr` is not served).
  Result<std::size_t> closeWatches(const GroupVersionResource& gvr,
                                   std::optional<Status> error = std::nullopt);

  // The body a DELETE answers on the wire: the object for pods and service accounts and for
  // objects still being deleted, otherwise a Success Status.
  Json deleteResponse(const GroupVersionResource& gvr, const DeleteResult& result) const;

  // --- helpers ---
  // The resource served for an object's apiVersion and kind (404 if none).
  Result<GroupVersionResource> resourceFor(std::string_view apiVersion,
                                           std::string_view kind) const;
  const ResourceRegistry& registry() const { return registry_; }
  std::int64_t revision() const;
  std::int64_t compactedRevision() const;
  // Compacts the event log up to `revision` (as etcd compaction does).
  Result<std::int64_t> compact(std::int64_t revision);
  Clock& clock() const { return clock_; }

  void addInterceptor(std::shared_ptr<Interceptor> interceptor);
  void removeInterceptor(const Interceptor* interceptor);

 private:
  ApiServer(Clock& clock, ApiServerOptions options, std::unique_ptr<Store> store);

  struct Target {
    ResourceInfoPtr info;
    std::string ns;
  };
  Result<Target> target(const GroupVersionResource& gvr, std::string_view ns) const;
  std::string key(const ResourceInfo& info, std::string_view ns, std::string_view name) const;
  // A custom resource as a read serves it: in the requested version, and decoded by that
  // version's schema when it was stored before the schema last changed (structural_schema.h).
  ObjectPtr inRequestedVersion(const ResourceInfo& info, const GroupVersionResource& gvr,
                               ObjectPtr object) const;
  // A stored custom resource as kube-apiserver reads it from storage: decoded (pruned,
  // defaulted) by its version's schema when stored before the schema last changed; otherwise
  // the same document.
  ObjectPtr fromStorage(const ResourceInfo& info, ObjectPtr object) const;
  std::string prefix(const ResourceInfo& info, std::string_view ns) const;
  // The body of a verb, as intercepted() runs it: a reference to the caller's lambda, which
  // lives until the call returns. The verbs' lambdas capture more than a std::function holds
  // without allocating, and this runs once per request.
  template <class T>
  class Action {
   public:
    template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Action>>>
    Action(F&& body)  // NOLINT(google-explicit-constructor): passed as a lambda
        : body_(&body), call_([](void* b) -> Result<T> {
            return (*static_cast<std::remove_reference_t<F>*>(b))();
          }) {}
    Result<T> operator()() const { return call_(body_); }

   private:
    void* body_;
    Result<T> (*call_)(void*);
  };
  template <class T>
  Result<T> intercepted(Request request, Action<T> action);

  // Verb bodies; the caller holds mu_.
  Result<ObjectPtr> createLocked(const ResourceInfo& info, std::string ns, Json object,
                                 bool dryRun);
  Result<ObjectPtr> updateLocked(const ResourceInfo& info, std::string ns, Json object,
                                 std::string_view subresource, bool dryRun, bool fromPatch);
  Result<ObjectPtr> commitUpdate(const ResourceInfo& info, const std::string& key,
                                 const ObjectPtr& old, Json updated, bool dryRun);
  Result<DeleteResult> deleteLocked(const ResourceInfo& info, const std::string& ns,
                                    const std::string& name, const DeleteOptions& options);
  Result<ObjectList> listLocked(const ResourceInfo& info, const std::string& ns,
                                const ListOptions& options);
  std::optional<Status> checkNamespaceForCreate(const ResourceInfo& info, const std::string& ns,
                                                const std::string& name) const;
  Result<ObjectPtr> put(const std::string& key, Json object, EventType type);
  void onCustomResourceDefinition(const Json& crd, bool removed);
  Result<void> ensureSystemNamespaces();
  // Gives a Service its cluster IP (or checks the one it asks for); 422 when it cannot.
  std::optional<Status> assignClusterIp(Json& service, bool dryRun);

  std::string newUid();
  std::string generateName(std::string_view prefix);
  std::string now() const;

  Clock& clock_;
  ApiServerOptions options_;
  mutable std::mutex mu_;
  std::unique_ptr<Store> store_;
  WatchHub hub_;
  ResourceRegistry registry_;
  ClusterIpAllocator clusterIps_;
  std::mt19937_64 random_;
  std::vector<std::shared_ptr<Interceptor>> interceptors_;
  mutable std::mutex interceptorsMu_;
};

}  // namespace fakekube
