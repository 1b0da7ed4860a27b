// Client: what controllers read and write the cluster through (controller-runtime's client.Client).
//
// Controllers never hold an ApiServer. They hold a Client, so the same reconciler runs against the
// in-process server in tests (InProcessClient), against a cache that lags behind the server
// (CachedClient), or against a real cluster over HTTP.
//
// Documents cross this interface as mutable JSON copies, because that is how a controller uses
// them: read an object, change it, write it back with the resourceVersion it read. Errors are the
// server's Status values, passed through unchanged: a 409 on a stale update is a 409 here, with
// the server's reason and message, so `isConflict(result)` works whatever sits behind the Client.
//
// Namespaces: `ns` is ignored for cluster-scoped kinds. create/update/updateStatus take the
// namespace from the object, as controller-runtime does.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "fakekube/api/group_version.h"
#include "fakekube/api/json.h"
#include "fakekube/api/object.h"
#include "fakekube/api/status.h"
#include "fakekube/apiserver/options.h"
#include "fakekube/apiserver/watch.h"

namespace fakekube {

// The read half of a Client (controller-runtime's client.Reader). Split out so that a cache,
// which can answer reads but not writes, is a Reader too.
class Reader {
 public:
  virtual ~Reader() = default;

  // The object, or the server's 404 NotFound Status (Status::notFound) when there is none.
  virtual Result<Json> get(const GroupVersionResource& gvr, std::string_view ns,
                           std::string_view name) = 0;
  // The same object as a shared, immutable document, for readers that only look at it (whether
  // it exists, a field or two). This default wraps get(); a reader that already holds shared
  // documents (the Cache, InProcessClient) hands its own out without a copy.
  virtual Result<ObjectPtr> getShared(const GroupVersionResource& gvr, std::string_view ns,
                                      std::string_view name);
  // The list as the wire shows it: {"apiVersion","kind":"<Kind>List","metadata":
  // {"resourceVersion","continue"},"items":[...]}. `ns` "" lists every namespace.
  virtual Result<Json> list(const GroupVersionResource& gvr, std::string_view ns,
                            const ListOptions& options = {}) = 0;

  // The same list as shared, immutable documents, for readers that keep what they list and never
  // change it (informers). This default moves the items of list() into shared documents; a
  // client that already holds shared documents (InProcessClient) hands them out without a copy.
  virtual Result<ObjectList> listShared(const GroupVersionResource& gvr, std::string_view ns,
                                        const ListOptions& options = {});
};

class Client : public Reader {
 public:
  // Creates the object in the namespace named by its metadata.namespace; answers the object the
  // server stored (uid, resourceVersion, generated name, ...).
  virtual Result<Json> create(const GroupVersionResource& gvr, Json object,
                              const CreateOptions& options = {}) = 0;
  // Replaces the object (all but status when the kind has a status subresource). A
  // resourceVersion older than the stored one is a 409 Conflict.
  virtual Result<Json> update(const GroupVersionResource& gvr, Json object,
                              const UpdateOptions& options = {}) = 0;
  // PUT …/status: replaces status only.
  virtual Result<Json> updateStatus(const GroupVersionResource& gvr, Json object,
                                    const UpdateOptions& options = {}) = 0;
  // The same three writes, answering the stored document shared and immutable instead of a
  // mutable copy: for writers that drop the answer or only look at it (its name, uid or
  // resourceVersion). Same requests, same errors. These defaults wrap create / update /
  // updateStatus (so a client that overrides only those behaves the same through these); a
  // client that holds the server's documents (InProcessClient) answers them without a copy.
  virtual Result<ObjectPtr> createShared(const GroupVersionResource& gvr, Json object,
                                         const CreateOptions& options = {});
  virtual Result<ObjectPtr> updateShared(const GroupVersionResource& gvr, Json object,
                                         const UpdateOptions& options = {});
  virtual Result<ObjectPtr> updateStatusShared(const GroupVersionResource& gvr, Json object,
                                               const UpdateOptions& options = {});
  // subresource: "" or "status".
  virtual Result<Json> patch(const GroupVersionResource& gvr, std::string_view ns,
                             std::string_view name, PatchType type, std::string patch,
                             const PatchOptions& options = {}, std::string subresource = "") = 0;
  // The body a DELETE answers: the object (pods, and objects left waiting for finalizers) or a
  // Success Status (ApiServer::deleteResponse).
  virtual Result<Json> deleteObject(const GroupVersionResource& gvr, std::string_view ns,
                                    std::string_view name, const DeleteOptions& options = {}) = 0;
  // Deletes every object the list options select in `ns` (controller-runtime's DeleteAllOf).
  virtual Result<void> deleteAllOf(const GroupVersionResource& gvr, std::string_view ns,
                                   const ListOptions& listOptions = {},
                                   const DeleteOptions& deleteOptions = {}) = 0;
  // A watch stream (see apiserver/watch.h for how to consume it on an executor).
  virtual Result<std::shared_ptr<Watch>> watch(const GroupVersionResource& gvr, std::string_view ns,
                                               const WatchOptions& options = {}) = 0;
  // POST …/<name>/<subresource> ("binding" on pods: what the scheduler does). Answers the wire
  // body. This default answers 405 MethodNotSupported, for clients that cannot.
  virtual Result<Json> createSubresource(const GroupVersionResource& gvr, std::string_view ns,
                                         std::string_view name, std::string_view subresource,
                                         Json body, const CreateOptions& options = {});
};

}  // namespace fakekube
