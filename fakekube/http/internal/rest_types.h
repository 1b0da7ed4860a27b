// RestRequest / RestResponse: one HTTP exchange as the REST facade sees it, free of any HTTP
// library.
//
// The transport (http_server.cpp, over cpp-httplib) decodes a request into a RestRequest, hands
// it to the RestHandler, and writes the RestResponse back: a whole body, or for a watch or a
// followed log a ResponseStream it drains chunk by chunk. Keeping the facade's logic behind these
// two structs keeps the HTTP library out of every header but one .cpp file.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fakekube {

// A response body that arrives over time (a watch, a followed log): the transport pulls from it
// on the connection's thread, and between reads checks that the client is still there.
class ResponseStream {
 public:
  enum class Step {
    Data,   // bytes were appended to `out`
    Idle,   // nothing happened within `wait`
    Ended,  // the stream is over and everything was written (`out` may hold the last bytes)
  };
  virtual ~ResponseStream() = default;
  // Waits up to `wait` for more, then appends what there is. Only one thread reads a stream.
  virtual Step read(std::string& out, std::chrono::milliseconds wait) = 0;
  // Ends the stream (the client left or the server stops). Safe from any thread, more than once.
  virtual void stop() = 0;
};

struct RestRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // URL-decoded path, without the query
  // URL-decoded query parameters in the order sent; a name may repeat (dryRun=All&dryRun=All).
  std::vector<std::pair<std::string, std::string>> query;
  std::string accept;       // the Accept header ("" when absent)
  std::string contentType;  // the Content-Type header ("" when absent)
  std::string userAgent;    // the User-Agent header (the default field manager)
  std::string body;

  // The first value of a query parameter, or nullopt when it is absent.
  std::optional<std::string> param(std::string_view name) const {
    for (const auto& [k, v] : query) {
      if (k == name) return v;
    }
    return std::nullopt;
  }
};

struct RestResponse {
  int status = 200;
  std::string contentType = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // Set for a watch or a followed log: the response is 200 with a chunked body of contentType
  // the transport pulls from here.
  std::shared_ptr<ResponseStream> stream;
  // Set for a large list: the body is written piece by piece as the transport sends it (chunked),
  // so it is never held whole. Each call appends the next piece to `out`; false after the last.
  std::function<bool(std::string& out)> produce;
};

}  // namespace fakekube
