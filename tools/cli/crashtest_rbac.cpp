#include "tools/cli/crashtest_rbac.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "fakekube/api/object_meta.h"
#include "fixtures/least_role.h"
#include "fixtures/manifests.h"
#include "fixtures/role_diff.h"

namespace fakekube::cli {

Result<std::optional<CrashtestRbac>> crashtestRbac(const CrashtestOptions& options) {
  if (options.rbac.empty()) return std::optional<CrashtestRbac>();
  CrashtestRbac rbac;
  rbac.runAs = {.ns = "ray-system", .name = "kuberay-operator", .roleFiles = options.rbac};
  rbac.user = serviceAccountUser(rbac.runAs.ns, rbac.runAs.name);
  bool roles = false;
  for (const auto& path : options.rbac) {
    auto decoded = readManifestFile(path);
    if (!decoded) {
      return tl::unexpected(Status::badRequest(fmt::format("--rbac: {}", decoded.error().message)));
    }
    for (auto& object : *decoded) {
      const std::string kind = meta::kind(object);
      roles |= kind == "Role" || kind == "ClusterRole";
      rbac.documents.push_back(std::move(object));
    }
  }
  if (!roles) {
    return tl::unexpected(Status::badRequest("--rbac: the files hold no Role or ClusterRole"));
  }
  rbac.audit = std::make_shared<AccessAudit>(AccessAudit::Options{.users = {rbac.user.name}});
  return std::optional<CrashtestRbac>(std::move(rbac));
}

std::string rbacReport(const CrashtestRbac& rbac) {
  const auto accesses = rbac.audit->accessesOf(rbac.user.name);
  std::string out = fmt::format("RBAC of {} across {} runs ({} distinct accesses, {} refused):\n",
                                rbac.user.name, rbac.audit->runs().size(), accesses.size(),
                                rbac.audit->refusedCount(rbac.user.name));
  out += "the least role allowing what it did:\n";
  out += roleYaml(leastRoles(accesses));
  out += diffRoles(accesses, rbac.user, rbac.documents).str();
  const auto recovery = recoveryOnlyRules(accesses, "clean");
  if (recovery.empty()) {
    out += "used only on recovery paths: none\n";
  } else {
    out += "used only on recovery paths (no clean run needed them):\n";
    out += rulesYaml(recovery);
  }
  return out;
}

}  // namespace fakekube::cli
