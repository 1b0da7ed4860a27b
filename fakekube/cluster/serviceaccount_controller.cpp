#include "fakekube/cluster/serviceaccount_controller.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/runtime/builder.h"

namespace fakekube {

namespace {

bool isActive(const Json& ns) {
  if (meta::isDeleting(ns)) return false;
  auto status = ns.find("status");
  return status == ns.end() || !status->is_object() || status->value("phase", "") != "Terminating";
}

}  // namespace

Result<Controller*> addServiceAccountController(Manager& manager,
                                                ServiceAccountControllerOptions options) {
  const auto names = options.serviceAccounts;
  // A managed ServiceAccount's events (its deletion above all) go to its namespace.
  auto accountHandler = enqueueRequestsFromMapFunc([names](const Json& account) {
    std::vector<ReconcileRequest> out;
    if (std::find(names.begin(), names.end(), meta::name(account)) != names.end()) {
      out.push_back({"", meta::namespace_(account)});
    }
    return out;
  });
  auto reconcile = [&manager, names](const ReconcileRequest& request) -> ReconcileOutcome {
    auto ns = manager.cache().getShared(kNamespaces, "", request.name);
    if (!ns) return ignoreNotFound(ns.error());
    if (!isActive(**ns)) return ReconcileResult{};
    for (const auto& name : names) {
      auto existing = manager.cache().getShared(kServiceAccounts, request.name, name);
      if (existing) continue;
      if (!isNotFound(existing.error())) return reconcileError(existing.error());
      Json account = {{"apiVersion", "v1"},
                      {"kind", "ServiceAccount"},
                      {"metadata", {{"name", name}, {"namespace", request.name}}}};
      auto created = manager.client().create(kServiceAccounts, std::move(account));
      // AlreadyExists: the cache lags; a namespace that began terminating meanwhile is Forbidden.
      if (!created && !isAlreadyExists(created.error()) && !isForbidden(created.error())) {
        return reconcileError(created.error());
      }
    }
    return ReconcileResult{};
  };
  return ControllerBuilder(manager)
      .named("serviceaccount")
      .forResource(kNamespaces)
      .watches(kServiceAccounts, std::move(accountHandler))
      .complete(std::move(reconcile));
}

}  // namespace fakekube
