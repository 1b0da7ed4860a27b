#include "fakekube/http/http_server.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <httplib.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <set>
#include <thread>
#include <type_traits>
#include <vector>

#include "fakekube/api/json_writer.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/http/internal/authentication.h"
#include "fakekube/http/internal/impersonation.h"
#include "fakekube/http/internal/query_string.h"
#include "fakekube/http/internal/request_framing.h"
#include "fakekube/http/internal/request_metrics.h"
#include "fakekube/http/internal/rest_handler.h"
#include "fakekube/http/internal/watch_stream.h"

namespace fakekube {

namespace {

// --- connections ---
//
// httplib's own connection loop makes a new stream for every request of a keep-alive connection,
// so bytes that arrived behind a request (a pipelined second request) are dropped with the first
// request's read buffer, and the next request is never answered; and between requests it waits
// out the whole keep-alive timeout without looking at the server stopping. The servers below
// replace that loop (httplib's process_and_close_socket, a virtual hook) with one that keeps a
// single stream for the connection, and waits for the next request on the socket and on a stop
// pipe together. Each request is still parsed, routed and answered by httplib's process_request.

// Per connection thread: what the current request decided about its connection. httplib serves
// each connection on one thread and calls our hooks synchronously, so a thread_local reaches
// from the hooks back to the loop.
struct ConnectionState {
  bool routed = false;  // the request reached routing (it was well-formed HTTP)
  bool close = false;   // close the connection after this response
};
thread_local ConnectionState tConnection;

// What the loop needs from the HttpServer.
struct ConnectionControl {
  int stopFd = -1;  // readable once the server is stopping
  std::atomic<bool>* stopping = nullptr;
};

// poll() on one descriptor for `events`, retrying on EINTR: > 0 ready, 0 timed out, < 0 error.
int pollFor(int fd, short events, int timeoutMs) {
  pollfd p{fd, events, 0};
  while (true) {
    int n = ::poll(&p, 1, timeoutMs);
    if (n >= 0 || errno != EINTR) return n;
  }
}

int toMilliseconds(time_t seconds, time_t microseconds) {
  return static_cast<int>(seconds * 1000 + microseconds / 1000);
}

// One connection's byte stream, over the plain socket or TLS, kept for the whole connection.
class ConnectionStream final : public httplib::Stream {
 public:
  ConnectionStream(socket_t sock, SSL* ssl, int readTimeoutMs, int writeTimeoutMs)
      : sock_(sock), ssl_(ssl), readTimeoutMs_(readTimeoutMs), writeTimeoutMs_(writeTimeoutMs) {}

  bool is_readable() const override {
    return buffered() || pollFor(sock_, POLLIN, readTimeoutMs_) > 0;
  }
  // Writable, and not closed by the client (a peek sees an orderly close), as httplib's own
  // stream answers: an idle watch relies on it to notice its client went away.
  bool is_writable() const override {
    if (pollFor(sock_, POLLOUT, writeTimeoutMs_) <= 0) return false;
    char byte;
    const ssize_t n = ::recv(sock_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR));
  }

  ssize_t read(char* ptr, std::size_t size) override {
    if (size == 0) return 0;
    if (ssl_ != nullptr) return readTls(ptr, size);
    if (begin_ < end_) {
      const std::size_t n = std::min(size, end_ - begin_);
      std::memcpy(ptr, buffer_.data() + begin_, n);
      begin_ += n;
      return static_cast<ssize_t>(n);
    }
    if (pollFor(sock_, POLLIN, readTimeoutMs_) <= 0) return -1;
    if (size >= buffer_.size()) return receive(ptr, size);
    const ssize_t n = receive(buffer_.data(), buffer_.size());
    if (n <= 0) return n;
    begin_ = 0;
    end_ = static_cast<std::size_t>(n);
    return read(ptr, size);
  }

