// Documents for the Volcano tests: nodes, pods of a PodGroup, PodGroups and Queues, in the shape
// Volcano's test utilities build them (util.BuildPod, BuildPodGroup, BuildQueue).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "controllers/volcano/internal/volcano_api.h"
#include "fakekube/api/json.h"
#include "fakekube/api/object.h"

namespace fakekube::volcano::testing {

inline ObjectPtr shared(Json document) { return std::make_shared<const Json>(std::move(document)); }

inline Json nodeDocument(const std::string& name, const std::string& cpu,
                         const std::string& memory) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"uid", "uid-" + name}}},
          {"status",
           {{"allocatable", {{"cpu", cpu}, {"memory", memory}, {"pods", "110"}}},
            {"conditions", Json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

// A pod of PodGroup `group` (empty: none) for the volcano scheduler; `node` empty: unbound.
inline Json podDocument(const std::string& ns, const std::string& name, const std::string& group,
                        const std::string& cpu, const std::string& memory,
                        const std::string& phase = "Pending", const std::string& node = "") {
  Json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", name},
        {"namespace", ns},
        {"uid", "uid-" + ns + "-" + name},
        {"creationTimestamp", "2026-01-01T00:00:00Z"},
        {"annotations", Json::object()}}},
      {"spec",
       {{"schedulerName", "volcano"},
        {"containers",
         Json::array({{{"name", "main"},
                       {"image", "busybox"},
                       {"resources", {{"requests", {{"cpu", cpu}, {"memory", memory}}}}}}})}}},
      {"status", {{"phase", phase}}}};
  if (!group.empty()) pod["metadata"]["annotations"][std::string(kGroupNameAnnotation)] = group;
  if (!node.empty()) pod["spec"]["nodeName"] = node;
  return pod;
}

inline Json podGroupDocument(const std::string& ns, const std::string& name,
                             const std::string& queue, int minMember, const std::string& phase,
                             const Json& minResources = nullptr) {
  Json group = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                {"kind", "PodGroup"},
                {"metadata",
                 {{"name", name},
                  {"namespace", ns},
                  {"uid", "uid-pg-" + ns + "-" + name},
                  {"creationTimestamp", "2026-01-01T00:00:00Z"}}},
                {"spec", {{"queue", queue}, {"minMember", minMember}}}};
  if (!phase.empty()) group["status"] = {{"phase", phase}};
  if (!minResources.is_null()) group["spec"]["minResources"] = minResources;
  return group;
}

inline Json queueDocument(const std::string& name, int weight, const Json& capability = nullptr) {
  Json queue = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                {"kind", "Queue"},
                {"metadata", {{"name", name}, {"uid", "uid-queue-" + name}}},
                {"spec", {{"weight", weight}}},
                {"status", {{"state", "Open"}}}};
  if (!capability.is_null()) queue["spec"]["capability"] = capability;
  return queue;
}

}  // namespace fakekube::volcano::testing
