// A cluster with scheduler-plugins' scheduler (the coscheduling plugin) as an operator, and the
// PodGroups and pods its tests create, in the shape scheduler-plugins' tests build them
// (st.MakePod().Label(v1alpha1.PodGroupLabel, ...), MakePG).
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "controllers/coscheduling/internal/coscheduling.h"
#include "controllers/coscheduling/internal/coscheduling_api.h"
#include "fakekube/api/conditions.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fixtures/test_cluster.h"

namespace fakekube::coscheduling::testing {

// `nodes` nodes of 8 cpu (NodeConfig's default), the cluster's parts, and scheduler-plugins'
// scheduler.
inline TestClusterOptions coschedulingCluster(int nodes, CoschedulingOptions options = {}) {
  return {.seed = 1,
          .nodes = nodes,
          .operators = {{"scheduler-plugins", [options](Manager& manager) {
                           return addCoschedulingScheduler(manager, {.coscheduling = options});
                         }}}};
}

inline Json podGroupDocument(const std::string& name, int minMember,
                             const Json& extraSpec = Json::object()) {
  Json group = {{"apiVersion", "scheduling.x-k8s.io/v1alpha1"},
                {"kind", "PodGroup"},
                {"metadata", {{"name", name}, {"namespace", "default"}}},
                {"spec", {{"minMember", minMember}}}};
  group["spec"].update(extraSpec);
  return group;
}

// A pod of `group` (empty: none) for scheduler-plugins' scheduler, asking for `cpu`.
inline Json coschedulingPod(const std::string& name, const std::string& group,
                            const std::string& cpu) {
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec",
               {{"schedulerName", std::string(kSchedulerName)},
                {"containers", Json::array({{{"name", "main"},
                                             {"image", "busybox"},
                                             {"resources", {{"requests", {{"cpu", cpu}}}}}}})}}}};
  if (!group.empty()) pod["metadata"]["labels"] = {{std::string(kPodGroupLabel), group}};
  return pod;
}

// The PodGroup `group` and `members` pods of it, `<group>-0` ...
inline void createGroup(TestCluster& cluster, const std::string& group, int minMember, int members,
                        const std::string& cpu, const Json& extraSpec = Json::object()) {
  ASSERT_TRUE(cluster.client().create(kPodGroups, podGroupDocument(group, minMember, extraSpec)));
  for (int i = 0; i < members; ++i) {
    auto created = cluster.client().create(
        kPods, coschedulingPod(group + "-" + std::to_string(i), group, cpu));
    ASSERT_TRUE(created) << created.error().str();
  }
}

inline int boundMembers(TestCluster& cluster, const std::string& group) {
  int bound = 0;
  for (const Json& pod : cluster.list(kPods, "default")) {
    if (meta::label(pod, kPodGroupLabel) == group && !podNodeName(pod).empty()) ++bound;
  }
  return bound;
}

// The PodScheduled condition's message, or "" without one.
inline std::string scheduledMessage(TestCluster& cluster, const std::string& pod) {
  auto got = cluster.get(kPods, "default", pod);
  if (!got) return "";
  const Json* condition = findCondition(*got, "PodScheduled");
  return condition ? condition->value("message", "") : "";
}

// Runs 10 s, after which no member of `group` is bound; answers why `pod` is not scheduled.
inline std::string messageOfUnboundGroup(TestCluster& cluster, const std::string& group,
                                         const std::string& pod) {
  cluster.runFor(std::chrono::seconds(10));
  EXPECT_EQ(boundMembers(cluster, group), 0);
  return scheduledMessage(cluster, pod);
}

inline std::string phaseOf(TestCluster& cluster, const std::string& group) {
  auto got = cluster.get(kPodGroups, "default", group);
  if (!got) return "";
  const Json& phase = jsonAt(*got, {"status", "phase"});
  return phase.is_string() ? phase.get<std::string>() : "";
}

}  // namespace fakekube::coscheduling::testing
