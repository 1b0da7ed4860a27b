#include "fakekube/http/internal/authentication.h"

#include <cctype>

#include "fakekube/apiserver/api_server.h"

namespace fakekube {

namespace {

bool schemeEqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::string_view trimHeaderSpaces(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

}  // namespace

const UserInfo& clusterAdminUser() {
  static const UserInfo admin =
      authenticatedUser("kubernetes-admin", {std::string(users::kSystemMasters)});
  return admin;
}

Result<UserInfo> authenticateRequest(const ApiServer& server, std::string_view serverToken,
                                     std::string_view authorization) {
  authorization = trimHeaderSpaces(authorization);
  if (authorization.empty()) {
    if (serverToken.empty()) return clusterAdminUser();
    return tl::unexpected(Status::unauthorized());
  }
  // "Bearer <token>", the scheme in any case (the bearertoken authenticator).
  const auto space = authorization.find(' ');
  if (space == std::string_view::npos ||
      !schemeEqualsIgnoringCase(authorization.substr(0, space), "bearer")) {
    return tl::unexpected(Status::unauthorized());
  }
  const std::string_view token = trimHeaderSpaces(authorization.substr(space + 1));
  if (token.empty()) return tl::unexpected(Status::unauthorized());
  if (!serverToken.empty() && token == serverToken) return clusterAdminUser();
  if (auto user = server.authenticateToken(token)) return std::move(*user);
  return tl::unexpected(Status::unauthorized());
}

}  // namespace fakekube
