// Kubelet: the kubelet of every node of a simulated cluster, in one runtime controller over the
// pods bound to nodes (spec.nodeName set). It sees the cluster only through its manager's client
// (cache reads, status writes through the status subresource), so it runs over HTTP as well.
//
// What each bound pod goes through (all delays in KubeletOptions, all time from the executor's
// clock):
//
//   seen       phase Pending, startTime and hostIP set; conditions PodReadyToStartContainers
//              False, Initialized (True, or False "containers with incomplete status: [...]"),
//              Ready and ContainersReady False ("containers with unready status: [...]");
//              every container waiting, reason ContainerCreating (PodInitializing when the pod has
//              init containers)
//   +containerCreatingDelay
//              the sandbox is up: PodReadyToStartContainers True, podIP from the node's
//              spec.podCIDR (10.244.<n>.0/24, handed out in turn from .2, as host-local IPAM
//              does); the first init container starts
//   init       init containers run one at a time, in order; each must exit 0. A failing one is
//              restarted with back-off under restartPolicy Always/OnFailure; under Never the pod
//              fails. Then Initialized True and every container starts.
//   running    state.running.startedAt, started true, containerID, imageID, restartCount; phase
//              Running. A container is ready once its process says so (ProcessContext::setReady;
//              ready by default) and its readiness delay passed (readinessProbe.initialDelaySeconds
//              when set, else KubeletOptions::readinessDelay). All ready -> ContainersReady and
//              Ready True.
//   exit       restartPolicy Always, or OnFailure with a non-zero code: restarted. The first
//              restart is immediate; after each later exit the container waits in
//              CrashLoopBackOff ("back-off 10s restarting failed container=<c>
//              pod=<pod>_<ns>(<uid>)"), 10 s doubling to 5 min, as the kubelet's back-off does
//              (reset once a container ran twice the cap without exiting). restartCount counts the
//              restarts; lastState holds the previous termination. Otherwise the container is
//              terminated (exitCode, reason Completed for 0, Error otherwise).
//   the end    phase Succeeded when every container exited 0 and none will restart, Failed when
//              one failed and none will restart; Ready and ContainersReady False (reason
//              PodCompleted for Succeeded), PodReadyToStartContainers False, the pod IP released.
//   deletion   a pod with deletionTimestamp has its processes stopped at once, and after
//              KubeletOptions::terminationDelay (capped by deletionGracePeriodSeconds) the kubelet
//              deletes it with gracePeriodSeconds 0 and a uid precondition.
//
// What a container does is its Process, chosen by the BehaviorRegistry (container_behavior.h).
// What it prints goes to KubeletOptions::containerLogs (container_logs.h), one log per instance
// under the containerID its status reports: opened when the instance starts, closed when it exits
// or is killed, and dropped with the pod's runtime state (pod_logs.h reads them for `kubectl
// logs`).
//
// A node that is not Ready is lost to its kubelet: nothing is written for its pods (the node
// lifecycle controller marks them, node_lifecycle_controller.h), their processes keep their
// state, and once the node is Ready again the kubelet reports again. A pod the API shows
// Succeeded or Failed while the kubelet still runs it (evicted) has its processes stopped.
//
// Runtime state lives here, keyed by pod uid: a pod recreated under the same name is a new pod.
// It is in memory only; a new Kubelet starts the containers of running pods again.
//
// Writes go through the status subresource and only when the status changed; a 409 is retried.
// Not modelled: liveness and startup probes, ephemeral containers, sidecar (restartable) init
// containers, image pulls, volumes, resource limits (no OOMKilled), kubelet events.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>

#include "fakekube/api/status.h"
#include "fakekube/cluster/container_behavior.h"
#include "fakekube/cluster/container_logs.h"
#include "fakekube/cluster/network.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/clock.h"

namespace fakekube {

struct KubeletOptions {
  // From the kubelet seeing the pod to its sandbox being up and its first container starting.
  Duration containerCreatingDelay = std::chrono::seconds(1);
  // How long a started container takes to become ready when it has no
  // readinessProbe.initialDelaySeconds (0: ready when started, as without a probe).
  Duration readinessDelay = std::chrono::seconds(0);
  // From deletionTimestamp to the final delete (capped by the pod's grace period).
  Duration terminationDelay = std::chrono::seconds(1);
  // Container restart back-off: initial, doubling up to max (kubelet's 10 s and 5 min).
  Duration backOffInitial = std::chrono::seconds(10);
  Duration backOffMax = std::chrono::minutes(5);
  // Where containers' output goes (must outlive the kubelet). Unset: nowhere.
  ContainerLogs* containerLogs = nullptr;
  // What containers do (must outlive the kubelet). Unset: the default behaviours only.
  BehaviorRegistry* behaviors = nullptr;
  // The pods' network (must outlive the kubelet). Unset: processes cannot listen or call.
  Network* network = nullptr;
};

class Kubelet;

// Adds the kubelet (a controller named "kubelet", owned by the manager, and its node watch) to
// the manager. The caller holds the answer: destroying it stops every process.
Result<std::unique_ptr<Kubelet>> addKubelet(Manager& manager, KubeletOptions options = {});

// What addKubelet answers: the kubelet's processes.
class Kubelet {
 public:
  // Stops every process.
  ~Kubelet();
  Kubelet(const Kubelet&) = delete;
  Kubelet& operator=(const Kubelet&) = delete;

  // Processes running now, over all pods.
  std::size_t runningProcesses() const;
  // Pods the kubelet keeps runtime state for.
  std::size_t trackedPods() const;

 private:
  friend Result<std::unique_ptr<Kubelet>> addKubelet(Manager&, KubeletOptions);
  Kubelet(Manager& manager, KubeletOptions options);

  class Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace fakekube
