// ApiServer: the Kubernetes API server's verbs and rules, in process.
//
// Every verb answers what a real API server would: the same object metadata rules (uid,
// creationTimestamp, a global resourceVersion, generation per kind, generateName), the same
// validation with 422 causes, 409 Conflict on a stale resourceVersion, the status subresource
// split, finalizers and deletionTimestamp, graceful pod deletion, and the same Status errors.
// Objects are JSON documents, decoded as kube-apiserver decodes them: a field the kind's type does
// not have is dropped (a built-in kind's Go type, api/internal/builtin_pruning.h; a custom
// resource's structural schema), and a write's fieldValidation says whether the caller is warned
// (the default; the warnings go where the options' `warnings` points), refused, or told nothing
// (docs/api-strictness.md).
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
//
// The store, the watch fan-out and the Service IP range are the implementation's
// (api_server_impl.h, not installed): this header shows the verbs only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "fakekube/api/group_version.h"
#include "fakekube/api/json.h"
#include "fakekube/api/object.h"
#include "fakekube/api/resource_registry.h"
#include "fakekube/api/status.h"
#include "fakekube/apiserver/interceptor.h"
#include "fakekube/apiserver/options.h"
#include "fakekube/apiserver/watch.h"
#include "fakekube/auth/authorizer.h"
#include "fakekube/sim/clock.h"
#include "fakekube/sim/executor.h"
#include "fakekube/store/options.h"

namespace fakekube {

// The answer to a DELETE: the object as it was left, and whether it is gone (false while it waits
// for finalizers or a graceful pod shutdown).
struct DeleteResult {
  ObjectPtr object;
  bool removed = false;
};

// How requests are authorized (kube-apiserver's --authorization-mode).
enum class AuthorizationMode {
  RBAC,         // the Roles and bindings stored in the server decide (docs/rbac.md)
  AlwaysAllow,  // every request is allowed, whoever makes it
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
  // A request made as a user (auth/user_info.h) is authorized first; the server's own requests
  // (no user) and those of system:masters always are allowed.
  AuthorizationMode authorization = AuthorizationMode::RBAC;
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
  // and the PodScheduled condition; 409 if the pod is bound already or being deleted), and
  // "token" on serviceaccounts (a TokenRequest, `kubectl create token`: answers it with
  // status.token and status.expirationTimestamp; 404 for a missing ServiceAccount). Answers the
  // wire body (a 201 Success Status for a binding).
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
  const ResourceRegistry& registry() const;
  std::int64_t revision() const;
  std::int64_t compactedRevision() const;
  // Compacts the event log up to `revision` (as etcd compaction does).
  Result<std::int64_t> compact(std::int64_t revision);
  Clock& clock() const;

  // Whether the server allows `attributes` (its user, verb and resource or path), as the RBAC
  // authorizer answers it over the roles and bindings stored now: Allow (always for no user and
  // for system:masters, and in AlwaysAllow mode) or NoOpinion, with RBAC's reason.
  AuthorizationResult authorize(const AuthorizationAttributes& attributes) const;

  void addInterceptor(std::shared_ptr<Interceptor> interceptor);
  void removeInterceptor(const Interceptor* interceptor);

  // --- authentication ---
  // The user a bearer token names: a ServiceAccount token this server issued (the "token"
  // subresource above), not expired on the server's clock, whose ServiceAccount still exists with
  // the uid the token names. nullopt for any other text. A file-backed store keeps the signing
  // key: tokens authenticate again after a restart.
  std::optional<UserInfo> authenticateToken(std::string_view token) const;

 private:
  class Impl;
  explicit ApiServer(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

}  // namespace fakekube
