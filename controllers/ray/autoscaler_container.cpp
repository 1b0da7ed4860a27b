#include "controllers/ray/internal/autoscaler_container.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "controllers/ray/constants.h"
#include "controllers/ray/internal/naming.h"
#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/internal/json_build.h"
#include "fakekube/api/json_lookup.h"

namespace fakekube::ray {

namespace {

constexpr std::string_view kRayEnableAutoscalerV2 = "RAY_enable_autoscaler_v2";

Json autoscalerFieldRefEnv(std::string_view name, std::string fieldPath) {
  return jsonObject("name", std::string(name), "valueFrom",
                    jsonObject("fieldRef", jsonObject("fieldPath", std::move(fieldPath))));
}

Json autoscalerEnv(std::string_view name, std::string_view value) {
  return jsonObject("name", std::string(name), "value", std::string(value));
}

// Appends the members of the list `field` of `overrides` to the container's list of that name.
void appendList(Json& container, const Json& overrides, const char* field) {
  auto it = overrides.find(field);
  if (it == overrides.end() || !it->is_array() || it->empty()) return;
  Json& list = container[field];
  if (!list.is_array()) list = Json::array();
  for (const Json& item : *it) list.push_back(item);
}

// Replaces the container's `field` with the override's when it is set (and, for a list, not
// empty: Go's len() > 0).
void replaceIfSet(Json& container, const Json& overrides, const char* field) {
  auto it = overrides.find(field);
  if (it == overrides.end() || it->is_null()) return;
  if (it->is_array() && it->empty()) return;
  container[field] = *it;
}

std::string autoscalerVersion(const Json& rayCluster) {
  const Json& version = jsonAt(rayCluster, {"spec", "autoscalerOptions", "version"});
  return version.is_string() ? version.get<std::string>() : "";
}

// addEmptyDir with the default medium: a volume `ray-logs` (emptyDir {}) and its mount.
void mountRayLogs(Json& pod, Json& container) {
  if (auto mounts = container.find("volumeMounts");
      mounts != container.end() && mounts->is_array()) {
    for (const Json& m : *mounts) {
      if (m.is_object() && stringField(m, "mountPath") == kRayLogVolumeMountPath) return;
    }
  }
  Json& volumes = pod["spec"]["volumes"];
  if (!volumes.is_array()) volumes = Json::array();
  bool exists = false;
  for (const Json& v : volumes) {
    if (v.is_object() && stringField(v, "name") == kRayLogVolumeName) exists = true;
  }
  if (!exists) {
    volumes.push_back(
        jsonObject("name", std::string(kRayLogVolumeName), "emptyDir", Json::object()));
  }
  Json& mounts = container["volumeMounts"];
  if (!mounts.is_array()) mounts = Json::array();
  mounts.push_back(jsonObject("mountPath", std::string(kRayLogVolumeMountPath), "name",
                              std::string(kRayLogVolumeName), "readOnly", false));
}

}  // namespace

Json buildAutoscalerContainer(const std::string& image, const OperatorOptions& options) {
  const std::string command(kAutoscalerStartCommand);
  Json env =
      Json::array({autoscalerFieldRefEnv("RAY_CLUSTER_NAME",
                                         fmt::format("metadata.labels['{}']", kRayClusterLabelKey)),
                   autoscalerFieldRefEnv("RAY_CLUSTER_NAMESPACE", "metadata.namespace"),
                   autoscalerFieldRefEnv("RAY_HEAD_POD_NAME", "metadata.name"),
                   autoscalerEnv("KUBERAY_CRD_VER", "v1"),
                   autoscalerEnv("KUBERAY_GEN_AUTOSCALER_START_CMD", command)});
  Json quantities = jsonObject("cpu", "500m", "memory", "512Mi");
  return jsonObject("name", std::string(kAutoscalerContainerName), "image", image,
                    "imagePullPolicy", "IfNotPresent", "env", std::move(env), "command",
                    Json::array({"/bin/bash", options.enableLoginShell ? "-cl" : "-c", "--"}),
                    "args", Json::array({command}), "resources",
                    jsonObject("limits", quantities, "requests", quantities));
}

void mergeAutoscalerOverrides(Json& container, const Json& autoscalerOptions) {
  if (!autoscalerOptions.is_object()) return;
  replaceIfSet(container, autoscalerOptions, "resources");
  replaceIfSet(container, autoscalerOptions, "image");
  replaceIfSet(container, autoscalerOptions, "imagePullPolicy");
  appendList(container, autoscalerOptions, "env");
  appendList(container, autoscalerOptions, "envFrom");
  appendList(container, autoscalerOptions, "volumeMounts");
  replaceIfSet(container, autoscalerOptions, "securityContext");
  replaceIfSet(container, autoscalerOptions, "command");
  replaceIfSet(container, autoscalerOptions, "args");
}

int autoscalerContainerIndex(const Json& pod) {
  const Json& containers = jsonAt(pod, {"spec", "containers"});
  if (!containers.is_array()) return -1;
  for (std::size_t i = 0; i < containers.size(); ++i) {
    if (containers[i].is_object() && stringField(containers[i], "name") == kAutoscalerContainerName)
      return static_cast<int>(i);
  }
  return -1;
}

bool isAutoscalingV1Enabled(const Json& rayCluster) {
  return autoscalerVersion(rayCluster) == "v1";
}

bool isAutoscalingV2Enabled(const Json& rayCluster) {
  return autoscalerVersion(rayCluster) == "v2";
}

void addAutoscalerToHeadPod(Json& pod, const Json& rayCluster, const OperatorOptions& options) {
  Json& spec = pod["spec"];
  spec["serviceAccountName"] = checkName(headGroupServiceAccountName(rayCluster));
  // The autoscaler uses the Ray container's image unless autoscalerOptions names one.
  Json container = buildAutoscalerContainer(
      stringField(spec["containers"][kRayContainerIndex], "image"), options);
  mergeAutoscalerOverrides(container, jsonAt(rayCluster, {"spec", "autoscalerOptions"}));
  spec["containers"].push_back(std::move(container));
  Json& ray = spec["containers"][kRayContainerIndex];
  if (isAutoscalingV2Enabled(rayCluster) || isAutoscalingV1Enabled(rayCluster)) {
    if (!ray["env"].is_array()) ray["env"] = Json::array();
    ray["env"].push_back(autoscalerEnv(kRayEnableAutoscalerV2,
                                       isAutoscalingV2Enabled(rayCluster) ? "true" : "false"));
  }
  if (isAutoscalingV2Enabled(rayCluster)) spec["restartPolicy"] = "Never";
}

void addRayLogVolume(Json& pod) {
  const int index = autoscalerContainerIndex(pod);
  if (index < 0) return;
  mountRayLogs(pod, pod["spec"]["containers"][kRayContainerIndex]);
  mountRayLogs(pod, pod["spec"]["containers"][index]);
}

}  // namespace fakekube::ray
