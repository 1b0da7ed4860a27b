// AuthorizationMemo: the RBAC answers a thread has been given, remembered until the policy
// changes.
//
// RBAC's answer is a function of the request's attributes and of the roles and bindings stored:
// kube-apiserver computes it afresh for every request by walking the user's bindings and their
// rules. An operator asks the same few questions over and over (get this pod, update that
// RayCluster's status, create an Event), so the API server remembers each answer together with
// the generation of the policy it was computed from. Every committed write of a Role,
// ClusterRole, RoleBinding or ClusterRoleBinding (and every change of a resource's scope) moves
// the generation on, which forgets them all at once: an answer is never older than the policy.
//
// The memo belongs to the thread, so a request whose answer is remembered takes no lock and
// shares no memory with other threads but the generation counter. A slot is chosen by a hash of
// the lengths and a few bytes of each attribute (cheap to compute); the key is then compared in
// full, the user's name and groups included, so a collision or a reused UserInfo address costs a
// recomputation, never a wrong answer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/auth/authorizer.h"
#include "fakekube/auth/user_info.h"

namespace fakekube {

// What RBAC reads of a request, over the caller's strings: the key of a remembered answer.
struct AuthorizationQuery {
  const UserInfo* user = nullptr;
  bool resourceRequest = true;
  // A request's own key (its namespace as sent, its name even on a create) rather than its
  // AuthorizationAttributes': the two forms of one key may mean different attributes.
  bool requestForm = false;
  std::string_view verb, ns, apiGroup, resource, subresource, name, path;
};

AuthorizationQuery authorizationQueryOf(const AuthorizationAttributes& attributes);

class AuthorizationMemo {
 public:
  // The memo of the calling thread.
  static AuthorizationMemo& ofThisThread();

  // The answer remembered for `query` from generation `generation` of server `serverId`'s policy:
  // the one for every name, else the one for the query's name; nullptr when there is none.
  const AuthorizationResult* find(std::uint64_t serverId, std::uint64_t generation,
                                  const AuthorizationQuery& query) const;
  // Remembers `result` as the answer to `query` at that generation, for every name unless
  // `nameMatters`.
  void remember(std::uint64_t serverId, std::uint64_t generation, const AuthorizationQuery& query,
                bool nameMatters, const AuthorizationResult& result);

  // A number no other ApiServer of the process has (a server's address may be reused).
  static std::uint64_t newServerId();

 private:
  static constexpr std::size_t kSlots = 256;  // a power of two
  static constexpr std::size_t kAttributes = 7;

  struct Entry {
    std::uint64_t serverId = 0;  // 0: empty
    std::uint64_t generation = 0;
    const UserInfo* user = nullptr;
    std::string userName;
    std::vector<std::string> groups;
    bool resourceRequest = true;
    bool requestForm = false;
    bool anyName = false;
    std::array<std::string, kAttributes> attributes;  // in AuthorizationQuery's order
    AuthorizationResult result;
  };

  // An answer that holds for every object name (no rule looked at names one) is remembered under
  // the query without its name, marked `anyName`.
  static std::size_t slotOf(const AuthorizationQuery& query, bool anyName);
  const AuthorizationResult* findExactly(std::uint64_t serverId, std::uint64_t generation,
                                         const AuthorizationQuery& query, bool anyName) const;
  static bool matches(const Entry& entry, const AuthorizationQuery& query, bool anyName);

  std::vector<Entry> entries_ = std::vector<Entry>(kSlots);
};

}  // namespace fakekube
