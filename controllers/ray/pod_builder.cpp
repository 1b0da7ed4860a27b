#include "controllers/ray/internal/pod_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>

#include "controllers/ray/constants.h"
#include "controllers/ray/internal/autoscaler_container.h"
#include "controllers/ray/internal/naming.h"
#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/internal/json_build.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/quantity.h"

namespace fakekube::ray {

namespace {

using StartParams = std::map<std::string, std::string>;

constexpr std::string_view kSharedMemoryVolumeName = "shared-mem";
constexpr std::string_view kSharedMemoryVolumeMountPath = "/dev/shm";
constexpr std::string_view kPlasmaDirectoryParamKey = "plasma-directory";
constexpr std::string_view kLocalHost = "127.0.0.1";

// Probe timings (utils/constant.go).
constexpr int kReadinessInitialDelaySeconds = 10;
constexpr int kReadinessTimeoutSeconds = 2;
constexpr int kHeadReadinessTimeoutSeconds = 5;
constexpr int kReadinessPeriodSeconds = 5;
constexpr int kReadinessSuccessThreshold = 1;
constexpr int kReadinessFailureThreshold = 10;
constexpr int kServeReadinessProbeFailureThreshold = 1;
constexpr int kLivenessInitialDelaySeconds = 30;
constexpr int kLivenessTimeoutSeconds = 2;
constexpr int kHeadLivenessTimeoutSeconds = 5;
constexpr int kLivenessPeriodSeconds = 5;
constexpr int kLivenessSuccessThreshold = 1;
constexpr int kLivenessFailureThreshold = 120;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// A rayStartParams map as strings (numbers and booleans written by hand are accepted too).
StartParams startParamsOf(const Json& group) {
  StartParams out;
  if (!group.is_object()) return out;
  auto it = group.find("rayStartParams");
  if (it == group.end() || !it->is_object()) return out;
  for (const auto& [k, v] : it->items()) {
    if (v.is_string()) {
      out[k] = v.get<std::string>();
    } else if (v.is_boolean()) {
      out[k] = v.get<bool>() ? "true" : "false";
    } else if (!v.is_null()) {
      out[k] = v.dump();
    }
  }
  return out;
}

// GetContainerCommand.
Json containerCommand(const OperatorOptions& options) {
  return Json::array({"/bin/bash", options.enableLoginShell ? "-cl" : "-c", "--"});
}

// convertParamMap: sorted keys; "true" -> " --k ", "false" dropped, otherwise " --k=v " (the
// special options keep an explicit boolean).
std::string convertParamMap(const StartParams& params) {
  static const std::vector<std::string> kSpecial = {"log-color", "include-dashboard",
                                                    "include-log-monitor"};
  std::string flags;
  for (const auto& [option, argument] : params) {  // std::map: sorted
    const std::string arg = lower(argument);
    const bool special = std::find(kSpecial.begin(), kSpecial.end(), option) != kSpecial.end();
    if ((arg == "true" || arg == "false") && !special) {
      if (arg == "true") flags += " --" + option + " ";
    } else {
      flags += " --" + option + "=" + argument + " ";
    }
  }
  return flags;
}

// convertCmdToString: " x " per element.
std::string convertCmdToString(const Json& array) {
  std::string out;
  if (!array.is_array()) return out;
  for (const Json& v : array) {
    if (v.is_string()) out += " " + v.get<std::string>() + " ";
  }
  return out;
}

const Json* resourceOf(const Json& container, const char* kind, const char* name) {
  auto res = container.find("resources");
  if (res == container.end() || !res->is_object()) return nullptr;
  auto list = res->find(kind);
  if (list == res->end() || !list->is_object()) return nullptr;
  auto q = list->find(name);
  if (q == list->end()) return nullptr;
  return &*q;
}

// Quantity.Value() of a resource entry (rounded up), or nullopt when absent, malformed or zero.
std::optional<std::int64_t> quantityValue(const Json* q) {
  if (!q) return std::nullopt;
  std::string text = q->is_string() ? q->get<std::string>() : q->is_number() ? q->dump() : "";
  auto v = parseQuantity(text);
  if (!v || *v == 0) return std::nullopt;
  return *v;
}

// generateRayStartCommand: fills num-cpus, memory and num-gpus from the Ray container's
// resources, then renders the command.
std::string generateRayStartCommand(std::string_view nodeType, StartParams& params,
                                    const Json& container) {
  if (!params.count("num-cpus")) {
    if (auto cpu = quantityValue(resourceOf(container, "limits", "cpu"))) {
      params["num-cpus"] = std::to_string(*cpu);
    } else if (auto request = quantityValue(resourceOf(container, "requests", "cpu"))) {
      params["num-cpus"] = std::to_string(*request);
    }
  }
  if (!params.count("memory")) {
    if (auto memory = quantityValue(resourceOf(container, "limits", "memory"))) {
      params["memory"] = std::to_string(*memory);
    }
  }
  if (!params.count("num-gpus")) {
    if (auto gpu = quantityValue(resourceOf(container, "limits", "nvidia.com/gpu"))) {
      params["num-gpus"] = std::to_string(*gpu);
    }
  }
  if (nodeType == kHeadNode) return "ray start --head " + convertParamMap(params);
  return "ray start " + convertParamMap(params);
}

// setMissingRayStartParams.
void setMissingRayStartParams(StartParams& params, std::string_view nodeType,
                              const std::string& port, const std::string& fqdnRayIp) {
  if (nodeType == kWorkerNode && !params.count("address")) {
    params["address"] = fqdnRayIp + ":" + port;
  }
  if (nodeType == kHeadNode && !params.count("dashboard-host")) {
    params["dashboard-host"] = "0.0.0.0";
  }
  if (!params.count("metrics-export-port")) {
    params["metrics-export-port"] = std::to_string(kDefaultMetricsPort);
  }
  params["block"] = "true";
  if (!params.count("dashboard-agent-listen-port")) {
    params["dashboard-agent-listen-port"] = std::to_string(kDefaultDashboardAgentListenPort);
  }
}

// labelPod: KubeRay's labels, then the overrides except cluster, node-type and group.
Json labelPod(std::string_view nodeType, const std::string& clusterName, std::string_view groupName,
              const Json& overrides) {
  Json labels = {
      {std::string(kRayNodeLabelKey), "yes"},
      {std::string(kRayClusterLabelKey), clusterName},
      {std::string(kRayNodeTypeLabelKey), std::string(nodeType)},
      {std::string(kRayNodeGroupLabelKey), std::string(groupName)},
      {std::string(kRayIdLabelKey), checkLabel(generateIdentifier(clusterName, nodeType))},
      {std::string(kKubernetesApplicationNameLabelKey), std::string(kApplicationName)},
      {std::string(kKubernetesCreatedByLabelKey), std::string(kComponentName)},
  };
  if (overrides.is_object()) {
    for (const auto& [k, v] : overrides.items()) {
      if (k == kRayNodeTypeLabelKey || k == kRayNodeGroupLabelKey || k == kRayClusterLabelKey) {
        continue;
      }
      labels[k] = v;
    }
  }
  return labels;
}

// mergeLabels: the template's labels, then the group's top-level `labels`.
Json mergedLabels(const Json& group) {
  Json merged = Json::object();
  if (auto t = group.find("template"); t != group.end() && t->is_object()) {
    const Json& labels = meta::labels(*t);
    if (labels.is_object()) merged = labels;
  }
  if (auto l = group.find("labels"); l != group.end() && l->is_object()) {
    for (const auto& [k, v] : l->items()) merged[k] = v;
  }
  return merged;
}

bool envExists(const Json& env, std::string_view name) {
  if (!env.is_array()) return false;
  for (const Json& e : env) {
    if (e.is_object() && stringField(e, "name") == name) return true;
  }
  return false;
}

Json envVar(std::string_view name, std::string_view value) {
  return jsonObject("name", std::string(name), "value", std::string(value));
}

Json fieldRefEnv(std::string_view name, std::string fieldPath) {
  return jsonObject("name", std::string(name), "valueFrom",
                    jsonObject("fieldRef", jsonObject("fieldPath", std::move(fieldPath))));
}

bool hasPortNamed(const Json& container, std::string_view name) {
  auto ports = container.find("ports");
  if (ports == container.end() || !ports->is_array()) return false;
  for (const Json& p : *ports) {
    if (p.is_object() && stringField(p, "name") == name) return true;
  }
  return false;
}

void addMetricsPort(Json& container) {
  if (hasPortNamed(container, kMetricsPortName)) return;
  if (!container.contains("ports") || !container["ports"].is_array()) {
    container["ports"] = Json::array();
  }
  container["ports"].push_back(
      {{"name", std::string(kMetricsPortName)}, {"containerPort", kDefaultMetricsPort}});
}

// addEmptyDir for /dev/shm.
void addSharedMemory(Json& pod, Json& container) {
  if (auto mounts = container.find("volumeMounts");
      mounts != container.end() && mounts->is_array()) {
    for (const Json& m : *mounts) {
      if (m.is_object() && stringField(m, "mountPath") == kSharedMemoryVolumeMountPath) return;
    }
  }
  Json& spec = pod["spec"];
  if (!spec.contains("volumes") || !spec["volumes"].is_array()) spec["volumes"] = Json::array();
  bool exists = false;
  for (const Json& v : spec["volumes"]) {
    if (v.is_object() && stringField(v, "name") == kSharedMemoryVolumeName) exists = true;
  }
  if (!exists) {
    Json emptyDir = {{"medium", "Memory"}};
    const Json* memory = resourceOf(container, "limits", "memory");
    if (!memory) memory = resourceOf(container, "requests", "memory");
    if (memory) emptyDir["sizeLimit"] = *memory;
    spec["volumes"].push_back(
        {{"name", std::string(kSharedMemoryVolumeName)}, {"emptyDir", std::move(emptyDir)}});
  }
  if (!container.contains("volumeMounts") || !container["volumeMounts"].is_array()) {
    container["volumeMounts"] = Json::array();
  }
  container["volumeMounts"].push_back({{"mountPath", std::string(kSharedMemoryVolumeMountPath)},
                                       {"name", std::string(kSharedMemoryVolumeName)},
                                       {"readOnly", false}});
}

// Ray >= 2.53 answers one HTTP health endpoint (supportsUnifiedHealthCheck).
bool supportsUnifiedHealthCheck(const Json& rayCluster) {
  std::string version;
  if (rayCluster.contains("spec") && rayCluster["spec"].is_object()) {
    const Json& spec = rayCluster["spec"];
    if (spec.contains("rayVersion") && spec["rayVersion"].is_string()) {
      version = spec["rayVersion"].get<std::string>();
    }
  }
  int parts[3] = {0, 0, 0};
  std::size_t pos = 0;
  for (int i = 0; i < 3 && pos <= version.size(); ++i) {
    std::size_t end = pos;
    while (end < version.size() && std::isdigit(static_cast<unsigned char>(version[end]))) ++end;
    if (end == pos) {
      if (i < 2) return false;  // at least major.minor
      break;
    }
    parts[i] = std::stoi(version.substr(pos, end - pos));
    if (end >= version.size() || version[end] != '.') {
      if (i < 1) return false;
      break;
    }
    pos = end + 1;
  }
  if (parts[0] != 2) return parts[0] > 2;
  return parts[1] >= 53;
}

int startParamPort(const StartParams& params, const std::string& key, int fallback) {
  auto it = params.find(key);
  if (it == params.end()) return fallback;
  try {
    std::size_t used = 0;
    long v = std::stol(it->second, &used);
    if (used == it->second.size() && v >= INT32_MIN && v <= INT32_MAX) return static_cast<int>(v);
  } catch (...) {
  }
  return fallback;
}

// The Ray container's port named "serve", else 8000 (FindContainerPort).
int servingPort(const Json& container) {
  for (const Json& port : jsonArrayAt(container, "ports")) {
    if (stringField(port, "name") == kServingPortName &&
        jsonAt(port, {"containerPort"}).is_number_integer()) {
      return jsonAt(port, {"containerPort"}).get<int>();
    }
  }
  return kDefaultServingPort;
}

// initLivenessAndReadinessProbe.
void initProbes(Json& container, std::string_view nodeType, const StartParams& params,
                const Json& rayCluster) {
  const bool head = nodeType == kHeadNode;
  const int agentPort =
      startParamPort(params, "dashboard-agent-listen-port", kDefaultDashboardAgentListenPort);
  const int dashboardPort = startParamPort(params, "dashboard-port", kDefaultDashboardPort);
  const std::string raylet =
      fmt::format("wget --tries 1 -T {} -q -O- http://localhost:{}/{} | grep success",
                  kReadinessTimeoutSeconds, agentPort, "api/local_raylet_healthz");
  const std::string gcs =
      fmt::format("wget --tries 1 -T {} -q -O- http://localhost:{}/{} | grep success",
                  kReadinessFailureThreshold, dashboardPort, "api/gcs_healthz");
  const std::string command = head ? raylet + " && " + gcs : raylet;
  const bool http = supportsUnifiedHealthCheck(rayCluster);
  auto action = [&](Json& probe) {
    if (http) {
      probe["httpGet"] = {{"path", "/api/healthz"}, {"port", agentPort}};
    } else {
      probe["exec"] = {{"command", Json::array({"bash", "-c", command})}};
    }
  };
  if (!container.contains("livenessProbe") || container["livenessProbe"].is_null()) {
    Json probe = {{"initialDelaySeconds", kLivenessInitialDelaySeconds},
                  {"timeoutSeconds", head ? kHeadLivenessTimeoutSeconds : kLivenessTimeoutSeconds},
                  {"periodSeconds", kLivenessPeriodSeconds},
                  {"successThreshold", kLivenessSuccessThreshold},
                  {"failureThreshold", kLivenessFailureThreshold}};
    action(probe);
    container["livenessProbe"] = std::move(probe);
  }
  if (!container.contains("readinessProbe") || container["readinessProbe"].is_null()) {
    Json probe = {
        {"initialDelaySeconds", kReadinessInitialDelaySeconds},
        {"timeoutSeconds", head ? kHeadReadinessTimeoutSeconds : kReadinessTimeoutSeconds},
        {"periodSeconds", kReadinessPeriodSeconds},
        {"successThreshold", kReadinessSuccessThreshold},
        {"failureThreshold", kReadinessFailureThreshold}};
    action(probe);
    // A RayService worker serves traffic only while its Serve proxy is healthy: its readiness
    // probe checks the proxy too (the head is labelled by the RayService controller instead).
    if (!head && creatorCrdType(rayCluster) == CrdType::RayService) {
      probe["failureThreshold"] = kServeReadinessProbeFailureThreshold;
      const std::string proxy =
          fmt::format("wget --tries 1 -T {} -q -O- http://localhost:{}/{} | grep success",
                      kReadinessInitialDelaySeconds, servingPort(container), "-/healthz");
      probe.erase("httpGet");
      probe["exec"] = {{"command", Json::array({"bash", "-c", command + " && " + proxy})}};
    }
    container["readinessProbe"] = std::move(probe);
  }
}

// setContainerEnvVars on the Ray container.
void setContainerEnvVars(Json& container, std::string_view nodeType, const std::string& fqdnRayIp,
                         const std::string& port, const std::string& rayStartCmd, CrdType creator) {
  if (!container.contains("env") || !container["env"].is_array()) container["env"] = Json::array();
  Json& env = container["env"];
  std::string ip(kLocalHost);
  if (nodeType == kWorkerNode) {
    ip = fqdnRayIp;
    env.push_back(envVar("FQ_RAY_IP", ip));
    env.push_back(envVar("RAY_IP", rayIpFromFqdn(ip)));
  }
  env.push_back(
      fieldRefEnv("RAY_CLUSTER_NAME", fmt::format("metadata.labels['{}']", kRayClusterLabelKey)));
  env.push_back(fieldRefEnv("RAY_CLUSTER_NAMESPACE", "metadata.namespace"));
  env.push_back(fieldRefEnv("RAY_CLOUD_INSTANCE_ID", "metadata.name"));
  env.push_back(fieldRefEnv("RAY_NODE_TYPE_NAME",
                            fmt::format("metadata.labels['{}']", kRayNodeGroupLabelKey)));
  env.push_back(envVar("KUBERAY_GEN_RAY_START_CMD", rayStartCmd));
  if (!envExists(env, "RAY_PORT")) env.push_back(envVar("RAY_PORT", port));
  if (creator == CrdType::RayService) {
    // Only for a RayService's clusters, to improve the service's SLA.
    if (!envExists(env, "RAY_timeout_ms_task_wait_for_death_info")) {
      env.push_back(envVar("RAY_timeout_ms_task_wait_for_death_info", "0"));
    }
    if (!envExists(env, "RAY_gcs_server_request_timeout_seconds")) {
      env.push_back(envVar("RAY_gcs_server_request_timeout_seconds", "5"));
    }
    if (!envExists(env, "RAY_SERVE_KV_TIMEOUT_S"))
      env.push_back(envVar("RAY_SERVE_KV_TIMEOUT_S", "5"));
  }
  if (!envExists(env, "RAY_ADDRESS")) env.push_back(envVar("RAY_ADDRESS", ip + ":" + port));
  if (!envExists(env, "RAY_USAGE_STATS_KUBERAY_IN_USE")) {
    env.push_back(envVar("RAY_USAGE_STATS_KUBERAY_IN_USE", "1"));
  }
  if (nodeType == kHeadNode) {
    env.push_back(envVar("RAY_USAGE_STATS_EXTRA_TAGS",
                         fmt::format("kuberay_version={};kuberay_crd={}", kKubeRayVersionValue,
                                     crdTypeName(creator))));
  }
  if (!envExists(env, "RAY_DASHBOARD_ENABLE_K8S_DISK_USAGE")) {
    env.push_back(envVar("RAY_DASHBOARD_ENABLE_K8S_DISK_USAGE", "1"));
  }
}

// The wait-gcs-ready init container of a worker (DefaultWorkerPodTemplate).
Json waitGcsReadyContainer(const Json& rayContainer, const std::string& fqdnRayIp,
                           const std::string& port, const OperatorOptions& options) {
  const std::string address = fqdnRayIp + ":" + port;
  std::string script = fmt::format(R"(
					SECONDS=0
					while true; do
						if (( SECONDS <= 120 )); then
							if ray health-check --address {0} > /dev/null 2>&1; then
								echo "GCS is ready."
								break
							fi
							echo "$SECONDS seconds elapsed: Waiting for GCS to be ready."
						else
							if ray health-check --address {0}; then
								echo "GCS is ready. Any error messages above can be safely ignored."
								break
							fi
							echo "$SECONDS seconds elapsed: Still waiting for GCS to be ready. For troubleshooting, refer to the FAQ at https://docs.ray.io/en/master/cluster/kubernetes/troubleshooting.html."
						fi
						sleep 5
					done
				)",
                                   address);
  Json init = {{"name", std::string(kWaitGcsReadyInitContainerName)},
               {"image", rayContainer.value("image", Json(""))},
               {"command", containerCommand(options)},
               {"args", Json::array({script})},
               {"resources",
                {{"limits", {{"cpu", "200m"}, {"memory", "256Mi"}}},
                 {"requests", {{"cpu", "200m"}, {"memory", "256Mi"}}}}}};
  for (const char* copied : {"imagePullPolicy", "securityContext", "env", "volumeMounts"}) {
    if (auto it = rayContainer.find(copied); it != rayContainer.end() && !it->is_null()) {
      init[copied] = *it;
    }
  }
  return init;
}

// BuildPod: what both kinds of pod get once their template is prepared.
Json buildPod(Json pod, std::string_view nodeType, StartParams params, const std::string& port,
              const std::string& fqdnRayIp, const Json& rayCluster,
              const OperatorOptions& options) {
  if (creatorCrdType(rayCluster) == CrdType::RayService) {
    // Workers are judged by their readiness probe, so they always carry ray.io/serve=true; the
    // head starts "false" and the RayService controller labels it by its proxy's health.
    Json& labels = pod["metadata"]["labels"];
    if (!labels.is_object()) labels = Json::object();
    labels[std::string(kRayClusterServingServiceLabelKey)] =
        nodeType == kHeadNode ? "false" : "true";
  }
  Json& container = pod["spec"]["containers"][kRayContainerIndex];
  if (!params.count(std::string(kPlasmaDirectoryParamKey))) addSharedMemory(pod, container);
  if (nodeType == kHeadNode && isAutoscalingEnabled(rayCluster)) addRayLogVolume(pod);

  std::string cmd;
  if (container.contains("command")) cmd = convertCmdToString(container["command"]);
  if (container.contains("args")) cmd += convertCmdToString(container["args"]);
  const std::string ulimit = "ulimit -n ${RAY_START_ULIMIT_OPEN_FILES:-65536}";
  const std::string rayStartCmd = generateRayStartCommand(nodeType, params, container);
  const bool overwrite =
      lower(meta::annotation(pod, kRayOverwriteContainerCmdAnnotationKey)) == "true";
  if (!overwrite && cmd.find("ray start") == std::string::npos) {
    const std::string generated = ulimit + "; " + rayStartCmd;
    container["command"] = containerCommand(options);
    container["args"] = Json::array({cmd.empty() ? generated : cmd + " && " + generated});
  }

  if (auto inits = pod["spec"].find("initContainers");
      inits != pod["spec"].end() && inits->is_array()) {
    for (Json& init : *inits) {
      if (!init.is_object()) continue;
      if (!init.contains("env") || !init["env"].is_array()) init["env"] = Json::array();
      init["env"].push_back(envVar("FQ_RAY_IP", fqdnRayIp));
      init["env"].push_back(envVar("RAY_IP", rayIpFromFqdn(fqdnRayIp)));
    }
  }
  setContainerEnvVars(container, nodeType, fqdnRayIp, port, rayStartCmd,
                      creatorCrdType(rayCluster));
  if (options.enableProbesInjection) initProbes(container, nodeType, params, rayCluster);
  meta::addOwnerReference(pod, meta::controllerRefTo(rayCluster));
  return pod;
}

// The template as a pod: metadata and spec of <group>.template, with apiVersion and kind.
Json podFromGroupTemplate(const Json& group) {
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", Json::object()},
              {"spec", Json::object()}};
  if (auto t = group.find("template"); t != group.end() && t->is_object()) {
    if (auto m = t->find("metadata"); m != t->end() && m->is_object()) pod["metadata"] = *m;
    if (auto s = t->find("spec"); s != t->end() && s->is_object()) pod["spec"] = *s;
  }
  if (!pod["spec"].contains("containers") || !pod["spec"]["containers"].is_array() ||
      pod["spec"]["containers"].empty()) {
    // Validation refuses a group without containers before any pod is built; keep the
    // builder total anyway.
    pod["spec"]["containers"] = Json::array({Json::object()});
  }
  pod["metadata"].erase("resourceVersion");
  pod["metadata"].erase("uid");
  pod["metadata"].erase("creationTimestamp");
  return pod;
}

