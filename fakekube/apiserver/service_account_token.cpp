// ServiceAccount tokens: the TokenRequest subresource (POST serviceaccounts/<name>/token,
// `kubectl create token`) and the authenticator of the tokens it issues.
//
// A token is a JWT shaped as kube-apiserver's (pkg/serviceaccount/claims.go): a header, the
// claims (aud, exp, iat, iss, jti, nbf, sub and the kubernetes.io claims naming the namespace and
// the ServiceAccount's name and uid), and a signature; a user can decode it as a real one. The
// signature is HMAC-SHA256 (alg HS256) with a key of the server's own, where kube-apiserver signs
// with RS256 and --service-account-signing-key-file: no client verifies the signature itself,
// they hand the token back to the server (or to a TokenReview).
//
// The key is made on the first TokenRequest, at random whatever the server's seed, and kept in the
// store, under a key that no resource lists or watches: a file-backed store (`fakekube serve --db`)
// keeps it, so the tokens it issued authenticate again after a restart. A token stops
// authenticating when it expires on the server's clock, or when its ServiceAccount is deleted (a
// ServiceAccount made again under the same name has another uid), as kube-apiserver's service
// account token validator checks.
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <nlohmann/json.hpp>

#include "fakekube/api/internal/base64.h"
#include "fakekube/api/internal/json_decode.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/json_writer.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/apiserver/internal/api_server_impl.h"

