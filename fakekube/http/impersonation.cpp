#include "fakekube/http/internal/impersonation.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "fakekube/apiserver/api_server.h"
#include "fakekube/auth/authorizer.h"

namespace fakekube {

namespace {

constexpr std::string_view kImpersonateUser = "impersonate-user";
constexpr std::string_view kImpersonateGroup = "impersonate-group";
constexpr std::string_view kImpersonateUid = "impersonate-uid";
constexpr std::string_view kImpersonateExtraPrefix = "impersonate-extra-";

std::string lowerCase(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// url.PathUnescape; the key as sent when it is not validly escaped.
std::string unescapeExtraKey(const std::string& key) {
  std::string out;
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (key[i] != '%') {
      out += key[i];
      continue;
    }
    if (i + 2 >= key.size() || !std::isxdigit(static_cast<unsigned char>(key[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(key[i + 2]))) {
      return key;
    }
    out += static_cast<char>(std::stoi(key.substr(i + 1, 2), nullptr, 16));
    i += 2;
  }
  return out;
}

// One thing the request asks to impersonate (upstream's ObjectReference of kind ServiceAccount,
// User, Group, UserExtra or UID).
struct ImpersonationRequest {
  std::string kind;
  std::string ns;
  std::string name;
  std::string apiVersion;
  std::string fieldPath;  // the extra's key

  // Go's %v of the v1.ObjectReference, as the 400 message prints it.
  std::string goValue() const {
    return fmt::format("{{{} {} {}  {}  {}}}", kind, ns, name, apiVersion, fieldPath);
  }
};

// buildImpersonationRequests: the user, the groups, the extras and the uid, in that order.
Result<std::vector<ImpersonationRequest>> impersonationRequestsOf(const RequestHeaders& headers) {
  std::vector<ImpersonationRequest> requests;
  std::string user;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extras;  // key order (Go's map order is random)
  for (const auto& [name, value] : headers) {
    const std::string header = lowerCase(name);
    if (header == kImpersonateUser) {
      if (user.empty()) user = value;
    } else if (header == kImpersonateGroup) {
      groups.push_back(value);
    } else if (header == kImpersonateUid) {
      if (uid.empty()) uid = value;
    } else if (header.starts_with(kImpersonateExtraPrefix)) {
      extras[unescapeExtraKey(header.substr(kImpersonateExtraPrefix.size()))].push_back(value);
    }
  }
  if (!user.empty()) {
    if (auto account = serviceAccountOf(user)) {
      requests.push_back({"ServiceAccount", account->first, account->second, "", ""});
    } else {
      requests.push_back({"User", "", user, "", ""});
    }
  }
  for (const auto& group : groups) requests.push_back({"Group", "", group, "", ""});
  for (const auto& [key, values] : extras) {
    for (const auto& value : values) {
      requests.push_back({"UserExtra", "", value, "authentication.k8s.io/v1", key});
    }
  }
  if (!uid.empty()) requests.push_back({"UID", "", uid, "authentication.k8s.io/v1", ""});
  if (user.empty() && !requests.empty()) {
    std::vector<std::string> values;
    for (const auto& request : requests) values.push_back(request.goValue());
    return tl::unexpected(Status::badRequest(
        fmt::format("requested [{}] without impersonating a user", fmt::join(values, " "))));
  }
  return requests;
}

// What the requester must be allowed to impersonate `request`.
AuthorizationAttributes impersonateAttributes(const UserInfo& requester,
                                              const ImpersonationRequest& request) {
  AuthorizationAttributes attributes;
  attributes.user = &requester;
  attributes.verb = "impersonate";
  attributes.resourceRequest = true;
  attributes.ns = request.ns;
  attributes.name = request.name;
  attributes.apiVersion = "v1";
  if (request.kind == "ServiceAccount") {
    attributes.resource = "serviceaccounts";
  } else if (request.kind == "User") {
    attributes.resource = "users";
  } else if (request.kind == "Group") {
    attributes.resource = "groups";
  } else if (request.kind == "UserExtra") {
    attributes.apiGroup = "authentication.k8s.io";
    attributes.resource = "userextras";
    attributes.subresource = request.fieldPath;
  } else {
    attributes.apiGroup = "authentication.k8s.io";
    attributes.resource = "uids";
  }
  return attributes;
}

bool containsGroup(const std::vector<std::string>& groups, std::string_view group) {
  return std::find(groups.begin(), groups.end(), group) != groups.end();
}

}  // namespace

bool isImpersonationHeader(std::string_view name) {
  return lowerCase(name).starts_with("impersonate-");
}

Result<UserInfo> impersonatedUser(const ApiServer& server, const UserInfo& requester,
                                  const RequestHeaders& headers) {
  auto requests = impersonationRequestsOf(headers);
  if (!requests) return tl::unexpected(requests.error());
  if (requests->empty()) return requester;

  // Groups given are the authority; a ServiceAccount's own groups otherwise.
  bool groupsSpecified = false;
  for (const auto& request : *requests) groupsSpecified |= request.kind == "Group";
  UserInfo user;
  for (const auto& request : *requests) {
    const AuthorizationAttributes attributes = impersonateAttributes(requester, request);
    const AuthorizationResult decision = server.authorize(attributes);
    if (!decision.allowed()) return tl::unexpected(forbidden(attributes, decision.reason));
    if (request.kind == "ServiceAccount") {
      user.name = std::string(users::kServiceAccountPrefix) + request.ns + ":" + request.name;
      if (!groupsSpecified) {
        user.groups = {std::string(users::kServiceAccountsGroup),
                       std::string(users::kServiceAccountsGroup) + ":" + request.ns};
      }
    } else if (request.kind == "User") {
      user.name = request.name;
    } else if (request.kind == "Group") {
      user.groups.push_back(request.name);
    } else if (request.kind == "UserExtra") {
      user.extra[request.fieldPath].push_back(request.name);
    } else {
      user.uid = request.name;
    }
  }
  if (user.name != users::kAnonymous) {
    if (!containsGroup(user.groups, users::kAllAuthenticated) &&
        !containsGroup(user.groups, users::kAllUnauthenticated)) {
      user.groups.emplace_back(users::kAllAuthenticated);
    }
  } else if (!containsGroup(user.groups, users::kAllUnauthenticated)) {
    user.groups.emplace_back(users::kAllUnauthenticated);
  }
  return user;
}

}  // namespace fakekube