// initTemplateAnnotations.
void initTemplateAnnotations(Json& pod, const Json& rayCluster) {
  if (!pod["metadata"].contains("annotations") || !pod["metadata"]["annotations"].is_object()) {
    pod["metadata"]["annotations"] = Json::object();
  }
  if (lower(meta::annotation(rayCluster, kRayOverwriteContainerCmdAnnotationKey)) == "true") {
    pod["metadata"]["annotations"][std::string(kRayOverwriteContainerCmdAnnotationKey)] = "true";
  }
}

// The operator configuration's sidecars, after the pod's own containers (and the autoscaler).
void appendSidecarContainers(Json& pod, const std::vector<Json>& sidecars) {
  for (const Json& sidecar : sidecars) pod["spec"]["containers"].push_back(sidecar);
}

std::uint64_t fnv1a(std::string_view data) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

std::string headPort(const Json& rayCluster) {
  StartParams params = startParamsOf(headGroupSpec(rayCluster));
  auto it = params.find("port");
  return it != params.end() ? it->second : std::to_string(kDefaultGcsServerPort);
}

Json buildHeadPod(const Json& rayCluster, const OperatorOptions& options,
                  const std::string& clusterHash) {
  const std::string clusterName = meta::name(rayCluster);
  const std::string ns = meta::namespace_(rayCluster);
  const Json& head = headGroupSpec(rayCluster);
  const std::string port = headPort(rayCluster);
  const std::string fqdn = fqdnServiceName(rayCluster, ns, options.clusterDomain);

  Json pod = podFromGroupTemplate(head);
  const std::string name = podName(clusterName, kHeadNode, !options.enableDeterministicHeadPodName);
  if (options.enableDeterministicHeadPodName) {
    pod["metadata"]["name"] = name;
  } else {
    pod["metadata"]["generateName"] = name;
    pod["metadata"].erase("name");
  }
  pod["metadata"]["namespace"] = ns;
  pod["metadata"]["labels"] = labelPod(kHeadNode, clusterName, kHeadGroupName, mergedLabels(head));

  StartParams params = startParamsOf(head);
  setMissingRayStartParams(params, kHeadNode, port, "");
  initTemplateAnnotations(pod, rayCluster);
  if (isAutoscalingEnabled(rayCluster)) {
    params["no-monitor"] = "true";
    addAutoscalerToHeadPod(pod, rayCluster, options);
  }
  addMetricsPort(pod["spec"]["containers"][kRayContainerIndex]);
  appendSidecarContainers(pod, options.headSidecarContainers);

  pod = buildPod(std::move(pod), kHeadNode, std::move(params), port, fqdn, rayCluster, options);
  if (!clusterHash.empty()) {
    pod["metadata"]["annotations"][std::string(kUpgradeStrategyRecreateHashKey)] = clusterHash;
    pod["metadata"]["annotations"][std::string(kKubeRayVersion)] =
        std::string(kKubeRayVersionValue);
  }
  return pod;
}

