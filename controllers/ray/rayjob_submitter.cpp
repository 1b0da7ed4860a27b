#include "controllers/ray/internal/rayjob_submitter.h"

#include <nlohmann/json.hpp>

#include "controllers/ray/constants.h"
#include "controllers/ray/internal/submitter_command.h"
#include "controllers/ray/rayjob_types.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"

namespace fakekube::ray {

namespace {

// GetDefaultSubmitterContainer: the head's image, KubeRay's fixed resources.
Json defaultSubmitterContainer(const Json& rayClusterSpec) {
  const Json& containers =
      jsonAt(rayClusterSpec, {"headGroupSpec", "template", "spec", "containers"});
  std::string image;
  if (containers.is_array() && !containers.empty()) {
    const Json& i = jsonAt(containers[kRayContainerIndex], {"image"});
    if (i.is_string()) image = i.get<std::string>();
  }
  return {{"name", std::string(kSubmitterContainerName)},
          {"image", image},
          {"resources",
           {{"limits", {{"cpu", "1"}, {"memory", "1Gi"}}},
            {"requests", {{"cpu", "500m"}, {"memory", "200Mi"}}}}}};
}

// configureSubmitterContainer.
Result<void> configureSubmitterContainer(Json& container, const Json& rayJob,
                                         std::string_view mode) {
  auto tokens = buildJobSubmitCommand(rayJob, mode);
  if (!tokens) return tl::unexpected(tokens.error());
  const Json& command = jsonAt(container, {"command"});
  if (!command.is_array() || command.empty() || mode == kSidecarMode) {
    container["command"] = Json::array({"/bin/bash", "-ce", "--"});
    container["args"] = Json::array({joinCommand(*tokens)});
  }
  if (!container["env"].is_array()) container["env"] = Json::array();
  container["env"].push_back({{"name", "PYTHONUNBUFFERED"}, {"value", "1"}});
  container["env"].push_back({{"name", std::string(kRayDashboardAddressEnv)},
                              {"value", statusString(rayJob, "dashboardURL")}});
  container["env"].push_back(
      {{"name", std::string(kRayJobSubmissionIdEnv)}, {"value", statusString(rayJob, "jobId")}});
  return {};
}

}  // namespace

Result<Json> submitterTemplate(const Json& rayJob, const Json& rayClusterSpec) {
  Json podTemplate;
  if (const Json& user = jsonAt(rayJob, {"spec", "submitterPodTemplate"}); user.is_object()) {
    podTemplate = user;
  } else {
    podTemplate = {{"spec",
                    {{"containers", Json::array({defaultSubmitterContainer(rayClusterSpec)})},
                     {"restartPolicy", "Never"}}}};
  }
  Json& containers = podTemplate["spec"]["containers"];
  if (!containers.is_array() || containers.empty()) {
    return tl::unexpected(Status::badRequest("the submitter pod template has no containers"));
  }
  if (auto configured =
          configureSubmitterContainer(containers[kRayContainerIndex], rayJob, kK8sJobMode);
      !configured) {
    return tl::unexpected(configured.error());
  }
  Json& metadata = podTemplate["metadata"];
  if (!metadata.is_object()) metadata = Json::object();
  if (!metadata["labels"].is_object()) metadata["labels"] = Json::object();
  metadata["labels"][std::string(kRayOriginatedFromCRNameLabelKey)] = meta::name(rayJob);
  metadata["labels"][std::string(kRayOriginatedFromCRDLabelKey)] = std::string(kRayJobKind);
  metadata["labels"][std::string(kKubernetesCreatedByLabelKey)] = std::string(kComponentName);
  return podTemplate;
}

Result<Json> submitterJob(const Json& rayJob, const Json& rayClusterSpec) {
  auto podTemplate = submitterTemplate(rayJob, rayClusterSpec);
  if (!podTemplate) return tl::unexpected(podTemplate.error());
  std::int64_t backoffLimit = 2;
  if (const Json& b = jsonAt(rayJob, {"spec", "submitterConfig", "backoffLimit"});
      b.is_number_integer()) {
    backoffLimit = b.get<std::int64_t>();
  }
  return Json{{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata",
               {{"name", meta::name(rayJob)},
                {"namespace", meta::namespace_(rayJob)},
                {"labels",
                 {{std::string(kRayOriginatedFromCRNameLabelKey), meta::name(rayJob)},
                  {std::string(kRayOriginatedFromCRDLabelKey), std::string(kRayJobKind)},
                  {std::string(kKubernetesCreatedByLabelKey), std::string(kComponentName)}}}}},
              {"spec", {{"backoffLimit", backoffLimit}, {"template", std::move(*podTemplate)}}}};
}

Result<Json> sidecarSubmitterContainer(const Json& rayJob, const Json& rayClusterSpec) {
  Json container = defaultSubmitterContainer(rayClusterSpec);
  if (auto configured = configureSubmitterContainer(container, rayJob, kSidecarMode); !configured) {
    return tl::unexpected(configured.error());
  }
  return container;
}

}  // namespace fakekube::ray