namespace fakekube {

namespace {

// Where the signing key lives in the store: "<group>/<resource>/<ns>/<name>" of no served kind.
constexpr std::string_view kSigningKeyStoreKey = "fakekube.io/signingkeys//service-account-token";
constexpr std::string_view kTokenIssuer = "https://kubernetes.default.svc.cluster.local";
constexpr std::int64_t kDefaultTokenSeconds = 3600;  // SetDefaults_TokenRequestSpec
constexpr std::int64_t kMinTokenSeconds = 10 * 60;   // ValidateTokenRequest
constexpr std::int64_t kMaxTokenSeconds = std::int64_t{1} << 32;
// The user extra kube-apiserver adds for a token with a jti (ServiceAccountTokenJTI).
constexpr std::string_view kCredentialIdExtra = "authentication.kubernetes.io/credential-id";

std::string tokenBase64Url(std::string_view data) {
  std::string text = base64Encode(data);
  for (auto& c : text) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  while (!text.empty() && text.back() == '=') text.pop_back();
  return text;
}

std::optional<std::string> tokenFromBase64Url(std::string_view text) {
  if (text.find_first_of("+/=") != std::string_view::npos || text.size() % 4 == 1) {
    return std::nullopt;
  }
  std::string padded(text);
  for (auto& c : padded) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (padded.size() % 4 != 0) padded.push_back('=');
  return base64Decode(padded);
}

std::string hmacSha256(std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest, &length);
  return std::string(reinterpret_cast<const char*>(digest), length);
}

// Compares in time independent of where the texts differ.
bool sameSignature(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char difference = 0;
  for (std::size_t i = 0; i < a.size(); ++i) difference |= a[i] ^ b[i];
  return difference == 0;
}

std::int64_t unixSeconds(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

std::string signedToken(std::string_view key, const Json& claims) {
  const std::string signedPart = tokenBase64Url(R"({"alg":"HS256","kid":"fakekube"})") + "." +
                                 tokenBase64Url(toJsonText(claims));
  return signedPart + "." + tokenBase64Url(hmacSha256(key, signedPart));
}

// The claims of a token signed with `key`; nullopt when it is not one.
std::optional<Json> verifiedClaims(std::string_view key, std::string_view token) {
  const auto first = token.find('.');
  const auto last = token.rfind('.');
  if (first == std::string_view::npos || first == last) return std::nullopt;
  const std::string_view signedPart = token.substr(0, last);
  auto signature = tokenFromBase64Url(token.substr(last + 1));
  if (!signature || !sameSignature(*signature, hmacSha256(key, signedPart))) return std::nullopt;
  auto payload = tokenFromBase64Url(token.substr(first + 1, last - first - 1));
  if (!payload) return std::nullopt;
  auto claims = parseJsonText(*payload);
  if (!claims || !claims->is_object()) return std::nullopt;
  return std::move(*claims);
}

std::string stringAt(const Json& document, std::initializer_list<std::string_view> path) {
  const Json& value = jsonAt(document, path);
  return value.is_string() ? value.get<std::string>() : std::string();
}

// ValidateTokenRequest, and the checks of the body's name and namespace against the URL's.
std::optional<Status> checkTokenRequest(const Json& body, std::string_view ns,
                                        std::string_view name, std::int64_t& expirationSeconds) {
  const std::string bodyName = meta::name(body);
  if (!bodyName.empty() && bodyName != name) {
    return Status::invalid("authentication.k8s.io", "TokenRequest", name,
                           {FieldError::invalidString("metadata.name", bodyName,
                                                      "must match the service account name "
                                                      "if specified")});
  }
  const std::string bodyNamespace = meta::namespace_(body);
  if (!bodyNamespace.empty() && bodyNamespace != ns) {
    return Status::invalid("authentication.k8s.io", "TokenRequest", name,
                           {FieldError::invalidString("metadata.namespace", bodyNamespace,
                                                      "must match the service account "
                                                      "namespace if specified")});
  }
  const Json& requested = jsonAt(body, {"spec", "expirationSeconds"});
  if (requested.is_null()) return std::nullopt;
  if (!requested.is_number_integer()) {
    return Status::badRequest(
        "json: cannot unmarshal into Go struct field TokenRequestSpec.spec.expirationSeconds of "
        "type int64");
  }
  expirationSeconds = requested.get<std::int64_t>();
  FieldErrors errors;
  if (expirationSeconds < kMinTokenSeconds) {
    errors.push_back(FieldError::invalid("spec.expirationSeconds", requested.dump(),
                                         "may not specify a duration less than 10 minutes"));
  }
  if (expirationSeconds > kMaxTokenSeconds) {
    errors.push_back(FieldError::invalid("spec.expirationSeconds", requested.dump(),
                                         "may not specify a duration larger than 2^32 seconds"));
  }
  if (errors.empty()) return std::nullopt;
  return Status::invalid("authentication.k8s.io", "TokenRequest", "", errors);
}

}  // namespace

std::string ApiServer::Impl::storedSigningKey() const {
  ObjectPtr stored = store_->get(kSigningKeyStoreKey);
  if (stored == nullptr) return {};
  auto key = base64Decode(stringAt(*stored, {"key"}));
  return key ? *key : std::string();
}

Result<std::string> ApiServer::Impl::serviceAccountSigningKey() {
  if (std::string key = storedSigningKey(); !key.empty()) return key;
  // From OpenSSL's generator, not the server's seeded one: a seed makes a run repeatable, and must
  // not make another server's tokens (or a guessed one) authenticate here.
  std::string key(32, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(key.data()), static_cast<int>(key.size())) != 1) {
    return tl::unexpected(Status::internal("cannot make the service account signing key"));
  }
  Json stored = {{"metadata", {{"name", "service-account-token"}}}, {"key", base64Encode(key)}};
  auto put = store_->put(std::string(kSigningKeyStoreKey), std::move(stored), EventType::Added);
  if (!put) return tl::unexpected(put.error());
  return key;
}