Json buildWorkerPod(const Json& rayCluster, const WorkerGroupSpec& group,
                    const OperatorOptions& options, const std::string& replicaGroupName,
                    int replicaIndex, int hostIndex) {
  const std::string clusterName = meta::name(rayCluster);
  const std::string ns = meta::namespace_(rayCluster);
  const Json& spec = group.raw ? *group.raw : Json::object();
  const std::string port = headPort(rayCluster);
  const std::string fqdn = fqdnServiceName(rayCluster, ns, options.clusterDomain);

  Json pod = podFromGroupTemplate(spec);
  pod["metadata"]["generateName"] = podName(clusterName + "-" + group.groupName, kWorkerNode, true);
  pod["metadata"]["namespace"] = ns;
  if (options.enableInitContainerInjection) {
    Json& initContainers = pod["spec"]["initContainers"];
    if (!initContainers.is_array()) initContainers = Json::array();
    initContainers.push_back(
        waitGcsReadyContainer(pod["spec"]["containers"][kRayContainerIndex], fqdn, port, options));
  }
  pod["metadata"].erase("name");
  Json labels = labelPod(kWorkerNode, clusterName, group.groupName, mergedLabels(spec));
  // RayMultiHostIndexing (on by default): the replica index on every worker; the replica
  // group's name and the host's index on the hosts of a multi-host group.
  labels[std::string(kRayWorkerReplicaIndexKey)] = std::to_string(replicaIndex);
  if (group.numOfHosts > 1) {
    labels[std::string(kRayWorkerReplicaNameKey)] = replicaGroupName;
    labels[std::string(kRayHostIndexKey)] = std::to_string(hostIndex);
  }
  pod["metadata"]["labels"] = std::move(labels);

  StartParams params = startParamsOf(spec);
  setMissingRayStartParams(params, kWorkerNode, port, fqdn);
  initTemplateAnnotations(pod, rayCluster);
  addMetricsPort(pod["spec"]["containers"][kRayContainerIndex]);
  if (isAutoscalingEnabled(rayCluster) && isAutoscalingV2Enabled(rayCluster)) {
    pod["spec"]["restartPolicy"] = "Never";
  }
  appendSidecarContainers(pod, options.workerSidecarContainers);
  return buildPod(std::move(pod), kWorkerNode, std::move(params), port, fqdn, rayCluster, options);
}

