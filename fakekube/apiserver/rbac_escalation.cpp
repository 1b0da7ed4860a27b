// RBAC's escalation checks on writes of roles and bindings (pkg/registry/rbac: role and
// clusterrole policybased storage, rolebinding and clusterrolebinding policybased storage,
// escalation_check.go): a user may write a Role or ClusterRole only with rules it holds itself,
// unless it may `escalate` roles; and bind a role only when it holds that role's rules, unless it
// may `bind` it. The server's own requests and system:masters are not checked.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/apiserver/internal/api_server_impl.h"

namespace fakekube {
namespace {

// rbacregistry.IsOnlyMutatingGCFields: the update changes only what the garbage collector
// changes (owner references, finalizers), or what the server keeps itself.
bool onlyGarbageCollectionFieldsChange(const Json& updated, const Json& old) {
  Json copy = updated;
  Json& metadata = meta::metadata(copy);
  const Json& oldMetadata = jsonAt(old, {"metadata"});
  for (const char* field : {"ownerReferences", "finalizers", "selfLink", "deletionTimestamp",
                            "deletionGracePeriodSeconds", "resourceVersion", "managedFields"}) {
    if (const Json* value = jsonFind(oldMetadata, field)) {
      metadata[field] = *value;
    } else {
      metadata.erase(field);
    }
  }
  return copy == old;
}

// Every resource and every URL: what an aggregationRule may gather.
const std::vector<PolicyRule>& fullAuthority() {
  static const std::vector<PolicyRule> rules = {PolicyRule{{"*"}, {"*"}, {"*"}, {}, {}},
                                                PolicyRule{{"*"}, {}, {}, {}, {"*"}}};
  return rules;
}

}  // namespace

// validation.ConfirmNoEscalation: the user's own rules in `ns` cover `rules`, or the message
// listing what they do not.
std::optional<std::string> ApiServer::Impl::confirmNoEscalation(
    const UserInfo& user, std::string_view ns, const std::vector<PolicyRule>& rules) const {
  RbacPolicy::ResolvedRules owner = policy_.rulesFor(user, ns);
  std::vector<PolicyRule> missing = uncoveredRules(owner.rules, rules);
  if (missing.empty()) return std::nullopt;
  std::set<std::string> descriptions;
  for (const PolicyRule& rule : compactRules(missing)) descriptions.insert(compactString(rule));
  std::string message =
      fmt::format("user {} (groups={}) is attempting to grant RBAC permissions not currently held:",
                  goQuote(user.name), goQuoteList(user.groups));
  for (const std::string& description : descriptions) message.append("\n").append(description);
  if (!owner.errors.empty()) {
    // Go's %v of the []error holding RulesFor's one aggregate error.
    message.append("; resolution errors: [")
        .append(aggregateErrorMessage(owner.errors))
        .append("]");
  }
  return message;
}

std::optional<Status> ApiServer::Impl::checkRbacEscalation(const ResourceInfo& info,
                                                           const std::string& ns,
                                                           const Json& object,
                                                           const Json* old) const {
  if (info.group != rbac::kGroupName) return std::nullopt;
  auto kind = RbacPolicy::kindOfResource(info.resource);
  const UserInfo* user = currentRequestUser();
  // EscalationAllowed: the server itself and system:masters.
  if (!kind || user == nullptr || user->inGroup(users::kSystemMasters)) return std::nullopt;
  if (old != nullptr && onlyGarbageCollectionFieldsChange(object, *old)) return std::nullopt;
  const std::string& name = meta::name(object);
  GroupResource groupResource{std::string(rbac::kGroupName), info.resource};
  std::shared_lock lock(policyMu_);
  if (*kind == RbacPolicy::Kind::Role || *kind == RbacPolicy::Kind::ClusterRole) {
    return checkRoleEscalation(*user, groupResource, ns, object, old);
  }
  // BindingAuthorized: `bind` on the referenced role, in the binding's namespace.
  const Json& roleRef = jsonAt(object, {"roleRef"});
  std::string roleKind = roleRef.value("kind", std::string());
  AuthorizationAttributes bind;
  bind.user = user;
  bind.verb = "bind";
  bind.ns = ns;
  bind.apiGroup = roleRef.value("apiGroup", std::string());
  bind.resource = roleKind == "ClusterRole" ? "clusterroles" : "roles";
  bind.name = roleRef.value("name", std::string());
  if ((roleKind == "ClusterRole" || roleKind == "Role") && policy_.allows(bind)) {
    return std::nullopt;
  }
  auto rules = policy_.roleReferenceRules(roleRef, ns);
  if (!rules) {
    // The lister's NotFound as it is; any other error as an internal one.
    if (rules.error().code == 500) return Status::internal(rules.error().message);
    return rules.error();
  }
  if (auto escalation = confirmNoEscalation(*user, ns, **rules)) {
    return Status::forbidden(groupResource, name, *escalation);
  }
  return std::nullopt;
}

std::optional<Status> ApiServer::Impl::checkRoleEscalation(const UserInfo& user,
                                                           const GroupResource& groupResource,
                                                           const std::string& ns,
                                                           const Json& object,
                                                           const Json* old) const {
  // RoleEscalationAuthorized: `escalate` on the role.
  const std::string& name = meta::name(object);
  AuthorizationAttributes escalate;
  escalate.user = &user;
  escalate.verb = "escalate";
  escalate.apiGroup = groupResource.group;
  escalate.apiVersion = "*";
  escalate.resource = groupResource.resource;
  escalate.name = name;
  escalate.ns = ns;
  if (policy_.allows(escalate)) return std::nullopt;
  if (auto escalation =
          confirmNoEscalation(user, ns, policyRulesFromJson(jsonAt(object, {"rules"})))) {
    return Status::forbidden(groupResource, name, *escalation);
  }
  // An aggregationRule can gather anything, and changing one can keep a role from being
  // tightened: setting or changing one takes every permission.
  if (groupResource.resource == "clusterroles") {
    bool aggregates = jsonAt(object, {"aggregationRule"}).is_object() ||
                      (old != nullptr && jsonAt(*old, {"aggregationRule"}).is_object());
    if (aggregates && confirmNoEscalation(user, ns, fullAuthority())) {
      return Status::forbidden(groupResource, name,
                               "must have cluster-admin privileges to use the aggregationRule");
    }
  }
  return std::nullopt;
}

}  // namespace fakekube
