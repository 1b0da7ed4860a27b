#include "controllers/ray/internal/submitter_command.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>

#include "controllers/ray/constants.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/yaml.h"

namespace fakekube::ray {

namespace {

constexpr std::string_view kGcsHealthPath = "api/gcs_healthz";  // RayDashboardGCSHealthPath
constexpr int kGcsHealthCheckTimeoutSeconds = 10;  // RayDashboardGCSHealthCheckTimeoutSeconds

// Go's json.Marshal: nlohmann's compact form with keys sorted (std::map order) and the HTML
// characters escaped as Go escapes them.
std::string goJson(const Json& value) {
  std::string text = value.dump();
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else {
      out += c;
    }
  }
  return out;
}

std::string trimSpace(std::string_view s) {
  auto isSpace = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
  return std::string(s);
}

// major.minor.patch of a semantic version ("2.9" and "v2.9.1" too); nullopt when it does not
// parse. A pre-release (2.6.0-rc1) sorts just below its release.
std::optional<std::array<long, 4>> parseVersion(std::string_view text) {
  if (text.starts_with('v')) text.remove_prefix(1);
  std::array<long, 4> parts{0, 0, 0, 1};
  std::size_t part = 0;
  std::size_t i = 0;
  while (part < 3) {
    std::size_t start = i;
    long n = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      n = n * 10 + (text[i] - '0');
      ++i;
    }
    if (i == start) return std::nullopt;
    parts[part++] = n;
    if (i == text.size() || text[i] != '.') break;
    ++i;
  }
  if (i < text.size()) {
    if (text[i] == '-') {
      parts[3] = 0;
    } else if (text[i] != '+') {
      return std::nullopt;
    }
  }
  return parts;
}

Result<std::string> metadataJson(const Json& rayJob, const Json& metadata) {
  const Json& rayVersion = jsonAt(rayJob, {"spec", "rayClusterSpec", "rayVersion"});
  if (rayVersion.is_string() && !rayVersion.get<std::string>().empty()) {
    const std::string version = rayVersion.get<std::string>();
    auto parsed = parseVersion(version);
    if (!parsed) {
      return tl::unexpected(Status::badRequest(
          fmt::format("failed to parse Ray version: {}: Invalid Semantic Version", version)));
    }
    if (*parsed < std::array<long, 4>{2, 6, 0, 1}) {
      return tl::unexpected(
          Status::badRequest("the Ray version must be at least 2.6.0 to use the metadata field"));
    }
  }
  return goJson(metadata);
}

std::string floatFlag(double value) { return fmt::format("{:f}", value); }

}  // namespace

std::string pythonHealthCommand(std::string_view url) {
  return fmt::format(
      "python -c \"import urllib.request; r=urllib.request.urlopen('{}', timeout={}); exit(0 if "
      "b'success' in r.read() else 1)\"",
      url, kGcsHealthCheckTimeoutSeconds);
}

namespace {

// The dashboard port of the head's first container (FindContainerPort), or the default.
int sidecarDashboardPort(const Json& rayJob) {
  const Json& containers =
      jsonAt(rayJob, {"spec", "rayClusterSpec", "headGroupSpec", "template", "spec", "containers"});
  if (containers.is_array() && !containers.empty() && containers[0].is_object()) {
    for (const auto& p : containers[0].value("ports", Json::array())) {
      if (p.is_object() && p.value("name", "") == kDashboardPortName &&
          p.contains("containerPort") && p["containerPort"].is_number_integer()) {
        return p["containerPort"].get<int>();
      }
    }
  }
  return kDefaultDashboardPort;
}

// The --entrypoint-* and the other options of `ray job submit` the RayJob's spec asks for, after
// its runtime environment and metadata.
Result<void> appendSubmitOptions(std::vector<std::string>& cmd, const Json& rayJob,
                                 const std::string& jobId) {
  const Json& spec = jsonAt(rayJob, {"spec"});
  const Json& runtimeEnvYaml = jsonAt(spec, {"runtimeEnvYAML"});
  if (runtimeEnvYaml.is_string() && !runtimeEnvYaml.get<std::string>().empty()) {
    auto runtimeEnv = decodeYaml(runtimeEnvYaml.get<std::string>());
    if (!runtimeEnv) return tl::unexpected(runtimeEnv.error());
    cmd.push_back("--runtime-env-json");
    cmd.push_back(goQuote(goJson(*runtimeEnv)));
  }
  const Json& metadata = jsonAt(spec, {"metadata"});
  if (metadata.is_object() && !metadata.empty()) {
    auto text = metadataJson(rayJob, metadata);
    if (!text) return tl::unexpected(text.error());
    cmd.push_back("--metadata-json");
    cmd.push_back(goQuote(*text));
  }
  auto number = [&](std::string_view key) {
    const Json& v = jsonAt(spec, {key});
    return v.is_number() ? v.get<double>() : 0.0;
  };
  const double numCpus = number("entrypointNumCpus");
  const double numGpus = number("entrypointNumGpus");
  const Json& resourcesValue = jsonAt(spec, {"entrypointResources"});
  const std::string resources = resourcesValue.is_string() ? resourcesValue.get<std::string>() : "";
  if (!jobId.empty()) cmd.insert(cmd.end(), {"--submission-id", jobId});
  if (numCpus > 0) cmd.insert(cmd.end(), {"--entrypoint-num-cpus", floatFlag(numCpus)});
  if (numGpus > 0) cmd.insert(cmd.end(), {"--entrypoint-num-gpus", floatFlag(numGpus)});
  if (!resources.empty()) cmd.insert(cmd.end(), {"--entrypoint-resources", goQuote(resources)});
  return {};
}

}  // namespace

