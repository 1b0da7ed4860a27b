#include "fakekube/client/rest_client.h"

#include <fmt/format.h>
#include <httplib.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/json_writer.h"
#include "fakekube/api/object_meta.h"

namespace fakekube {
namespace {

std::string urlEncode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

// A query string built one parameter at a time; empty values are left out.
class Query {
 public:
  Query& add(std::string_view key, std::string_view value) {
    if (value.empty()) return *this;
    text_ += text_.empty() ? '?' : '&';
    text_ += key;
    text_ += '=';
    text_ += urlEncode(value);
    return *this;
  }
  // "key=true" when `value`; nothing otherwise.
  Query& addFlag(std::string_view key, bool value) {
    return value ? add(key, std::string_view("true")) : *this;
  }
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

// A write's fieldValidation, sent only when it is not the server's default (Warn).
void addFieldValidation(Query& query, const WriteWarnings& options) {
  if (options.fieldValidation == FieldValidation::Strict) query.add("fieldValidation", "Strict");
  if (options.fieldValidation == FieldValidation::Ignore) query.add("fieldValidation", "Ignore");
}

// The text of a `Warning: 299 - "..."` header (RFC 7234's warn-text, Go-quoted), or the header
// whole when it is not of that form.
std::string warningText(const std::string& header) {
  const std::size_t open = header.find('"');
  if (open == std::string::npos || header.size() < open + 2 || header.back() != '"') return header;
  std::string out;
  for (std::size_t i = open + 1; i + 1 < header.size(); ++i) {
    if (header[i] == '\\' && i + 2 < header.size()) ++i;
    out.push_back(header[i]);
  }
  return out;
}

void addListOptions(Query& query, const ListOptions& options) {
  query.add("labelSelector", options.labelSelector)
      .add("fieldSelector", options.fieldSelector)
      .add("continue", options.continueToken)
      .add("resourceVersion", options.resourceVersion)
      .add("resourceVersionMatch", options.resourceVersionMatch);
  if (options.limit > 0) query.add("limit", std::to_string(options.limit));
}

Json deleteOptionsBody(const DeleteOptions& options) {
  Json body = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  if (options.propagationPolicy) body["propagationPolicy"] = *options.propagationPolicy;
  if (options.gracePeriodSeconds) body["gracePeriodSeconds"] = *options.gracePeriodSeconds;
  if (options.dryRun) body["dryRun"] = Json::array({"All"});
  Json preconditions = Json::object();
  if (options.preconditions.uid) preconditions["uid"] = *options.preconditions.uid;
  if (options.preconditions.resourceVersion) {
    preconditions["resourceVersion"] = *options.preconditions.resourceVersion;
  }
  if (!preconditions.empty()) body["preconditions"] = std::move(preconditions);
  return body;
}

WatchEventType parseEventType(std::string_view type, bool& ok) {
  ok = true;
  if (type == "ADDED") return WatchEventType::Added;
  if (type == "MODIFIED") return WatchEventType::Modified;
  if (type == "DELETED") return WatchEventType::Deleted;
  if (type == "BOOKMARK") return WatchEventType::Bookmark;
  if (type == "ERROR") return WatchEventType::Error;
  ok = false;
  return WatchEventType::Error;
}

std::int64_t revisionOf(const Json& object) {
  const std::string rv = meta::resourceVersion(object);
  if (rv.empty()) return 0;
  char* end = nullptr;
  long long value = std::strtoll(rv.c_str(), &end, 10);
  return end != nullptr && *end == '\0' ? value : 0;
}

}  // namespace

// PEM text written to a private temporary file, for the TLS options that take paths. Outside the
// anonymous namespace because RestClient::Impl holds it: a member whose type has internal linkage
// is a -Wsubobject-linkage warning once this file is compiled inside a unity batch.
class TempPem {
 public:
  explicit TempPem(const std::string& text) {
    if (text.empty()) return;
    char pattern[] = "/tmp/fakekube-pem-XXXXXX";
    int fd = mkstemp(pattern);
    if (fd < 0) return;
    path_ = pattern;
    std::size_t written = 0;
    while (written < text.size()) {
      ssize_t n = ::write(fd, text.data() + written, text.size() - written);
      if (n <= 0) break;
      written += static_cast<std::size_t>(n);
    }
    ::close(fd);
  }
  ~TempPem() {
    if (!path_.empty()) std::remove(path_.c_str());
  }
  TempPem(const TempPem&) = delete;
  TempPem& operator=(const TempPem&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class RestClient::Impl {
 public:
  Impl(Kubeconfig config, RestClientOptions options)
      : config_(std::move(config)),
        options_(std::move(options)),
        caFile_(config_.certificateAuthority),
        certFile_(config_.clientCertificate),
        keyFile_(config_.clientKey) {}

  ~Impl() {
    std::vector<std::shared_ptr<Stream>> streams;
    {
      std::lock_guard lock(mu_);
      streams.swap(streams_);
    }
    for (auto& stream : streams) {
      stream->abandoned.store(true);
      stream->http->stop();
      if (stream->thread.joinable()) stream->thread.join();
    }
  }

  const Kubeconfig& config() const { return config_; }

  std::unique_ptr<httplib::Client> connect(std::chrono::seconds readTimeout) const {
    std::unique_ptr<httplib::Client> http;
    if (!certFile_.path().empty() && !keyFile_.path().empty()) {
      http = std::make_unique<httplib::Client>(config_.server, certFile_.path(), keyFile_.path());
    } else {
      http = std::make_unique<httplib::Client>(config_.server);
    }
    const auto timeout = std::chrono::duration_cast<std::chrono::seconds>(options_.requestTimeout);
    http->set_connection_timeout(timeout.count(), 0);
    http->set_write_timeout(timeout.count(), 0);
    http->set_read_timeout(readTimeout.count(), 0);
    http->set_keep_alive(true);
    // As Go's net/http does: without it httplib's separate header and body writes meet Nagle's
    // algorithm and the server's delayed ACK, and every request waits ~40 ms.
    http->set_tcp_nodelay(true);
    if (!config_.token.empty()) {
      http->set_bearer_token_auth(config_.token);
    } else if (!config_.username.empty()) {
      http->set_basic_auth(config_.username, config_.password);
    }
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
    if (!caFile_.path().empty()) http->set_ca_cert_path(caFile_.path());
    http->enable_server_certificate_verification(!config_.insecureSkipTlsVerify);
#endif
    return http;
  }

  bool valid() const { return connect(std::chrono::seconds(1))->is_valid(); }

  // One request on a pooled keep-alive connection. The answer's body, parsed; a Status on
  // failure (the server's own when it answered one). The answer's warnings go to `warnings`
  // when given.
  Result<Json> request(const std::string& method, const std::string& path,
                       const std::string& body = "", const std::string& contentType = "",
                       std::vector<std::string>* warnings = nullptr) {
    std::unique_ptr<httplib::Client> http = takeConnection();
    httplib::Request req;
    req.method = method;
    req.path = path;
    req.headers = {{"Accept", "application/json"}, {"User-Agent", options_.userAgent}};
    if (!contentType.empty()) {
      req.headers.emplace("Content-Type", contentType);
      req.body = body;
    }
    httplib::Result res = http->send(req);
    if (!res) {
      return tl::unexpected(Status::serviceUnavailable(fmt::format(
          "{} {}{}: {}", method, config_.server, path, httplib::to_string(res.error()))));
    }
    const int code = res->status;
    if (warnings != nullptr) {
      const std::size_t count = res->get_header_value_count("Warning");
      for (std::size_t i = 0; i < count; ++i) {
        warnings->push_back(warningText(res->get_header_value("Warning", i)));
      }
    }
    std::string text = std::move(res->body);
    returnConnection(std::move(http));
    Json parsed = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (code >= 200 && code < 300) {
      if (parsed.is_discarded()) {
        return tl::unexpected(
            Status::internal(fmt::format("{} {}: the answer is not JSON", method, path)));
      }
      return parsed;
    }
    if (parsed.is_object() && parsed.value("kind", "") == "Status") {
      return tl::unexpected(Status::fromJson(parsed));
    }
    if (code == 404) return tl::unexpected(Status::resourceNotServed());
    return tl::unexpected(
        Status::generic(code, "", text.empty() ? fmt::format("HTTP {}", code) : text));
  }

  // One request whatever the answer's status (the proxy subresources answer for the program
  // behind them); only a transport failure is an error.
  Result<RawResponse> requestRaw(const std::string& method, const std::string& path,
                                 const std::string& body, const std::string& contentType) {
    std::unique_ptr<httplib::Client> http = takeConnection();
    httplib::Request req;
    req.method = method;
    req.path = path;
    req.headers = {{"User-Agent", options_.userAgent}};
    if (!contentType.empty()) req.headers.emplace("Content-Type", contentType);
    req.body = body;
    httplib::Result res = http->send(req);
    if (!res) {
      return tl::unexpected(Status::serviceUnavailable(fmt::format(
          "{} {}{}: {}", method, config_.server, path, httplib::to_string(res.error()))));
    }
    RawResponse response{res->status, res->get_header_value("Content-Type"), std::move(res->body)};
    returnConnection(std::move(http));
    return response;
  }

  Result<ResourceScope> discover(const GroupVersionResource& gvr) {
    const std::string gv = gvr.group.empty() ? gvr.version : gvr.group + "/" + gvr.version;
    for (int attempt = 0; attempt < 2; ++attempt) {
      {
        std::lock_guard lock(mu_);
        auto found = discovery_.find(gv);
        if (found != discovery_.end()) {
          auto resource = found->second.find(gvr.resource);
          if (resource != found->second.end()) return resource->second;
          if (attempt == 1) break;
        }
      }
      // Not known yet, or the group-version lacks it (a CRD created since): ask the server.
      auto answer = request("GET", groupVersionPath(gvr));
      if (!answer) {
        if (isNotFound(answer.error())) break;
        return tl::unexpected(answer.error());
      }
      std::map<std::string, ResourceScope> resources;
      if (auto items = answer->find("resources"); items != answer->end() && items->is_array()) {
        for (const auto& r : *items) {
          if (!r.is_object()) continue;
          resources[r.value("name", "")] =
              ResourceScope{r.value("kind", ""), r.value("namespaced", true)};
        }
      }
      std::lock_guard lock(mu_);
      discovery_[gv] = std::move(resources);
    }
    return tl::unexpected(Status::resourceNotServed());
  }

  // /api/v1 or /apis/<group>/<version>.
  static std::string groupVersionPath(const GroupVersionResource& gvr) {
    return gvr.group.empty() ? "/api/" + gvr.version
                             : fmt::format("/apis/{}/{}", gvr.group, gvr.version);
  }

  // The collection path (name empty) or the item path, with an optional subresource.
  Result<std::string> path(const GroupVersionResource& gvr, std::string_view ns,
                           std::string_view name, std::string_view subresource = "") {
    auto scope = discover(gvr);
    if (!scope) return tl::unexpected(scope.error());
    std::string out = groupVersionPath(gvr);
    if (scope->namespaced && !ns.empty()) out += fmt::format("/namespaces/{}", urlEncode(ns));
    out += "/" + gvr.resource;
    if (!name.empty()) out += "/" + urlEncode(name);
    if (!subresource.empty()) out += "/" + std::string(subresource);
    return out;
  }

  // client-go's typed clients always send apiVersion and kind (the encoder sets them from the
  // Go type); kube-apiserver needs them for custom resources. A document without them gets the
  // resource's, as discovery names its kind.
  void setTypeMeta(const GroupVersionResource& gvr, Json& object) {
    if (!object.is_object()) return;
    const Json* apiVersion = jsonFind(object, "apiVersion");
    if (apiVersion == nullptr || apiVersion->is_null()) object["apiVersion"] = gvr.apiVersion();
    const Json* kind = jsonFind(object, "kind");
    if (kind != nullptr && !kind->is_null()) return;
    auto scope = discover(gvr);
    if (scope && !scope->kind.empty()) object["kind"] = scope->kind;
  }

  std::string namespaceOf(const Json& object) const {
    std::string ns = meta::namespace_(object);
    return ns.empty() ? config_.namespace_ : ns;
  }

  // A create (POST to the collection: `name` empty) or a replace (PUT of the named object or its
  // subresource), of `object` with its type meta, the write's options as query parameters.
  template <class WriteOptions>
  Result<Json> write(const std::string& method, const GroupVersionResource& gvr, Json object,
                     std::string_view name, std::string_view subresource,
                     const WriteOptions& options) {
    auto target = path(gvr, namespaceOf(object), name, subresource);
    if (!target) return tl::unexpected(target.error());
    setTypeMeta(gvr, object);
    Query query;
    query.add("dryRun", options.dryRun ? "All" : "").add("fieldManager", options.fieldManager);
    addFieldValidation(query, options);
    return request(method, *target + query.str(), toJsonText(object), "application/json",
                   options.warnings);
  }

  // --- watches ---

  struct Stream {
    std::unique_ptr<httplib::Client> http;
    std::thread thread;
    // The consumer stopped the watch, or the client is going away.
    std::atomic<bool> abandoned{false};
    // The reading thread is done (and may be joined without waiting).
    std::atomic<bool> finished{false};
  };

  Result<std::shared_ptr<Watch>> watch(const std::string& path, std::int64_t startRevision) {
    auto stream = std::make_shared<Stream>();
    // A watch may stay silent for long: reads wait up to an hour; stop() is what ends it early.
    stream->http = connect(std::chrono::hours(1));
    std::weak_ptr<Stream> weak = stream;
    std::shared_ptr<Watch> watch = WatchFeed::open(startRevision, [weak] {
      if (auto s = weak.lock()) {
        s->abandoned.store(true);
        s->http->stop();
      }
    });
    {
      std::lock_guard lock(mu_);
      reapFinishedLocked();
      streams_.push_back(stream);
    }
    std::weak_ptr<Watch> target = watch;
    httplib::Headers headers = {{"Accept", "application/json"}, {"User-Agent", options_.userAgent}};
    stream->thread = std::thread([stream = stream.get(), target, path, headers] {
      readStream(*stream, target, path, headers);
      stream->finished.store(true);
    });
    return watch;
  }

  // Reads newline-delimited watch events into the Watch until the stream ends.
  static void readStream(Stream& stream, const std::weak_ptr<Watch>& target,
                         const std::string& path, const httplib::Headers& headers) {
    std::string pending;
    bool sawError = false;
    int status = 0;
    httplib::Result res = stream.http->Get(
        path, headers,
        [&](const httplib::Response& response) {
          status = response.status;
          return true;
        },
        [&](const char* data, std::size_t length) {
          if (status >= 300) {  // a Status body, kept whole
            pending.append(data, length);
            return true;
          }
          pending.append(data, length);
          std::size_t start = 0;
          for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos;
               start = nl + 1) {
            std::string_view line(pending.data() + start, nl - start);
            if (line.empty()) continue;
            auto watch = target.lock();
            if (!watch || WatchFeed::stopped(*watch)) return false;
            Json event = Json::parse(line, nullptr, false);
            bool known = false;
            WatchEventType type = event.is_object() ? parseEventType(event.value("type", ""), known)
                                                    : WatchEventType::Error;
            if (!known || !event.contains("object")) {
              Status bad = Status::internal("malformed watch event from the server");
              WatchFeed::close(*watch, &bad);
              sawError = true;
              return false;
            }
            if (type == WatchEventType::Error) {
              Status error = Status::fromJson(event["object"]);
              WatchFeed::close(*watch, &error);
              sawError = true;
              return false;
            }
            auto object = std::make_shared<const Json>(std::move(event["object"]));
            const std::int64_t revision = revisionOf(*object);
            if (!WatchFeed::push(*watch, type, std::move(object), revision)) return false;
          }
          pending.erase(0, start);
          return true;
        });
    auto watch = target.lock();
    if (!watch || sawError || WatchFeed::stopped(*watch) || stream.abandoned.load()) {
      if (watch && !sawError) WatchFeed::close(*watch);
      return;
    }
    if (!res) {
      Status broken = Status::serviceUnavailable(
          fmt::format("watch {}: {}", path, httplib::to_string(res.error())));
      WatchFeed::close(*watch, &broken);
      return;
    }
    if (status >= 300) {
      Json body = Json::parse(pending, nullptr, false);
      Status error =
          body.is_object() && body.value("kind", "") == "Status"
              ? Status::fromJson(body)
              : Status::generic(status, "", fmt::format("watch {}: HTTP {}", path, status));
      WatchFeed::close(*watch, &error);
      return;
    }
    WatchFeed::close(*watch);  // the server ended the stream (timeoutSeconds)
  }

 private:
  std::unique_ptr<httplib::Client> takeConnection() {
    {
      std::lock_guard lock(mu_);
      if (!idle_.empty()) {
        auto http = std::move(idle_.back());
        idle_.pop_back();
        return http;
      }
    }
    return connect(std::chrono::duration_cast<std::chrono::seconds>(options_.requestTimeout));
  }

  void returnConnection(std::unique_ptr<httplib::Client> http) {
    std::lock_guard lock(mu_);
    if (idle_.size() < 8) idle_.push_back(std::move(http));
  }

  // Joins the threads of watches that ended, so a long-lived client does not pile them up.
  void reapFinishedLocked() {
    std::erase_if(streams_, [](const std::shared_ptr<Stream>& s) {
      if (!s->finished.load()) return false;
      if (s->thread.joinable()) s->thread.join();
      return true;
    });
  }

  const Kubeconfig config_;
  const RestClientOptions options_;
  TempPem caFile_;
  TempPem certFile_;
  TempPem keyFile_;

  std::mutex mu_;
  std::vector<std::unique_ptr<httplib::Client>> idle_;
  std::map<std::string, std::map<std::string, ResourceScope>> discovery_;
  std::vector<std::shared_ptr<Stream>> streams_;
};

Result<std::unique_ptr<RestClient>> RestClient::create(const Kubeconfig& config,
                                                       RestClientOptions options) {
  if (!config.server.starts_with("http://") && !config.server.starts_with("https://")) {
    return tl::unexpected(Status::badRequest(
        fmt::format("server \"{}\" must start with http:// or https://", config.server)));
  }
  auto impl = std::make_unique<Impl>(config, std::move(options));
  if (!impl->valid()) {
    return tl::unexpected(
        Status::badRequest(fmt::format("server \"{}\" is not a usable address", config.server)));
  }
  return std::unique_ptr<RestClient>(new RestClient(std::move(impl)));
}

RestClient::RestClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RestClient::~RestClient() = default;

const Kubeconfig& RestClient::config() const { return impl_->config(); }

Result<RestClient::ResourceScope> RestClient::discover(const GroupVersionResource& gvr) {
  return impl_->discover(gvr);
}

Result<Json> RestClient::getPath(const std::string& path) { return impl_->request("GET", path); }

Result<RestClient::RawResponse> RestClient::requestRaw(const std::string& method,
                                                       const std::string& pathAndQuery,
                                                       const std::string& body,
                                                       const std::string& contentType) {
  return impl_->requestRaw(method, pathAndQuery, body, contentType);
}

Result<Json> RestClient::get(const GroupVersionResource& gvr, std::string_view ns,
                             std::string_view name) {
  auto path = impl_->path(gvr, ns, name);
  if (!path) return tl::unexpected(path.error());
  return impl_->request("GET", *path);
}

Result<Json> RestClient::list(const GroupVersionResource& gvr, std::string_view ns,
                              const ListOptions& options) {
  auto path = impl_->path(gvr, ns, "");
  if (!path) return tl::unexpected(path.error());
  Query query;
  addListOptions(query, options);
  return impl_->request("GET", *path + query.str());
}

Result<Json> RestClient::create(const GroupVersionResource& gvr, Json object,
                                const CreateOptions& options) {
  return impl_->write("POST", gvr, std::move(object), "", "", options);
}

Result<Json> RestClient::update(const GroupVersionResource& gvr, Json object,
                                const UpdateOptions& options) {
  const std::string name = meta::name(object);
  return impl_->write("PUT", gvr, std::move(object), name, "", options);
}

Result<Json> RestClient::updateStatus(const GroupVersionResource& gvr, Json object,
                                      const UpdateOptions& options) {
  const std::string name = meta::name(object);
  return impl_->write("PUT", gvr, std::move(object), name, "status", options);
}

Result<Json> RestClient::patch(const GroupVersionResource& gvr, std::string_view ns,
                               std::string_view name, PatchType type, std::string patch,
                               const PatchOptions& options, std::string subresource) {
  auto path = impl_->path(gvr, ns, name, subresource);
  if (!path) return tl::unexpected(path.error());
  Query query;
  query.add("dryRun", options.dryRun ? "All" : "")
      .add("fieldManager", options.fieldManager)
      .addFlag("force", options.force);
  addFieldValidation(query, options);
  return impl_->request("PATCH", *path + query.str(), patch, patchTypeName(type), options.warnings);
}

Result<Json> RestClient::deleteObject(const GroupVersionResource& gvr, std::string_view ns,
                                      std::string_view name, const DeleteOptions& options) {
  auto path = impl_->path(gvr, ns, name);
  if (!path) return tl::unexpected(path.error());
  return impl_->request("DELETE", *path, toJsonText(deleteOptionsBody(options)),
                        "application/json");
}

Result<void> RestClient::deleteAllOf(const GroupVersionResource& gvr, std::string_view ns,
                                     const ListOptions& listOptions,
                                     const DeleteOptions& deleteOptions) {
  auto path = impl_->path(gvr, ns, "");
  if (!path) return tl::unexpected(path.error());
  Query query;
  addListOptions(query, listOptions);
  auto answer = impl_->request("DELETE", *path + query.str(),
                               toJsonText(deleteOptionsBody(deleteOptions)), "application/json");
  if (!answer) return tl::unexpected(answer.error());
  return {};
}

Result<std::shared_ptr<Watch>> RestClient::watch(const GroupVersionResource& gvr,
                                                 std::string_view ns, const WatchOptions& options) {
  auto path = impl_->path(gvr, ns, "");
  if (!path) return tl::unexpected(path.error());
  Query query;
  query.add("watch", "true")
      .add("labelSelector", options.labelSelector)
      .add("fieldSelector", options.fieldSelector)
      .add("resourceVersion", options.resourceVersion)
      .add("resourceVersionMatch", options.resourceVersionMatch)
      .addFlag("allowWatchBookmarks", options.allowWatchBookmarks);
  if (options.sendInitialEvents) {
    query.add("sendInitialEvents", *options.sendInitialEvents ? "true" : "false");
  }
  if (options.timeoutSeconds) query.add("timeoutSeconds", std::to_string(*options.timeoutSeconds));
  std::int64_t start = 0;
  if (!options.resourceVersion.empty()) {
    start = std::strtoll(options.resourceVersion.c_str(), nullptr, 10);
  }
  return impl_->watch(*path + query.str(), start);
}

Result<Json> RestClient::createSubresource(const GroupVersionResource& gvr, std::string_view ns,
                                           std::string_view name, std::string_view subresource,
                                           Json body, const CreateOptions& options) {
  auto path = impl_->path(gvr, ns, name, subresource);
  if (!path) return tl::unexpected(path.error());
  Query query;
  query.add("dryRun", options.dryRun ? "All" : "").add("fieldManager", options.fieldManager);
  return impl_->request("POST", *path + query.str(), toJsonText(body), "application/json");
}

}  // namespace fakekube
