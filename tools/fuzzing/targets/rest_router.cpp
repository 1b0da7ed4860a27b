// The REST path router and handler: a request as "METHOD PATH[?QUERY]\nCONTENT-TYPE\nBODY" against
// one in-memory API server (kept across inputs, so earlier inputs leave objects behind). Every
// request is answered with a status code, and an error's body is a Status.
#include <nlohmann/json.hpp>

#include "fakekube/apiserver/api_server.h"
#include "fakekube/http/internal/rest_handler.h"
#include "fakekube/sim/sim_executor.h"
#include "tools/fuzzing/targets.h"

namespace fakekube::fuzz {

namespace {

std::string_view line(std::string_view& rest) {
  const auto end = rest.find('\n');
  std::string_view first = rest.substr(0, end);
  rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  return first;
}

RestRequest requestOf(std::string_view input) {
  RestRequest request;
  std::string_view requestLine = line(input);
  const auto space = requestLine.find(' ');
  request.method = std::string(requestLine.substr(0, space));
  std::string_view target =
      space == std::string_view::npos ? std::string_view() : requestLine.substr(space + 1);
  const auto question = target.find('?');
  request.path = std::string(target.substr(0, question));
  if (question != std::string_view::npos) {
    std::string_view query = target.substr(question + 1);
    while (!query.empty()) {
      const auto amp = query.find('&');
      std::string_view pair = query.substr(0, amp);
      const auto eq = pair.find('=');
      request.query.emplace_back(
          std::string(pair.substr(0, eq)),
          eq == std::string_view::npos ? "" : std::string(pair.substr(eq + 1)));
      query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    }
  }
  request.contentType = std::string(line(input));
  request.body = std::string(input);
  return request;
}

}  // namespace

void restRouter(std::string_view input) {
  static SimExecutor executor;
  static std::unique_ptr<ApiServer> server = [] {
    auto opened = ApiServer::open(executor.clock());
    require(opened.has_value(), "the API server does not open");
    return std::move(*opened);
  }();
  static RestHandler handler(*server, "127.0.0.1:6443");
  RestResponse response = handler.handle(requestOf(input));
  require(response.status >= 200 && response.status < 600, "a response without a status code");
  if (response.status >= 400 && response.stream == nullptr) {
    Json body = Json::parse(response.body, nullptr, false);
    require(body.is_object() && body.value("kind", "") == "Status",
            "an error that is not a Status");
  }
}

}  // namespace fakekube::fuzz
