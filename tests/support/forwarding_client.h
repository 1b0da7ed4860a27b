// A Client that passes every call to another one: a test derives from it to count or alter a few
// verbs, or uses it as is for a Client that is not an InProcessClient (as RestClient is not). The
// *Shared writes are left to Client's defaults, so they go through the copying verbs here.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "fakekube/client/client.h"

namespace fakekube::testing {

class ForwardingClient : public Client {
 public:
  explicit ForwardingClient(Client& inner) : inner_(inner) {}
  Result<Json> get(const GroupVersionResource& gvr, std::string_view ns,
                   std::string_view name) override {
    return inner_.get(gvr, ns, name);
  }
  Result<Json> list(const GroupVersionResource& gvr, std::string_view ns,
                    const ListOptions& options = {}) override {
    return inner_.list(gvr, ns, options);
  }
  Result<Json> create(const GroupVersionResource& gvr, Json object,
                      const CreateOptions& options = {}) override {
    return inner_.create(gvr, std::move(object), options);
  }
  Result<Json> update(const GroupVersionResource& gvr, Json object,
                      const UpdateOptions& options = {}) override {
    return inner_.update(gvr, std::move(object), options);
  }
  Result<Json> updateStatus(const GroupVersionResource& gvr, Json object,
                            const UpdateOptions& options = {}) override {
    return inner_.updateStatus(gvr, std::move(object), options);
  }
  Result<Json> patch(const GroupVersionResource& gvr, std::string_view ns, std::string_view name,
                     PatchType type, std::string patch, const PatchOptions& options = {},
                     std::string subresource = "") override {
    return inner_.patch(gvr, ns, name, type, std::move(patch), options, std::move(subresource));
  }
  Result<Json> deleteObject(const GroupVersionResource& gvr, std::string_view ns,
                            std::string_view name, const DeleteOptions& options = {}) override {
    return inner_.deleteObject(gvr, ns, name, options);
  }
  Result<void> deleteAllOf(const GroupVersionResource& gvr, std::string_view ns,
                           const ListOptions& listOptions = {},
                           const DeleteOptions& deleteOptions = {}) override {
    return inner_.deleteAllOf(gvr, ns, listOptions, deleteOptions);
  }
  Result<std::shared_ptr<Watch>> watch(const GroupVersionResource& gvr, std::string_view ns,
                                       const WatchOptions& options = {}) override {
    return inner_.watch(gvr, ns, options);
  }

 private:
  Client& inner_;
};

}  // namespace fakekube::testing
