#include "fakekube/http/internal/pod_log.h"

#include <fmt/format.h>

#include <charconv>

#include "fakekube/apiserver/pod_logs.h"
#include "fakekube/http/internal/request_parameters.h"
#include "fakekube/http/internal/rest_handler.h"

namespace fakekube {

namespace {

// Go's strconv.ParseBool, as the API server decodes boolean parameters.

Result<PodLogOptions> podLogOptions(const RestRequest& request) {
  PodLogOptions options;
  options.container = request.param("container").value_or("");
  for (auto [name, field] :
       {std::pair{"follow", &options.follow}, std::pair{"previous", &options.previous},
        std::pair{"timestamps", &options.timestamps}}) {
    auto value = boolParameter(request, name);
    if (!value) return tl::unexpected(value.error());
    *field = value->value_or(false);
  }
  for (auto [name, field] : {std::pair{"tailLines", &options.tailLines},
                             std::pair{"sinceSeconds", &options.sinceSeconds},
                             std::pair{"limitBytes", &options.limitBytes}}) {
    auto value = intParameter(request, name);
    if (!value) return tl::unexpected(value.error());
    *field = *value;
  }
  if (auto since = request.param("sinceTime"); since && !since->empty()) {
    TimePoint t;
    if (!parseRfc3339(*since, &t)) {
      return tl::unexpected(
          Status::badRequest(fmt::format("invalid value for sinceTime: parsing time {} as "
                                         "\"2006-01-02T15:04:05Z07:00\": cannot parse",
                                         goQuote(*since))));
    }
    options.sinceTime = t;
  }
  return options;
}

// A followed log as the body of the response.
class LogStream final : public ResponseStream {
 public:
  explicit LogStream(std::shared_ptr<ContainerLogReader> reader) : reader_(std::move(reader)) {}
  ~LogStream() override { reader_->stop(); }

  Step read(std::string& out, std::chrono::milliseconds wait) override {
    switch (reader_->read(out, wait)) {
      case ContainerLogReader::Step::Data:
        return Step::Data;
      case ContainerLogReader::Step::Idle:
        return Step::Idle;
      case ContainerLogReader::Step::Ended:
        break;
    }
    return Step::Ended;
  }
  void stop() override { reader_->stop(); }

 private:
  std::shared_ptr<ContainerLogReader> reader_;
};

}  // namespace

bool isPodLogPath(const std::vector<std::string>& s) {
  return s.size() == 7 && s[0] == "api" && s[1] == "v1" && s[2] == "namespaces" && s[4] == "pods" &&
         s[6] == "log";
}

RestResponse podLogRequest(ApiServer& server, ContainerLogSource* logs, const RestRequest& request,
                           const std::vector<std::string>& s) {
  if (request.method != "GET" && request.method != "HEAD") {
    return RestHandler::errorResponse(
        Status::generic(405, "MethodNotAllowed",
                        "the server does not allow this method on the requested resource"));
  }
  auto options = podLogOptions(request);
  if (!options) return RestHandler::errorResponse(options.error());
  PodLogs podLogs(server, logs);
  auto reader = podLogs.open(s[3], s[5], *options);
  if (!reader) return RestHandler::errorResponse(reader.error());
  RestResponse response;
  response.contentType = "text/plain";
  if (options->follow) {
    response.stream = std::make_shared<LogStream>(std::move(*reader));
  } else {
    response.body = (*reader)->readAll();
  }
  return response;
}

}  // namespace fakekube
