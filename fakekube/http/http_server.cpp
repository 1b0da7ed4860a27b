#include "fakekube/http/http_server.h"

#include <fmt/format.h>
#include <httplib.h>
#include <openssl/pem.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "fakekube/api/json_writer.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/http/request_metrics.h"
#include "fakekube/http/rest_handler.h"
#include "fakekube/http/watch_stream.h"

namespace fakekube {

namespace {

// An HTTPS server with `tls`'s certificate and key (httplib takes its own references to both).
Result<std::unique_ptr<httplib::Server>> makeTlsServer(const TlsCertificate& tls) {
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
  auto server = std::make_unique<httplib::SSLServer>(cert.get(), key.get());
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
  void serveStream(httplib::Response& res, std::shared_ptr<WatchStream> stream,
                   std::function<void()> ended);
  std::string renderMetrics() const {
    std::string text = metricsRegistry.renderPrometheusText();
    if (options.extraMetrics) text += options.extraMetrics();
    return text;
  }
  void forget(const std::shared_ptr<WatchStream>& stream);

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

  mutable std::mutex streamsMu;
  std::set<std::shared_ptr<WatchStream>> streams;

  MetricsRegistry metricsRegistry;
  RequestMetrics requestMetrics{metricsRegistry};
};

void HttpServer::Impl::serve(const httplib::Request& req, httplib::Response& res,
                             const httplib::ContentReader* reader) {
  // Never compress: httplib would gzip every application/json answer a client accepts gzip for
  // (Go clients always do), and its compressor holds a watch stream's events back until a buffer
  // fills. On loopback compression only costs CPU. httplib decides after the handler returns, from
  // the request's headers, which it owns and hands out as const.
  const_cast<httplib::Request&>(req).headers.erase("Accept-Encoding");

  RestRequest request;
  bool tooLarge = false;
  if (reader != nullptr) {
    std::size_t received = 0;
    (*reader)([&](const char* data, std::size_t length) {
      received += length;
      if (received > options.maxBodyBytes) {
        tooLarge = true;
        request.body.clear();
        return received <= kMaxDrainBytes;
      }
      request.body.append(data, length);
      return true;
    });
  }
  if (!options.bearerToken.empty() &&
      req.get_header_value("Authorization") != "Bearer " + options.bearerToken) {
    writeStatus(res, Status::unauthorized());
    return;
  }
  if (tooLarge) {
    writeStatus(res,
                Status::requestEntityTooLarge(fmt::format("limit is {}", options.maxBodyBytes)));
    return;
  }
  request.method = req.method;
  request.path = req.path;
  request.query.assign(req.params.begin(), req.params.end());
  request.accept = req.get_header_value("Accept");
  request.contentType = req.get_header_value("Content-Type");

  const auto started = std::chrono::steady_clock::now();
  const RequestLabels labels = requestLabels(request);
  RestResponse response;
  if (request.path == "/metrics") {
    if (request.method == "GET" || request.method == "HEAD") {
      response.contentType = "text/plain; version=0.0.4; charset=utf-8";
      response.body = renderMetrics();
    } else {
      response = RestHandler::errorResponse(
          Status::generic(405, "MethodNotAllowed",
                          "the server does not allow this method on the requested resource"));
    }
  } else {
    response = handler->handle(request);
  }
  if (response.stream) {
    serveStream(res, std::move(response.stream),
                [this, labels] { requestMetrics.record(labels, 200, 0); });
    return;
  }
  requestMetrics.record(
      labels, response.status,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  res.status = response.status;
  for (const auto& [k, v] : response.headers) res.set_header(k.c_str(), v);
  res.set_content(std::move(response.body), response.contentType.c_str());
}

void HttpServer::Impl::serveStream(httplib::Response& res, std::shared_ptr<WatchStream> stream,
                                   std::function<void()> ended) {
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
      "application/json",
      [this, stream](std::size_t, httplib::DataSink& sink) {
        std::string out;
        WatchStream::Step step = stream->read(out, options.watchPollInterval);
        if (!out.empty() && !sink.write(out.data(), out.size())) return false;
        if (step == WatchStream::Step::Ended) {
          sink.done();
          return true;
        }
        // Nothing to send: make sure the client is still there (is_writable also peeks the
        // socket for an orderly close).
        return step == WatchStream::Step::Data || sink.is_writable();
      },
      [this, stream, ended = std::move(ended)](bool) {
        forget(stream);
        ended();
      });
}

void HttpServer::Impl::forget(const std::shared_ptr<WatchStream>& stream) {
  stream->stop();
  std::lock_guard lock(streamsMu);
  streams.erase(stream);
}

HttpServer::HttpServer(ApiServer& server, HttpServerOptions options)
    : impl_(std::make_unique<Impl>(server, std::move(options))) {}

HttpServer::~HttpServer() { stop(); }

Result<void> HttpServer::start() {
  Impl& impl = *impl_;
  if (impl.started.exchange(true)) {
    return tl::unexpected(Status::internal("the HTTP server was started already"));
  }
  if (impl.options.tls) {
    auto made = makeTlsServer(*impl.options.tls);
    if (!made) return tl::unexpected(made.error());
    impl.server = std::move(*made);
  } else {
    impl.server = std::make_unique<httplib::Server>();
  }
  httplib::Server& server = *impl.server;
  const std::size_t maxConnections = impl.options.maxConnections;
  server.new_task_queue = [maxConnections] { return new ConnectionThreads(maxConnections); };
  server.set_tcp_nodelay(true);
  server.set_keep_alive_timeout(impl.options.keepAliveTimeoutSeconds);
  server.set_keep_alive_max_count(std::max<std::size_t>(1, impl.options.keepAliveMaxRequests));

  auto plain = [&impl](const httplib::Request& req, httplib::Response& res) {
    impl.serve(req, res, nullptr);
  };
  auto withBody = [&impl](const httplib::Request& req, httplib::Response& res,
                          const httplib::ContentReader& reader) { impl.serve(req, res, &reader); };
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
  impl.handler = std::make_unique<RestHandler>(impl.api, fmt::format("{}:{}", host, impl.port));
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
  if (impl.server) impl.server->stop();
  if (impl.listener.joinable()) impl.listener.join();
}

std::string HttpServer::renderMetrics() const { return impl_->renderMetrics(); }

std::size_t HttpServer::activeWatches() const {
  std::lock_guard lock(impl_->streamsMu);
  return impl_->streams.size();
}

}  // namespace fakekube
