#include "tools/cli/crashtest_rayservice.h"

#include <fmt/format.h>

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <utility>

#include "controllers/ray/dashboard_client.h"
#include "controllers/ray/internal/rayservice_types.h"
#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/cluster/cluster.h"

namespace fakekube::cli {
namespace {

// What the API server holds about one RayService: the object, the RayClusters it owns, the
// cluster each of its two Services selects ("" when the Service does not exist).
struct RayServiceView {
  Json service;
  std::vector<Json> clusters;
  std::optional<std::string> headSelects;
  std::optional<std::string> serveSelects;
};

RayServiceView viewRayService(Client& client, const std::string& ns, const std::string& name) {
  RayServiceView view;
  if (auto got = client.get(ray::kRayServices, ns, name)) view.service = std::move(*got);
  const std::string uid = meta::uid(view.service);
  if (auto listed = client.list(ray::kRayClusters, ns)) {
    for (const Json& c : jsonArrayAt(*listed, "items")) {
      auto owner = meta::controllerOf(c);
      if (owner && owner->uid == uid) view.clusters.push_back(c);
    }
  }
  auto selects = [&](const std::string& service) -> std::optional<std::string> {
    auto got = client.get(kServices, ns, service);
    if (!got) return std::nullopt;
    const Json& v = jsonAt(*got, {"spec", "selector", "ray.io/cluster"});
    return v.is_string() ? v.get<std::string>() : std::string();
  };
  view.headSelects = selects(name + "-head-svc");
  view.serveSelects = selects(name + "-serve-svc");
  return view;
}

std::string serviceSelectionText(const std::optional<std::string>& selects) {
  return selects ? "\"" + *selects + "\"" : std::string("(no Service)");
}

// Why the target is not upgraded yet, "" when it is.
std::string notUpgradedBecause(const RayServiceTarget& target, const RayServiceView& view) {
  const std::string active = ray::activeClusterName(view.service);
  std::string version;
  for (const Json& c : view.clusters) {
    if (meta::name(c) != active) continue;
    const Json& v = jsonAt(c, {"spec", "rayVersion"});
    if (v.is_string()) version = v.get<std::string>();
  }
  const bool upgraded =
      ray::isRayServiceConditionTrue(view.service, ray::kRayServiceReady) &&
      version == target.rayVersion && ray::pendingClusterName(view.service).empty() &&
      view.clusters.size() == 1 && view.headSelects == active && view.serveSelects == active;
  if (upgraded) return "";
  return fmt::format(
      "RayService {}/{}: active \"{}\" (rayVersion \"{}\"), pending \"{}\", {} RayClusters, "
      "Services select {} and {}",
      target.namespace_, target.name, active, version, ray::pendingClusterName(view.service),
      view.clusters.size(), serviceSelectionText(view.headSelects),
      serviceSelectionText(view.serveSelects));
}

class ServeConfigPutTally {
 public:
  static ServeConfigPutTally& instance() {
    static ServeConfigPutTally tally;
    return tally;
  }
  void started(const Cluster* cluster, std::uint64_t start) {
    std::lock_guard lock(mu_);
    if (start == 0) runs_[cluster] = {};
    runs_[cluster].restarts = start;
  }
  void put(const Cluster* cluster, const std::string& rayCluster) {
    std::lock_guard lock(mu_);
    ++runs_[cluster].byCluster[rayCluster];
  }
  ServeConfigPuts of(const Cluster* cluster) {
    std::lock_guard lock(mu_);
    return runs_[cluster];
  }

 private:
  std::mutex mu_;
  std::map<const Cluster*, ServeConfigPuts> runs_;
};

// The cluster network's transport to a dashboard, counting the Serve config PUTs it carries for
// `rayCluster`.
class CountingServeConfigTransport : public ray::DashboardTransport {
 public:
  CountingServeConfigTransport(std::shared_ptr<ray::DashboardTransport> network,
                               const Cluster* cluster, std::string rayCluster)
      : network_(std::move(network)), cluster_(cluster), rayCluster_(std::move(rayCluster)) {}
  Result<HttpResponse> send(const HttpRequest& request) override {
    if (request.method == "PUT" && request.path.starts_with("/api/serve/applications/")) {
      ServeConfigPutTally::instance().put(cluster_, rayCluster_);
    }
    return network_->send(request);
  }

