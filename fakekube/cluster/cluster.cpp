#include "fakekube/cluster/cluster.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/cluster/disruption_controller.h"
#include "fakekube/cluster/garbage_collector.h"
#include "fakekube/cluster/namespace_controller.h"
#include "fakekube/cluster/ttl_after_finished_controller.h"

namespace fakekube {

const std::vector<std::string>& clusterComponentNames() {
  static const std::vector<std::string> names = {"gc",
                                                 "namespace",
                                                 "node-lifecycle",
                                                 "scheduler",
                                                 "kubelet",
                                                 "job",
                                                 "ttl-after-finished",
                                                 "replicaset",
                                                 "deployment",
                                                 "endpoints",
                                                 "endpointslice",
                                                 "serviceaccount",
                                                 "statefulset",
                                                 "daemonset",
                                                 "cronjob",
                                                 "disruption"};
  return names;
}

Result<std::set<std::string>> parseClusterComponents(std::string_view list) {
  const auto& known = clusterComponentNames();
  if (list.empty() || list == "all") return std::set<std::string>(known.begin(), known.end());
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

// The parts that are not controllers on the manager.
struct Cluster::Parts {
  std::unique_ptr<GarbageCollector> gc;
  std::unique_ptr<NamespaceController> namespaces;
  std::unique_ptr<NodeLifecycleController> nodeLifecycle;
  std::unique_ptr<Scheduler> scheduler;
  std::unique_ptr<Kubelet> kubelet;
};

Cluster::Cluster(Executor& executor, ApiServer& server, ClusterOptions options)
    : executor_(executor),
      server_(server),
      options_(std::move(options)),
      podLogs_(server, options_.kubelet.containerLogs != nullptr ? options_.kubelet.containerLogs
                                                                 : &containerLogs_),
      manager_(std::make_unique<Manager>(executor, server)),
      network_(std::make_unique<Network>(manager_->client())),
      parts_(std::make_unique<Parts>()) {}

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

  if (enabled("gc")) {
    parts_->gc = std::make_unique<GarbageCollector>(*manager_);
    if (auto r = parts_->gc->start(); !r) return r;
  }
  if (enabled("namespace")) {
    parts_->namespaces = std::make_unique<NamespaceController>(*manager_);
    if (auto r = parts_->namespaces->start(); !r) return r;
  }
  if (enabled("node-lifecycle")) {
    parts_->nodeLifecycle =
        std::make_unique<NodeLifecycleController>(*manager_, options_.nodeLifecycle);
    if (auto r = parts_->nodeLifecycle->start(); !r) return r;
  }
  if (enabled("scheduler")) {
    parts_->scheduler = std::make_unique<Scheduler>(*manager_, options_.scheduler);
    if (auto r = parts_->scheduler->start(); !r) return r;
  }
  if (enabled("kubelet")) {
    Kubelet::Options kubeletOptions = options_.kubelet;
    kubeletOptions.containerLogs = &containerLogs();
    parts_->kubelet =
        std::make_unique<Kubelet>(*manager_, behaviors_, network_.get(), kubeletOptions);
    if (auto r = parts_->kubelet->start(); !r) return r;
  }
  if (enabled("job")) {
    auto r = addJobController(*manager_, options_.job);
    if (!r) return tl::unexpected(r.error());
  }
  if (enabled("ttl-after-finished")) {
    auto r = addTtlAfterFinishedController(*manager_);
    if (!r) return tl::unexpected(r.error());
  }
  if (enabled("replicaset")) {
    auto r = addReplicaSetController(*manager_, options_.replicaSet);
    if (!r) return tl::unexpected(r.error());
  }
  if (enabled("deployment")) {
    auto r = addDeploymentController(*manager_, options_.deployment);
    if (!r) return tl::unexpected(r.error());
  }
  if (enabled("endpoints")) {
    if (auto r = addEndpointsController(*manager_, options_.endpoints); !r)
      return tl::unexpected(r.error());
  }
  if (enabled("endpointslice")) {
    if (auto r = addEndpointSliceController(*manager_, options_.endpointSlice); !r)
      return tl::unexpected(r.error());
  }
  if (enabled("serviceaccount")) {
    if (auto r = addServiceAccountController(*manager_, options_.serviceAccount); !r)
      return tl::unexpected(r.error());
  }
  if (enabled("statefulset")) {
    if (auto r = addStatefulSetController(*manager_, options_.statefulSet); !r)
      return tl::unexpected(r.error());
  }
  if (enabled("daemonset")) {
    if (auto r = addDaemonSetController(*manager_, options_.daemonSet); !r)
      return tl::unexpected(r.error());
  }
  if (enabled("cronjob")) {
    if (auto r = addCronJobController(*manager_, options_.cronJob); !r)
      return tl::unexpected(r.error());
  }
  if (enabled("disruption")) {
    if (auto r = addDisruptionController(*manager_); !r) return tl::unexpected(r.error());
  }
  manager_->start();
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
