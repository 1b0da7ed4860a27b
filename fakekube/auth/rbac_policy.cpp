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

// One binding as the index holds it: the document, its role reference, its subjects read once
// (what appliesTo compares: a User's name, a Group's name, a ServiceAccount's user name) with
// the reason an allowed request names each by, and the index keys its subjects were filed under
// (to take them out again).
struct RbacPolicy::Binding {
  enum class SubjectKind { User, Group, Nobody };
  struct Subject {
    SubjectKind kind = SubjectKind::Nobody;
    std::string name;           // the user name (a ServiceAccount's too) or the group
    std::string allowedReason;  // "RBAC: allowed by <RuleSource::describe()>"
  };
  ObjectPtr object;
  std::string ns;
  std::string name;
  std::string roleKind;
  std::string roleName;
  bool roleIsClusterRole = false;
  std::vector<Subject> subjects;       // in the document's order
  std::vector<std::string> userKeys;   // User names and ServiceAccount user names
  std::vector<std::string> groupKeys;  // Group names

  // validation.appliesTo over the subjects read once: the first that names the user.
  std::optional<std::size_t> subjectFor(const UserInfo& user) const {
    for (std::size_t i = 0; i < subjects.size(); ++i) {
      const Subject& subject = subjects[i];
      if (subject.kind == SubjectKind::User && subject.name == user.name) return i;
      if (subject.kind == SubjectKind::Group && user.inGroup(subject.name)) return i;
    }
    return std::nullopt;
  }
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
        roles_[ns][name] = std::move(role);
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
    case Kind::Role: {
      auto inNamespace = roles_.find(ns);
      if (inNamespace == roles_.end()) return;
      if (auto it = inNamespace->second.find(name); it != inNamespace->second.end()) {
        inNamespace->second.erase(it);
      }
      if (inNamespace->second.empty()) roles_.erase(inNamespace);
      return;
    }
    case Kind::ClusterRole:
      if (auto it = clusterRoles_.find(name); it != clusterRoles_.end()) clusterRoles_.erase(it);
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
  binding->roleIsClusterRole = binding->roleKind == "ClusterRole";
  const Json& subjects = jsonAt(*object, {"subjects"});
  if (subjects.is_array()) {
    for (std::size_t i = 0; i < subjects.size(); ++i) {
      const Json& subject = subjects[i];
      std::string_view kindName = jsonText(subject, "kind");
      std::string_view name = jsonText(subject, "name");
      Binding::Subject read;
      if (kindName == "User") {
        read = {Binding::SubjectKind::User, std::string(name), ""};
        binding->userKeys.emplace_back(name);
      } else if (kindName == "Group") {
        read = {Binding::SubjectKind::Group, std::string(name), ""};
        binding->groupKeys.emplace_back(name);
      } else if (kindName == "ServiceAccount") {
        // Filed under the user name the ServiceAccount authenticates as; one with no namespace
        // in a ClusterRoleBinding names nobody.
        std::string_view saNamespace = jsonText(subject, "namespace");
        if (saNamespace.empty()) saNamespace = binding->ns;
        if (!saNamespace.empty()) {
          std::string user(users::kServiceAccountPrefix);
          user.append(saNamespace).append(":").append(name);
          read = {Binding::SubjectKind::User, user, ""};
          binding->userKeys.push_back(std::move(user));
        }
      }
      if (read.kind != Binding::SubjectKind::Nobody) {
        read.allowedReason = "RBAC: allowed by " + RuleSource{object.get(), cluster, i}.describe();
      }
      binding->subjects.push_back(std::move(read));
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

void RbacPolicy::candidates(const SubjectIndex& index, const UserInfo& user,
                            CandidateList& found) const {
  found.clear();
  auto collect = [&](const auto& byKey, const std::string& key) {
    auto it = byKey.find(key);
    if (it == byKey.end()) return;
    for (const Binding* binding : it->second) found.push_back(binding);
  };
  collect(index.byUser, user.name);
  for (const std::string& group : user.groups) collect(index.byGroup, group);
  if (found.size() > 1) {
    // One visit per binding, in the order of their names (the listers' order is the store's).
    std::sort(found.begin(), found.end(),
              [](const Binding* a, const Binding* b) { return a->name < b->name; });
    found.erase(std::unique(found.begin(), found.end()), found.end());
  }
}

const std::vector<PolicyRule>* RbacPolicy::boundRules(const Binding& binding,
                                                      std::string_view bindingNamespace) const {
  if (binding.roleIsClusterRole) {
    auto it = clusterRoles_.find(std::string_view(binding.roleName));
    return it == clusterRoles_.end() ? nullptr : it->second.rules.get();
  }
  if (binding.roleKind != "Role") return nullptr;
  auto inNamespace = roles_.find(bindingNamespace);
  if (inNamespace == roles_.end()) return nullptr;
  auto it = inNamespace->second.find(std::string_view(binding.roleName));
  return it == inNamespace->second.end() ? nullptr : it->second.rules.get();
}

Result<RbacPolicy::Rules> RbacPolicy::roleRules(std::string_view kind, std::string_view name,
                                                std::string_view bindingNamespace) const {
  // The listers' NotFound names the singular resource: clusterrole.rbac.authorization.k8s.io.
  auto notFound = [&](std::string_view resource) {
    return tl::unexpected(Status::notFound(
        GroupResource{std::string(rbac::kGroupName), std::string(resource)}, name));
  };
  if (kind == "Role") {
    auto inNamespace = roles_.find(bindingNamespace);
    if (inNamespace == roles_.end()) return notFound("role");
    auto it = inNamespace->second.find(name);
    if (it == inNamespace->second.end()) return notFound("role");
    return it->second.rules;
  }
  if (kind == "ClusterRole") {
    auto it = clusterRoles_.find(name);
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
  CandidateList found;
  auto walk = [&](const SubjectIndex& index, std::string_view bindingNamespace) {
    candidates(index, user, found);
    for (const Binding* binding : found) {
      auto subject = binding->subjectFor(user);
      if (!subject) continue;
      const std::vector<PolicyRule>* rules = boundRules(*binding, bindingNamespace);
      if (rules == nullptr) {
        // The message of the lookup's error (not found, an unsupported kind), built only here.
        auto missing = roleRules(binding->roleKind, binding->roleName, bindingNamespace);
        std::string error = missing ? std::string() : missing.error().message;
        if (!visit(*binding, *subject, nullptr, &error)) return false;
        continue;
      }
      for (const PolicyRule& rule : *rules) {
        if (!visit(*binding, *subject, &rule, nullptr)) return false;
      }
    }
    return true;
  };
  if (!walk(*clusterBindingIndex_, "")) return;
  if (ns.empty()) return;
  auto index = roleBindingIndex_.find(ns);
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

bool RbacPolicy::allows(const AuthorizationAttributes& attributes, std::string* reason,
                        bool* nameMatters) const {
  if (nameMatters != nullptr) *nameMatters = false;
  if (attributes.user == nullptr) return false;
  bool allowed = false;
  std::vector<std::string> errors;
  walkRules(*attributes.user, attributes.ns,
            [&](const Binding&, std::size_t, const PolicyRule* rule, const std::string* error) {
              if (nameMatters != nullptr && rule != nullptr && !rule->resourceNames.empty()) {
                *nameMatters = true;
              }
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

AuthorizationResult RbacPolicy::authorize(const AuthorizationAttributes& attributes,
                                          bool* nameMatters) const {
  if (nameMatters != nullptr) *nameMatters = false;
  AuthorizationResult result;
  if (attributes.user == nullptr) return result;
  std::vector<std::string> errors;
  walkRules(*attributes.user, attributes.ns,
            [&](const Binding& binding, std::size_t subject, const PolicyRule* rule,
                const std::string* error) {
              if (nameMatters != nullptr && rule != nullptr && !rule->resourceNames.empty()) {
                *nameMatters = true;
              }
              if (rule != nullptr && ruleAllows(*rule, attributes)) {
                result.decision = AuthorizationDecision::Allow;
                result.reason = binding.subjects[subject].allowedReason;
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
  auto it = clusterRoles_.find(name);
  return it == clusterRoles_.end() ? nullptr : it->second.object.get();
}

}  // namespace fakekube