  ssize_t write(const char* ptr, std::size_t size) override {
    if (ssl_ != nullptr) {
      if (pollFor(sock_, POLLOUT, writeTimeoutMs_) <= 0) return -1;
      const int n = SSL_write(ssl_, ptr, static_cast<int>(std::min<std::size_t>(size, INT_MAX)));
      return n > 0 ? n : -1;
    }
    if (pollFor(sock_, POLLOUT, writeTimeoutMs_) <= 0) return -1;
    while (true) {
      const ssize_t n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
      if (n >= 0 || errno != EINTR) return n;
    }
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    address(::getpeername, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    address(::getsockname, ip, port);
  }
  socket_t socket() const override { return sock_; }

  // Waits for the next request to begin: true once a byte of it (or the client's close, which the
  // request parser then sees) is there; false after `timeoutMs` of silence or when `stopFd`
  // becomes readable.
  bool awaitRequest(int stopFd, int timeoutMs) const {
    if (buffered()) return true;
    std::array<pollfd, 2> fds{pollfd{sock_, POLLIN, 0}, pollfd{stopFd, POLLIN, 0}};
    while (true) {
      const int n = ::poll(fds.data(), stopFd >= 0 ? 2 : 1, timeoutMs);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0 || fds[1].revents != 0) return false;
      return true;
    }
  }

 private:
  bool buffered() const { return begin_ < end_ || (ssl_ != nullptr && SSL_pending(ssl_) > 0); }

  ssize_t receive(char* ptr, std::size_t size) {
    while (true) {
      const ssize_t n = ::recv(sock_, ptr, size, 0);
      if (n >= 0 || errno != EINTR) return n;
    }
  }

  ssize_t readTls(char* ptr, std::size_t size) {
    const int want = static_cast<int>(std::min<std::size_t>(size, INT_MAX));
    while (true) {
      if (SSL_pending(ssl_) <= 0 && pollFor(sock_, POLLIN, readTimeoutMs_) <= 0) return -1;
      const int n = SSL_read(ssl_, ptr, want);
      if (n > 0) return n;
      switch (SSL_get_error(ssl_, n)) {
        case SSL_ERROR_WANT_READ:
          continue;  // a record not complete yet
        case SSL_ERROR_WANT_WRITE:
          if (pollFor(sock_, POLLOUT, writeTimeoutMs_) <= 0) return -1;
          continue;
        case SSL_ERROR_ZERO_RETURN:
          return 0;
        default:
          return -1;
      }
    }
  }

  template <typename Get>
  void address(Get get, std::string& ip, int& port) const {
    sockaddr_storage addr{};
    socklen_t length = sizeof addr;
    if (get(sock_, reinterpret_cast<sockaddr*>(&addr), &length) != 0) return;
    std::array<char, NI_MAXHOST> host{};
    std::array<char, NI_MAXSERV> service{};
    if (::getnameinfo(reinterpret_cast<sockaddr*>(&addr), length, host.data(), host.size(),
                      service.data(), service.size(), NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
      ip = host.data();
      port = std::atoi(service.data());
    }
  }

  socket_t sock_;
  SSL* ssl_;
  int readTimeoutMs_;
  int writeTimeoutMs_;
  std::array<char, 16 * 1024> buffer_{};
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
};

// Closing a socket with unread input makes the kernel reset the connection, and a reset can
// destroy the answer the client has not read yet. So, as Go's server does before closing after a
// refused request, finish sending, then read and drop what the client still sends, until it
// closes, for at most half a second (or 1 MiB).
void lingerForClose(socket_t sock) {
  ::shutdown(sock, SHUT_WR);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  std::array<char, 16 * 1024> sink{};
  std::size_t dropped = 0;
  while (dropped < (1u << 20)) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0 || pollFor(sock, POLLIN, static_cast<int>(left)) <= 0) return;
    const ssize_t n = ::recv(sock, sink.data(), sink.size(), MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return;
    if (n > 0) dropped += static_cast<std::size_t>(n);
  }
}

// httplib::Server or httplib::SSLServer with the connection loop above.
template <typename Base>
class ConnectionServer final : public Base {
 public:
  template <typename... Args>
  explicit ConnectionServer(ConnectionControl control, Args&&... args)
      : Base(std::forward<Args>(args)...), control_(control) {}

