// ApiServer::Impl: the API server's state and the bodies of its verbs (api_server.h is the
// interface). Internal: included by the apiserver's own .cpp files only, and not installed.
//
// One mutex (mu_) serialises every verb over the store, the watch hub and the Service IP range,
// in the order of the store's writes; interceptors have their own lock, so one may be added while
// a request runs.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "fakekube/api/internal/patch_schema.h"
#include "fakekube/api/resource_registry.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/apiserver/internal/authorization_memo.h"
#include "fakekube/apiserver/internal/cluster_ip_allocator.h"
#include "fakekube/apiserver/internal/watch_hub.h"
#include "fakekube/auth/rbac_policy.h"
#include "fakekube/store/internal/store.h"

namespace fakekube {

class ApiServer::Impl {
 public:
  // The store opened, the CRDs and cluster IPs it holds loaded, the system namespaces made.
  static Result<std::unique_ptr<Impl>> open(Clock& clock, ApiServerOptions options);
  Impl(Clock& clock, ApiServerOptions options, std::unique_ptr<Store> store);
  ~Impl();

  // The verbs, as ApiServer documents them.
  Result<ObjectPtr> create(const GroupVersionResource& gvr, std::string_view ns, Json object,
                           const CreateOptions& options);
  Result<ObjectPtr> get(const GroupVersionResource& gvr, std::string_view ns,
                        std::string_view name);
  Result<ObjectList> list(const GroupVersionResource& gvr, std::string_view ns,
                          const ListOptions& options);
  Result<ObjectPtr> update(const GroupVersionResource& gvr, std::string_view ns, Json object,
                           const UpdateOptions& options);
  Result<ObjectPtr> updateStatus(const GroupVersionResource& gvr, std::string_view ns, Json object,
                                 const UpdateOptions& options);
  Result<ObjectPtr> updateSubresource(const GroupVersionResource& gvr, std::string_view ns,
                                      Json object, std::string_view subresource,
                                      const UpdateOptions& options);
  Result<Json> createSubresource(const GroupVersionResource& gvr, std::string_view ns,
                                 std::string_view name, std::string_view subresource, Json body,
                                 const CreateOptions& options);
  Result<ObjectPtr> patch(const GroupVersionResource& gvr, std::string_view ns,
                          std::string_view name, PatchType type, std::string_view patch,
                          const PatchOptions& options, std::string_view subresource, bool* created);
  Result<DeleteResult> deleteObject(const GroupVersionResource& gvr, std::string_view ns,
                                    std::string_view name, const DeleteOptions& options);
  Result<ObjectList> deleteCollection(const GroupVersionResource& gvr, std::string_view ns,
                                      const ListOptions& listOptions,
                                      const DeleteOptions& deleteOptions);
  Result<std::shared_ptr<Watch>> watch(const GroupVersionResource& gvr, std::string_view ns,
                                       const WatchOptions& options);
  void sendBookmarks();
  Result<std::size_t> closeWatches(const GroupVersionResource& gvr, std::optional<Status> error);
  Json deleteResponse(const GroupVersionResource& gvr, const DeleteResult& result) const;
  Result<GroupVersionResource> resourceFor(std::string_view apiVersion,
                                           std::string_view kind) const;
  const ResourceRegistry& registry() const { return registry_; }
  std::int64_t revision() const;
  std::int64_t compactedRevision() const;
  Result<std::int64_t> compact(std::int64_t revision);
  Clock& clock() const { return clock_; }
  void addInterceptor(std::shared_ptr<Interceptor> interceptor);
  void removeInterceptor(const Interceptor* interceptor);
  std::optional<UserInfo> authenticateToken(std::string_view token) const;
  AuthorizationResult authorize(const AuthorizationAttributes& attributes) const;

 private:
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
  // A kind served over another kind's storage (ResourceInfo::conversion): an object it serves
  // as the stored kind's, and a stored object as it serves it. Other kinds' objects as they are.
  static Json toStorage(const ResourceInfo& info, Json served);
  static ObjectPtr toServed(const ResourceInfo& info, ObjectPtr stored);
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

  // Who writes, for metadata.managedFields: the request's fieldManager, and whether patch()
  // recorded the write as an apply already (otherwise it is recorded as an update).
  struct Writer {
    std::string_view manager;
    bool applied = false;
  };

