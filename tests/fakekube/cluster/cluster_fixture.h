// Shared fixture of the cluster controller tests: the API server fixture (virtual clock, builders,
// the Widget CRD) plus owner-reference builders and "let the controllers settle" helpers.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "fakekube/apiserver/fixture.h"
#include "fakekube/cluster/garbage_collector.h"
#include "fakekube/cluster/namespace_controller.h"
#include "fakekube/runtime/manager.h"

namespace fakekube::clustertest {

using namespace apitest;  // NOLINT: the builders and must()/failsWith() of the API server tests

// A reference to `owner` (taken from its stored form, so it carries the real uid).
inline Json ownerRef(const Json& owner, bool blockOwnerDeletion = true, bool controller = true) {
  return {{"apiVersion", meta::apiVersion(owner)},
          {"kind", meta::kind(owner)},
          {"name", meta::name(owner)},
          {"uid", meta::uid(owner)},
          {"controller", controller},
          {"blockOwnerDeletion", blockOwnerDeletion}};
}

// `object` with these ownerReferences.
inline Json ownedBy(Json object, std::initializer_list<Json> refs) {
  object["metadata"]["ownerReferences"] = Json::array();
  for (const auto& ref : refs) object["metadata"]["ownerReferences"].push_back(ref);
  return object;
}

inline Json withFinalizer(Json object, const std::string& finalizer) {
  object["metadata"]["finalizers"] = Json::array({finalizer});
  return object;
}

inline Json replicaSet(const std::string& name, const std::string& ns = "default",
                       int replicas = 1) {
  Json rs = deployment(name, ns, replicas);
  rs["kind"] = "ReplicaSet";
  return rs;
}

inline Json node(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", name}}}};
}

class ClusterTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    manager = std::make_unique<Manager>(ex, *server);
    startGarbageCollector();
    manager->start();
    settle();
  }

  void TearDown() override {
    namespaces.reset();
    gc.reset();
    manager.reset();
  }

  // A fresh collector on the manager (it lists at once, as a restarted one does).
  void startGarbageCollector() { gc = must(addGarbageCollector(*manager), "addGarbageCollector"); }

  void startNamespaceController() {
    namespaces = must(addNamespaceController(*manager), "addNamespaceController");
    settle();
  }

  // Lets every controller finish what it can do now (retries and rechecks included: a second
  // of virtual time is ten retry delays and one namespace recheck).
  void settle(std::chrono::milliseconds time = std::chrono::seconds(1)) {
    ex.advance(time);
    ex.runUntilIdle();
    EXPECT_TRUE(gc == nullptr || gc->idle()) << "the garbage collector did not settle";
    EXPECT_TRUE(namespaces == nullptr || namespaces->idle())
        << "the namespace controller did not settle";
  }

  bool exists(const GroupVersionResource& gvr, std::string_view ns, std::string_view name) {
    auto got = server->get(gvr, ns, name);
    if (!got && !isNotFound(got.error())) ADD_FAILURE() << "get: " << got.error().str();
    return got.has_value();
  }

  Json deleteWith(const GroupVersionResource& gvr, std::string_view ns, std::string_view name,
                  const std::string& policy) {
    DeleteOptions options;
    options.propagationPolicy = policy;
    return remove(gvr, ns, name, options);
  }

  // Removes every finalizer of an object (what its owning controller does when it is done).
  void release(const GroupVersionResource& gvr, std::string_view ns, std::string_view name) {
    mergePatch(gvr, ns, name, {{"metadata", {{"finalizers", nullptr}}}});
  }

  // The controllers' manager; it outlives them.
  std::unique_ptr<Manager> manager;
  std::unique_ptr<GarbageCollector> gc;
  std::unique_ptr<NamespaceController> namespaces;
};

// Records the resourceVersion of each DELETED event of some kinds, to check deletion order.
class DeletionRecorder {
 public:
  void watch(ApiServer& server, const GroupVersionResource& gvr) {
    WatchOptions options;
    options.resourceVersion = std::to_string(server.revision());
    watches_.push_back(must(server.watch(gvr, "", options), "watch"));
  }
  // name -> revision of its DELETED event.
  std::map<std::string, std::int64_t> deleted() {
    for (auto& w : watches_) {
      while (auto event = w->tryNext()) {
        if (event->type == WatchEventType::Deleted) {
          deleted_[meta::name(*event->object)] = std::stoll(meta::resourceVersion(*event->object));
        }
      }
    }
    return deleted_;
  }

 private:
  std::vector<std::shared_ptr<Watch>> watches_;
  std::map<std::string, std::int64_t> deleted_;
};

}  // namespace fakekube::clustertest
