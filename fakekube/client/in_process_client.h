// InProcessClient: a Client over an ApiServer in the same process.
//
// Each answer of the Result<Json> verbs is a copy of the shared document the server returns,
// because callers change what they read and write it back; the server's own objects stay
// immutable. The *Shared verbs hand out the server's document itself. Errors are the server's
// Status values, unchanged.
//
// Not final: a test's client may answer some verbs its own way and pass the rest through (the
// fixtures' ViewClient, which decides what an operator's lists and watches show).
//
// A client built with a UserInfo makes every request as that user (an operator running as its
// ServiceAccount: the server authorizes each request and answers 403 where its roles do not
// allow it); one built without makes them as the server itself.
#pragma once

#include <optional>

#include "fakekube/apiserver/api_server.h"
#include "fakekube/auth/user_info.h"
#include "fakekube/client/client.h"

namespace fakekube {

class InProcessClient : public Client {
 public:
  // `server` must outlive the client.
  explicit InProcessClient(ApiServer& server) : server_(server) {}
  InProcessClient(ApiServer& server, UserInfo user) : server_(server), user_(std::move(user)) {}

  Result<Json> get(const GroupVersionResource& gvr, std::string_view ns,
                   std::string_view name) override;
  Result<Json> list(const GroupVersionResource& gvr, std::string_view ns,
                    const ListOptions& options = {}) override;
  // The server's stored document (in the requested version), not a copy.
  Result<ObjectPtr> getShared(const GroupVersionResource& gvr, std::string_view ns,
                              std::string_view name) override;
  Result<ObjectList> listShared(const GroupVersionResource& gvr, std::string_view ns,
                                const ListOptions& options = {}) override;
  Result<Json> create(const GroupVersionResource& gvr, Json object,
                      const CreateOptions& options = {}) override;
  Result<Json> update(const GroupVersionResource& gvr, Json object,
                      const UpdateOptions& options = {}) override;
  Result<Json> updateStatus(const GroupVersionResource& gvr, Json object,
                            const UpdateOptions& options = {}) override;
  // The server's stored document, not a copy.
  Result<ObjectPtr> createShared(const GroupVersionResource& gvr, Json object,
                                 const CreateOptions& options = {}) override;
  Result<ObjectPtr> updateShared(const GroupVersionResource& gvr, Json object,
                                 const UpdateOptions& options = {}) override;
  Result<ObjectPtr> updateStatusShared(const GroupVersionResource& gvr, Json object,
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

  ApiServer& server() const { return server_; }
  // Who this client's requests are made as; nullptr for the server's own identity.
  const UserInfo* user() const { return user_ ? &*user_ : nullptr; }

 private:
  ApiServer& server_;
  std::optional<UserInfo> user_;
};

}  // namespace fakekube