  // Verb bodies; the caller holds mu_.
  Result<ObjectPtr> createLocked(const ResourceInfo& info, std::string ns, Json object, bool dryRun,
                                 const Writer& writer);
  // createLocked()'s steps: the object's name (drawn from its generateName when it has none),
  // the strategy's preparation and validation (rest.BeforeCreate), and the write.
  Result<std::string> nameForCreate(const ResourceInfo& info, const std::string& ns, Json& object);
  std::optional<Status> beforeCreate(const ResourceInfo& info, Json& object,
                                     const std::string& name, const StructuralSchema* schema);
  Result<ObjectPtr> commitCreate(const ResourceInfo& info, const std::string& key, Json object,
                                 bool dryRun, const Writer& writer);
  // createSubresource()'s pods/binding, under mu_: the pod at `podKey` put on `node`.
  Result<ObjectPtr> bindPod(const ResourceInfo& info, const std::string& podKey,
                            const Json& binding, const std::string& node, bool dryRun);
  // patch()'s two cases, under mu_: an apply that creates the missing object, and the current
  // object patched (checked and decoded, not yet named against the URL or versioned).
  Result<ObjectPtr> createByApply(const ResourceInfo& info, const GroupVersionResource& gvr,
                                  const std::string& ns, std::string_view name, Json applied,
                                  const PatchOptions& options);
  Result<Json> patchedCurrent(const ResourceInfo& info, const GroupVersionResource& gvr,
                              const Json& current, PatchType type, std::string_view patchText,
                              const Json& applied, std::string_view subresource,
                              const PatchOptions& options);
  Result<ObjectPtr> updateLocked(const ResourceInfo& info, std::string ns, Json object,
                                 std::string_view subresource, bool dryRun, bool fromPatch,
                                 const Writer& writer);
  // Field ownership (field_manager.cpp; managed_fields.h): the caller holds mu_.
  // How the kind's lists merge: the built-in table, or what a custom resource's definition
  // declares for `version` (compiled once per definition revision).
  PatchSchema patchSchema(const ResourceInfo& info, std::string_view version);
  // An update by `writer` (a create when `old` is null) into `updated`'s managedFields.
  void recordUpdate(const ResourceInfo& info, const Json* old, Json& updated,
                    std::string_view subresource, const Writer& writer);
  // An apply of `configuration` into `merged` (`live` with it merged in; null for a create).
  std::optional<Status> recordApply(const ResourceInfo& info, const Json* live, Json& merged,
                                    const Json& configuration, std::string_view subresource,
                                    const PatchOptions& options, const PatchSchema& schema);
  // `changedMember`, when not empty, names the only top-level member `updated` can differ from
  // `old` in (a status write copies the rest from `old`): the no-op check compares just that.
  Result<ObjectPtr> commitUpdate(const ResourceInfo& info, const std::string& key,
                                 const ObjectPtr& old, Json updated, bool dryRun,
                                 std::string_view changedMember = {});
  Result<DeleteResult> deleteLocked(const ResourceInfo& info, const std::string& ns,
                                    const std::string& name, const DeleteOptions& options);
  Result<DeleteResult> removeObject(const ResourceInfo& info, const std::string& objectKey,
                                    Json finalState, bool dryRun);
  Result<ObjectList> listLocked(const ResourceInfo& info, const std::string& ns,
                                const ListOptions& options);
  std::optional<Status> checkNamespaceForCreate(const ResourceInfo& info, const std::string& ns,
                                                const std::string& name) const;
  Result<ObjectPtr> put(const std::string& key, Json object, EventType type);
  void onCustomResourceDefinition(const Json& crd, bool removed);
  Result<void> ensureSystemNamespaces();
  // ServiceAccount tokens (service_account_token.cpp): the TokenRequest's answer, under mu_; the
  // key the tokens are signed with, made on first use ("" while none was made; the caller holds
  // mu_).
  Result<ObjectPtr> issueServiceAccountToken(const GroupVersionResource& gvr, std::string_view ns,
                                             std::string_view name, Json body);
  Result<std::string> serviceAccountSigningKey();
  std::string storedSigningKey() const;

  // Authorization (authorization.cpp). The request's refusal (403), or nullopt when its user may
  // make it; the caller has ruled out the server's own requests.
  std::optional<Status> authorizeRequest(const Request& request) const;
  // The same for a request whose answer the thread does not remember: RBAC's walk, remembered.
  std::optional<Status> answerRequest(const Request& request, const AuthorizationQuery& query,
                                      std::uint64_t generation) const;
  // Keeps policy_ current with a committed write (the store's observer, under mu_); false when
  // the event is not one of RBAC's kinds.
  bool observeRbacEvent(const StoredEvent& event);
  // RBAC's escalation checks of a write of a role or binding by the request's user
  // (rbac_escalation.cpp): the 403 (or the 404 of a missing referenced role) that refuses it.
  // `old` is null for a create. The caller holds mu_.
  std::optional<Status> checkRbacEscalation(const ResourceInfo& info, const std::string& ns,
                                            const Json& object, const Json* old) const;
  std::optional<Status> checkRoleEscalation(const UserInfo& user,
                                            const GroupResource& groupResource,
                                            const std::string& ns, const Json& object,
                                            const Json* old) const;
  // What of `rules` the user's own rules in `ns` do not cover, as kube-apiserver words it; the
  // caller holds policyMu_.
  std::optional<std::string> confirmNoEscalation(const UserInfo& user, std::string_view ns,
                                                 const std::vector<PolicyRule>& rules) const;
  // Reads the roles and bindings a file-backed store holds into policy_.
  void loadRbacPolicy();
  // kube-apiserver's bootstrap roles and bindings (bootstrap_policy.cpp), written when missing.
  Result<void> ensureBootstrapPolicy();
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
  // patchSchema()'s: group/resource/version -> the definition's revision and its schema.
  std::map<std::string, std::pair<std::int64_t, PatchSchema>, std::less<>> patchSchemas_;
  // The RBAC index of the stored roles and bindings. Written by the store's observer (under mu_,
  // then policyMu_); read under policyMu_ alone, so authorizing a request never waits for mu_.
  mutable std::shared_mutex policyMu_;
  RbacPolicy policy_;
  // What the answers of the AuthorizationMemo (authorization_memo.h) are remembered against:
  // this server, and the generation of its policy, moved on (under policyMu_) by every change
  // of policy_ and of a resource's scope.
  const std::uint64_t serverId_ = AuthorizationMemo::newServerId();
  std::atomic<std::uint64_t> policyGeneration_{1};
  std::vector<std::shared_ptr<Interceptor>> interceptors_;
  mutable std::mutex interceptorsMu_;
};

}  // namespace fakekube