Result<std::vector<std::string>> buildJobSubmitCommand(const Json& rayJob,
                                                       std::string_view submissionMode,
                                                       bool sidecarSubmitterRestart) {
  const bool sidecar = submissionMode == "SidecarMode";
  std::string address;
  const int port = sidecar ? sidecarDashboardPort(rayJob) : kDefaultDashboardPort;
  if (sidecar) {
    address = fmt::format("http://127.0.0.1:{}", port);
  } else if (submissionMode == "K8sJobMode") {
    const Json& url = jsonAt(rayJob, {"status", "dashboardURL"});
    address = url.is_string() ? url.get<std::string>() : "";
    if (!address.starts_with("http://")) address = "http://" + address;
  } else {
    return tl::unexpected(Status::badRequest(
        fmt::format("unsupported submission mode for job submit command: {}", submissionMode)));
  }
  const Json& jobIdValue = jsonAt(rayJob, {"status", "jobId"});
  const std::string jobId = jobIdValue.is_string() ? jobIdValue.get<std::string>() : "";
  const Json& entrypointValue = jsonAt(rayJob, {"spec", "entrypoint"});
  const std::string entrypoint =
      trimSpace(entrypointValue.is_string() ? entrypointValue.get<std::string>() : "");

  std::vector<std::string> cmd;
  const std::string healthUrl = sidecar
                                    ? fmt::format("http://localhost:{}/{}", port, kGcsHealthPath)
                                    : address + "/" + std::string(kGcsHealthPath);
  for (std::string token :
       {std::string("until"), pythonHealthCommand(healthUrl), std::string(">/dev/null"),
        std::string("2>&1"), std::string(";"), std::string("do"), std::string("echo"),
        goQuote("Waiting for Ray Dashboard GCS to become healthy at " + address + " ..."),
        std::string(";"), std::string("sleep"), std::string("2"), std::string(";"),
        std::string("done"), std::string(";")}) {
    cmd.push_back(std::move(token));
  }
  const bool needsStatusCheck = !sidecar || sidecarSubmitterRestart;
  if (needsStatusCheck) {
    cmd.insert(cmd.end(), {"if", "!", "ray", "job", "status", "--address", address, jobId,
                           ">/dev/null", "2>&1", ";", "then"});
  }
  cmd.insert(cmd.end(), {"ray", "job", "submit", "--address", address});
  if (needsStatusCheck) cmd.push_back("--no-wait");
  if (auto appended = appendSubmitOptions(cmd, rayJob, jobId); !appended) {
    return tl::unexpected(appended.error());
  }
  cmd.insert(cmd.end(), {"--", entrypoint, ";"});
  if (needsStatusCheck) {
    cmd.insert(cmd.end(),
               {"fi", ";", "ray", "job", "logs", "--address", address, "--follow", jobId});
  }
  return cmd;
}

std::string joinCommand(const std::vector<std::string>& tokens) {
  return fmt::format("{}", fmt::join(tokens, " "));
}

}  // namespace fakekube::ray
