// Authentication of an HTTP request: who makes it, as kube-apiserver's authentication filter
// decides from the request's credentials before anything else runs.
//
//   no Authorization header          the cluster's admin (below): the kubeconfig `fakekube serve`
//                                    writes carries no credentials, and every client that used it
//                                    before identities existed keeps the rights it had. With a
//                                    server token (`fakekube serve --token`), refused instead.
//   Authorization: Bearer <token>    the server token: the admin; a ServiceAccount token the
//                                    server issued (ApiServer::authenticateToken): that
//                                    ServiceAccount; anything else: 401.
//
// A refusal is kube-apiserver's 401 Status ("Unauthorized", reason Unauthorized): it says nothing
// of why, as kube-apiserver's does not.
#pragma once

#include <string_view>

#include "fakekube/api/status.h"
#include "fakekube/auth/user_info.h"

namespace fakekube {

class ApiServer;

// "kubernetes-admin" in system:masters and system:authenticated: the user of a kubeadm
// cluster's admin.conf, whom every request authorizes.
const UserInfo& clusterAdminUser();

// The user the Authorization header (`authorization`, "" when absent) names. `serverToken` is
// the token that identifies the admin ("": none, and requests without credentials are the
// admin's).
Result<UserInfo> authenticateRequest(const ApiServer& server, std::string_view serverToken,
                                     std::string_view authorization);

}  // namespace fakekube
