// HttpServer: the Kubernetes HTTP API of an in-process ApiServer, for the real kubectl, client
// libraries and operators in other processes.
//
//   auto server = std::make_unique<HttpServer>(apiServer, HttpServerOptions{.port = 0});
//   if (auto started = server->start(); !started) { ... started.error() ... }
//   // kubectl --server http://127.0.0.1:<server->port()> get pods
//   server->stop();
//
// What it serves is RestHandler's (rest_handler.h): discovery, OpenAPI, every verb on every
// kind, watch streams, followed logs, Tables, Status errors; and GET /metrics, kube-apiserver's
// request counters and latencies of every request it served (request_metrics.h) in Prometheus text,
// followed by what HttpServerOptions::extraMetrics adds. This class is the transport: it listens,
// reads requests (bodies over maxBodyBytes are refused with 413), authenticates each
// (authentication.h: the admin, or the ServiceAccount of a token the ApiServer issued; 401
// otherwise), and writes responses, watch streams as chunked newline-delimited JSON flushed event
// by event. Each request is served under a RequestUserScope of its user, so the ApiServer
// authorizes what it asks for.
//
// Threads. The server owns all of its threads: one accepts connections, and each open connection
// is served by a thread of its own, taken from a pool that grows on demand up to maxConnections
// and is reused afterwards (a watch holds its connection's thread for as long as it lasts, so a
// fixed pool would let a few watches starve every other request). A watch's thread waits for
// events at most watchPollInterval at a time and checks in between that its client is still
// connected: a client that disconnects ends its watch, and the API server forgets it.
//
// Connections. Requests on one keep-alive connection may be pipelined (sent before the previous
// answer arrived); each is answered in turn. A request whose body cannot be delimited safely is
// refused before its body is read, and its connection closed (request_framing.h).
//
// stop() ends every watch stream, closes the listening socket, lets requests being served finish,
// closes idle keep-alive connections at once, and joins every thread. The destructor stops the
// server. The ApiServer must outlive the HttpServer.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "fakekube/api/status.h"
#include "fakekube/http/tls_certificate.h"

namespace fakekube {

class ApiServer;
class ContainerLogSource;
class ProxyTransport;

// One served request, for the optional request log.
struct HttpRequestLog {
  std::string method;
  std::string target;  // path and query as sent
  int status = 0;
  std::string remoteAddress;
  std::string userAgent;
};

struct HttpServerOptions {
  // The address to listen on. Loopback unless the caller asks for another one.
  std::string host = "127.0.0.1";
  // 0 picks a free port; port() tells which.
  int port = 0;
  // When set, a request is the admin's only with "Authorization: Bearer <token>" (a request
  // without credentials is then refused with 401 Unauthorized); unset, a request without
  // credentials is the admin's. A ServiceAccount token the ApiServer issued authenticates either
  // way.
  std::string bearerToken;
  // When set, the server speaks HTTPS with this certificate (clients send tokens only over TLS).
  std::optional<TlsCertificate> tls;
  // Larger request bodies are refused with 413 RequestEntityTooLarge (Kubernetes' 3 MiB).
  std::size_t maxBodyBytes = 3 * 1024 * 1024;
  // Connections served at once (one thread each); more wait for a free thread.
  std::size_t maxConnections = 1024;
  // How long an idle keep-alive connection stays open, and how many requests it may carry.
  int keepAliveTimeoutSeconds = 5;
  std::size_t keepAliveMaxRequests = 1000;
  // How often an idle watch stream checks that its client is still connected.
  std::chrono::milliseconds watchPollInterval{200};
  // Called once per request after its response was written (for a watch: after the stream
  // ended), on the connection's thread. Unset = no logging.
  std::function<void(const HttpRequestLog&)> requestLog;
  // The cluster's in-process network, which the services and pods proxy subresources reach
  // (proxy.h): the cluster's Network. Unset: they answer 503. Must outlive the server.
  ProxyTransport* network = nullptr;
  // What the kubelets' containers printed, which pods/<name>/log reads (pod_log.h). Unset: every
  // log is empty. Must outlive the server.
  ContainerLogSource* containerLogs = nullptr;
  // Appended to GET /metrics after the server's own request metrics (fakekube serve passes the
  // controllers' metrics, Manager::renderMetrics). Unset = the request metrics alone.
  std::function<std::string()> extraMetrics;
};

class HttpServer {
 public:
  HttpServer(ApiServer& server, HttpServerOptions options = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and starts serving; returns once the server accepts connections. Fails (500
  // InternalError naming the address) when the address cannot be bound, or when already started.
  Result<void> start();
  // The bound port (valid after start()).
  int port() const;
  // "http://<host>:<port>", or https:// with TLS.
  std::string url() const;
  // Ends every watch, stops listening and joins every thread. Idempotent.
  void stop();

  // Streams currently open: watches and followed logs.
  std::size_t activeWatches() const;

  // What GET /metrics answers.
  std::string renderMetrics() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fakekube
