// Interceptor: the one point that sees every request before and after the server acts.
//
// Fault injection, request counting and tracing hang here. `before` may fail a request without
// touching the store; `after` sees the outcome (nullopt = success) of a request whose write has
// already committed, and may set an error in its place — which is how a test loses the response
// of a successful write.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fakekube/api/group_version.h"
#include "fakekube/api/json.h"
#include "fakekube/api/status.h"
#include "fakekube/apiserver/options.h"
#include "fakekube/auth/user_info.h"

namespace fakekube {

enum class Verb { Create, Get, List, Update, Patch, Delete, DeleteCollection, Watch };
const char* verbName(Verb verb);  // "create", "get", ... as in Kubernetes audit logs

struct Request {
  Verb verb = Verb::Get;
  GroupVersionResource resource;
  std::string subresource;  // "", "status", "finalize"
  std::string ns;
  std::string name;
  const Json* body = nullptr;  // create / update
  std::string_view patch;      // patch
  PatchType patchType = PatchType::Merge;
  bool dryRun = false;
  // Who asks (auth/user_info.h): the user scoped by the caller, or nullptr for the server's own
  // requests.
  const UserInfo* user = nullptr;
};

class Interceptor {
 public:
  virtual ~Interceptor() = default;
  // Returning a Status fails the request with it; nothing is written.
  virtual std::optional<Status> before(const Request& request) { return std::nullopt; }
  // Runs after the server acted. `error` is the failure the caller will receive, or nullopt on
  // success; setting it makes the caller receive that error instead of the result. A request the
  // authorizer refused (403, docs/rbac.md) reaches after() only, with that refusal.
  virtual void after(const Request& request, std::optional<Status>& error) {}
};

}  // namespace fakekube
