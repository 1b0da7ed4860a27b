// ControllerExpectations: what a workload controller has asked the API server for and not yet
// seen in its cache (pkg/controller's ControllerExpectations and
// UIDTrackingControllerExpectations).
//
// A controller reads pods from an informer cache that lags the server. Right after creating three
// pods, the cache may still show none, and a second reconcile would create three more. So before
// it writes, a controller records how many creations (and deletions) it expects for its key; the
// informer's event handlers lower the counts as the pods show up (or go); and the controller
// changes nothing for that key until its expectations are satisfied:
//
//   satisfied(key)   no record for the key (a new controller, or a key never written for), or both
//                    counts at or below zero, or the record is older than `ttl` (5 minutes, as
//                    ExpectationsTimeout: a lost watch event must not wedge the controller forever)
//
// Deletions may be tracked by pod key (the ReplicaSet controller does): the deletion of a pod is
// then counted once, however many events report it (the update that sets its deletionTimestamp,
// then its delete).
//
// Thread-safe: event handlers and reconciles may run on different threads.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "fakekube/sim/clock.h"

namespace fakekube::workload {

class ControllerExpectations {
 public:
  // pkg/controller's ExpectationsTimeout.
  static constexpr Duration kDefaultTtl = std::chrono::minutes(5);

  // `clock` must outlive the expectations.
  explicit ControllerExpectations(const Clock& clock, Duration ttl = kDefaultTtl)
      : clock_(clock), ttl_(ttl) {}

  // Replaces the key's record with `adds` expected creations (and no deletions); the record's
  // timestamp is now.
  void expectCreations(const std::string& key, int adds);
  // Replaces the key's record with one expected deletion per pod key in `podKeys`, tracked by
  // pod key (see the file comment).
  void expectDeletions(const std::string& key, const std::vector<std::string>& podKeys);
  // Replaces the key's record with `deletions` expected deletions, not tracked by pod key.
  void expectDeletions(const std::string& key, int deletions);

  // An informer saw a pod of the key's controller appear.
  void creationObserved(const std::string& key);
  // An informer saw a pod go (or start terminating). With a pod key, counts only if that pod's
  // deletion was expected and not observed yet.
  void deletionObserved(const std::string& key);
  void deletionObserved(const std::string& key, const std::string& podKey);
  // Lowers the counts without an observation (creations that failed or were never tried).
  void lowerExpectations(const std::string& key, int adds, int deletions);

  bool satisfied(const std::string& key) const;
  // Forgets the key (its controller object is gone).
  void deleteExpectations(const std::string& key);

  // Pending counts, for tests and logs: {adds, deletions}; {0, 0} when there is no record.
  std::pair<int, int> pending(const std::string& key) const;

 private:
  struct Record {
    int adds = 0;
    int deletions = 0;
    TimePoint timestamp;
    std::set<std::string> pendingDeletionKeys;
  };

  const Clock& clock_;
  const Duration ttl_;
  mutable std::mutex mu_;
  std::map<std::string, Record> records_;
};

}  // namespace fakekube::workload
