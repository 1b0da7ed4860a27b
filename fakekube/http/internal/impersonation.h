// Impersonation: a request that acts as another user, as kube-apiserver's impersonation filter
// (k8s.io/apiserver/pkg/endpoints/filters/impersonation) reads its headers once the requester is
// authenticated.
//
//   Impersonate-User: NAME          the user (a system:serviceaccount:NS:NAME name is that
//                                   ServiceAccount, with its groups unless groups are given)
//   Impersonate-Group: GROUP        each group (repeated); kubectl --as-group
//   Impersonate-Uid: UID            the uid; kubectl --as-uid
//   Impersonate-Extra-KEY: VALUE    each extra value (KEY in lower case, %-unescaped)
//
// The requester must be allowed the verb "impersonate" on each: users, groups, serviceaccounts
// (in the ServiceAccount's namespace), uids, and userextras/KEY (group authentication.k8s.io).
// The first refused one answers kube-apiserver's 403 for it, e.g.
//   users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group ""
//   at the cluster scope
// Groups, extras or a uid without a user are a 400. The impersonated user is in
// system:authenticated unless the groups say system:authenticated or system:unauthenticated
// (system:anonymous: system:unauthenticated), as upstream adds them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "fakekube/api/status.h"
#include "fakekube/auth/user_info.h"

namespace fakekube {

class ApiServer;

// A request's headers, name and value in the order sent (names in any case).
using RequestHeaders = std::vector<std::pair<std::string, std::string>>;

// Whether `name` is one of the Impersonate-* headers.
bool isImpersonationHeader(std::string_view name);

// The user the request acts as: `requester` when no Impersonate-* header is present, otherwise
// the impersonated user, or the Status that refuses the request.
Result<UserInfo> impersonatedUser(const ApiServer& server, const UserInfo& requester,
                                  const RequestHeaders& headers);

}  // namespace fakekube
