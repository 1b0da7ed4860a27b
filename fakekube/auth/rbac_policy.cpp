#include "fakekube/auth/rbac_policy.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"

namespace fakekube {
namespace {

std::string policyKey(std::string_view ns, std::string_view name) {
  std::string key;
  key.reserve(ns.size() + name.size() + 1);
  key.append(ns).append("/").append(name);
  return key;
}

std::string_view jsonText(const Json& object, const char* member) {
  if (!object.is_object()) return {};
  auto it = object.find(member);
  if (it == object.end() || !it->is_string()) return {};
  return it->get_ref<const std::string&>();
}

// describeSubject: a ServiceAccount as "name/namespace" (the binding's namespace when the
// subject has none).
std::string describeRbacSubject(const Json& subject, std::string_view bindingNamespace) {
  std::string_view kind = jsonText(subject, "kind");
  std::string name(jsonText(subject, "name"));
  if (kind == "ServiceAccount") {
    std::string_view ns = jsonText(subject, "namespace");
    name.append("/").append(ns.empty() ? bindingNamespace : ns);
  }
  return std::string(kind) + " " + goQuote(name);
}

}  // namespace

// One binding as the index holds it: the document, its role reference, and the index keys its
// subjects were filed under (to take them out again).
struct RbacPolicy::Binding {
  ObjectPtr object;
  std::string ns;
  std::string name;
  std::string roleKind;
  std::string roleName;
  std::vector<std::string> userKeys;   // User names and ServiceAccount user names
  std::vector<std::string> groupKeys;  // Group names
};

struct RbacPolicy::SubjectIndex {
  std::unordered_map<std::string, std::vector<const Binding*>> byUser;
  std::unordered_map<std::string, std::vector<const Binding*>> byGroup;
  bool empty() const { return byUser.empty() && byGroup.empty(); }
};

std::optional<RbacPolicy::Kind> RbacPolicy::kindOfResource(std::string_view resource) {
  if (resource == "roles") return Kind::Role;
  if (resource == "clusterroles") return Kind::ClusterRole;
  if (resource == "rolebindings") return Kind::RoleBinding;
  if (resource == "clusterrolebindings") return Kind::ClusterRoleBinding;
  return std::nullopt;
}

RbacPolicy::RbacPolicy() : clusterBindingIndex_(std::make_unique<SubjectIndex>()) {}
RbacPolicy::~RbacPolicy() = default;

void RbacPolicy::apply(Kind kind, const ObjectPtr& object) {
  const std::string& ns = meta::namespace_(*object);
  const std::string& name = meta::name(*object);
  switch (kind) {
    case Kind::Role:
    case Kind::ClusterRole: {
      auto rules = std::make_shared<const std::vector<PolicyRule>>(
          policyRulesFromJson(jsonAt(*object, {"rules"})));
      Role role{object, std::move(rules)};
      if (kind == Kind::Role) {
        roles_[policyKey(ns, name)] = std::move(role);
      } else {
        clusterRoles_[name] = std::move(role);
      }
      return;
    }
    case Kind::RoleBinding:
    case Kind::ClusterRoleBinding:
      removeBinding(kind, kind == Kind::RoleBinding ? ns : "", name);
      addBinding(kind, object);
      return;
  }
}

void RbacPolicy::remove(Kind kind, std::string_view ns, std::string_view name) {
  switch (kind) {
    case Kind::Role:
      roles_.erase(policyKey(ns, name));
      return;
    case Kind::ClusterRole:
      clusterRoles_.erase(std::string(name));
      return;
    case Kind::RoleBinding:
    case Kind::ClusterRoleBinding:
      removeBinding(kind, kind == Kind::RoleBinding ? ns : "", name);
      return;
  }
}

void RbacPolicy::addBinding(Kind kind, const ObjectPtr& object) {
  bool cluster = kind == Kind::ClusterRoleBinding;
  auto binding = std::make_shared<Binding>();
  binding->object = object;
  binding->ns = cluster ? "" : meta::namespace_(*object);
  binding->name = meta::name(*object);
  const Json& roleRef = jsonAt(*object, {"roleRef"});
  binding->roleKind = jsonText(roleRef, "kind");
  binding->roleName = jsonText(roleRef, "name");
  const Json& subjects = jsonAt(*object, {"subjects"});
  if (subjects.is_array()) {
    for (const Json& subject : subjects) {
      std::string_view kindName = jsonText(subject, "kind");
      std::string_view name = jsonText(subject, "name");
      if (kindName == "User") {
        binding->userKeys.emplace_back(name);
      } else if (kindName == "Group") {
        binding->groupKeys.emplace_back(name);
      } else if (kindName == "ServiceAccount") {
        // Filed under the user name the ServiceAccount authenticates as; one with no namespace
        // in a ClusterRoleBinding names nobody.
        std::string_view saNamespace = jsonText(subject, "namespace");
        if (saNamespace.empty()) saNamespace = binding->ns;
        if (saNamespace.empty()) continue;
        std::string user(users::kServiceAccountPrefix);
        user.append(saNamespace).append(":").append(name);
        binding->userKeys.push_back(std::move(user));
      }
    }
  }
  SubjectIndex& index = cluster ? *clusterBindingIndex_ : roleBindingIndex_[binding->ns];
  auto file = [&](auto& byKey, const std::vector<std::string>& keys) {
    for (const std::string& key : keys) {
      auto& filed = byKey[key];
      if (std::find(filed.begin(), filed.end(), binding.get()) == filed.end()) {
        filed.push_back(binding.get());
      }
    }
  };
  file(index.byUser, binding->userKeys);
  file(index.byGroup, binding->groupKeys);
  bindings_[policyKey(binding->ns, binding->name)] = std::move(binding);
}

void RbacPolicy::removeBinding(Kind kind, std::string_view ns, std::string_view name) {
  auto it = bindings_.find(policyKey(ns, name));
  if (it == bindings_.end()) return;
  const Binding* binding = it->second.get();
  bool cluster = kind == Kind::ClusterRoleBinding;
  auto indexIt = roleBindingIndex_.find(binding->ns);
  SubjectIndex* index = cluster ? clusterBindingIndex_.get()
                                : (indexIt == roleBindingIndex_.end() ? nullptr : &indexIt->second);
  if (index != nullptr) {
    auto unfile = [&](auto& byKey, const std::vector<std::string>& keys) {
      for (const std::string& key : keys) {
        auto filed = byKey.find(key);
        if (filed == byKey.end()) continue;
        std::erase(filed->second, binding);
        if (filed->second.empty()) byKey.erase(filed);
      }
    };
    unfile(index->byUser, binding->userKeys);
    unfile(index->byGroup, binding->groupKeys);
    if (!cluster && index->empty()) roleBindingIndex_.erase(indexIt);
  }
  bindings_.erase(it);
}

std::vector<const RbacPolicy::Binding*> RbacPolicy::candidates(const SubjectIndex& index,
                                                               const UserInfo& user) const {
  std::vector<const Binding*> found;
  auto collect = [&](const auto& byKey, const std::string& key) {
    auto it = byKey.find(key);
    if (it != byKey.end()) found.insert(found.end(), it->second.begin(), it->second.end());
  };
  collect(index.byUser, user.name);
  for (const std::string& group : user.groups) collect(index.byGroup, group);
  if (found.size() > 1) {
    // One visit per binding, in the order of their names (the listers' order is the store's).
    std::sort(found.begin(), found.end(),
              [](const Binding* a, const Binding* b) { return a->name < b->name; });
    found.erase(std::unique(found.begin(), found.end()), found.end());
  }
  return found;
}

Result<RbacPolicy::Rules> RbacPolicy::roleRules(std::string_view kind, std::string_view name,
                                                std::string_view bindingNamespace) const {
  // The listers' NotFound names the singular resource: clusterrole.rbac.authorization.k8s.io.
  auto notFound = [&](std::string_view resource) {
    return tl::unexpected(Status::notFound(
        GroupResource{std::string(rbac::kGroupName), std::string(resource)}, name));
  };
  if (kind == "Role") {
    auto it = roles_.find(policyKey(bindingNamespace, name));
    if (it == roles_.end()) return notFound("role");
    return it->second.rules;
  }
  if (kind == "ClusterRole") {
    auto it = clusterRoles_.find(std::string(name));
    if (it == clusterRoles_.end()) return notFound("clusterrole");
    return it->second.rules;
  }
  return tl::unexpected(Status::generic(
      500, "InternalError", fmt::format("unsupported role reference kind: {}", goQuote(kind))));
}

Result<RbacPolicy::Rules> RbacPolicy::roleReferenceRules(const Json& roleRef,
                                                         std::string_view bindingNamespace) const {
  return roleRules(jsonText(roleRef, "kind"), jsonText(roleRef, "name"), bindingNamespace);
}

template <class Visitor>
void RbacPolicy::walkRules(const UserInfo& user, std::string_view ns, Visitor&& visit) const {
  auto walk = [&](const SubjectIndex& index, std::string_view bindingNamespace) {
    for (const Binding* binding : candidates(index, user)) {
      auto subject = appliesTo(user, jsonAt(*binding->object, {"subjects"}), bindingNamespace);
      if (!subject) continue;
      auto rules = roleRules(binding->roleKind, binding->roleName, bindingNamespace);
      if (!rules) {
        if (!visit(*binding, *subject, nullptr, &rules.error().message)) return false;
        continue;
      }
      for (const PolicyRule& rule : **rules) {
        if (!visit(*binding, *subject, &rule, nullptr)) return false;
      }
    }
    return true;
  };
  if (!walk(*clusterBindingIndex_, "")) return;
  if (ns.empty()) return;
  auto index = roleBindingIndex_.find(std::string(ns));
  if (index != roleBindingIndex_.end()) walk(index->second, ns);
}

std::string RbacPolicy::RuleSource::describe() const {
  const Json& roleRef = jsonAt(*binding, {"roleRef"});
  const Json& subjects = jsonAt(*binding, {"subjects"});
  static const Json kNoSubject;
  const Json& subjectJson =
      subjects.is_array() && subject < subjects.size() ? subjects[subject] : kNoSubject;
  std::string name = meta::name(*binding);
  std::string ns = clusterBinding ? "" : meta::namespace_(*binding);
  if (!clusterBinding) name.append("/").append(ns);
  return fmt::format("{} {} of {} {} to {}", clusterBinding ? "ClusterRoleBinding" : "RoleBinding",
                     goQuote(name), jsonText(roleRef, "kind"), goQuote(jsonText(roleRef, "name")),
                     describeRbacSubject(subjectJson, ns));
}

void RbacPolicy::visitRulesFor(const UserInfo& user, std::string_view ns,
                               const RuleVisitor& visit) const {
  walkRules(user, ns,
            [&](const Binding& binding, std::size_t subject, const PolicyRule* rule,
                const std::string* error) {
              RuleSource source{binding.object.get(), binding.ns.empty(), subject};
              return visit(source, rule, error);
            });
}

bool RbacPolicy::allows(const AuthorizationAttributes& attributes, std::string* reason) const {
  if (attributes.user == nullptr) return false;
  bool allowed = false;
  std::vector<std::string> errors;
  walkRules(*attributes.user, attributes.ns,
            [&](const Binding&, std::size_t, const PolicyRule* rule, const std::string* error) {
              if (rule != nullptr && ruleAllows(*rule, attributes)) {
                allowed = true;
                return false;
              }
              if (error != nullptr) errors.push_back(*error);
              return true;
            });
  if (!allowed && reason != nullptr) {
    *reason = errors.empty() ? "" : "RBAC: " + aggregateErrorMessage(errors);
  }
  return allowed;
}

AuthorizationResult RbacPolicy::authorize(const AuthorizationAttributes& attributes) const {
  AuthorizationResult result;
  if (attributes.user == nullptr) return result;
  std::vector<std::string> errors;
  visitRulesFor(*attributes.user, attributes.ns,
                [&](const RuleSource& source, const PolicyRule* rule, const std::string* error) {
                  if (rule != nullptr && ruleAllows(*rule, attributes)) {
                    result.decision = AuthorizationDecision::Allow;
                    result.reason = "RBAC: allowed by " + source.describe();
                    return false;
                  }
                  if (error != nullptr) errors.push_back(*error);
                  return true;
                });
  if (!result.allowed() && !errors.empty())
    result.reason = "RBAC: " + aggregateErrorMessage(errors);
  return result;
}

RbacPolicy::ResolvedRules RbacPolicy::rulesFor(const UserInfo& user, std::string_view ns) const {
  ResolvedRules resolved;
  walkRules(user, ns,
            [&](const Binding&, std::size_t, const PolicyRule* rule, const std::string* error) {
              if (rule != nullptr) resolved.rules.push_back(*rule);
              if (error != nullptr) resolved.errors.push_back(*error);
              return true;
            });
  return resolved;
}

const Json* RbacPolicy::clusterRole(std::string_view name) const {
  auto it = clusterRoles_.find(std::string(name));
  return it == clusterRoles_.end() ? nullptr : it->second.object.get();
}

}  // namespace fakekube
