// RestClient: the Client interface over the Kubernetes HTTP API (client-go's REST client).
//
// The same controllers that run on the in-process server run through this client against
// `fakekube serve` in another process, or against a real cluster:
//
//   auto config = loadKubeconfig(home + "/.kube/config");
//   auto client = RestClient::create(*config);
//   Manager manager(executor, **client);
//
// Paths. A resource's path (/api/v1/namespaces/<ns>/pods/<name>, /apis/<g>/<v>/<resource>) needs
// its scope, which comes from discovery (GET /api/v1, /apis/<g>/<v>); answers are cached per
// group-version and refreshed when a resource is not found in them (a CRD that appeared later).
//
// Errors. A Status the server answers is passed through unchanged (a 409 is a 409 with the
// server's message). A transport failure (connection refused, timeout, a reset) is a 503
// ServiceUnavailable Status whose message says what happened; an answer that is not JSON is a
// 500 InternalError.
//
// Watch. Each watch is one streaming request on its own connection and thread, turned into the
// same Watch the in-process server hands out (WatchFeed), so an Informer cannot tell them apart.
// The stream's events are queued as they arrive; the server's ERROR event ends the watch with
// that Status; the server ending the stream (timeoutSeconds) ends it cleanly; a broken
// connection ends it with a 503 — in each case the informer watches again or relists, as
// client-go's reflector does. stop() closes the connection at once.
//
// Thread-safe: requests may come from any thread; they share a small pool of keep-alive
// connections. Destroying the client stops its watches and waits for their threads.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "fakekube/client/client.h"
#include "fakekube/client/kubeconfig.h"
#include "fakekube/sim/clock.h"

namespace fakekube {

struct RestClientOptions {
  // How long one request (not a watch) may take.
  Duration requestTimeout = std::chrono::seconds(30);
  std::string userAgent = "fakekube-rest-client/v0.1.0";
};

class RestClient final : public Client {
 public:
  // Fails (400) on a server address it cannot use.
  static Result<std::unique_ptr<RestClient>> create(const Kubeconfig& config,
                                                    RestClientOptions options = {});
  ~RestClient() override;
  RestClient(const RestClient&) = delete;
  RestClient& operator=(const RestClient&) = delete;

  Result<Json> get(const GroupVersionResource& gvr, std::string_view ns,
                   std::string_view name) override;
  Result<Json> list(const GroupVersionResource& gvr, std::string_view ns,
                    const ListOptions& options = {}) override;
  // The namespace is the object's, else the kubeconfig's.
  Result<Json> create(const GroupVersionResource& gvr, Json object,
                      const CreateOptions& options = {}) override;
  Result<Json> update(const GroupVersionResource& gvr, Json object,
                      const UpdateOptions& options = {}) override;
  Result<Json> updateStatus(const GroupVersionResource& gvr, Json object,
                            const UpdateOptions& options = {}) override;
  Result<Json> patch(const GroupVersionResource& gvr, std::string_view ns, std::string_view name,
                     PatchType type, std::string patch, const PatchOptions& options = {},
                     std::string subresource = "") override;
  Result<Json> deleteObject(const GroupVersionResource& gvr, std::string_view ns,
                            std::string_view name, const DeleteOptions& options = {}) override;
  Result<void> deleteAllOf(const GroupVersionResource& gvr, std::string_view ns,
                           const ListOptions& listOptions = {},
                           const DeleteOptions& deleteOptions = {}) override;
  Result<std::shared_ptr<Watch>> watch(const GroupVersionResource& gvr, std::string_view ns,
                                       const WatchOptions& options = {}) override;
  Result<Json> createSubresource(const GroupVersionResource& gvr, std::string_view ns,
                                 std::string_view name, std::string_view subresource, Json body,
                                 const CreateOptions& options = {}) override;

  // What discovery says about a resource: its kind and whether it is namespaced (404 NotFound
  // when the server does not serve it).
  struct ResourceScope {
    std::string kind;
    bool namespaced = true;
  };
  Result<ResourceScope> discover(const GroupVersionResource& gvr);

  // GET of any path ("/version"): the parsed JSON body.
  Result<Json> getPath(const std::string& path);

  // One request to any path (query included) whatever the answer's status, for the proxy
  // subresources (services/NAME:PORT/proxy/...), whose answers are the proxied program's. Only a
  // transport failure is an error (503, as for every verb).
  struct RawResponse {
    int status = 0;
    std::string contentType;
    std::string body;
  };
  Result<RawResponse> requestRaw(const std::string& method, const std::string& pathAndQuery,
                                 const std::string& body = "", const std::string& contentType = "");

  const Kubeconfig& config() const;

 private:
  class Impl;
  explicit RestClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace fakekube
