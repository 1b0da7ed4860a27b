#include "controllers/ray/operator_options.h"

#include <charconv>
#include <cstdlib>
#include <string_view>

namespace fakekube::ray {
namespace {

// KubeRay compares most switches with strings.ToLower(v) == "true".
bool isTrue(std::string_view value) {
  if (value.size() != 4) return false;
  return (value[0] | 0x20) == 't' && (value[1] | 0x20) == 'r' && (value[2] | 0x20) == 'u' &&
         (value[3] | 0x20) == 'e';
}

bool isFalse(std::string_view value) {
  if (value.size() != 5) return false;
  const char* f = "false";
  for (int i = 0; i < 5; ++i)
    if ((value[i] | 0x20) != f[i]) return false;
  return true;
}

// A positive integer number of seconds, else `fallback` (as KubeRay's strconv.Atoi checks).
std::chrono::seconds positiveSeconds(const char* value, std::chrono::seconds fallback) {
  if (value == nullptr) return fallback;
  std::string_view text(value);
  long long seconds = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (error != std::errc() || end != text.data() + text.size() || seconds <= 0) return fallback;
  return std::chrono::seconds(seconds);
}

}  // namespace

OperatorOptions OperatorOptions::fromEnvironment(
    const std::function<const char*(const char*)>& getenv) {
  auto read = [&](const char* name) -> const char* {
    return getenv ? getenv(name) : std::getenv(name);
  };
  OperatorOptions options;
  auto flag = [&](const char* name, bool& field) {
    if (const char* value = read(name)) field = isTrue(value);
  };
  flag("ENABLE_RANDOM_POD_DELETE", options.enableRandomPodDelete);
  if (const char* value = read("ENABLE_GCS_FT_REDIS_CLEANUP"))
    options.enableGcsFtRedisCleanup = !isFalse(value);
  if (const char* value = read("ENABLE_PROBES_INJECTION"))
    options.enableProbesInjection = !isFalse(value);
  if (const char* value = read("ENABLE_INIT_CONTAINER_INJECTION"))
    options.enableInitContainerInjection = !isFalse(value);
  flag("ENABLE_RAY_HEAD_CLUSTER_IP_SERVICE", options.enableRayHeadClusterIpService);
  flag("ENABLE_DETERMINISTIC_HEAD_POD_NAME", options.enableDeterministicHeadPodName);
  flag("ENABLE_LOGIN_SHELL", options.enableLoginShell);
  flag("DELETE_RAYJOB_CR_AFTER_JOB_FINISHES", options.deleteRayJobAfterJobFinishes);
  if (const char* value = read("ENABLE_ZERO_DOWNTIME"))
    options.enableZeroDowntime = !isFalse(value);
  if (const char* value = read("CLUSTER_DOMAIN"); value != nullptr && *value != '\0')
    options.clusterDomain = value;
  options.rayClusterDefaultRequeue = positiveSeconds(read("RAYCLUSTER_DEFAULT_REQUEUE_SECONDS_ENV"),
                                                     options.rayClusterDefaultRequeue);
  options.rayJobStatusCheckTimeout = positiveSeconds(read("RAYJOB_STATUS_CHECK_TIMEOUT_SECONDS"),
                                                     options.rayJobStatusCheckTimeout);
  options.rayJobDeploymentStatusTransitionGracePeriod =
      positiveSeconds(read("RAYJOB_DEPLOYMENT_STATUS_TRANSITION_GRACE_PERIOD_SECONDS"),
                      options.rayJobDeploymentStatusTransitionGracePeriod);
  options.gcsFtDeletionTimeout = positiveSeconds(read("RAYCLUSTER_GCS_FT_DELETION_TIMEOUT_DEFAULT"),
                                                 options.gcsFtDeletionTimeout);
  return options;
}

}  // namespace fakekube::ray