 private:
  bool process_and_close_socket(socket_t sock) override {
    // Headers and body go out in separate writes: without this, Nagle's algorithm holds the
    // body's last segment until the client's delayed ACK of the first (~40 ms an answer).
    int one = 1;
    ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    SSL* ssl = nullptr;
    if constexpr (std::is_same_v<Base, httplib::SSLServer>) {
      // The accepted socket is blocking with httplib's read and write timeouts, which bound the
      // handshake too.
      ssl = SSL_new(this->ssl_context());
      if (ssl != nullptr && (SSL_set_fd(ssl, sock) != 1 || SSL_accept(ssl) != 1)) {
        SSL_free(ssl);
        ssl = nullptr;
      }
      if (ssl == nullptr) {
        ::shutdown(sock, SHUT_RDWR);
        ::close(sock);
        return false;
      }
    }
    ConnectionStream stream(sock, ssl,
                            toMilliseconds(this->read_timeout_sec_, this->read_timeout_usec_),
                            toMilliseconds(this->write_timeout_sec_, this->write_timeout_usec_));
    const int keepAliveMs = static_cast<int>(this->keep_alive_timeout_sec_ * 1000);
    bool ok = false;
    bool unread = false;  // the client may still be sending what was not read
    for (std::size_t left = std::max<std::size_t>(1, this->keep_alive_max_count_); left > 0;
         --left) {
      if (control_.stopping->load() || !stream.awaitRequest(control_.stopFd, keepAliveMs)) break;
      tConnection = ConnectionState{};
      bool closed = false;
      ok = this->process_request(stream, left == 1, closed,
                                 [ssl](httplib::Request& req) { req.ssl = ssl; });
      // A request httplib refused before routing (a malformed request line or header) leaves the
      // stream somewhere inside it: nothing after it can be read as a request.
      unread = tConnection.close || !tConnection.routed;
      if (!ok || closed || unread) break;
    }
    if (ssl != nullptr) {
      if (ok) SSL_shutdown(ssl);
      SSL_free(ssl);
    }
    if (unread) lingerForClose(sock);
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return ok;
  }

  ConnectionControl control_;
};

// An HTTPS server with `tls`'s certificate and key (httplib takes its own references to both).
Result<std::unique_ptr<httplib::Server>> makeTlsServer(const TlsCertificate& tls,
                                                       ConnectionControl control) {
  auto invalid = [](std::string_view what) {
    return tl::unexpected(Status::internal(fmt::format("TLS: {}", what)));
  };
  std::unique_ptr<BIO, decltype(&BIO_free)> certBio(
      BIO_new_mem_buf(tls.certificatePem.data(), static_cast<int>(tls.certificatePem.size())),
      &BIO_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> keyBio(
      BIO_new_mem_buf(tls.privateKeyPem.data(), static_cast<int>(tls.privateKeyPem.size())),
      &BIO_free);
  if (!certBio || !keyBio) return invalid("out of memory");
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      PEM_read_bio_X509(certBio.get(), nullptr, nullptr, nullptr), &X509_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_bio_PrivateKey(keyBio.get(), nullptr, nullptr, nullptr), &EVP_PKEY_free);
  if (!cert) return invalid("the certificate is not PEM");
  if (!key) return invalid("the private key is not PEM");
  auto server = std::make_unique<ConnectionServer<httplib::SSLServer>>(control, cert.get(),
                                                                       key.get(), nullptr);
  if (!server->is_valid()) return invalid("the certificate and key do not form a usable pair");
  return std::unique_ptr<httplib::Server>(std::move(server));
}

// Beyond the limit a body is still read (and dropped) up to this much, so that the client, which
// is still sending, receives the 413 rather than a reset connection.
constexpr std::size_t kMaxDrainBytes = 64 * 1024 * 1024;

// httplib's task queue: one thread per connection being served, from a pool that grows on demand
// (up to `max`) and keeps its threads for later connections. shutdown() joins them all.
class ConnectionThreads final : public httplib::TaskQueue {
 public:
  explicit ConnectionThreads(std::size_t max) : max_(std::max<std::size_t>(1, max)) {}

  void enqueue(std::function<void()> fn) override {
    std::unique_lock lock(mu_);
    jobs_.push_back(std::move(fn));
    // Every idle thread takes one job; start another when the jobs outnumber them.
    if (jobs_.size() > idle_ && threads_.size() < max_) {
      threads_.emplace_back([this] { work(); });
    } else {
      cv_.notify_one();
    }
  }

