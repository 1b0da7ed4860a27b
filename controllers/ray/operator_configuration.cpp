#include "controllers/ray/internal/operator_configuration.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/yaml.h"

namespace fakekube::ray {

namespace {

constexpr std::string_view kConfigurationApiVersion = "config.ray.io/v1alpha1";
constexpr std::string_view kConfigurationKind = "Configuration";

// What encoding/json says of a value of the wrong JSON type for a Go field.
std::string unmarshalError(const Json& value, std::string_view field, std::string_view goType) {
  // encoding/json names the JSON type, and a number's text.
  const std::string got = value.is_object()    ? "object"
                          : value.is_array()   ? "array"
                          : value.is_string()  ? "string"
                          : value.is_boolean() ? "bool"
                                               : "number " + value.dump();
  return fmt::format("json: cannot unmarshal {} into Go struct field Configuration.{} of type {}",
                     got, field, goType);
}

// A []v1.Container field: absent or null is empty; each element must be an object.
Result<std::vector<Json>> containersField(const Json& config, std::string_view field) {
  std::vector<Json> out;
  auto it = config.find(std::string(field));
  if (it == config.end() || it->is_null()) return out;
  if (!it->is_array()) {
    return tl::unexpected(Status::badRequest(unmarshalError(*it, field, "[]v1.Container")));
  }
  for (const Json& container : *it) {
    if (!container.is_object()) {
      return tl::unexpected(Status::badRequest(unmarshalError(container, field, "v1.Container")));
    }
    out.push_back(container);
  }
  return out;
}

// qps (a float64) and burst (an int): checked though not acted on, as the decoder refuses them.
Result<void> checkNumberFields(const Json& config) {
  if (auto qps = config.find("qps"); qps != config.end() && !qps->is_null() && !qps->is_number()) {
    return tl::unexpected(Status::badRequest(unmarshalError(*qps, "qps", "float64")));
  }
  if (auto burst = config.find("burst");
      burst != config.end() && !burst->is_null() && !burst->is_number_integer()) {
    return tl::unexpected(Status::badRequest(unmarshalError(*burst, "burst", "int")));
  }
  return {};
}

Result<bool> boolField(const Json& config, std::string_view field) {
  auto it = config.find(std::string(field));
  if (it == config.end() || it->is_null()) return false;
  if (!it->is_boolean())
    return tl::unexpected(Status::badRequest(unmarshalError(*it, field, "bool")));
  return it->get<bool>();
}

Result<int> intField(const Json& config, std::string_view field) {
  auto it = config.find(std::string(field));
  if (it == config.end() || it->is_null()) return 0;
  if (!it->is_number_integer()) {
    return tl::unexpected(Status::badRequest(unmarshalError(*it, field, "int")));
  }
  return it->get<int>();
}

// The type of the document: apiVersion and kind as the universal decoder checks them.
Result<void> checkTypeMeta(const Json& config) {
  const std::string kind = config.value("kind", "");
  if (kind.empty()) {
    return tl::unexpected(Status::badRequest("Object 'Kind' is missing in config file"));
  }
  const std::string apiVersion = config.value("apiVersion", "");
  if (apiVersion != kConfigurationApiVersion || kind != kConfigurationKind) {
    return tl::unexpected(Status::badRequest(
        fmt::format("no kind \"{}\" is registered for version \"{}\"", kind, apiVersion)));
  }
  return {};
}

}  // namespace

Result<void> applyOperatorConfiguration(std::string_view text, OperatorOptions& options) {
  auto decoded = decodeYaml(text);
  if (!decoded) return tl::unexpected(decoded.error());
  const Json& config = *decoded;
  if (!config.is_object()) {
    return tl::unexpected(Status::badRequest("Object 'Kind' is missing in config file"));
  }
  if (auto typed = checkTypeMeta(config); !typed) return typed;
  auto head = containersField(config, "headSidecarContainers");
  if (!head) return tl::unexpected(head.error());
  auto worker = containersField(config, "workerSidecarContainers");
  if (!worker) return tl::unexpected(worker.error());
  auto concurrency = intField(config, "reconcileConcurrency");
  if (!concurrency) return tl::unexpected(concurrency.error());
  auto proxy = boolField(config, "useKubernetesProxy");
  if (!proxy) return tl::unexpected(proxy.error());
  auto deleteRayJob = boolField(config, "deleteRayJobAfterJobFinishes");
  if (!deleteRayJob) return tl::unexpected(deleteRayJob.error());
  auto enableBatchScheduler = boolField(config, "enableBatchScheduler");
  if (!enableBatchScheduler) return tl::unexpected(enableBatchScheduler.error());
  const Json* batchScheduler = jsonFind(config, "batchScheduler");
  if (batchScheduler != nullptr && !batchScheduler->is_null() && !batchScheduler->is_string()) {
    return tl::unexpected(
        Status::badRequest(unmarshalError(*batchScheduler, "batchScheduler", "string")));
  }
  if (auto numbers = checkNumberFields(config); !numbers) return numbers;

  options.headSidecarContainers = std::move(*head);
  options.workerSidecarContainers = std::move(*worker);
  // SetDefaults_Configuration: 0 -> DefaultReconcileConcurrency (1).
  options.reconcileConcurrency = *concurrency > 0 ? *concurrency : 1;
  options.useKubernetesProxy = *proxy;
  options.deleteRayJobAfterJobFinishes = *deleteRayJob;
  options.enableBatchScheduler = *enableBatchScheduler;
  options.batchScheduler = batchScheduler != nullptr && batchScheduler->is_string()
                               ? batchScheduler->get<std::string>()
                               : std::string();
  return {};
}

Result<void> loadOperatorConfiguration(const std::string& path, OperatorOptions& options) {
  std::ifstream in(path);
  if (!in) {
    return tl::unexpected(Status::badRequest(
        fmt::format("failed to read config file: open {}: no such file or directory", path)));
  }
  std::stringstream text;
  text << in.rdbuf();
  auto applied = applyOperatorConfiguration(text.str(), options);
  if (!applied) {
    Status error = applied.error();
    error.message = "failed to decode config file: " + error.message;
    return tl::unexpected(error);
  }
  return {};
}

}  // namespace fakekube::ray
