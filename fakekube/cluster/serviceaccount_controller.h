// The ServiceAccount controller of kube-controller-manager (pkg/controller/serviceaccount), on a
// Manager: every active namespace has a ServiceAccount named "default" — made when the namespace
// appears, made again when someone deletes it. A namespace being deleted gets none (the server
// would refuse it anyway). Token Secrets are not made (1.24 and later do not either: tokens come
// from serviceaccounts/token).
#pragma once

#include <string>
#include <vector>

#include "fakekube/api/status.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/manager.h"

namespace fakekube {

struct ServiceAccountControllerOptions {
  // The ServiceAccounts each namespace gets (--service-account-names... upstream: "default").
  std::vector<std::string> serviceAccounts = {"default"};
};

// Registers the controller on `manager`; its name is "serviceaccount".
Result<Controller*> addServiceAccountController(Manager& manager,
                                                ServiceAccountControllerOptions options = {});

}  // namespace fakekube