  void shutdown() override {
    std::vector<std::thread> threads;
    {
      std::lock_guard lock(mu_);
      shutdown_ = true;
      threads.swap(threads_);
    }
    cv_.notify_all();
    for (auto& t : threads) t.join();
  }

 private:
  void work() {
    std::unique_lock lock(mu_);
    while (true) {
      ++idle_;
      cv_.wait(lock, [this] { return !jobs_.empty() || shutdown_; });
      --idle_;
      if (jobs_.empty()) return;  // shutting down and nothing left to serve
      std::function<void()> job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      job();
      lock.lock();
    }
  }

  const std::size_t max_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  std::size_t idle_ = 0;
  bool shutdown_ = false;
};

void writeStatus(httplib::Response& res, const Status& status) {
  RestResponse response = RestHandler::errorResponse(status);
  res.status = response.status;
  for (const auto& [k, v] : response.headers) res.set_header(k.c_str(), v);
  res.set_content(response.body, response.contentType.c_str());
}

}  // namespace

struct HttpServer::Impl {
  Impl(ApiServer& api, HttpServerOptions options) : api(api), options(std::move(options)) {}

  void serve(const httplib::Request& req, httplib::Response& res,
             const httplib::ContentReader* reader);
  // The request's body, up to options.maxBodyBytes (a larger one is drained up to kMaxDrainBytes
  // and dropped).
  enum class BodyRead { Complete, TooLarge, Unreadable };
  BodyRead readBody(const httplib::ContentReader* reader, std::string& body);
  // What the handler answers, or /metrics.
  RestResponse respond(const RestRequest& request);
  // A handler's answer written as the HTTP response (a stream, chunks or a body).
  void writeResponse(httplib::Response& res, RestResponse response, const RequestLabels& labels,
                     std::chrono::steady_clock::time_point started);
  // start()'s steps: httplib's server (TLS or not), its routes and handlers, the listen socket.
  Result<void> makeServer();
  void installRoutes();
  Result<void> bindAndListen();
  httplib::Server::HandlerResponse checkFraming(const httplib::Request& req,
                                                httplib::Response& res);
  void serveStream(httplib::Response& res, std::shared_ptr<ResponseStream> stream,
                   const std::string& contentType, std::function<void()> ended);
  std::string renderMetrics() const {
    std::string text = metricsRegistry.renderPrometheusText();
    if (options.extraMetrics) text += options.extraMetrics();
    return text;
  }
  void forget(const std::shared_ptr<ResponseStream>& stream);

  ApiServer& api;
  const HttpServerOptions options;
  // An httplib::SSLServer when options.tls is set (made in start()).
  std::unique_ptr<httplib::Server> server;
  std::unique_ptr<RestHandler> handler;
  std::thread listener;
  int port = 0;
  std::atomic<bool> started{false};
  std::atomic<bool> stopping{false};
  std::atomic<bool> listenerDone{false};
  // Written once by stop(), never read: readable from then on, it wakes every connection waiting
  // for its next request.
  std::array<int, 2> stopPipe{-1, -1};

  mutable std::mutex streamsMu;
  std::set<std::shared_ptr<ResponseStream>> streams;

  MetricsRegistry metricsRegistry;
  RequestMetrics requestMetrics{metricsRegistry};
};

