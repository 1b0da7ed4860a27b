// The status of a SelfSubjectRulesReview (`kubectl auth can-i --list`): the rules that apply to a
// user in a namespace, as kube-apiserver's rule resolvers list them (the privileged-group
// authorizer's wildcard for system:masters, then RBAC's RulesFor: the rules of every
// ClusterRoleBinding, then of every RoleBinding of the namespace, that names the user, a group of
// the user, or the user's ServiceAccount), each rule as a resource rule, a non-resource rule, or
// both. A binding whose role is missing is skipped and named in evaluationError, as RBAC reports
// it. Under AlwaysAllow every user is answered the wildcard.
#pragma once

#include <string>

#include "fakekube/api/json.h"
#include "fakekube/auth/user_info.h"

namespace fakekube {

class ApiServer;

// {resourceRules, nonResourceRules, incomplete[, evaluationError]} for `user` in `ns`.
Json subjectRulesReviewStatus(ApiServer& server, const UserInfo& user, const std::string& ns);

}  // namespace fakekube
