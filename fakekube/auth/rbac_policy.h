// RbacPolicy: the Roles, ClusterRoles, RoleBindings and ClusterRoleBindings of a cluster, held
// the way RBAC reads them, and RBAC's answers over them (the rule resolver of
// pkg/registry/rbac/validation rule.go and the authorizer of plugin/pkg/auth/authorizer/rbac).
//
// A request's rules are those of every ClusterRoleBinding naming the user, then of every
// RoleBinding in the request's namespace naming the user (a RoleBinding may refer to a Role of
// its namespace or to a ClusterRole). Bindings are indexed by the subjects they name (user or
// ServiceAccount name, group), so a request looks at the bindings of its user and groups only,
// however many others there are. A binding whose role is missing contributes an error, which
// becomes the reason of a refusal ("RBAC: clusterrole.rbac.authorization.k8s.io "x" not found").
//
// Not thread-safe: the API server keeps one behind its own lock, current with every committed
// write of the four kinds (`apply`).
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fakekube/api/object.h"
#include "fakekube/auth/authorizer.h"
#include "fakekube/auth/rbac_rules.h"

namespace fakekube {

class RbacPolicy {
 public:
  enum class Kind { Role, ClusterRole, RoleBinding, ClusterRoleBinding };
  // The kind a resource of rbac.authorization.k8s.io ("roles", ...) holds; nullopt otherwise.
  static std::optional<Kind> kindOfResource(std::string_view resource);

  RbacPolicy();
  ~RbacPolicy();
  RbacPolicy(const RbacPolicy&) = delete;
  RbacPolicy& operator=(const RbacPolicy&) = delete;

  // Adds or replaces the object (its namespace and name say which), or removes it.
  void apply(Kind kind, const ObjectPtr& object);
  void remove(Kind kind, std::string_view ns, std::string_view name);

  // Where a visited rule comes from: the binding, and which of its subjects named the user.
  struct RuleSource {
    const Json* binding = nullptr;
    bool clusterBinding = false;
    std::size_t subject = 0;
    // As kube-apiserver describes it: `ClusterRoleBinding "name" of ClusterRole "role" to Group
    // "g"`, `RoleBinding "name/ns" of Role "role" to ServiceAccount "sa/ns"`.
    std::string describe() const;
  };
  // Called with each rule that applies to `user` in `ns` (a rule and its source), or with an
  // error met resolving a binding's role (rule == nullptr). Returning false stops the visit.
  using RuleVisitor =
      std::function<bool(const RuleSource&, const PolicyRule* rule, const std::string* error)>;
  void visitRulesFor(const UserInfo& user, std::string_view ns, const RuleVisitor& visit) const;

  // RBACAuthorizer.Authorize: Allow with "RBAC: allowed by <source>", or NoOpinion with the
  // resolution errors as the reason. `nameMatters`, when given, receives whether any rule looked
  // at names objects (resourceNames): when none does, the same answer holds for every name.
  AuthorizationResult authorize(const AuthorizationAttributes& attributes,
                                bool* nameMatters = nullptr) const;
  // The same answer without the allowed reason (a request's check builds no string when it is
  // allowed). `reason` receives the refusal's reason.
  bool allows(const AuthorizationAttributes& attributes, std::string* reason = nullptr,
              bool* nameMatters = nullptr) const;

  // RulesFor: every rule that applies to `user` in `ns`, and the errors met resolving them.
  struct ResolvedRules {
    std::vector<PolicyRule> rules;
    std::vector<std::string> errors;
  };
  ResolvedRules rulesFor(const UserInfo& user, std::string_view ns) const;

  // GetRoleReferenceRules: the rules of a binding's roleRef ({kind, name}); a Role is looked up
  // in `bindingNamespace`. An error (not found, unsupported kind) is kube-apiserver's message.
  using Rules = std::shared_ptr<const std::vector<PolicyRule>>;
  Result<Rules> roleReferenceRules(const Json& roleRef, std::string_view bindingNamespace) const;

  // The ClusterRoles held (for the aggregation of ClusterRoles and the tests).
  const Json* clusterRole(std::string_view name) const;

 private:
  struct Binding;
  struct SubjectIndex;
  struct Role {
    ObjectPtr object;
    Rules rules;
  };
  using BindingPtr = std::shared_ptr<const Binding>;

  // Hashes a std::string and a std::string_view alike, so that lookups build no key.
  struct TextHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const {
      return std::hash<std::string_view>()(text);
    }
  };
  template <class Value>
  using TextMap = std::unordered_map<std::string, Value, TextHash, std::equal_to<>>;
  // The bindings a request looks at, held inline up to a few (no allocation per request).
  class CandidateList {
   public:
    void clear() { size_ = 0, spill_.clear(); }
    void push_back(const Binding* binding) {
      if (size_ < inline_.size() && spill_.empty()) {
        inline_[size_++] = binding;
        return;
      }
      if (spill_.empty()) spill_.assign(inline_.begin(), inline_.begin() + size_);
      spill_.push_back(binding);
    }
    const Binding** begin() { return spill_.empty() ? inline_.data() : spill_.data(); }
    const Binding** end() { return begin() + size(); }
    std::size_t size() const { return spill_.empty() ? size_ : spill_.size(); }
    void erase(const Binding** from, const Binding** to) {
      if (spill_.empty()) {
        size_ -= static_cast<std::size_t>(to - from);
      } else {
        spill_.erase(spill_.begin() + (from - spill_.data()),
                     spill_.begin() + (to - spill_.data()));
      }
    }

   private:
    std::array<const Binding*, 8> inline_{};
    std::size_t size_ = 0;
    std::vector<const Binding*> spill_;
  };

  void addBinding(Kind kind, const ObjectPtr& object);
  void removeBinding(Kind kind, std::string_view ns, std::string_view name);
  // The bindings of the index that name the user or one of its groups, each once, by name.
  void candidates(const SubjectIndex& index, const UserInfo& user, CandidateList& found) const;
  // The rules of the binding's role as held, or nullptr when it has none (roleRules says why).
  const std::vector<PolicyRule>* boundRules(const Binding& binding,
                                            std::string_view bindingNamespace) const;
  // VisitRulesFor's walk, with the visitor inlined: visit(binding, subject, rule, error).
  template <class Visitor>
  void walkRules(const UserInfo& user, std::string_view ns, Visitor&& visit) const;
  Result<Rules> roleRules(std::string_view kind, std::string_view name,
                          std::string_view bindingNamespace) const;

  TextMap<TextMap<Role>> roles_;  // by namespace, then name
  TextMap<Role> clusterRoles_;
  std::map<std::string, BindingPtr, std::less<>> bindings_;  // "<namespace>/<name>", "/<name>"
  std::unique_ptr<SubjectIndex> clusterBindingIndex_;
  TextMap<SubjectIndex> roleBindingIndex_;  // by namespace
};

}  // namespace fakekube
