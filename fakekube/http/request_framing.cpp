#include "fakekube/http/internal/request_framing.h"

#include <fmt/format.h>

#include <charconv>

namespace fakekube {

namespace {

std::string_view trimSpace(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// Go's %q of a list of header values: ["a" "b"].
std::string quotedList(const std::vector<std::string>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ' ';
    out += goQuote(values[i]);
  }
  return out + "]";
}

Status unsupportedTransferEncoding(std::string_view why) {
  // What client-go makes of a 5xx answer that is not a Status: reason InternalError.
  return Status::generic(501, "InternalError",
                         fmt::format("Unsupported transfer encoding: {}", why));
}

}  // namespace

Result<BodyFraming> requestBodyFraming(std::string_view httpVersion,
                                       const std::vector<std::string>& transferEncodings,
                                       const std::vector<std::string>& contentLengths) {
  BodyFraming framing;
  if (!transferEncodings.empty() && httpVersion != "HTTP/1.0") {
    if (transferEncodings.size() != 1) {
      return tl::unexpected(unsupportedTransferEncoding(
          fmt::format("too many transfer encodings: {}", quotedList(transferEncodings))));
    }
    if (!equalsIgnoringCase(trimSpace(transferEncodings[0]), "chunked")) {
      return tl::unexpected(unsupportedTransferEncoding(
          fmt::format("unsupported transfer encoding: {}", goQuote(transferEncodings[0]))));
    }
    framing.chunked = true;
  }
  if (contentLengths.size() > 1) {
    const std::string_view first = trimSpace(contentLengths[0]);
    for (std::size_t i = 1; i < contentLengths.size(); ++i) {
      if (trimSpace(contentLengths[i]) != first) {
        return tl::unexpected(Status::badRequest(
            fmt::format("http: message cannot contain multiple Content-Length headers; got {}",
                        quotedList(contentLengths))));
      }
    }
  }
  if (framing.chunked) return framing;
  framing.contentLength = 0;
  if (contentLengths.empty()) return framing;
  const std::string_view text = trimSpace(contentLengths[0]);
  if (text.empty()) return tl::unexpected(Status::badRequest("invalid empty Content-Length"));
  std::uint64_t length = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), length);
  if (ec != std::errc() || end != text.data() + text.size() ||
      length > (std::uint64_t{1} << 63) - 1) {
    return tl::unexpected(
        Status::badRequest(fmt::format("bad Content-Length: {}", goQuote(contentLengths[0]))));
  }
  framing.contentLength = length;
  return framing;
}

}  // namespace fakekube
