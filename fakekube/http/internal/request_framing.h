// How the body of a request is delimited, decided from its headers before any of it is read, as
// Go's net/http server (kube-apiserver's) decides it.
//
//   - Transfer-Encoding: only a single "chunked" is understood (case-insensitive). Any other
//     coding ("chunked, identity", "gzip", two header lines) is refused with 501, as Go refuses
//     it (RFC 9112 6.1: a server that does not understand a transfer coding answers 501). On
//     HTTP/1.0 the header is ignored, as Go ignores it.
//   - Content-Length: decimal digits only (no sign, at most 63 bits) after trimming spaces; else
//     400 "bad Content-Length". Repeated headers must agree, else 400. With chunked coding the
//     length is ignored (the coding wins, RFC 9112 6.3).
//   - A request with neither has no body. (HTTP/1.1 allows nothing else for requests; reading
//     until the client closes, as a response would be read, leaves the server waiting for a
//     client that waits for it.)
//
// Refusing these up front matters because the body's end is where the next request on the
// connection starts: a server and a client that disagree on it can no longer tell requests apart.
// A refused request's connection is closed after the answer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/status.h"

namespace fakekube {

struct BodyFraming {
  bool chunked = false;
  // The declared length (0 when the request has no body); unset when chunked.
  std::optional<std::uint64_t> contentLength;
};

// `transferEncodings` and `contentLengths` hold every value of those headers, in order.
Result<BodyFraming> requestBodyFraming(std::string_view httpVersion,
                                       const std::vector<std::string>& transferEncodings,
                                       const std::vector<std::string>& contentLengths);

}  // namespace fakekube
