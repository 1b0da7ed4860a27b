// UserInfo: who makes a request, as authentication hands it to authorization
// (k8s.io/apiserver/pkg/authentication/user.Info): a name, a uid, groups and extra values.
//
// Go's API server carries the user in the request's context. A C++ call has no context, so the
// caller that knows who asks scopes it around the calls it makes: an InProcessClient built with
// a user, the HTTP server once it has authenticated a request. The ApiServer reads the scoped
// user into `Request::user`, where the authorizer and the interceptors see it. A call made with
// no user scoped is the server's own (the loopback identity of kube-apiserver's in-process
// clients, in `system:masters`): what every request was before identities existed.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fakekube {

struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;

  bool operator==(const UserInfo&) const = default;
  bool inGroup(std::string_view group) const;
};

// The well-known names of k8s.io/apiserver/pkg/authentication/user.
namespace users {
inline constexpr std::string_view kSystemMasters = "system:masters";
inline constexpr std::string_view kAllAuthenticated = "system:authenticated";
inline constexpr std::string_view kAllUnauthenticated = "system:unauthenticated";
inline constexpr std::string_view kAnonymous = "system:anonymous";
inline constexpr std::string_view kApiServerUser = "system:apiserver";
inline constexpr std::string_view kServiceAccountPrefix = "system:serviceaccount:";
inline constexpr std::string_view kServiceAccountsGroup = "system:serviceaccounts";
}  // namespace users

// A user with `groups` and, as an authenticator adds it, system:authenticated.
UserInfo authenticatedUser(std::string name, std::vector<std::string> groups = {});
// A ServiceAccount's identity: system:serviceaccount:<ns>:<name>, in the groups
// system:serviceaccounts, system:serviceaccounts:<ns> and system:authenticated.
UserInfo serviceAccountUser(std::string_view ns, std::string_view name);
// {namespace, name} of a ServiceAccount user name; nullopt for any other name.
std::optional<std::pair<std::string, std::string>> serviceAccountOf(std::string_view userName);
// The server's own identity (system:apiserver in system:masters).
const UserInfo& loopbackUser();

// Makes `user` the identity of the requests this thread makes while the scope lives (nullptr:
// the server's own). Scopes nest; each restores the one it replaced.
class RequestUserScope {
 public:
  explicit RequestUserScope(const UserInfo* user);
  ~RequestUserScope();
  RequestUserScope(const RequestUserScope&) = delete;
  RequestUserScope& operator=(const RequestUserScope&) = delete;

 private:
  const UserInfo* previous_;
};

// The user scoped on this thread, or nullptr for the server's own requests.
const UserInfo* currentRequestUser();

}  // namespace fakekube