Result<ObjectPtr> ApiServer::Impl::issueServiceAccountToken(const GroupVersionResource& gvr,
                                                            std::string_view ns,
                                                            std::string_view name, Json body) {
  auto t = target(gvr, ns);
  if (!t) return tl::unexpected(t.error());
  if (!body.is_object()) {
    return tl::unexpected(Status::badRequest("the body of the request must be a JSON object"));
  }
  std::lock_guard lock(mu_);
  ObjectPtr account = store_->get(key(*t->info, t->ns, name));
  if (account == nullptr) return tl::unexpected(Status::notFound(t->info->groupResource(), name));
  std::int64_t expirationSeconds = kDefaultTokenSeconds;
  if (auto refused = checkTokenRequest(body, t->ns, name, expirationSeconds)) {
    return tl::unexpected(*refused);
  }
  auto signingKey = serviceAccountSigningKey();
  if (!signingKey) return tl::unexpected(signingKey.error());

  Json audiences = jsonAt(body, {"spec", "audiences"});
  if (!audiences.is_array() || audiences.empty()) audiences = Json::array({kTokenIssuer});
  const TimePoint issued = clock_.now();
  const TimePoint expires = issued + std::chrono::seconds(expirationSeconds);
  const Json claims = {
      {"aud", audiences},
      {"exp", unixSeconds(expires)},
      {"iat", unixSeconds(issued)},
      {"iss", kTokenIssuer},
      {"jti", newUid()},
      {"kubernetes.io",
       {{"namespace", t->ns}, {"serviceaccount", {{"name", name}, {"uid", meta::uid(*account)}}}}},
      {"nbf", unixSeconds(issued)},
      {"sub", std::string(users::kServiceAccountPrefix) + t->ns + ":" + std::string(name)}};

  // The request as the answer carries it, its status filled in (TokenREST.Create).
  Json answer = std::move(body);
  answer["apiVersion"] = "authentication.k8s.io/v1";
  answer["kind"] = "TokenRequest";
  Json& metadata = answer["metadata"];
  if (!metadata.is_object()) metadata = Json::object();
  metadata["name"] = name;
  metadata["namespace"] = t->ns;
  metadata["creationTimestamp"] = formatRfc3339(issued);
  Json& spec = answer["spec"];
  if (!spec.is_object()) spec = Json::object();
  spec["audiences"] = audiences;
  spec["expirationSeconds"] = expirationSeconds;
  if (!spec.contains("boundObjectRef")) spec["boundObjectRef"] = nullptr;
  answer["status"] = {{"token", signedToken(*signingKey, claims)},
                      {"expirationTimestamp", formatRfc3339(expires)}};
  return std::make_shared<const Json>(std::move(answer));
}

std::optional<UserInfo> ApiServer::Impl::authenticateToken(std::string_view token) const {
  std::lock_guard lock(mu_);
  auto serviceAccounts = registry_.find("", "serviceaccounts");
  if (serviceAccounts == nullptr) return std::nullopt;
  const std::string signingKey = storedSigningKey();
  if (signingKey.empty()) return std::nullopt;  // no token was ever issued
  auto claims = verifiedClaims(signingKey, token);
  if (!claims) return std::nullopt;
  const Json& expiry = jsonAt(*claims, {"exp"});
  const Json& notBefore = jsonAt(*claims, {"nbf"});
  const std::int64_t now = unixSeconds(clock_.now());
  if (!expiry.is_number_integer() || now >= expiry.get<std::int64_t>()) return std::nullopt;
  if (notBefore.is_number_integer() && now < notBefore.get<std::int64_t>()) return std::nullopt;
  const std::string ns = stringAt(*claims, {"kubernetes.io", "namespace"});
  const std::string name = stringAt(*claims, {"kubernetes.io", "serviceaccount", "name"});
  const std::string uid = stringAt(*claims, {"kubernetes.io", "serviceaccount", "uid"});
  if (ns.empty() || name.empty()) return std::nullopt;
  ObjectPtr account = store_->get(key(*serviceAccounts, ns, name));
  if (account == nullptr || meta::isDeleting(*account) || meta::uid(*account) != uid) {
    return std::nullopt;
  }
  UserInfo user = serviceAccountUser(ns, name);
  user.uid = uid;
  if (const std::string jti = stringAt(*claims, {"jti"}); !jti.empty()) {
    user.extra[std::string(kCredentialIdExtra)] = {"JTI=" + jti};
  }
  return user;
}

}  // namespace fakekube
