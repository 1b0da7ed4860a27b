// The pods a Scheduler holds at Permit (kube-scheduler's waitingPodsMap): each assumed on its
// node until the plugin that made it wait allows or rejects it, or its deadline passes. Internal
// to the Scheduler (scheduler_framework.h says what a plugin sees).
//
// A verdict is stored, not acted on: the pod's own reconcile reads it (resolve) and binds the pod
// or fails its binding cycle, as the binding goroutine does once WaitOnPermit returns. The first
// verdict stands. Whoever gives a verdict is told the pod's key to enqueue.
//
// Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "fakekube/api/object.h"
#include "fakekube/cluster/scheduler_framework.h"
#include "fakekube/sim/clock.h"

namespace fakekube::scheduling {

class WaitingPods {
 public:
  struct Entry {
    std::string key;  // "namespace/name"
    std::string uid;
    ObjectPtr pod;
    std::string node;
    ResourceList requests;
    std::string plugin;  // the plugin that made it wait
    Duration waitTime{};
    TimePoint deadline{};
  };
  // What resolve() found.
  struct Resolution {
    // Still waiting, until `deadline`.
    bool waiting = false;
    TimePoint deadline{};
    // Done (the entry is removed): its final status (Success: bind it).
    Entry entry;
    PluginStatus status;
  };

  // `enqueue` is called with a pod's key when it gets a verdict (outside the lock).
  explicit WaitingPods(std::function<void(const std::string&)> enqueue)
      : enqueue_(std::move(enqueue)) {}

  void add(Entry entry);
  bool contains(const std::string& key) const;
  // The state of the waiting pod `key` at `now`. `currentUid` is the uid of the pod the cache
  // holds under that key, empty if none: a pod gone (or replaced) is rejected "removed", as the
  // scheduler's delete handler rejects it; one past its deadline is rejected for the timeout.
  // nullopt: no such waiting pod.
  std::optional<Resolution> resolve(const std::string& key, const std::string& currentUid,
                                    TimePoint now);
  // Calls `visit` for each waiting pod (with no lock held).
  void iterate(const std::function<void(WaitingPod&)>& visit);

 private:
  class Handle;
  void signal(const std::string& key, const std::string& uid, PluginStatus status);

  std::function<void(const std::string&)> enqueue_;
  mutable std::mutex mu_;
  struct Waiting {
    Entry entry;
    std::optional<PluginStatus> verdict;
  };
  std::map<std::string, Waiting> pods_;  // by key
};

// Go's time.Duration.String() for whole seconds and more: 10s, 1m0s, 1h0m0s.
std::string goDurationString(Duration duration);

}  // namespace fakekube::scheduling