// Before routing, with the headers read and the body not: refuses bodies whose end cannot be
// told (request_framing.h), and makes sure httplib never waits for a body that is not coming.
httplib::Server::HandlerResponse HttpServer::Impl::checkFraming(const httplib::Request& req,
                                                                httplib::Response& res) {
  tConnection.routed = true;
  auto values = [&req](const char* name) {
    std::vector<std::string> out;
    auto [begin, end] = req.headers.equal_range(name);
    for (auto it = begin; it != end; ++it) out.push_back(it->second);
    return out;
  };
  auto framing =
      requestBodyFraming(req.version, values("Transfer-Encoding"), values("Content-Length"));
  if (!framing) {
    tConnection.close = true;
    writeStatus(res, framing.error());
    return httplib::Server::HandlerResponse::Handled;
  }
  const bool hasBody = framing->chunked || framing->contentLength.value_or(0) > 0;
  if (framing->contentLength && *framing->contentLength > kMaxDrainBytes) {
    // Too large to drain: answer now, and drop the connection rather than read it all.
    tConnection.close = true;
    writeStatus(res,
                Status::requestEntityTooLarge(fmt::format("limit is {}", options.maxBodyBytes)));
    return httplib::Server::HandlerResponse::Handled;
  }
  const std::string& m = req.method;
  if (m == "POST" || m == "PUT" || m == "PATCH" || m == "DELETE") {  // the methods httplib reads
    // httplib reads a request with neither header until the client closes; it has no body.
    if (!framing->chunked && !req.has_header("Content-Length")) {
      const_cast<httplib::Request&>(req).headers.emplace("Content-Length", "0");
    }
    if (framing->chunked) {
      // The coding wins over a length (httplib would read the chunks, but keep the header).
      const_cast<httplib::Request&>(req).headers.erase("Content-Length");
    }
  } else if (hasBody) {
    // httplib does not read the body of a GET: what follows it is not a request.
    tConnection.close = true;
  }
  return httplib::Server::HandlerResponse::Unhandled;
}

void HttpServer::Impl::serve(const httplib::Request& req, httplib::Response& res,
                             const httplib::ContentReader* reader) {
  // Never compress: httplib would gzip every application/json answer a client accepts gzip for
  // (Go clients always do), and its compressor holds a watch stream's events back until a buffer
  // fills. On loopback compression only costs CPU. httplib decides after the handler returns, from
  // the request's headers, which it owns and hands out as const.
  const_cast<httplib::Request&>(req).headers.erase("Accept-Encoding");

  RestRequest request;
  const BodyRead body = readBody(reader, request.body);
  // Who asks (authentication.h), before anything else: a request that is not authenticated
  // learns nothing else.
  auto authenticated =
      authenticateRequest(api, options.bearerToken, req.get_header_value("Authorization"));
  if (!authenticated) {
    writeStatus(res, authenticated.error());
    return;
  }
  // Then whom it acts as (impersonation.h): itself, or the user its Impersonate-* headers name.
  RequestHeaders impersonation;
  for (const auto& [name, value] : req.headers) {
    if (isImpersonationHeader(name)) impersonation.emplace_back(name, value);
  }
  auto user = impersonatedUser(api, *authenticated, impersonation);
  if (!user) {
    writeStatus(res, user.error());
    return;
  }
  if (body == BodyRead::TooLarge) {
    writeStatus(res,
                Status::requestEntityTooLarge(fmt::format("limit is {}", options.maxBodyBytes)));
    return;
  }
  if (body == BodyRead::Unreadable) {
    // A malformed chunk, or the client stopped sending: where the body ends is unknown.
    tConnection.close = true;
    writeStatus(res, Status::badRequest("the request body could not be read"));
    return;
  }
  request.method = req.method;
  request.path = req.path;
  // Not httplib's req.params: it splits a pair at its last '=' and drops repeated pairs.
  if (auto q = req.target.find('?'); q != std::string::npos) {
    request.query = parseQuery(std::string_view(req.target).substr(q + 1));
  }
  request.accept = req.get_header_value("Accept");
  request.contentType = req.get_header_value("Content-Type");
  request.userAgent = req.get_header_value("User-Agent");

  const auto started = std::chrono::steady_clock::now();
  const RequestLabels labels = requestLabels(request);
  // The ApiServer authorizes every verb the handler calls as this user.
  RequestUserScope scope(&*user);
  writeResponse(res, respond(request), labels, started);
}

HttpServer::Impl::BodyRead HttpServer::Impl::readBody(const httplib::ContentReader* reader,
                                                      std::string& body) {
  if (reader == nullptr) return BodyRead::Complete;
  bool tooLarge = false;
  std::size_t received = 0;
  const bool unreadable = !(*reader)([&](const char* data, std::size_t length) {
    received += length;
    if (received > options.maxBodyBytes) {
      tooLarge = true;
      tConnection.close = true;  // what was not drained is not a request
      body.clear();
      return received <= kMaxDrainBytes;
    }
    body.append(data, length);
    return true;
  });
  if (tooLarge) return BodyRead::TooLarge;
  return unreadable ? BodyRead::Unreadable : BodyRead::Complete;
}

