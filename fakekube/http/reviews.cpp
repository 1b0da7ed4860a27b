#include "fakekube/http/internal/reviews.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "fakekube/api/internal/base64.h"
#include "fakekube/api/internal/json_decode.h"
#include "fakekube/api/internal/protobuf.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/json_writer.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/yaml.h"
#include "fakekube/http/internal/media_type.h"
#include "fakekube/http/internal/rest_handler.h"
#include "fakekube/http/internal/rules_review.h"

namespace fakekube {

namespace {

constexpr const char* kDefaultAudience = "https://kubernetes.default.svc.cluster.local";

RestResponse json(int code, const Json& body) {
  RestResponse response;
  response.status = code;
  response.body = toJsonText(body);
  return response;
}

RestResponse error(const Status& status) { return RestHandler::errorResponse(status); }

Result<Json> decode(const RestRequest& request) {
  const std::string type = baseMediaType(request.contentType);
  if (type == "application/yaml") return decodeYaml(request.body);
  if (type == kKubernetesProtobufMediaType) return decodeKubernetesProtobuf(request.body);
  auto body = parseJsonText(request.body);
  if (!body) {
    return tl::unexpected(Status::badRequest(
        fmt::format("couldn't get version/kind; json parse error: {}", body.error())));
  }
  if (!body->is_object()) return tl::unexpected(Status::badRequest("the body is not an object"));
  return std::move(*body);
}

// The request as the answer carries it: apiVersion and kind set, metadata kept (a
// creationTimestamp of null, as Go writes an unset one).
Json answerOf(Json body, const char* apiVersion, const char* kind) {
  body["apiVersion"] = apiVersion;
  body["kind"] = kind;
  Json& metadata = body["metadata"];
  if (!metadata.is_object()) metadata = Json::object();
  if (!metadata.contains("creationTimestamp")) metadata["creationTimestamp"] = nullptr;
  return body;
}

// Exactly one of resourceAttributes and nonResourceAttributes (ValidateSelfSubjectAccessReview).
std::optional<Status> checkAttributes(const Json& body, const char* kind) {
  const bool resource = !jsonAt(body, {"spec", "resourceAttributes"}).is_null();
  const bool nonResource = !jsonAt(body, {"spec", "nonResourceAttributes"}).is_null();
  if (resource != nonResource) return std::nullopt;
  FieldErrors errors;
  if (resource) {
    errors.push_back(FieldError::invalid(
        "spec.nonResourceAttributes", jsonAt(body, {"spec", "nonResourceAttributes"}).dump(),
        "cannot be specified in combination with resourceAttributes"));
  } else {
    errors.push_back(FieldError::invalid(
        "spec.resourceAttributes", "null",
        "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
  }
  return Status::invalid("authorization.k8s.io", kind, "", errors);
}

std::string stringOf(const Json& attributes, const char* member) {
  const Json& value = jsonAt(attributes, {member});
  return value.is_string() ? value.get<std::string>() : std::string();
}

// The authorizer's attributes of a review's spec (ResourceAttributesFrom and
// NonResourceAttributesFrom): an empty version matches every version.
AuthorizationAttributes reviewAttributes(const Json& spec, const UserInfo& user) {
  AuthorizationAttributes attributes;
  attributes.user = &user;
  if (const Json& resource = jsonAt(spec, {"resourceAttributes"}); !resource.is_null()) {
    attributes.verb = stringOf(resource, "verb");
    attributes.ns = stringOf(resource, "namespace");
    attributes.apiGroup = stringOf(resource, "group");
    attributes.apiVersion = stringOf(resource, "version");
    if (attributes.apiVersion.empty()) attributes.apiVersion = "*";
    attributes.resource = stringOf(resource, "resource");
    attributes.subresource = stringOf(resource, "subresource");
    attributes.name = stringOf(resource, "name");
    return attributes;
  }
  const Json& nonResource = jsonAt(spec, {"nonResourceAttributes"});
  attributes.resourceRequest = false;
  attributes.verb = stringOf(nonResource, "verb");
  attributes.path = stringOf(nonResource, "path");
  return attributes;
}

// The user a SubjectAccessReview asks about: its spec's user, groups, uid and extra, as given
// (no group is added).
UserInfo reviewedUser(const Json& spec) {
  UserInfo user;
  user.name = stringOf(spec, "user");
  user.uid = stringOf(spec, "uid");
  if (const Json& groups = jsonAt(spec, {"groups"}); groups.is_array()) {
    for (const auto& group : groups) {
      if (group.is_string()) user.groups.push_back(group.get<std::string>());
    }
  }
  if (const Json& extra = jsonAt(spec, {"extra"}); extra.is_object()) {
    for (const auto& [key, values] : extra.items()) {
      auto& out = user.extra[key];
      if (!values.is_array()) continue;
      for (const auto& value : values) {
        if (value.is_string()) out.push_back(value.get<std::string>());
      }
    }
  }
  return user;
}

// The checks of ValidateSubjectAccessReview and ValidateLocalSubjectAccessReview beyond the
// attributes'.
std::optional<Status> checkSubjectAccessReview(const Json& body, const char* kind,
                                               const std::string& ns) {
  const Json& user = jsonAt(body, {"spec", "user"});
  const Json& groups = jsonAt(body, {"spec", "groups"});
  if ((!user.is_string() || user.get<std::string>().empty()) &&
      (!groups.is_array() || groups.empty())) {
    return Status::invalid("authorization.k8s.io", kind, "",
                           {FieldError::invalid("spec.user,spec.groups", "null",
                                                "at least one of user or group must be "
                                                "specified")});
  }
  if (ns.empty()) return std::nullopt;
  const Json& attributesNs = jsonAt(body, {"spec", "resourceAttributes", "namespace"});
  if (attributesNs.is_string() && attributesNs.get<std::string>() == ns) return std::nullopt;
  return Status::invalid(
      "authorization.k8s.io", kind, "",
      {FieldError::invalid("spec.resourceAttributes.namespace",
                           attributesNs.is_string() ? attributesNs.get<std::string>() : "",
                           "must match metadata.namespace")});
}

// SelfSubjectAccessReview (`kubectl auth can-i`): the requesting user; SubjectAccessReview and
// LocalSubjectAccessReview: the spec's user. Answered by ApiServer::authorize, its status as
// kube-apiserver's registry fills it: allowed, denied only for a Deny, the authorizer's reason.
RestResponse accessReview(const ApiServer& server, const RestRequest& request, const char* kind,
                          const std::string& ns) {
  auto body = decode(request);
  if (!body) return error(body.error());
  if (auto invalid = checkAttributes(*body, kind)) return error(*invalid);
  const bool self = std::string_view(kind) == "SelfSubjectAccessReview";
  if (!self) {
    if (auto invalid = checkSubjectAccessReview(*body, kind, ns)) return error(*invalid);
  }
  const UserInfo* requester = currentRequestUser();
  const UserInfo user =
      self ? (requester != nullptr ? *requester : loopbackUser()) : reviewedUser((*body)["spec"]);
  const AuthorizationResult decision = server.authorize(reviewAttributes((*body)["spec"], user));
  Json answer = answerOf(std::move(*body), "authorization.k8s.io/v1", kind);
  if (!ns.empty()) answer["metadata"]["namespace"] = ns;
  Json status = {{"allowed", decision.allowed()}};
  if (decision.decision == AuthorizationDecision::Deny) status["denied"] = true;
  if (!decision.reason.empty()) status["reason"] = decision.reason;
  answer["status"] = std::move(status);
  return json(201, answer);
}

// SelfSubjectRulesReview (`kubectl auth can-i --list`): the rules of the requesting user in
// spec.namespace (rules_review.h).
RestResponse rulesReview(ApiServer& server, const RestRequest& request) {
  auto body = decode(request);
  if (!body) return error(body.error());
  const Json& ns = jsonAt(*body, {"spec", "namespace"});
  if (!ns.is_string() || ns.get<std::string>().empty()) {
    return error(Status::invalid("authorization.k8s.io", "SelfSubjectRulesReview", "",
                                 {FieldError::required("spec.namespace")}));
  }
  const UserInfo* requester = currentRequestUser();
  Json status = subjectRulesReviewStatus(server, requester != nullptr ? *requester : loopbackUser(),
                                         ns.get<std::string>());
  Json answer = answerOf(std::move(*body), "authorization.k8s.io/v1", "SelfSubjectRulesReview");
  answer["status"] = std::move(status);
  return json(201, answer);
}

// The user as authentication.k8s.io/v1 UserInfo writes it (empty members omitted).
Json userInfoJson(const UserInfo& user) {
  Json info = {{"username", user.name}};
  if (!user.uid.empty()) info["uid"] = user.uid;
  if (!user.groups.empty()) info["groups"] = user.groups;
  if (!user.extra.empty()) info["extra"] = user.extra;
  return info;
}

// SelfSubjectReview (`kubectl auth whoami`): the requesting user's attributes.
RestResponse selfSubjectReview(const RestRequest& request) {
  auto body = decode(request);
  if (!body) return error(body.error());
  const UserInfo* user = currentRequestUser();
  Json answer = answerOf(std::move(*body), "authentication.k8s.io/v1", "SelfSubjectReview");
  answer["status"] = {{"userInfo", userInfoJson(user != nullptr ? *user : loopbackUser())}};
  return json(201, answer);
}

// POST serviceaccounts/<name>/token: the ApiServer issues the token (service_account_token.cpp).
RestResponse tokenRequest(ApiServer& server, const RestRequest& request, const std::string& ns,
                          const std::string& name) {
  auto body = decode(request);
  if (!body) return error(body.error());
  CreateOptions options;
  options.dryRun = request.param("dryRun").has_value();
  auto answer = server.createSubresource({"", "v1", "serviceaccounts"}, ns, name, "token",
                                         std::move(*body), options);
  if (!answer) return error(answer.error());
  return json(201, *answer);
}

// TokenReview: what the server's token authenticator says of spec.token.
RestResponse tokenReview(ApiServer& server, const RestRequest& request) {
  auto body = decode(request);
  if (!body) return error(body.error());
  const Json& token = jsonAt(*body, {"spec", "token"});
  if (!token.is_string() || token.get<std::string>().empty()) {
    return error(Status::invalid("authentication.k8s.io", "TokenReview", "",
                                 {FieldError::required("spec.token")}));
  }
  auto user = server.authenticateToken(token.get<std::string>());
  Json answer = answerOf(std::move(*body), "authentication.k8s.io/v1", "TokenReview");
  if (!user) {
    answer["status"] = {{"authenticated", false},
                        {"user", Json::object()},
                        {"error", "[invalid bearer token, token lookup failed]"}};
    return json(201, answer);
  }
  answer["status"] = {{"authenticated", true},
                      {"user", userInfoJson(*user)},
                      {"audiences", Json::array({kDefaultAudience})}};
  return json(201, answer);
}

RestResponse methodNotAllowed() {
  return error(Status::generic(405, "MethodNotAllowed",
                               "the server does not allow this method on the requested resource"));
}

bool isReviewResource(const std::string& group, const std::string& resource) {
  if (group == "authorization.k8s.io") {
    return resource == "selfsubjectaccessreviews" || resource == "subjectaccessreviews" ||
           resource == "localsubjectaccessreviews" || resource == "selfsubjectrulesreviews";
  }
  return resource == "selfsubjectreviews" || resource == "tokenreviews";
}

// A review is created as any object is: its creator must be allowed to (RBAC's
// system:basic-user lets every authenticated user create the self reviews).
std::optional<RestResponse> refuseUnlessAllowed(const ApiServer& server, const std::string& group,
                                                const std::string& resource,
                                                const std::string& ns) {
  const UserInfo* user = currentRequestUser();
  AuthorizationAttributes attributes;
  attributes.user = user != nullptr ? user : &loopbackUser();
  attributes.verb = "create";
  attributes.apiGroup = group;
  attributes.apiVersion = "v1";
  attributes.resource = resource;
  attributes.ns = ns;
  const AuthorizationResult decision = server.authorize(attributes);
  if (decision.allowed()) return std::nullopt;
  return error(forbidden(attributes, decision.reason));
}

}  // namespace

std::optional<RestResponse> handleReview(ApiServer& server, const RestRequest& request,
                                         const std::vector<std::string>& s) {
  // /api/v1/namespaces/<ns>/bindings: the older form of pods/<name>/binding.
  if (s.size() == 5 && s[0] == "api" && s[1] == "v1" && s[2] == "namespaces" &&
      s[4] == "bindings") {
    if (request.method != "POST") return methodNotAllowed();
    auto body = decode(request);
    if (!body) return error(body.error());
    const std::string pod = meta::name(*body);
    CreateOptions options;
    options.dryRun = request.param("dryRun").has_value();
    auto bound = server.createSubresource({"", "v1", "pods"}, s[3], pod, "binding",
                                          std::move(*body), options);
    if (!bound) return error(bound.error());
    const int code =
        bound->is_object() && bound->value("code", 0) > 0 ? bound->value("code", 0) : 201;
    return json(code, *bound);
  }
  // /api/v1/namespaces/<ns>/serviceaccounts/<name>/token
  if (s.size() == 7 && s[0] == "api" && s[1] == "v1" && s[2] == "namespaces" &&
      s[4] == "serviceaccounts" && s[6] == "token") {
    if (request.method != "POST") return methodNotAllowed();
    return tokenRequest(server, request, s[3], s[5]);
  }
  if (s.size() < 4 || s[0] != "apis" || s[2] != "v1") return std::nullopt;
  const std::string& group = s[1];
  if (group != "authorization.k8s.io" && group != "authentication.k8s.io") return std::nullopt;
  std::string ns;
  std::string resource;
  if (s.size() == 4) {
    resource = s[3];
  } else if (s.size() == 6 && s[3] == "namespaces") {
    ns = s[4];
    resource = s[5];
    if (resource != "localsubjectaccessreviews") return std::nullopt;
  } else {
    return std::nullopt;
  }
  const bool post = request.method == "POST";
  if (post && isReviewResource(group, resource)) {
    if (auto refused = refuseUnlessAllowed(server, group, resource, ns)) return refused;
  }
  if (group == "authorization.k8s.io") {
    if (resource == "selfsubjectaccessreviews") {
      return post ? accessReview(server, request, "SelfSubjectAccessReview", "")
                  : methodNotAllowed();
    }
    if (resource == "subjectaccessreviews") {
      return post ? accessReview(server, request, "SubjectAccessReview", "") : methodNotAllowed();
    }
    if (resource == "localsubjectaccessreviews" && !ns.empty()) {
      return post ? accessReview(server, request, "LocalSubjectAccessReview", ns)
                  : methodNotAllowed();
    }
    if (resource == "selfsubjectrulesreviews") {
      return post ? rulesReview(server, request) : methodNotAllowed();
    }
    return std::nullopt;
  }
  if (resource == "selfsubjectreviews") {
    return post ? selfSubjectReview(request) : methodNotAllowed();
  }
  if (resource == "tokenreviews") return post ? tokenReview(server, request) : methodNotAllowed();
  return std::nullopt;
}

}  // namespace fakekube
