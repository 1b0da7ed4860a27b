#include "fakekube/cluster/cluster.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/client/in_process_client.h"

namespace fakekube {

Result<std::set<std::string>> parseClusterComponents(std::string_view list) {
  const auto& known = clusterComponentNames();
  if (list.empty() || list == "all") return defaultClusterComponents();
  std::set<std::string> enabled;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    std::string name(list.substr(start, comma - start));
    if (!name.empty()) {
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        return tl::unexpected(Status::badRequest(
            fmt::format("unknown controller \"{}\" (known: {})", name, fmt::join(known, ", "))));
      }
      enabled.insert(std::move(name));
    }
    start = comma + 1;
  }
  return enabled;
}

// What the cluster holds of its parts besides the controllers the manager owns.
struct ClusterParts {
  std::unique_ptr<GarbageCollector> gc;
  std::unique_ptr<NamespaceController> namespaces;
  std::unique_ptr<Scheduler> scheduler;
  std::unique_ptr<Kubelet> kubelet;
};

namespace {

// What adding a part takes from the cluster.
struct PartContext {
  Manager& manager;
  const ClusterOptions& options;
  ClusterParts& held;
  // options.kubelet with the cluster's behaviours, network and container logs.
  const KubeletOptions& kubelet;
};

// A part: its name (what `enabled` and `fakekube serve --controllers` take) and how it is added.
struct ClusterPart {
  const char* name;
  Result<void> (*add)(PartContext& context);
  // Whether "" and "all" (and ClusterOptions' default) include it.
  bool byDefault = true;
};

// The Result<void> of an add<Part> answer; `held`, when given, keeps what it answers.
template <class Added, class Held = std::nullptr_t>
Result<void> keep(Result<Added> added, Held* held = nullptr) {
  if (!added) return tl::unexpected(added.error());
  if constexpr (!std::is_same_v<Held, std::nullptr_t>) *held = std::move(*added);
  return {};
}

// add(manager, options.*field): a controller the manager owns.
template <auto add, auto field>
Result<void> addOwned(PartContext& c) {
  return keep(add(c.manager, c.options.*field));
}

// The same, for a part whose answer the cluster holds in held.*into.
template <auto add, auto field, auto into>
Result<void> addHeld(PartContext& c) {
  return keep(add(c.manager, c.options.*field), &(c.held.*into));
}

Result<void> addKubeletPart(PartContext& c) {
  return keep(addKubelet(c.manager, c.kubelet), &c.held.kubelet);
}

// Every part, in start order.
const std::vector<ClusterPart>& clusterParts() {
  using O = ClusterOptions;
  static const std::vector<ClusterPart> parts = {
      {"gc", addHeld<&addGarbageCollector, &O::garbageCollector, &ClusterParts::gc>},
      {"namespace", addHeld<&addNamespaceController, &O::namespaces, &ClusterParts::namespaces>},
      {"node-lifecycle", addOwned<&addNodeLifecycleController, &O::nodeLifecycle>},
      {"scheduler", addHeld<&addScheduler, &O::scheduler, &ClusterParts::scheduler>},
      {"kubelet", addKubeletPart},
      {"job", addOwned<&addJobController, &O::job>},
      {"ttl-after-finished", addOwned<&addTtlAfterFinishedController, &O::ttlAfterFinished>},
      {"replicaset", addOwned<&addReplicaSetController, &O::replicaSet>},
      {"deployment", addOwned<&addDeploymentController, &O::deployment>},
      {"endpoints", addOwned<&addEndpointsController, &O::endpoints>},
      {"endpointslice", addOwned<&addEndpointSliceController, &O::endpointSlice>},
      {"serviceaccount", addOwned<&addServiceAccountController, &O::serviceAccount>},
      {"statefulset", addOwned<&addStatefulSetController, &O::statefulSet>},
      {"daemonset", addOwned<&addDaemonSetController, &O::daemonSet>},
      {"cronjob", addOwned<&addCronJobController, &O::cronJob>},
      {"disruption", addOwned<&addDisruptionController, &O::disruption>},
      // The API server writes admin, edit and view aggregated already (docs/rbac.md): this is
      // only needed where roles labelled for aggregation are written while the cluster runs.
      {"clusterrole-aggregation",
       addOwned<&addClusterRoleAggregationController, &O::clusterRoleAggregation>, false},
  };
  return parts;
}

}  // namespace

const std::vector<std::string>& clusterComponentNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& part : clusterParts()) out.push_back(part.name);
    return out;
  }();
  return names;
}

std::set<std::string> defaultClusterComponents() {
  std::set<std::string> names;
  for (const auto& part : clusterParts()) {
    if (part.byDefault) names.insert(part.name);
  }
  return names;
}

Cluster::Cluster(Executor& executor, ApiServer& server, ClusterOptions options)
    : executor_(executor),
      server_(server),
      options_(std::move(options)),
      podLogs_(server, options_.kubelet.containerLogs != nullptr ? options_.kubelet.containerLogs
                                                                 : &containerLogs_),
      manager_(std::make_unique<Manager>(executor, server, options_.manager)),
      network_(std::make_unique<Network>(manager_->client())),
      parts_(std::make_unique<ClusterParts>()) {}

Cluster::~Cluster() {
  stop();
  // The parts hold references into the manager: they go first.
  parts_.reset();
  network_.reset();
  manager_.reset();
}

bool Cluster::enabled(std::string_view component) const {
  return options_.enabled.count(std::string(component)) > 0;
}

Result<void> Cluster::start() {
  if (started_) return tl::unexpected(Status::badRequest("the cluster is already started"));
  started_ = true;
  // Nodes first: the scheduler and the kubelets find them in their caches when they start.
  if (auto created = createNodes(); !created) return created;
  KubeletOptions kubelet = options_.kubelet;
  kubelet.containerLogs = &containerLogs();
  kubelet.behaviors = &behaviors_;
  kubelet.network = network_.get();
  PartContext context{*manager_, options_, *parts_, kubelet};
  for (const auto& part : clusterParts()) {
    if (!enabled(part.name)) continue;
    if (auto added = part.add(context); !added) return added;
  }
  manager_->start();
  return {};
}

Result<void> Cluster::createNodes() {
  InProcessClient client(server_);
  for (int i = 1; i <= options_.nodes; ++i) {
    NodeConfig config = options_.node;
    config.name = fmt::format("node-{}", i);
    auto existing = client.get(kNodes, "", config.name);
    if (existing) continue;
    if (!isNotFound(existing.error())) return tl::unexpected(existing.error());
    auto added = addNode(client, executor_.clock(), config);
    if (!added) return tl::unexpected(added.error());
  }
  return {};
}

void Cluster::stop() {
  if (!started_) return;
  if (manager_ && !manager_->crashed()) manager_->stop();
  if (parts_->gc) parts_->gc->stop();
  if (parts_->namespaces) parts_->namespaces->stop();
}

bool Cluster::idle() const {
  if (parts_->gc != nullptr && !parts_->gc->idle()) return false;
  if (parts_->namespaces != nullptr && !parts_->namespaces->idle()) return false;
  if (manager_ == nullptr || manager_->crashed()) return true;
  // Every other part is a controller on the manager.
  return manager_->idle();
}

}  // namespace fakekube
