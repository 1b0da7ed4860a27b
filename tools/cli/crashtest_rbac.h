// `fakekube crashtest --rbac FILE...`: the KubeRay operator runs as its ServiceAccount
// (system:serviceaccount:ray-system:kuberay-operator) bound to the files' roles in every run,
// and one access audit collects the runs (fixtures/access_audit.h). After the rows, the report:
//   - the least role that allows what the operator did in any run (controller-gen's role.yaml),
//   - what it did that the files do not allow (each a 403 it met),
//   - what the files grant that no run used,
//   - the rules only faulted runs needed (a recovery path: no clean run made those requests).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"
#include "fakekube/auth/user_info.h"
#include "fixtures/access_audit.h"
#include "fixtures/test_cluster.h"
#include "tools/cli/commands.h"

namespace fakekube::cli {

struct CrashtestRbac {
  UserInfo user;
  std::vector<Json> documents;
  std::shared_ptr<AccessAudit> audit;
  RunAsServiceAccount runAs;
};

// nullopt without --rbac; 400 when a file cannot be read or the files hold no Role or
// ClusterRole.
Result<std::optional<CrashtestRbac>> crashtestRbac(const CrashtestOptions& options);

// The report described above.
std::string rbacReport(const CrashtestRbac& rbac);

}  // namespace fakekube::cli
