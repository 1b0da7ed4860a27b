// LeaderElector: one of several replicas of a controller manager leads, the others wait
// (client-go's leaderelection.LeaderElector over a coordination.k8s.io/v1 Lease, as
// controller-runtime's manager runs it).
//
// The lock is a Lease object. Its spec is the election record:
//
//   holderIdentity        who leads ("" after a clean release)
//   leaseDurationSeconds  how long the holder's claim lasts after its last renew
//   acquireTime           when the current holder took the lease (MicroTime)
//   renewTime             when the holder last renewed it (MicroTime)
//   leaseTransitions      how many times the lease changed hands
//
// Every candidate runs the same step, tryAcquireOrRenew, every RetryPeriod:
//
//   read the Lease; create it (holding it) when there is none. A lease held by someone else
//   whose renewTime + leaseDurationSeconds has not yet passed is left alone. Otherwise write
//   ourselves as holder with an update carrying the resourceVersion we read, so of two
//   candidates that read the same lease only one write lands: the other gets 409 Conflict (or
//   AlreadyExists when both found none) and tries again at its next retry, when it reads the
//   winner's lease.
//
// The leader runs the same step to renew. A leader that has not renewed for RenewDeadline stops
// leading (onStoppedLeading) before its lease can expire (RenewDeadline < LeaseDuration), so two
// replicas never both believe they lead while their clocks agree. A leader that finds the lease
// held by someone else stops at once.
//
// Differences from client-go, all deliberate:
//   - Expiry is judged from the lease's renewTime on the executor's clock, not from when this
//     candidate last saw the record change. In a simulation every replica shares one clock, and
//     this makes the takeover instant exact: the first retry at or after renewTime + duration.
//   - No jitter on RetryPeriod, so a simulated run is the same every time.
//   - Losing the lease ends the election for this elector, as Run() returning does (a
//     controller-runtime manager then exits). start() again to stand again.
//   - onStoppedLeading is called only by an elector that was leading (client-go also calls it
//     when Run ends without ever leading). onNewLeader is not called for an emptied lease.
//
// Time and threads. All work runs on the Executor (one timer at a time); callbacks are called
// from executor tasks (or from stop()) without any lock held, so they may call back into the
// elector. Every method may be called from any thread.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "fakekube/api/group_version.h"
#include "fakekube/sim/executor.h"

namespace fakekube {

class Client;

struct LeaderElectionConfig {
  // The Lease: controller-runtime's LeaderElectionNamespace / LeaderElectionID.
  std::string leaseNamespace = "default";
  std::string leaseName;
  // This candidate; unique among the replicas (controller-runtime uses hostname_uuid).
  std::string identity;

  // client-go's and controller-runtime's defaults. client-go's rules apply: leaseDuration >
  // renewDeadline > 1.2 × retryPeriod (its jitter factor, kept so that a config accepted here is
  // accepted there), retryPeriod > 0, and leaseDuration >= 1 s (the Lease stores whole
  // seconds, rounded down).
  Duration leaseDuration = std::chrono::seconds(15);
  Duration renewDeadline = std::chrono::seconds(10);
  Duration retryPeriod = std::chrono::seconds(2);

  // This candidate became the leader.
  std::function<void()> onStartedLeading;
  // This candidate was leading and no longer is (renew deadline passed, lease taken, or stop()).
  std::function<void()> onStoppedLeading;
  // The lease holder changed to `identity` (including to this candidate). Called once per change
  // this candidate observes.
  std::function<void(const std::string& identity)> onNewLeader;
};

class LeaderElector {
 public:
  // `client` and `executor` must outlive the elector. Throws std::invalid_argument for a config
  // client-go would reject (empty name or identity, durations out of order).
  LeaderElector(Client& client, Executor& executor, LeaderElectionConfig config);
  // The same as crash(): the lease is left as it is. Call stop() first to hand it over at once.
  ~LeaderElector();
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // Starts campaigning: the first attempt is posted at once, then one every RetryPeriod. Does
  // nothing while already running.
  void start();
  // A clean shutdown (ReleaseOnCancel): cancels the timers and, if leading, empties the lease's
  // holderIdentity (leaseDurationSeconds 1) so another candidate takes it at its next retry
  // instead of waiting for it to expire; then onStoppedLeading.
  void stop();
  // What a killed process does: cancels the timers and touches nothing. The lease stays held
  // until it expires; no callback is called.
  void crash();

  bool isLeader() const;
  bool running() const;
  // The holder this candidate last observed ("" if none yet).
  std::string leader() const;
  const LeaderElectionConfig& config() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace fakekube
