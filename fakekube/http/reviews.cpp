#include "fakekube/http/reviews.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "fakekube/api/base64.h"
#include "fakekube/api/json_decode.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/json_writer.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/protobuf.h"
#include "fakekube/api/yaml.h"
#include "fakekube/http/media_type.h"
#include "fakekube/http/rest_handler.h"

namespace fakekube {

namespace {

constexpr const char* kAdminUser = "kubernetes-admin";
constexpr const char* kDefaultAudience = "https://kubernetes.default.svc.cluster.local";
constexpr const char* kNotEnforced = "fakekube does not enforce RBAC: every request is allowed";

Json adminUserInfo() {
  return {{"username", kAdminUser},
          {"groups", Json::array({"system:masters", "system:authenticated"})}};
}

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

RestResponse accessReview(const RestRequest& request, const char* kind, const std::string& ns) {
  auto body = decode(request);
  if (!body) return error(body.error());
  if (auto invalid = checkAttributes(*body, kind)) return error(*invalid);
  if (std::string_view(kind) == "SubjectAccessReview" ||
      std::string_view(kind) == "LocalSubjectAccessReview") {
    const Json& user = jsonAt(*body, {"spec", "user"});
    const Json& groups = jsonAt(*body, {"spec", "groups"});
    if ((!user.is_string() || user.get<std::string>().empty()) &&
        (!groups.is_array() || groups.empty())) {
      return error(Status::invalid("authorization.k8s.io", kind, "",
                                   {FieldError::invalid("spec.user,spec.groups", "null",
                                                        "at least one of user or group "
                                                        "must be specified")}));
    }
  }
  if (!ns.empty()) {
    const Json& attributesNs = jsonAt(*body, {"spec", "resourceAttributes", "namespace"});
    if (!attributesNs.is_string() || attributesNs.get<std::string>() != ns) {
      return error(Status::invalid(
          "authorization.k8s.io", kind, "",
          {FieldError::invalid("spec.resourceAttributes.namespace",
                               attributesNs.is_string() ? attributesNs.get<std::string>() : "",
                               "must match metadata.namespace")}));
    }
  }
  Json answer = answerOf(std::move(*body), "authorization.k8s.io/v1", kind);
  if (!ns.empty()) answer["metadata"]["namespace"] = ns;
  answer["status"] = {{"allowed", true}, {"reason", kNotEnforced}};
  return json(201, answer);
}

RestResponse rulesReview(const RestRequest& request) {
  auto body = decode(request);
  if (!body) return error(body.error());
  const Json& ns = jsonAt(*body, {"spec", "namespace"});
  if (!ns.is_string() || ns.get<std::string>().empty()) {
    return error(Status::invalid("authorization.k8s.io", "SelfSubjectRulesReview", "",
                                 {FieldError::required("spec.namespace")}));
  }
  Json answer = answerOf(std::move(*body), "authorization.k8s.io/v1", "SelfSubjectRulesReview");
  answer["status"] = {
      {"resourceRules", Json::array({{{"verbs", Json::array({"*"})},
                                      {"apiGroups", Json::array({"*"})},
                                      {"resources", Json::array({"*"})}}})},
      {"nonResourceRules",
       Json::array({{{"verbs", Json::array({"*"})}, {"nonResourceURLs", Json::array({"*"})}}})},
      {"incomplete", false}};
  return json(201, answer);
}

RestResponse selfSubjectReview(const RestRequest& request) {
  auto body = decode(request);
  if (!body) return error(body.error());
  Json answer = answerOf(std::move(*body), "authentication.k8s.io/v1", "SelfSubjectReview");
  answer["status"] = {{"userInfo", adminUserInfo()}};
  return json(201, answer);
}

// --- service account tokens ---

std::string base64Url(std::string_view data) {
  std::string text = base64Encode(data);
  for (auto& c : text) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  while (!text.empty() && text.back() == '=') text.pop_back();
  return text;
}

std::optional<std::string> fromBase64Url(std::string_view text) {
  std::string padded(text);
  for (auto& c : padded) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (padded.size() % 4 != 0) padded.push_back('=');
  return base64Decode(padded);
}

// FNV-1a, as the token's "signature": it lets a TokenReview tell its own tokens from others'
// without keeping them; it proves nothing.
std::string digest(std::string_view text) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", hash);
}

std::string serviceAccountToken(const Json& claims) {
  const std::string signedPart =
      base64Url(R"({"alg":"RS256","kid":"fakekube"})") + "." + base64Url(toJsonText(claims));
  return signedPart + "." + base64Url(digest(signedPart));
}

// The claims of a token this server issued; nullopt for any other text.
std::optional<Json> claimsOf(const std::string& token) {
  auto first = token.find('.');
  auto last = token.rfind('.');
  if (first == std::string::npos || first == last) return std::nullopt;
  const std::string signedPart = token.substr(0, last);
  if (token.substr(last + 1) != base64Url(digest(signedPart))) return std::nullopt;
  auto payload = fromBase64Url(std::string_view(token).substr(first + 1, last - first - 1));
  if (!payload) return std::nullopt;
  auto claims = parseJsonText(*payload);
  if (claims && claims->is_object()) return std::move(*claims);
  return std::nullopt;
}

RestResponse tokenRequest(ApiServer& server, const RestRequest& request, const std::string& ns,
                          const std::string& name) {
  auto account = server.get({"", "v1", "serviceaccounts"}, ns, name);
  if (!account) return error(account.error());
  auto body = decode(request);
  if (!body) return error(body.error());
  const Json& requested = jsonAt(*body, {"spec", "expirationSeconds"});
  std::int64_t expirationSeconds = 3600;
  if (!requested.is_null()) {
    if (!requested.is_number_integer() || requested.get<std::int64_t>() < 600) {
      return error(Status::invalid("authentication.k8s.io", "TokenRequest", name,
                                   {FieldError::invalid("spec.expirationSeconds", requested.dump(),
                                                        "may not specify a duration less than 10 "
                                                        "minutes")}));
    }
    expirationSeconds = requested.get<std::int64_t>();
  }
  Json audiences = jsonAt(*body, {"spec", "audiences"});
  if (!audiences.is_array() || audiences.empty()) audiences = Json::array({kDefaultAudience});

  const TimePoint now = server.clock().now();
  const TimePoint expires = now + std::chrono::seconds(expirationSeconds);
  const auto unix = [](TimePoint t) {
    return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
  };
  Json claims = {
      {"aud", audiences},
      {"exp", unix(expires)},
      {"iat", unix(now)},
      {"iss", kDefaultAudience},
      {"kubernetes.io",
       {{"namespace", ns}, {"serviceaccount", {{"name", name}, {"uid", meta::uid(**account)}}}}},
      {"nbf", unix(now)},
      {"sub", fmt::format("system:serviceaccount:{}:{}", ns, name)}};
  Json answer = answerOf(std::move(*body), "authentication.k8s.io/v1", "TokenRequest");
  answer["metadata"]["name"] = name;
  answer["metadata"]["namespace"] = ns;
  answer["metadata"]["creationTimestamp"] = formatRfc3339(now);
  answer["spec"]["audiences"] = audiences;
  answer["spec"]["expirationSeconds"] = expirationSeconds;
  if (!answer["spec"].contains("boundObjectRef")) answer["spec"]["boundObjectRef"] = nullptr;
  answer["status"] = {{"token", serviceAccountToken(claims)},
                      {"expirationTimestamp", formatRfc3339(expires)}};
  return json(201, answer);
}

RestResponse tokenReview(const RestRequest& request) {
  auto body = decode(request);
  if (!body) return error(body.error());
  const Json& token = jsonAt(*body, {"spec", "token"});
  if (!token.is_string() || token.get<std::string>().empty()) {
    return error(Status::invalid("authentication.k8s.io", "TokenReview", "",
                                 {FieldError::required("spec.token")}));
  }
  Json answer = answerOf(std::move(*body), "authentication.k8s.io/v1", "TokenReview");
  auto claims = claimsOf(token.get<std::string>());
  if (!claims) {
    answer["status"] = {{"authenticated", false},
                        {"user", Json::object()},
                        {"error", "[invalid bearer token, token lookup failed]"}};
    return json(201, answer);
  }
  const std::string ns = jsonAt(*claims, {"kubernetes.io", "namespace"}).is_string()
                             ? jsonAt(*claims, {"kubernetes.io", "namespace"}).get<std::string>()
                             : "";
  answer["status"] = {
      {"authenticated", true},
      {"user",
       {{"username", (*claims).value("sub", "")},
        {"uid", jsonAt(*claims, {"kubernetes.io", "serviceaccount", "uid"})},
        {"groups", Json::array({"system:serviceaccounts", "system:serviceaccounts:" + ns,
                                "system:authenticated"})}}},
      {"audiences", (*claims)["aud"]}};
  return json(201, answer);
}

RestResponse methodNotAllowed() {
  return error(Status::generic(405, "MethodNotAllowed",
                               "the server does not allow this method on the requested resource"));
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
  if (group == "authorization.k8s.io") {
    if (resource == "selfsubjectaccessreviews") {
      return post ? accessReview(request, "SelfSubjectAccessReview", "") : methodNotAllowed();
    }
    if (resource == "subjectaccessreviews") {
      return post ? accessReview(request, "SubjectAccessReview", "") : methodNotAllowed();
    }
    if (resource == "localsubjectaccessreviews" && !ns.empty()) {
      return post ? accessReview(request, "LocalSubjectAccessReview", ns) : methodNotAllowed();
    }
    if (resource == "selfsubjectrulesreviews") {
      return post ? rulesReview(request) : methodNotAllowed();
    }
    return std::nullopt;
  }
  if (resource == "selfsubjectreviews") {
    return post ? selfSubjectReview(request) : methodNotAllowed();
  }
  if (resource == "tokenreviews") return post ? tokenReview(request) : methodNotAllowed();
  return std::nullopt;
}

}  // namespace fakekube
