// Raw HTTP/1.1 over a TCP socket, for the end-to-end tests that send what no client library would
// (malformed request lines, contradictory framing, pipelined requests) and need to see exactly
// what comes back, including whether the server closed the connection.
//
// Nothing here sleeps: reads wait on poll() with a deadline.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fakekube::e2e {

struct RawResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-cased names (the last of a repeated one)
  std::string body;

  std::string header(const std::string& lowerName) const {
    auto it = headers.find(lowerName);
    return it == headers.end() ? "" : it->second;
  }
};

// "http://127.0.0.1:PORT" -> host and port.
inline std::pair<std::string, int> hostAndPort(const std::string& url) {
  std::string rest = url.substr(url.find("://") + 3);
  auto colon = rest.rfind(':');
  return {rest.substr(0, colon), std::atoi(rest.c_str() + colon + 1)};
}

class RawConnection {
 public:
  using Clock = std::chrono::steady_clock;

  explicit RawConnection(const std::string& url) {
    auto [host, port] = hostAndPort(url);
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw std::runtime_error("socket failed");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1 ||
        ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd_);
      throw std::runtime_error("cannot connect to " + url);
    }
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool send(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  // The next response, or nullopt when the connection closed or `timeout` passed first.
  std::optional<RawResponse> read(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto deadline = Clock::now() + timeout;
    std::size_t end;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!fill(deadline)) return std::nullopt;
    }
    RawResponse response;
    std::string head = buffer_.substr(0, end);
    buffer_.erase(0, end + 4);
    std::size_t lineEnd = head.find("\r\n");
    std::string statusLine = head.substr(0, lineEnd);
    if (statusLine.rfind("HTTP/1.", 0) != 0 || statusLine.size() < 12) return std::nullopt;
    response.status = std::atoi(statusLine.c_str() + 9);
    while (lineEnd != std::string::npos) {
      std::size_t next = head.find("\r\n", lineEnd + 2);
      std::string line = head.substr(
          lineEnd + 2, next == std::string::npos ? std::string::npos : next - lineEnd - 2);
      lineEnd = next;
      auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = line.substr(0, colon);
      for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::size_t valueStart = line.find_first_not_of(' ', colon + 1);
      response.headers[name] = valueStart == std::string::npos ? "" : line.substr(valueStart);
    }
    if (response.header("transfer-encoding") == "chunked") {
      while (true) {
        std::size_t sizeEnd;
        while ((sizeEnd = buffer_.find("\r\n")) == std::string::npos) {
          if (!fill(deadline)) return std::nullopt;
        }
        const std::size_t size = std::strtoul(buffer_.c_str(), nullptr, 16);
        while (buffer_.size() < sizeEnd + 2 + size + 2) {
          if (!fill(deadline)) return std::nullopt;
        }
        response.body.append(buffer_, sizeEnd + 2, size);
        buffer_.erase(0, sizeEnd + 2 + size + 2);
        if (size == 0) break;
      }
    } else if (!response.header("content-length").empty()) {
      const std::size_t length =
          std::strtoul(response.header("content-length").c_str(), nullptr, 10);
      while (buffer_.size() < length) {
        if (!fill(deadline)) return std::nullopt;
      }
      response.body = buffer_.substr(0, length);
      buffer_.erase(0, length);
    } else {
      while (fill(deadline)) {
      }
      response.body = std::move(buffer_);
      buffer_.clear();
    }
    return response;
  }

  // Whether the server closes the connection (end of stream, nothing more to read) within
  // `timeout`.
  bool closedWithin(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (fill(deadline)) {
    }
    return eof_;
  }

 private:
  // Reads what is there into buffer_: false at end of stream, on error, or past the deadline.
  bool fill(Clock::time_point deadline) {
    if (eof_) return false;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) return true;
    if (ready <= 0) return false;
    char chunk[65536];
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) return true;
    if (n <= 0) {
      eof_ = true;
      return false;
    }
    buffer_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }

  int fd_ = -1;
  std::string buffer_;
  bool eof_ = false;
};

// A request as bytes: the request line, a Host header, `headers` (each "Name: value"), a
// Content-Length for `body` unless `headers` frame the body themselves, and the body.
inline std::string rawRequest(const std::string& method, const std::string& target,
                              const std::vector<std::string>& headers = {},
                              const std::string& body = "", bool addLength = true) {
  std::string out = method + " " + target + " HTTP/1.1\r\nHost: fakekube\r\n";
  for (const auto& h : headers) out += h + "\r\n";
  if (addLength && (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH")) {
    out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  return out + "\r\n" + body;
}

}  // namespace fakekube::e2e