RestResponse HttpServer::Impl::respond(const RestRequest& request) {
  if (request.path != "/metrics") return handler->handle(request);
  if (request.method != "GET" && request.method != "HEAD") {
    return RestHandler::errorResponse(
        Status::generic(405, "MethodNotAllowed",
                        "the server does not allow this method on the requested resource"));
  }
  RestResponse response;
  response.contentType = "text/plain; version=0.0.4; charset=utf-8";
  response.body = renderMetrics();
  return response;
}

void HttpServer::Impl::writeResponse(httplib::Response& res, RestResponse response,
                                     const RequestLabels& labels,
                                     std::chrono::steady_clock::time_point started) {
  if (response.stream) {
    serveStream(res, std::move(response.stream), response.contentType,
                [this, labels] { requestMetrics.record(labels, 200, 0); });
    return;
  }
  requestMetrics.record(
      labels, response.status,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  res.status = response.status;
  for (const auto& [k, v] : response.headers) res.set_header(k.c_str(), v);
  if (response.produce) {
    res.set_chunked_content_provider(
        response.contentType, [produce = std::move(response.produce), piece = std::string()](
                                  std::size_t, httplib::DataSink& sink) mutable {
          piece.clear();
          const bool more = produce(piece);
          if (!piece.empty() && !sink.write(piece.data(), piece.size())) return false;
          if (!more) sink.done();
          return true;
        });
    return;
  }
  res.set_content(std::move(response.body), response.contentType.c_str());
}

void HttpServer::Impl::serveStream(httplib::Response& res, std::shared_ptr<ResponseStream> stream,
                                   const std::string& contentType, std::function<void()> ended) {
  {
    std::lock_guard lock(streamsMu);
    streams.insert(stream);
  }
  // The server may have begun stopping before the stream was registered.
  if (stopping.load()) stream->stop();
  res.status = 200;
  // httplib calls the provider until it calls done() or fails. An idle provider checks that the
  // client is still connected: that is what ends the watch of a client that went away.
  res.set_chunked_content_provider(
      contentType,
      [this, stream](std::size_t, httplib::DataSink& sink) {
        std::string out;
        ResponseStream::Step step = stream->read(out, options.watchPollInterval);
        if (!out.empty() && !sink.write(out.data(), out.size())) return false;
        if (step == ResponseStream::Step::Ended) {
          sink.done();
          return true;
        }
        // Nothing to send: make sure the client is still there (is_writable also peeks the
        // socket for an orderly close).
        return step == ResponseStream::Step::Data || sink.is_writable();
      },
      [this, stream, ended = std::move(ended)](bool) {
        forget(stream);
        ended();
      });
}

void HttpServer::Impl::forget(const std::shared_ptr<ResponseStream>& stream) {
  stream->stop();
  std::lock_guard lock(streamsMu);
  streams.erase(stream);
}

HttpServer::HttpServer(ApiServer& server, HttpServerOptions options)
    : impl_(std::make_unique<Impl>(server, std::move(options))) {}

HttpServer::~HttpServer() {
  stop();
  for (int& fd : impl_->stopPipe) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
}

Result<void> HttpServer::start() {
  Impl& impl = *impl_;
  if (impl.started.exchange(true)) {
    return tl::unexpected(Status::internal("the HTTP server was started already"));
  }
  if (::pipe2(impl.stopPipe.data(), O_CLOEXEC) != 0) {
    return tl::unexpected(Status::internal("cannot make the stop pipe"));
  }
  if (auto made = impl.makeServer(); !made) return made;
  impl.installRoutes();
  return impl.bindAndListen();
}

Result<void> HttpServer::Impl::makeServer() {
  const ConnectionControl control{stopPipe[0], &stopping};
  if (options.tls) {
    auto made = makeTlsServer(*options.tls, control);
    if (!made) return tl::unexpected(made.error());
    server = std::move(*made);
  } else {
    server = std::make_unique<ConnectionServer<httplib::Server>>(control);
  }
  const std::size_t maxConnections = options.maxConnections;
  server->new_task_queue = [maxConnections] { return new ConnectionThreads(maxConnections); };
  server->set_tcp_nodelay(true);
  server->set_keep_alive_timeout(options.keepAliveTimeoutSeconds);
  server->set_keep_alive_max_count(std::max<std::size_t>(1, options.keepAliveMaxRequests));
  return {};
}

void HttpServer::Impl::installRoutes() {
  Impl& impl = *this;
  httplib::Server& server = *impl.server;
  auto plain = [&impl](const httplib::Request& req, httplib::Response& res) {
    impl.serve(req, res, nullptr);
  };
  auto withBody = [&impl](const httplib::Request& req, httplib::Response& res,
                          const httplib::ContentReader& reader) { impl.serve(req, res, &reader); };
  server.set_pre_routing_handler([&impl](const httplib::Request& req, httplib::Response& res) {
    return impl.checkFraming(req, res);
  });
  server.Get(".*", plain);
  server.Options(".*", plain);
  server.Post(".*", withBody);
  server.Put(".*", withBody);
  server.Patch(".*", withBody);
  server.Delete(".*", withBody);
  // What httplib answers itself (a method no handler takes, a malformed request) as a Status.
  server.set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        if (res.status == 404) {
          writeStatus(res, Status::generic(405, "MethodNotAllowed",
                                           "the server does not allow this method on the requested "
                                           "resource"));
        } else if (res.status == 413) {
          writeStatus(res, Status::requestEntityTooLarge("the request is too large"));
        } else {
          writeStatus(res, Status::badRequest(
                               fmt::format("the request could not be read (HTTP {})", res.status)));
        }
        return httplib::Server::HandlerResponse::Handled;
      }));
  server.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr error) {
        std::string what = "unknown error";
        try {
          if (error) std::rethrow_exception(error);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        writeStatus(res, Status::internal(what));
      });
  if (impl.options.requestLog) {
    server.set_logger(
        [log = impl.options.requestLog](const httplib::Request& req, const httplib::Response& res) {
          log(HttpRequestLog{req.method, req.target, res.status, req.remote_addr,
                             req.get_header_value("User-Agent")});
        });
  }
}