std::string clusterHash(const Json& rayCluster) {
  Json spec =
      rayCluster.is_object() && rayCluster.contains("spec") ? rayCluster["spec"] : Json::object();
  if (!spec.is_object()) spec = Json::object();
  auto muteTemplate = [](Json& group) {
    if (!group.is_object() || !group.contains("template") || !group["template"].is_object()) {
      return;
    }
    Json& t = group["template"];
    if (t.contains("spec") && t["spec"].is_object()) {
      t["spec"].erase("tolerations");
      t["spec"].erase("schedulingGates");
    }
  };
  if (spec.contains("headGroupSpec")) muteTemplate(spec["headGroupSpec"]);
  if (spec.contains("workerGroupSpecs") && spec["workerGroupSpecs"].is_array()) {
    for (Json& group : spec["workerGroupSpecs"]) {
      if (!group.is_object()) continue;
      group.erase("replicas");
      group.erase("minReplicas");
      group.erase("maxReplicas");
      if (group.contains("scaleStrategy") && group["scaleStrategy"].is_object()) {
        group["scaleStrategy"].erase("workersToDelete");
        // Go serialises the zero ScaleStrategy as {}: absent and empty hash alike.
        if (group["scaleStrategy"].empty()) group.erase("scaleStrategy");
      }
      muteTemplate(group);
    }
  }
  spec.erase("upgradeStrategy");
  // base32hex of the 64-bit hash, as KubeRay renders its SHA-1.
  static constexpr char kAlphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUV";
  std::uint64_t h = fnv1a(spec.dump());
  std::string out;
  for (int i = 0; i < 13; ++i) {
    out.push_back(kAlphabet[h & 31u]);
    h >>= 5;
  }
  return out;
}

}  // namespace fakekube::ray
