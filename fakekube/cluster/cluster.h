// Cluster: everything a Kubernetes cluster runs around its API server, started together —
// kube-controller-manager's controllers (garbage collector, namespace, node lifecycle, Job,
// TTL-after-finished, ReplicaSet, Deployment, Endpoints, EndpointSlice,
// ServiceAccount, StatefulSet, DaemonSet, CronJob,
// PodDisruptionBudget status), the scheduler, and the
// kubelets of a set of simulated nodes.
//
//   SimExecutor executor;
//   auto server = ApiServer::open(executor.clock()).value();
//   Cluster cluster(executor, *server, ClusterOptions{.nodes = 2});
//   cluster.start();                      // nodes node-1, node-2 exist; controllers run
//   ... create a Deployment; executor.runFor(10s); its pods are Running and Ready ...
//
// Each part is also usable on its own (see its header), and each is added the same way:
// add<Part>(manager, <Part>Options) registers it with a Manager and answers what a caller holds
// (the manager owns the controller; the garbage collector, the namespace controller, the
// scheduler and the kubelet answer a handle besides). This class only composes them from its list
// of parts, in the order a real cluster comes up: nodes first, then the controllers, which find
// the nodes in their caches when they start. Every controller is a runtime controller on one
// shared Manager (one cache, one client), as kube-controller-manager's are, and the manager's
// start() runs them all once its caches have synced. The garbage collector keeps its own
// monitors (one informer per served resource, over the manager's client) besides the shared
// cache, as kube-controller-manager's does.
//
// `enabled` picks the parts by the names `fakekube serve --controllers` takes:
//   gc, namespace, node-lifecycle, scheduler, kubelet, job, ttl-after-finished, replicaset,
//   deployment, endpoints, endpointslice, serviceaccount,
//   statefulset, daemonset, cronjob, disruption
// What a disabled part would do simply does not happen (without "kubelet", bound pods stay
// Pending, as in envtest).
//
// The executor and the server must outlive the cluster. start() and stop() are not thread-safe
// against each other; everything else runs on the executor.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/status.h"
#include "fakekube/apiserver/pod_logs.h"
#include "fakekube/cluster/clusterrole_aggregation_controller.h"
#include "fakekube/cluster/container_behavior.h"
#include "fakekube/cluster/container_logs.h"
#include "fakekube/cluster/cronjob_controller.h"
#include "fakekube/cluster/daemonset_controller.h"
#include "fakekube/cluster/deployment_controller.h"
#include "fakekube/cluster/disruption_controller.h"
#include "fakekube/cluster/endpoints_controller.h"
#include "fakekube/cluster/endpointslice_controller.h"
#include "fakekube/cluster/garbage_collector.h"
#include "fakekube/cluster/job_controller.h"
#include "fakekube/cluster/kubelet.h"
#include "fakekube/cluster/namespace_controller.h"
#include "fakekube/cluster/network.h"
#include "fakekube/cluster/node_lifecycle_controller.h"
#include "fakekube/cluster/nodes.h"
#include "fakekube/cluster/replicaset_controller.h"
#include "fakekube/cluster/scheduler.h"
#include "fakekube/cluster/serviceaccount_controller.h"
#include "fakekube/cluster/statefulset_controller.h"
#include "fakekube/cluster/ttl_after_finished_controller.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/executor.h"

namespace fakekube {

class ApiServer;
struct ClusterParts;

// Every part's name, in start order.
const std::vector<std::string>& clusterComponentNames();

// The parts that run unless told otherwise: every part but clusterrole-aggregation, which runs
// only when named (the API server writes admin, edit and view aggregated already; the controller
// is for roles labelled for aggregation while the cluster runs).
std::set<std::string> defaultClusterComponents();

// "" or "all": the default parts; otherwise a comma-separated list of names ("gc,namespace").
// Unknown names are a 400 error that lists the known ones.
Result<std::set<std::string>> parseClusterComponents(std::string_view list);

struct ClusterOptions {
  // The parts to run (default: defaultClusterComponents()).
  std::set<std::string> enabled = defaultClusterComponents();
  // Nodes to create at start: node-1 ... node-N, each like `node` (its name is replaced). A node
  // that exists already (a restarted file-backed server) is kept as it is.
  int nodes = 0;
  NodeConfig node;

  // Each part's options, by its name. The kubelet's behaviors and network are the cluster's own
  // (behaviors(), network()); its containerLogs, when unset, too (containerLogs()).
  GarbageCollectorOptions garbageCollector;
  NamespaceControllerOptions namespaces;
  NodeLifecycleControllerOptions nodeLifecycle;
  SchedulerOptions scheduler;
  KubeletOptions kubelet;
  // The workload controllers (e.g. recordEvents = false where Events are only noise, as in a
  // benchmark).
  JobControllerOptions job;
  TtlAfterFinishedControllerOptions ttlAfterFinished;
  ReplicaSetControllerOptions replicaSet;
  DeploymentControllerOptions deployment;
  EndpointsControllerOptions endpoints;
  EndpointSliceControllerOptions endpointSlice;
  ServiceAccountControllerOptions serviceAccount;
  StatefulSetControllerOptions statefulSet;
  DaemonSetControllerOptions daemonSet;
  CronJobControllerOptions cronJob;
  DisruptionControllerOptions disruption;
  ClusterRoleAggregationOptions clusterRoleAggregation;
  // The options of the manager every part runs on (a reconcile observer that draws the parts'
  // reconciles, say).
  ManagerOptions manager;
};

class Cluster {
 public:
  Cluster(Executor& executor, ApiServer& server, ClusterOptions options = {});
  // stop().
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  // Creates the nodes, then starts the parts. Once.
  Result<void> start();
  // Stops every part (the manager's controllers, the watches). The server is untouched.
  void stop();

  // The manager the runtime controllers share (add your own controllers to it).
  Manager& manager() { return *manager_; }
  // What simulated containers do (add behaviours before pods start).
  BehaviorRegistry& behaviors() { return behaviors_; }
  // The in-process network of the simulated pods.
  Network& network() { return *network_; }
  // What the simulated containers printed, per container instance (the kubelets write it):
  // options.kubelet.containerLogs when set, else the cluster's own.
  ContainerLogs& containerLogs() {
    return options_.kubelet.containerLogs != nullptr ? *options_.kubelet.containerLogs
                                                     : containerLogs_;
  }
  // The pods/log subresource over those logs: `kubectl logs` in process.
  PodLogs& podLogs() { return podLogs_; }
  bool enabled(std::string_view component) const;

  // True when no part has work pending now: every controller on the manager — the scheduler,
  // the kubelets, node lifecycle, the workload controllers — has nothing ready in its queue, no
  // reconcile running and no watch event on its way to the shared cache (a requeueAfter or a
  // retry waiting for its time, or a container's timer, is later work and does not count); and
  // the garbage collector and the namespace controller have no event on its way, nothing queued
  // or running and no retry waiting (their own idle()). A namespace waiting for its contents
  // to go, or an item parked on an unserved owner kind, waits for someone else and does not
  // count.
  bool idle() const;

 private:
  // Nodes node-1 ... node-N (options.nodes), unless they exist.
  Result<void> createNodes();

  Executor& executor_;
  ApiServer& server_;
  ClusterOptions options_;
  BehaviorRegistry behaviors_;
  ContainerLogs containerLogs_;
  PodLogs podLogs_;
  std::unique_ptr<Manager> manager_;
  std::unique_ptr<Network> network_;
  std::unique_ptr<ClusterParts> parts_;  // what the cluster holds of its parts (cluster.cpp)
  bool started_ = false;
};

}  // namespace fakekube
