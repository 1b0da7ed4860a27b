#include "fakekube/apiserver/pod_logs.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"

namespace fakekube {

namespace {

std::optional<Status> validateOptions(const std::string& name, const PodLogOptions& o) {
  std::vector<FieldError> errors;
  if (o.tailLines && *o.tailLines < 0) {
    errors.push_back(FieldError::invalid("tailLines", std::to_string(*o.tailLines),
                                         "must be greater than or equal to 0"));
  }
  if (o.limitBytes && *o.limitBytes < 1) {
    errors.push_back(
        FieldError::invalid("limitBytes", std::to_string(*o.limitBytes), "must be greater than 0"));
  }
  if (o.sinceSeconds && o.sinceTime) {
    errors.push_back(
        FieldError::forbidden("", "at most one of `sinceTime` or `sinceSeconds` may be specified"));
  } else if (o.sinceSeconds && *o.sinceSeconds < 1) {
    errors.push_back(FieldError::invalid("sinceSeconds", std::to_string(*o.sinceSeconds),
                                         "must be greater than 0"));
  }
  if (errors.empty()) return std::nullopt;
  return Status::invalid("", "PodLogOptions", name, std::move(errors));
}

// Names in the order the API server visits them: init containers, then containers.
std::vector<std::string> containerNames(const Json& pod) {
  std::vector<std::string> names;
  for (const char* field : {"initContainers", "containers", "ephemeralContainers"}) {
    const Json& list = jsonAt(pod, {"spec", field});
    if (!list.is_array()) continue;
    for (const auto& c : list) {
      if (c.is_object() && c.contains("name") && c["name"].is_string()) {
        names.push_back(c["name"].get<std::string>());
      }
    }
  }
  return names;
}

// validateContainer of the API server: the container the request reads.
Result<std::string> chooseContainer(const Json& pod, const std::string& name,
                                    const std::string& requested) {
  const std::vector<std::string> all = containerNames(pod);
  if (requested.empty()) {
    const Json& containers = jsonAt(pod, {"spec", "containers"});
    const std::size_t count = containers.is_array() ? containers.size() : 0;
    if (count == 1 && containers[0].is_object() && containers[0].contains("name") &&
        containers[0]["name"].is_string()) {
      return containers[0]["name"].get<std::string>();
    }
    if (count == 0) {
      return tl::unexpected(
          Status::badRequest(fmt::format("a container name must be specified for pod {}", name)));
    }
    return tl::unexpected(Status::badRequest(
        fmt::format("a container name must be specified for pod {}, choose one of: [{}]", name,
                    fmt::join(all, " "))));
  }
  for (const auto& n : all) {
    if (n == requested) return requested;
  }
  return tl::unexpected(
      Status::badRequest(fmt::format("container {} is not valid for pod {}", requested, name)));
}

std::string textAt(const Json& j, std::initializer_list<std::string_view> path) {
  const Json& v = jsonAt(j, path);
  return v.is_string() ? v.get<std::string>() : std::string();
}

// validateContainerLogStatus of the kubelet: the containerID whose log is read.
Result<std::string> containerIdFor(const Json& pod, const std::string& name,
                                   const std::string& container, bool previous) {
  const Json* status = nullptr;
  for (const char* field : {"containerStatuses", "initContainerStatuses"}) {
    const Json& list = jsonAt(pod, {"status", field});
    if (!list.is_array()) continue;
    for (const auto& s : list) {
      if (s.is_object() && s.value("name", "") == container) {
        status = &s;
        break;
      }
    }
    if (status != nullptr) break;
  }
  if (status == nullptr) {
    return tl::unexpected(Status::badRequest(
        fmt::format("container {} in pod {} is not available", goQuote(container), goQuote(name))));
  }
  const Json& state = jsonAt(*status, {"state"});
  const Json& last = jsonAt(*status, {"lastState", "terminated"});
  const std::string lastId = textAt(last, {"containerID"});
  if (previous) {
    if (!last.is_object() || lastId.empty()) {
      return tl::unexpected(
          Status::badRequest(fmt::format("previous terminated container {} in pod {} not found",
                                         goQuote(container), goQuote(name))));
    }
    return lastId;
  }
  auto terminatedError = [&] {
    return tl::unexpected(Status::badRequest(
        fmt::format("container {} in pod {} is terminated", goQuote(container), goQuote(name))));
  };
  if (jsonAt(state, {"running"}).is_object()) return textAt(*status, {"containerID"});
  if (const Json& terminated = jsonAt(state, {"terminated"}); terminated.is_object()) {
    std::string id = textAt(terminated, {"containerID"});
    if (id.empty()) id = lastId;
    if (id.empty()) return terminatedError();
    return id;
  }
  if (last.is_object()) {
    if (lastId.empty()) return terminatedError();
    return lastId;
  }
  if (const Json& waiting = jsonAt(state, {"waiting"}); waiting.is_object()) {
    const std::string reason = textAt(waiting, {"reason"});
    std::string why = reason;
    if (reason == "ErrImagePull") why = "image can't be pulled";
    if (reason == "ImagePullBackOff") why = "trying and failing to pull image";
    return tl::unexpected(Status::badRequest(fmt::format(
        "container {} in pod {} is waiting to start: {}", goQuote(container), goQuote(name), why)));
  }
  return tl::unexpected(
      Status::badRequest(fmt::format("container {} in pod {} is waiting to start - no logs yet",
                                     goQuote(container), goQuote(name))));
}

// The log of a pod no kubelet runs: empty, and ended.
class EmptyContainerLog final : public ContainerLogReader {
 public:
  Step read(std::string& out, std::chrono::milliseconds wait) override { return Step::Ended; }
  std::string readAll() override { return {}; }
  void stop() override {}
};

}  // namespace

PodLogs::PodLogs(ApiServer& server, ContainerLogSource* logs) : server_(server), logs_(logs) {}

Result<std::shared_ptr<ContainerLogReader>> PodLogs::open(const std::string& ns,
                                                          const std::string& name,
                                                          const PodLogOptions& options) {
  if (auto invalid = validateOptions(name, options)) return tl::unexpected(*invalid);
  auto got = server_.get(kPods, ns, name);
  if (!got) return tl::unexpected(got.error());
  const Json& pod = **got;
  auto container = chooseContainer(pod, name, options.container);
  if (!container) return tl::unexpected(container.error());

  LogReadOptions read;
  read.follow = options.follow;
  read.timestamps = options.timestamps;
  read.tailLines = options.tailLines;
  read.limitBytes = options.limitBytes;
  if (options.sinceSeconds) {
    read.since = server_.clock().now() - std::chrono::seconds(*options.sinceSeconds);
  }
  if (options.sinceTime && (!read.since || *options.sinceTime > *read.since)) {
    read.since = options.sinceTime;
  }
  // Not scheduled: no kubelet to ask, an empty log.
  if (textAt(pod, {"spec", "nodeName"}).empty() || logs_ == nullptr) {
    return std::make_shared<EmptyContainerLog>();
  }
  auto id = containerIdFor(pod, name, *container, options.previous);
  if (!id) return tl::unexpected(id.error());
  return logs_->reader(*id, read);
}

Result<std::string> PodLogs::read(const std::string& ns, const std::string& name,
                                  PodLogOptions options) {
  options.follow = false;
  auto reader = open(ns, name, options);
  if (!reader) return tl::unexpected(reader.error());
  return (*reader)->readAll();
}

}  // namespace fakekube
