// The Ray workloads the gang-scheduling tests hand to Volcano: rayClusterSpec() is a RayCluster's
// spec (and a RayJob's rayClusterSpec) of a head and one worker group "workers", every container
// asking for the same cpu and memory (requests only: what a PodGroup's minResources adds up).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "fakekube/api/json.h"

namespace fakekube::volcano::testing {

// A pod template of one Ray container asking for `cpu` and `memory`.
inline Json rayPodTemplate(const std::string& name, const std::string& cpu,
                           const std::string& memory, Json ports = nullptr) {
  Json container = {{"name", name},
                    {"image", "rayproject/ray:2.46.0"},
                    {"resources", {{"requests", {{"cpu", cpu}, {"memory", memory}}}}}};
  if (!ports.is_null()) container["ports"] = std::move(ports);
  return {{"spec", {{"containers", Json::array({std::move(container)})}}}};
}

// Ray 2.46.0: the head (KubeRay's ports: gcs-server 6379, dashboard 8265, client 10001) and the
// worker group "workers" of `replicas`, between `minReplicas` and `maxReplicas`.
inline Json rayClusterSpec(const std::string& cpu, const std::string& memory, int replicas,
                           int minReplicas, int maxReplicas) {
  const Json ports = Json::array({{{"containerPort", 6379}, {"name", "gcs-server"}},
                                  {{"containerPort", 8265}, {"name", "dashboard"}},
                                  {{"containerPort", 10001}, {"name", "client"}}});
  Json head = {{"rayStartParams", Json::object()},
               {"template", rayPodTemplate("ray-head", cpu, memory, ports)}};
  Json workers = {
      {"groupName", "workers"},           {"replicas", replicas},
      {"minReplicas", minReplicas},       {"maxReplicas", maxReplicas},
      {"rayStartParams", Json::object()}, {"template", rayPodTemplate("ray-worker", cpu, memory)}};
  return {{"rayVersion", "2.46.0"},
          {"headGroupSpec", std::move(head)},
          {"workerGroupSpecs", Json::array({std::move(workers)})}};
}

}  // namespace fakekube::volcano::testing