 private:
  std::shared_ptr<ray::DashboardTransport> network_;
  const Cluster* cluster_;
  std::string rayCluster_;
};

// What is wrong with the Services of every RayService: one that selects a cluster neither active
// nor pending, and with `oneCluster`, the two selecting different clusters.
std::optional<std::string> servicesSelectionProblems(TestCluster& cluster, bool oneCluster) {
  std::vector<std::string> found;
  for (const Json& rayService : cluster.list(ray::kRayServices)) {
    const std::string ns = meta::namespace_(rayService);
    const RayServiceView view = viewRayService(cluster.client(), ns, meta::name(rayService));
    const std::string active = ray::activeClusterName(view.service);
    const std::string pending = ray::pendingClusterName(view.service);
    const std::string who = ns + "/" + meta::name(rayService);
    if (oneCluster && view.headSelects && view.serveSelects &&
        view.headSelects != view.serveSelects) {
      found.push_back(fmt::format(
          "RayService {}: the head Service selects {}, the serve Service {}", who,
          serviceSelectionText(view.headSelects), serviceSelectionText(view.serveSelects)));
      continue;
    }
    for (const auto& [service, selects] :
         {std::pair{"head", view.headSelects}, std::pair{"serve", view.serveSelects}}) {
      if (!selects || *selects == active || *selects == pending) continue;
      found.push_back(
          fmt::format("RayService {}: the {} Service selects \"{}\", active \"{}\", pending \"{}\"",
                      who, service, *selects, active, pending));
    }
  }
  if (found.empty()) return std::nullopt;
  return fmt::format("{}", fmt::join(found, "; "));
}

}  // namespace

std::vector<RayServiceTarget> rayServiceTargets(const std::vector<Json>& objects) {
  std::vector<RayServiceTarget> targets;
  for (const Json& o : objects) {
    if (meta::kind(o) != "RayService" || meta::apiVersion(o) != "ray.io/v1") continue;
    const Json& version = jsonAt(o, {"spec", "rayClusterConfig", "rayVersion"});
    const std::string ns = meta::namespace_(o);
    targets.push_back({ns.empty() ? std::string("default") : ns, meta::name(o),
                       version.is_string() ? version.get<std::string>() : std::string()});
  }
  return targets;
}

Expectation rayServicesUpgraded(std::vector<RayServiceTarget> targets) {
  std::vector<std::string> names;
  for (const auto& t : targets) names.push_back(fmt::format("{} on {}", t.name, t.rayVersion));
  return Expectation(
      fmt::format("RayService {} upgraded, one RayCluster each", fmt::join(names, ", ")),
      [targets = std::move(targets)](ApiServer& server, std::string* seen) {
        InProcessClient client(server);
        for (const auto& target : targets) {
          const std::string why =
              notUpgradedBecause(target, viewRayService(client, target.namespace_, target.name));
          if (why.empty()) continue;
          if (seen != nullptr) *seen = why;
          return false;
        }
        return true;
      });
}

Invariant rayServiceServicesSelectActiveOrPending() {
  return {"the head and serve Services select the active or the pending cluster",
          [](TestCluster& cluster) -> std::optional<std::string> {
            return servicesSelectionProblems(cluster, /*oneCluster=*/false);
          }};
}

Invariant rayServiceServicesSelectOneCluster() {
  return {"the head and serve Services select one cluster, active or pending",
          [](TestCluster& cluster) -> std::optional<std::string> {
            return servicesSelectionProblems(cluster, /*oneCluster=*/true);
          }};
}

ray::DashboardClientFactory countingServeConfigDashboards(const OperatorContext& context) {
  Cluster* cluster = context.cluster;
  ServeConfigPutTally::instance().started(cluster, context.start);
  return [cluster](const Json& rayCluster, const std::string& dashboardUrl)
             -> Result<std::unique_ptr<ray::RayDashboardClientInterface>> {
    return std::make_unique<ray::DashboardClient>(std::make_shared<CountingServeConfigTransport>(
        ray::networkTransport(cluster->network(), dashboardUrl, meta::namespace_(rayCluster)),
        cluster, meta::name(rayCluster)));
  };
}

ServeConfigPuts serveConfigPutsOf(const Cluster* cluster) {
  return ServeConfigPutTally::instance().of(cluster);
}

Invariant atMostOneServeConfigPutPerClusterAndRestart() {
  return {"each cluster's Serve config PUTs at most 1 + restarts",
          [](TestCluster& cluster) -> std::optional<std::string> {
            const ServeConfigPuts puts = serveConfigPutsOf(cluster.cluster());
            for (const auto& [name, count] : puts.byCluster) {
              if (count > 1 + static_cast<int>(puts.restarts)) {
                return fmt::format("{} received {} Serve config PUTs after {} restarts", name,
                                   count, puts.restarts);
              }
            }
            return std::nullopt;
          }};
}

}  // namespace fakekube::cli
