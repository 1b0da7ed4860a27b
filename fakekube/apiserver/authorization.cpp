// Authorization of the requests made as a user (docs/rbac.md): the attributes kube-apiserver's
// RequestInfo would give the request, answered by the RBAC index the store's commits keep
// current.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/apiserver/internal/api_server_impl.h"
#include "fakekube/auth/internal/bootstrap_policy.h"
#include "fakekube/auth/internal/cluster_role_aggregation.h"
#include "fakekube/auth/rbac_rules.h"

namespace fakekube {
namespace {

constexpr std::string_view kRbacKeyPrefix = "rbac.authorization.k8s.io/";

// What RequestInfo reads from the request's URL. A create names no object (it posts to the
// collection), a subresource's POST does; a list or watch of every namespace is cluster-wide; a
// namespace is its own namespace (/api/v1/namespaces/<name>); a namespaced write that leaves the
// namespace to the object is in the object's.
AuthorizationAttributes attributesOfRequest(const Request& request, const ResourceInfo* info) {
  AuthorizationAttributes attributes;
  attributes.user = request.user;
  attributes.verb = verbName(request.verb);
  attributes.apiGroup = request.resource.group;
  attributes.apiVersion = request.resource.version;
  attributes.resource = request.resource.resource;
  attributes.subresource = request.subresource;
  if (request.verb != Verb::Create || !request.subresource.empty()) attributes.name = request.name;
  bool namespaced = info == nullptr || info->namespaced;
  if (namespaced) {
    attributes.ns = request.ns;
    if (attributes.ns.empty() && request.body != nullptr && request.body->is_object()) {
      attributes.ns = meta::namespace_(*request.body);
    }
  } else if (request.resource.group.empty() && request.resource.resource == "namespaces") {
    attributes.ns = attributes.name;
  }
  return attributes;
}

// The bootstrap's aggregated ClusterRoles with the rules the aggregation controller gives them
// (roles that aggregate aggregated roles settle after a few passes).
void aggregateBootstrapClusterRoles(std::vector<Json>& clusterRoles) {
  for (std::size_t pass = 0; pass < clusterRoles.size(); ++pass) {
    std::vector<ObjectPtr> current;
    for (const Json& role : clusterRoles) current.push_back(std::make_shared<const Json>(role));
    bool changed = false;
    for (Json& role : clusterRoles) {
      auto rules = aggregatedClusterRoleRules(role, current);
      if (!rules || !rules->has_value() || role["rules"] == **rules) continue;
      role["rules"] = std::move(**rules);
      changed = true;
    }
    if (!changed) return;
  }
}

constexpr std::string_view kAutoUpdateAnnotation = "rbac.authorization.kubernetes.io/autoupdate";

// reconciliation's merge(expected, existing) of labels or annotations: what the existing object
// lacks is added, what it has is kept. Whether anything was added.
bool mergeExpectedMetadata(Json& existing, const Json& expected, const char* field) {
  const Json& wanted = jsonAt(expected, {"metadata", field});
  if (!wanted.is_object() || wanted.empty()) return false;
  Json& have = meta::metadata(existing)[field];
  if (!have.is_object()) have = Json::object();
  bool added = false;
  for (const auto& [key, value] : wanted.items()) {
    if (have.contains(key)) continue;
    have[key] = value;
    added = true;
  }
  return added;
}

// What the reconciliation of a bootstrap object (pkg/registry/rbac/reconciliation, with
// RemoveExtraPermissions and RemoveExtraSubjects false, as the bootstrap runs it) makes of the
// stored one: the expected labels and annotations it lacks, then, for a ClusterRole, the rules it
// does not cover (broken down, as validation.Covers answers them) appended and the expected
// aggregationRule; for a ClusterRoleBinding, the subjects it lacks appended. nullopt when nothing
// changes or the object is protected (autoupdate "false"). A binding whose roleRef changed is
// left as it is (the reconciliation would delete and create it again).
std::optional<Json> reconciledBootstrapObject(const Json& existing, const Json& expected) {
  const Json& annotations = jsonAt(existing, {"metadata", "annotations"});
  if (annotations.is_object() && annotations.value(kAutoUpdateAnnotation, "") == "false") {
    return std::nullopt;
  }
  Json result = existing;
  bool changed = mergeExpectedMetadata(result, expected, "annotations");
  changed = mergeExpectedMetadata(result, expected, "labels") || changed;
  if (expected.contains("roleRef")) {
    const Json& subjects = jsonAt(expected, {"subjects"});
    Json& have = result["subjects"];
    if (!have.is_array()) have = Json::array();
    for (const Json& subject : subjects.is_array() ? subjects : Json::array()) {
      if (std::find(have.begin(), have.end(), subject) != have.end()) continue;
      have.push_back(subject);
      changed = true;
    }
  } else {
    std::vector<PolicyRule> missing =
        uncoveredRules(policyRulesFromJson(jsonAt(existing, {"rules"})),
                       policyRulesFromJson(jsonAt(expected, {"rules"})));
    if (!missing.empty()) {
      Json& rules = result["rules"];
      if (!rules.is_array()) rules = Json::array();
      for (const PolicyRule& rule : missing) rules.push_back(rule.toJson());
      changed = true;
    }
    const Json& aggregation = jsonAt(expected, {"aggregationRule"});
    if (!aggregation.is_null() && jsonAt(existing, {"aggregationRule"}) != aggregation) {
      result["aggregationRule"] = aggregation;
      changed = true;
    }
  }
  if (!changed) return std::nullopt;
  return result;
}

}  // namespace

std::optional<Status> ApiServer::Impl::authorizeRequest(const Request& request) const {
  if (request.user->inGroup(users::kSystemMasters)) return std::nullopt;
  // The request's own key, read without copying: its namespace as sent (or its body's), its name
  // as sent. The attributes are built only when the answer is not remembered, and the refusal's
  // message only for a refusal.
  AuthorizationQuery query;
  query.user = request.user;
  query.requestForm = true;
  query.verb = verbName(request.verb);
  query.ns = request.ns;
  if (query.ns.empty() && request.body != nullptr && request.body->is_object()) {
    query.ns = meta::namespace_(*request.body);
  }
  query.apiGroup = request.resource.group;
  query.resource = request.resource.resource;
  query.subresource = request.subresource;
  query.name = request.name;
  const std::uint64_t generation = policyGeneration_.load(std::memory_order_acquire);
  if (const AuthorizationResult* answer =
          AuthorizationMemo::ofThisThread().find(serverId_, generation, query)) {
    if (answer->allowed()) return std::nullopt;
    return forbidden(attributesOfRequest(request, registry_.find(request.resource).get()),
                     answer->reason);
  }
  return answerRequest(request, query, generation);
}

std::optional<Status> ApiServer::Impl::answerRequest(const Request& request,
                                                     const AuthorizationQuery& query,
                                                     std::uint64_t generation) const {
  // The resource's scope is read before the lock: the answer is remembered only if neither the
  // policy nor a scope changed since the generation was read.
  AuthorizationAttributes attributes =
      attributesOfRequest(request, registry_.find(request.resource).get());
  AuthorizationResult answer;
  bool nameMatters = false;
  {
    std::shared_lock lock(policyMu_);
    answer.decision = policy_.allows(attributes, &answer.reason, &nameMatters)
                          ? AuthorizationDecision::Allow
                          : AuthorizationDecision::NoOpinion;
    if (policyGeneration_.load(std::memory_order_relaxed) == generation) {
      AuthorizationMemo::ofThisThread().remember(serverId_, generation, query, nameMatters, answer);
    }
  }
  if (answer.allowed()) return std::nullopt;
  return forbidden(attributes, answer.reason);
}

AuthorizationResult ApiServer::Impl::authorize(const AuthorizationAttributes& attributes) const {
  if (options_.authorization == AuthorizationMode::AlwaysAllow || attributes.user == nullptr ||
      attributes.user->inGroup(users::kSystemMasters)) {
    return {AuthorizationDecision::Allow, ""};
  }
  const AuthorizationQuery query = authorizationQueryOf(attributes);
  AuthorizationMemo& memo = AuthorizationMemo::ofThisThread();
  if (const AuthorizationResult* remembered =
          memo.find(serverId_, policyGeneration_.load(std::memory_order_acquire), query)) {
    return *remembered;
  }
  std::shared_lock lock(policyMu_);
  bool nameMatters = false;
  AuthorizationResult result = policy_.authorize(attributes, &nameMatters);
  // Under policyMu_ the generation cannot move: the answer is that generation's.
  memo.remember(serverId_, policyGeneration_.load(std::memory_order_relaxed), query, nameMatters,
                result);
  return result;
}

bool ApiServer::Impl::observeRbacEvent(const StoredEvent& event) {
  if (!event.key.starts_with(kRbacKeyPrefix)) return false;
  std::string_view rest = std::string_view(event.key).substr(kRbacKeyPrefix.size());
  auto kind = RbacPolicy::kindOfResource(rest.substr(0, rest.find('/')));
  if (!kind || event.object == nullptr) return false;
  std::unique_lock lock(policyMu_);
  if (event.type == EventType::Deleted) {
    policy_.remove(*kind, meta::namespace_(*event.object), meta::name(*event.object));
  } else {
    policy_.apply(*kind, event.object);
  }
  policyGeneration_.fetch_add(1, std::memory_order_release);
  return true;
}

// A bare ApiServer has no controller manager to aggregate ClusterRoles, but a cluster always
// does: admin, edit and view are written as that controller leaves them, so that binding `edit`
// grants what it grants in a cluster (docs/rbac.md). Existing objects are reconciled as
// kube-apiserver's bootstrap reconciles them on every start: what they lack is added back unless
// they are annotated rbac.authorization.kubernetes.io/autoupdate: "false".
Result<void> ApiServer::Impl::ensureBootstrapPolicy() {
  auto clusterRoles = registry_.find(rbac::kGroupName, "clusterroles");
  auto clusterRoleBindings = registry_.find(rbac::kGroupName, "clusterrolebindings");
  std::vector<Json> roles = bootstrapClusterRoles();
  aggregateBootstrapClusterRoles(roles);
  std::lock_guard lock(mu_);
  // The bootstrap draws its uids from a generator of its own, so that the uids and generated
  // names of a seeded server's requests are the same with or without it.
  std::mt19937_64 bootstrapRandom(options_.seed ? *options_.seed ^ 0x5bd1e995u
                                                : std::random_device{}());
  std::swap(random_, bootstrapRandom);
  struct RestoreRandom {
    std::mt19937_64& a;
    std::mt19937_64& b;
    ~RestoreRandom() { std::swap(a, b); }
  } restore{random_, bootstrapRandom};
  auto ensure = [&](const ResourceInfo& info, std::vector<Json> objects) -> Result<void> {
    for (Json& object : objects) {
      ObjectPtr existing = store_->get(key(info, "", meta::name(object)));
      Result<ObjectPtr> written;
      if (existing == nullptr) {
        written = createLocked(info, "", std::move(object), false, {.manager = "kube-apiserver"});
      } else if (auto reconciled = reconciledBootstrapObject(*existing, object)) {
        written = updateLocked(info, "", std::move(*reconciled), "", false, false,
                               {.manager = "kube-apiserver"});
      }
      if (!written) return tl::unexpected(written.error());
    }
    return {};
  };
  if (auto r = ensure(*clusterRoles, std::move(roles)); !r) return r;
  return ensure(*clusterRoleBindings, bootstrapClusterRoleBindings());
}

void ApiServer::Impl::loadRbacPolicy() {
  std::lock_guard lock(mu_);
  std::unique_lock policyLock(policyMu_);
  for (const char* resource : {"roles", "clusterroles", "rolebindings", "clusterrolebindings"}) {
    auto kind = RbacPolicy::kindOfResource(resource);
    store_->scan(std::string(kRbacKeyPrefix) + resource + "/", "",
                 [&](const std::string&, const ObjectPtr& object) {
                   policy_.apply(*kind, object);
                   return true;
                 });
  }
  policyGeneration_.fetch_add(1, std::memory_order_release);
}

}  // namespace fakekube
