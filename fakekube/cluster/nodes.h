// Nodes: the Node objects of a simulated cluster, built the way a kubelet registers its node, and
// the switches a test flips to make a node fail and recover.
//
// A node built here looks like one `kubectl get node -o yaml` shows on a kind cluster:
//   metadata.labels   kubernetes.io/hostname, kubernetes.io/os, kubernetes.io/arch (+ the
//                     caller's labels)
//   spec              podCIDR / podCIDRs 10.244.<n>.0/24 (what the node IPAM controller assigns;
//                     the kubelet simulation takes pod IPs from it), unschedulable when cordoned
//   status            capacity = allocatable (cpu, memory, pods, ephemeral-storage, and
//                     nvidia.com/gpu when the node has GPUs); conditions MemoryPressure,
//                     DiskPressure, PIDPressure False and Ready True (reason KubeletReady);
//                     addresses InternalIP 172.18.0.<n+2> and Hostname; nodeInfo; the kubelet's
//                     daemon endpoint
// <n> is the smallest index whose pod range no node uses yet.
//
// Failure. setNodeNotReady() writes the node status that a failed node ends up with:
//   Unreachable      the kubelet stopped posting status (a crashed machine, a partition): the node
//                    lifecycle controller sets every condition to Unknown, reason
//                    NodeStatusUnknown, message "Kubelet stopped posting node status."
//   KubeletNotReady  the kubelet still posts, and says it is not ready: Ready False, reason
//                    KubeletNotReady.
// What happens to the node's pods then is NodeLifecycleController's business
// (node_lifecycle_controller.h); the scheduler places nothing on a node that is not Ready or is
// unschedulable; the kubelet simulation stops reporting for the pods of a node that is not Ready.
//
// These helpers write through the Client they are given; give them one that reads from the
// server (an InProcessClient), since a read-modify-write over a lagging cache may conflict.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "fakekube/api/group_version.h"
#include "fakekube/api/json.h"
#include "fakekube/api/status.h"
#include "fakekube/client/client.h"
#include "fakekube/sim/clock.h"

namespace fakekube {

// What a node offers. Quantities are Kubernetes quantity strings.
struct NodeConfig {
  std::string name;
  std::string cpu = "8";
  std::string memory = "32Gi";
  // nvidia.com/gpu; "" or "0" = no GPUs (the resource is then absent, as on a CPU node).
  std::string gpu;
  std::string pods = "110";
  std::string ephemeralStorage = "100Gi";
  std::map<std::string, std::string> labels;
  bool unschedulable = false;
};

// The Node object of `config` with pod range index `index` and condition timestamps `now`.
Json nodeObject(const NodeConfig& config, int index, TimePoint now);

// Creates the node with the first pod range index no existing node uses. Answers the stored
// node.
Result<Json> addNode(Client& client, Clock& clock, const NodeConfig& config);

enum class NodeFailure {
  // Every condition Unknown, reason NodeStatusUnknown (the kubelet stopped posting).
  Unreachable,
  // Ready False, reason KubeletNotReady (the kubelet reports itself not ready).
  KubeletNotReady,
};

// Writes the failed node's conditions (see the file comment). Answers the stored node.
Result<Json> setNodeNotReady(Client& client, Clock& clock, std::string_view name,
                             NodeFailure failure = NodeFailure::Unreachable);
// Writes the healthy conditions back (Ready True, reason KubeletReady).
Result<Json> setNodeReady(Client& client, Clock& clock, std::string_view name);
// Cordons (true) or uncordons (false) the node: spec.unschedulable.
Result<Json> setNodeUnschedulable(Client& client, std::string_view name, bool unschedulable);

}  // namespace fakekube
