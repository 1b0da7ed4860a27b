// What a RayService's zero-downtime upgrade must keep when the KubeRay operator crashes, shared
// by `fakekube crashtest --then` and the fixtures' RayService crash points. The upgrade is
// upstream's NewCluster strategy: a change of spec.rayClusterConfig makes a pending cluster, the
// head and serve Services switch to it once its Serve applications run, and the old cluster is
// deleted rayClusterDeletionDelaySeconds later (60 s by default).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "controllers/ray/dashboard_client_factory.h"
#include "fakekube/api/json.h"
#include "fixtures/expectation.h"
#include "fixtures/invariant.h"
#include "fixtures/test_cluster.h"

namespace fakekube::cli {

// A RayService and the rayVersion its rayClusterConfig asks for.
struct RayServiceTarget {
  std::string namespace_;
  std::string name;
  std::string rayVersion;
};

// The RayServices among manifest objects ("default" when they name no namespace).
std::vector<RayServiceTarget> rayServiceTargets(const std::vector<Json>& objects);

// The upgrade is done for every target: Ready, its active cluster on the target's rayVersion and
// the only RayCluster the RayService owns (the old one deleted), nothing pending, its head and
// serve Services selecting the active cluster.
Expectation rayServicesUpgraded(std::vector<RayServiceTarget> targets);

// Every RayService's head and serve Services (<name>-head-svc, <name>-serve-svc; those that
// exist) each select the RayService's active or pending cluster: traffic never goes to a cluster
// on its way out. What holds at every commit, crashes or not.
Invariant rayServiceServicesSelectActiveOrPending();
// The same, and both select one cluster. KubeRay switches the two Services in two writes, so a
// crash or a lost answer between them leaves them apart until its next reconcile: what holds
// once the operator has settled (at the goal and after it), not at every commit.
Invariant rayServiceServicesSelectOneCluster();

// The Serve config PUTs (PUT /api/serve/applications/) each RayCluster's dashboard received in
// one run, and how often the operator that sent them was restarted in it.
struct ServeConfigPuts {
  std::map<std::string, int> byCluster;
  std::uint64_t restarts = 0;
};

// The operator's dashboard clients, through the cluster's network, counting the Serve config
// PUTs. A factory of the operator calls it at each start: context.start 0 starts the run's tally
// over. Runs side by side each count on their own (by Cluster).
ray::DashboardClientFactory countingServeConfigDashboards(const OperatorContext& context);
// The tally of the run on `cluster` so far.
ServeConfigPuts serveConfigPutsOf(const Cluster* cluster);

// No cluster received the Serve config more than once, and once more per restart: the
// controller keeps what it sent in memory only (upstream's ServeConfigs cache).
Invariant atMostOneServeConfigPutPerClusterAndRestart();

}  // namespace fakekube::cli
