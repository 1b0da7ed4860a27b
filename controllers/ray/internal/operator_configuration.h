// The KubeRay operator's configuration file (`--config FILE`): KubeRay's Configuration
// (apis/config/v1alpha1/configuration_types.go), a YAML or JSON document of
// apiVersion config.ray.io/v1alpha1, kind Configuration.
//
// As upstream's main.go, a configuration file replaces the command-line flags: what it does not
// set takes the Configuration's defaults (SetDefaults_Configuration). The fields the port acts on:
//   headSidecarContainers, workerSidecarContainers   containers appended to every head / worker
//                                                    pod (OperatorOptions)
//   reconcileConcurrency                             workers per controller (0 -> 1)
//   useKubernetesProxy                               dashboards through the service proxy
//   deleteRayJobAfterJobFinishes                     TTL cleanup deletes the RayJob itself
//   batchScheduler, enableBatchScheduler             the gang scheduler's plug-in
// The others (metricsAddr, probeAddr, leader election, qps, burst, logging,
// watchNamespace, default pod metadata and envs) are accepted and ignored: fakekube's operator
// has no such endpoints or integrations (qps and burst are still type-checked, as the decoder
// checks them). Unknown fields are ignored too, as the universal decoder does.
//
// Errors are 400 BadRequest, worded as upstream's decoder words them:
//   Object 'Kind' is missing in config file
//   no kind "X" is registered for version "config.ray.io/v1alpha1"
//   json: cannot unmarshal object into Go struct field Configuration.headSidecarContainers of
//   type []v1.Container
#pragma once

#include <string>
#include <string_view>

#include "controllers/ray/operator_options.h"
#include "fakekube/api/status.h"

namespace fakekube::ray {

// Applies the configuration document `text` onto `options` (its environment-derived settings
// stay; the flags' settings are replaced). `options` is unchanged on error.
Result<void> applyOperatorConfiguration(std::string_view text, OperatorOptions& options);

// Reads the file at `path` and applies it; a file that cannot be read is an error naming it.
Result<void> loadOperatorConfiguration(const std::string& path, OperatorOptions& options);

}  // namespace fakekube::ray
