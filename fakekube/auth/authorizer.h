// Authorization: what a request asks to do, what the authorizer answers, and the 403 a refused
// request receives (k8s.io/apiserver/pkg/authorization/authorizer and
// endpoints/handlers/responsewriters).
//
// An AuthorizationAttributes is authorizer.AttributesRecord: who (`user`), the verb, and either
// a resource request (namespace, API group and version, resource, subresource, name) or a
// non-resource request (`path`, such as "/healthz"). RBAC (rbac_rules.h, rbac_policy.h) answers
// Allow or NoOpinion, never Deny: a request nothing allows is refused with `forbidden()`.
#pragma once

#include <string>
#include <string_view>

#include "fakekube/api/status.h"
#include "fakekube/auth/user_info.h"

namespace fakekube {

struct AuthorizationAttributes {
  const UserInfo* user = nullptr;
  // get list watch create update patch delete deletecollection, or impersonate escalate bind ...
  std::string verb;
  bool resourceRequest = true;
  std::string ns, apiGroup, apiVersion, resource, subresource, name;
  std::string path;  // non-resource requests ("/healthz", "/apis")
};

enum class AuthorizationDecision { Deny, Allow, NoOpinion };

struct AuthorizationResult {
  AuthorizationDecision decision = AuthorizationDecision::NoOpinion;
  // RBAC's reason, as kube-apiserver words it: "RBAC: allowed by ClusterRoleBinding ..." for an
  // allowed request; for a refused one empty, or the errors met resolving the user's roles
  // ("RBAC: clusterrole.rbac.authorization.k8s.io \"x\" not found").
  std::string reason;
  bool allowed() const { return decision == AuthorizationDecision::Allow; }
};

// kube-apiserver's 403 for a refused request, byte for byte (responsewriters.Forbidden:
// forbiddenMessage, then ": <reason>" when there is one, wrapped by errors.NewForbidden):
//   pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the
//   namespace "default"
//   rayclusters.ray.io "a" is forbidden: User "bob" cannot get resource "rayclusters/status" in
//   API group "ray.io" at the cluster scope
//   forbidden: User "carol" cannot get path "/metrics"
// details carry {name, group, kind = the resource}.
Status forbidden(const AuthorizationAttributes& attributes, std::string_view reason);

// The message alone (responsewriters.forbiddenMessage): `User "alice" cannot list resource ...`.
std::string forbiddenMessage(const AuthorizationAttributes& attributes);

}  // namespace fakekube
