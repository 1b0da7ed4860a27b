#include "fakekube/auth/user_info.h"

#include <algorithm>

namespace fakekube {
namespace {

thread_local const UserInfo* scopedRequestUser = nullptr;

}  // namespace

bool UserInfo::inGroup(std::string_view group) const {
  return std::find(groups.begin(), groups.end(), group) != groups.end();
}

UserInfo authenticatedUser(std::string name, std::vector<std::string> groups) {
  UserInfo user;
  user.name = std::move(name);
  user.groups = std::move(groups);
  if (!user.inGroup(users::kAllAuthenticated)) {
    user.groups.emplace_back(users::kAllAuthenticated);
  }
  return user;
}

UserInfo serviceAccountUser(std::string_view ns, std::string_view name) {
  UserInfo user;
  user.name.append(users::kServiceAccountPrefix).append(ns).append(":").append(name);
  user.groups = {std::string(users::kServiceAccountsGroup),
                 std::string(users::kServiceAccountsGroup) + ":" + std::string(ns),
                 std::string(users::kAllAuthenticated)};
  return user;
}

std::optional<std::pair<std::string, std::string>> serviceAccountOf(std::string_view userName) {
  if (!userName.starts_with(users::kServiceAccountPrefix)) return std::nullopt;
  std::string_view rest = userName.substr(users::kServiceAccountPrefix.size());
  auto colon = rest.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == rest.size()) {
    return std::nullopt;
  }
  std::string_view name = rest.substr(colon + 1);
  if (name.find(':') != std::string_view::npos) return std::nullopt;
  return std::pair{std::string(rest.substr(0, colon)), std::string(name)};
}

const UserInfo& loopbackUser() {
  static const UserInfo user =
      authenticatedUser(std::string(users::kApiServerUser), {std::string(users::kSystemMasters)});
  return user;
}

RequestUserScope::RequestUserScope(const UserInfo* user) : previous_(scopedRequestUser) {
  scopedRequestUser = user;
}

RequestUserScope::~RequestUserScope() { scopedRequestUser = previous_; }

const UserInfo* currentRequestUser() { return scopedRequestUser; }

}  // namespace fakekube
