// ScaleExpectations: KubeRay's RayClusterScaleExpectation
// (controllers/ray/expectations/scale_expectations.go).
//
// Why it exists: the controller reads pods from the cache, which lags behind its own writes. A
// round that created a worker may be followed at once by a round whose list does not show that
// worker yet; without a memory of the create it would create a second one. So after each
// successful create or delete the controller records what it expects to see, and the next
// rounds skip a group (continue with the others, they do not block the cluster) until the cache
// agrees.
//
//   expectScalePod(ns, cluster, group, pod, Create|Delete)
//                 records one pod, keyed "ns/pod" (a second record of the same pod replaces the
//                 first) and indexed by "ns/cluster/group". The head group is "" (HeadGroup).
//   isSatisfied(ns, cluster, group)
//                 true only if every recorded pod of the group is scaled; the scaled ones are
//                 removed as they are checked (the walk stops at the first unscaled one).
//                 A Create is scaled once a Get of the pod succeeds, or 30 s after it was recorded
//                 (kExpectationsTimeout: someone deleted the pod before the cache ever saw it, and
//                 the Get would never succeed). A Delete is scaled once the Get answers NotFound;
//                 it never times out.
//   deleteCluster(cluster, ns)
//                 drops every record of the cluster (KubeRay's Delete): the RayCluster is gone,
//                 or the Recreate strategy deleted all its pods.
//
// The Get goes through the reader it was built with. KubeRay passes the manager's client, whose
// reads come from the cache, so "scaled" means "the cache has seen it" — which is the point.
// Time is the executor's clock. Records live in process memory: a restarted operator starts with
// none. Thread-safe (a controller with several workers shares one instance).
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "fakekube/client/client.h"
#include "fakekube/sim/clock.h"

namespace fakekube::ray {

// The head group's name in the expectations (expectations.HeadGroup).
inline constexpr std::string_view kExpectationsHeadGroup = "";

enum class ScaleAction { Create, Delete };

class ScaleExpectations {
 public:
  // `reader` and `clock` must outlive this object.
  ScaleExpectations(Reader& reader, Clock& clock, Duration timeout = std::chrono::seconds(30));

  void expectScalePod(std::string_view ns, std::string_view rayClusterName, std::string_view group,
                      std::string_view podName, ScaleAction action);
  bool isSatisfied(std::string_view ns, std::string_view rayClusterName, std::string_view group);
  void deleteCluster(std::string_view rayClusterName, std::string_view ns);

  // Records held now (all clusters), for tests.
  std::size_t size() const;

 private:
  struct RayPod {
    std::string name;
    std::string ns;
    std::string rayCluster;
    std::string group;
    ScaleAction action = ScaleAction::Create;
    TimePoint recordTimestamp;
  };
  bool isPodScaled(const RayPod& pod);

  Reader& reader_;
  Clock& clock_;
  const Duration timeout_;
  // The group index's key of a record: "ns\x1fcluster\x1fgroup" (no name holds \x1f).
  static std::string groupKey(std::string_view ns, std::string_view rayClusterName,
                              std::string_view group);
  void eraseLocked(std::map<std::string, RayPod>::iterator it);

  mutable std::mutex mu_;
  // "ns/pod" -> record.
  std::map<std::string, RayPod> items_;
  // groupKey -> the "ns/pod" keys of its records, in key order. Every cluster of the operator
  // shares this object: a scan of every record for each isSatisfied made N clusters cost N^2.
  std::map<std::string, std::set<std::string>, std::less<>> groups_;
};

}  // namespace fakekube::ray
