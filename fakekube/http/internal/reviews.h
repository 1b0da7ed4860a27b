// Reviews: the kinds that are created and answered, never stored, and serviceaccounts/token.
//
//   POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews     kubectl auth can-i
//   POST /apis/authorization.k8s.io/v1/subjectaccessreviews         (and the namespaced
//        /apis/authorization.k8s.io/v1/namespaces/<ns>/localsubjectaccessreviews)
//   POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews      kubectl auth can-i --list
//   POST /apis/authentication.k8s.io/v1/selfsubjectreviews          kubectl auth whoami
//   POST /apis/authentication.k8s.io/v1/tokenreviews
//   POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token       kubectl create token
//   POST /api/v1/namespaces/<ns>/bindings                           a Binding, as
//        pods/<name>/binding (the pod is the Binding's metadata.name)
//
// Creating a review is authorized as creating any object (`create` on the review's resource).
// The access reviews answer through ApiServer::authorize: a SelfSubjectAccessReview for the
// requesting user (currentRequestUser), a (Local)SubjectAccessReview for the user of its spec;
// the rules review lists the requesting user's rules (rules_review.h); SelfSubjectReview names
// the requesting user. A TokenRequest is the ApiServer's "token" subresource
// (ApiServer::createSubresource); a TokenReview asks ApiServer::authenticateToken. The answer is
// the request with its status filled in, as from kube-apiserver; bad requests get the same
// 400/422 Status a real server sends.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fakekube/apiserver/api_server.h"
#include "fakekube/http/internal/rest_types.h"

namespace fakekube {

// The answer when `segments` (the request path split at '/') names a review or a token request;
// nullopt for every other path.
std::optional<RestResponse> handleReview(ApiServer& server, const RestRequest& request,
                                         const std::vector<std::string>& segments);

}  // namespace fakekube
