#include "controllers/ray/internal/redis_cleanup_job.h"

#include <nlohmann/json.hpp>

#include "controllers/ray/constants.h"
#include "controllers/ray/internal/naming.h"
#include "controllers/ray/internal/pod_builder.h"
#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/object_meta.h"

namespace fakekube::ray {

namespace {

bool envExists(const Json& container, std::string_view name) {
  auto env = container.find("env");
  if (env == container.end() || !env->is_array()) return false;
  for (const Json& e : *env) {
    if (e.is_object() && stringField(e, "name") == name) return true;
  }
  return false;
}

}  // namespace

Json buildRedisCleanupJob(const Json& rayCluster, const OperatorOptions& options) {
  Json pod = buildHeadPod(rayCluster, options, "");
  pod["metadata"]["labels"][std::string(kRayNodeTypeLabelKey)] = std::string(kRedisCleanupNode);
  Json container = pod["spec"]["containers"][kRayContainerIndex];
  pod["spec"]["containers"] = Json::array();
  container["command"] = Json::array({"/bin/bash", options.enableLoginShell ? "-cl" : "-c", "--"});
  std::string args =
      "echo \"To get more information about manually deleting the storage namespace in Redis and "
      "removing the RayCluster's finalizer, please check "
      "https://docs.ray.io/en/master/cluster/kubernetes/user-guides/kuberay-gcs-ft.html for more "
      "details.\" && python -c \"from ray._private.gcs_utils import cleanup_redis_storage; from "
      "urllib.parse import urlparse; import os; import sys; redis_address = "
      "os.getenv('RAY_REDIS_ADDRESS', '').split(',')[0]; redis_address = redis_address if '://' "
      "in redis_address else 'redis://' + redis_address; parsed = urlparse(redis_address); ";
  if (envExists(container, "REDIS_USERNAME")) {
    args +=
        "sys.exit(1) if not cleanup_redis_storage(host=parsed.hostname, port=parsed.port, "
        "username=os.getenv('REDIS_USERNAME', parsed.username), "
        "password=os.getenv('REDIS_PASSWORD', parsed.password or ''), "
        "use_ssl=parsed.scheme=='rediss', "
        "storage_namespace=os.getenv('RAY_external_storage_namespace')) else None\"";
  } else {
    args +=
        "sys.exit(1) if not cleanup_redis_storage(host=parsed.hostname, port=parsed.port, "
        "password=os.getenv('REDIS_PASSWORD', parsed.password or ''), "
        "use_ssl=parsed.scheme=='rediss', "
        "storage_namespace=os.getenv('RAY_external_storage_namespace')) else None\"";
  }
  container["args"] = Json::array({args});
  container.erase("livenessProbe");
  container.erase("readinessProbe");
  if (!container.contains("env") || !container["env"].is_array()) container["env"] = Json::array();
  container["env"].push_back({{"name", "RAY_redis_db_connect_retries"}, {"value", "120"}});
  container["env"].push_back(
      {{"name", "RAY_redis_db_connect_wait_milliseconds"}, {"value", "500"}});
  container["resources"] = {{"limits", {{"cpu", "200m"}, {"memory", "256Mi"}}},
                            {"requests", {{"cpu", "200m"}, {"memory", "256Mi"}}}};
  pod["spec"]["containers"].push_back(std::move(container));
  pod["spec"]["restartPolicy"] = "Never";

  Json templateMetadata = pod["metadata"];
  templateMetadata.erase("ownerReferences");
  templateMetadata.erase("namespace");
  templateMetadata.erase("name");
  templateMetadata.erase("generateName");
  Json job = {{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata",
               {{"name", checkLabel(meta::name(rayCluster) + "-redis-cleanup")},
                {"namespace", meta::namespace_(rayCluster)},
                {"labels", pod["metadata"]["labels"]},
                {"annotations", pod["metadata"].value("annotations", Json::object())}}},
              {"spec",
               {{"backoffLimit", 0},
                {"activeDeadlineSeconds", 300},
                {"template", {{"metadata", std::move(templateMetadata)}, {"spec", pod["spec"]}}}}}};
  meta::addOwnerReference(job, meta::controllerRefTo(rayCluster));
  return job;
}

}  // namespace fakekube::ray