Result<void> HttpServer::Impl::bindAndListen() {
  Impl& impl = *this;
  httplib::Server& server = *impl.server;
  const std::string& host = impl.options.host;
  if (impl.options.port == 0) {
    impl.port = server.bind_to_any_port(host);
    if (impl.port <= 0) impl.port = 0;
  } else if (server.bind_to_port(host, impl.options.port)) {
    impl.port = impl.options.port;
  }
  if (impl.port == 0) {
    return tl::unexpected(
        Status::internal(fmt::format("cannot listen on {}:{}", host, impl.options.port)));
  }
  impl.handler = std::make_unique<RestHandler>(impl.api, fmt::format("{}:{}", host, impl.port),
                                               impl.options.network, impl.options.containerLogs);
  impl.listener = std::thread([&impl] {
    impl.server->listen_after_bind();
    impl.listenerDone.store(true);
  });
  // stop() only takes effect once httplib runs its accept loop.
  while (!server.is_running() && !impl.listenerDone.load()) std::this_thread::yield();
  return {};
}

int HttpServer::port() const { return impl_->port; }

std::string HttpServer::url() const {
  return fmt::format("{}://{}:{}", impl_->options.tls ? "https" : "http", impl_->options.host,
                     impl_->port);
}

void HttpServer::stop() {
  Impl& impl = *impl_;
  if (!impl.started.load() || impl.stopping.exchange(true)) return;
  {
    std::lock_guard lock(impl.streamsMu);
    for (const auto& stream : impl.streams) stream->stop();
  }
  if (impl.stopPipe[1] >= 0) {
    const char byte = 0;
    [[maybe_unused]] ssize_t ignored = ::write(impl.stopPipe[1], &byte, 1);
  }
  if (impl.server) impl.server->stop();
  if (impl.listener.joinable()) impl.listener.join();
}

std::string HttpServer::renderMetrics() const { return impl_->renderMetrics(); }

std::size_t HttpServer::activeWatches() const {
  std::lock_guard lock(impl_->streamsMu);
  return impl_->streams.size();
}

}  // namespace fakekube
