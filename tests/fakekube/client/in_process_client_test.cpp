// InProcessClient: the server's answers as mutable copies (or, from the *Shared writes, its own
// documents), its errors unchanged.
#include "fakekube/client/in_process_client.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/fixture.h"
#include "tests/support/forwarding_client.h"

namespace fakekube {
namespace {

using apitest::configMap;
using apitest::failsWith;
using apitest::must;
using apitest::pod;

class InProcessClientTest : public apitest::ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    client = std::make_unique<InProcessClient>(*server);
  }
  std::unique_ptr<InProcessClient> client;
};

TEST_F(InProcessClientTest, CreateGetUpdateRoundTrip) {
  Json created = must(client->create(kConfigMaps, configMap("a", "default")));
  EXPECT_EQ(meta::name(created), "a");
  EXPECT_FALSE(meta::uid(created).empty());
  EXPECT_FALSE(meta::resourceVersion(created).empty());

  Json read = must(client->get(kConfigMaps, "default", "a"));
  EXPECT_EQ(read, created);

  read["data"]["key"] = "changed";
  Json updated = must(client->update(kConfigMaps, read));
  EXPECT_EQ(updated["data"]["key"], "changed");
  EXPECT_NE(meta::resourceVersion(updated), meta::resourceVersion(created));
  EXPECT_EQ(*must<ObjectPtr>(server->get(kConfigMaps, "default", "a")), updated);
}

TEST_F(InProcessClientTest, AnswersAreCopiesTheServerDoesNotShare) {
  Json created = must(client->create(kConfigMaps, configMap("a")));
  created["data"]["key"] = "scribbled";
  Json read = must(client->get(kConfigMaps, "default", "a"));
  EXPECT_EQ(read["data"]["key"], "value");
  read["data"]["key"] = "scribbled again";
  EXPECT_EQ((*must<ObjectPtr>(server->get(kConfigMaps, "default", "a")))["data"]["key"], "value");
}

TEST_F(InProcessClientTest, CreateTakesTheNamespaceFromTheObject) {
  must(server->create(kNamespaces, "", apitest::namespaceObject("team")));
  Json created = must(client->create(kConfigMaps, configMap("a", "team")));
  EXPECT_EQ(meta::namespace_(created), "team");
  EXPECT_TRUE(client->get(kConfigMaps, "team", "a").has_value());
  EXPECT_TRUE(isNotFound(client->get(kConfigMaps, "default", "a")));
}

TEST_F(InProcessClientTest, ListIsTheWireShape) {
  Json a = configMap("a");
  meta::setLabel(a, "app", "web");
  must(client->create(kConfigMaps, a));
  must(client->create(kConfigMaps, configMap("b")));

  Json all = must(client->list(kConfigMaps, "default"));
  EXPECT_EQ(all["apiVersion"], "v1");
  EXPECT_EQ(all["kind"], "ConfigMapList");
  EXPECT_EQ(all["metadata"]["resourceVersion"], std::to_string(server->revision()));
  ASSERT_EQ(all["items"].size(), 2u);
  EXPECT_EQ(meta::name(all["items"][0]), "a");

  ListOptions options;
  options.labelSelector = "app=web";
  Json selected = must(client->list(kConfigMaps, "", options));
  ASSERT_EQ(selected["items"].size(), 1u);
  EXPECT_EQ(meta::name(selected["items"][0]), "a");
}

TEST_F(InProcessClientTest, StaleUpdateIsTheServersConflict) {
  Json created = must(client->create(kConfigMaps, configMap("a")));
  Json first = created;
  first["data"]["key"] = "first";
  must(client->update(kConfigMaps, first));

  Json stale = created;
  stale["data"]["key"] = "second";
  auto result = client->update(kConfigMaps, stale);
  EXPECT_TRUE(failsWith(result, 409, "Conflict",
                        "Operation cannot be fulfilled on configmaps \"a\": the object has been "
                        "modified; please apply your changes to the latest version and try again"));
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().details.name, "a");
  EXPECT_EQ(result.error().details.kind, "configmaps");
}

TEST_F(InProcessClientTest, ErrorsPassThroughUnchanged) {
  EXPECT_TRUE(failsWith(client->get(kConfigMaps, "default", "missing"), 404, "NotFound",
                        "configmaps \"missing\" not found"));
  must(client->create(kConfigMaps, configMap("a")));
  EXPECT_TRUE(failsWith(client->create(kConfigMaps, configMap("a")), 409, "AlreadyExists",
                        "configmaps \"a\" already exists"));
  // The same request straight to the server gives the same Status, field for field.
  auto direct = server->get(kConfigMaps, "default", "missing");
  auto viaClient = client->get(kConfigMaps, "default", "missing");
  ASSERT_FALSE(direct.has_value());
  ASSERT_FALSE(viaClient.has_value());
  EXPECT_EQ(viaClient.error().toJson(), direct.error().toJson());
}

TEST_F(InProcessClientTest, PatchAndStatusSubresource) {
  must(client->create(kPods, pod("p")));
  Json patched = must(client->patch(kPods, "default", "p", PatchType::Merge,
                                    R"({"metadata":{"labels":{"app":"web"}}})"));
  EXPECT_EQ(meta::label(patched, "app"), "web");

  Json withStatus = patched;
  withStatus["status"] = {{"phase", "Running"}};
  Json updated = must(client->updateStatus(kPods, withStatus));
  EXPECT_EQ(updated["status"]["phase"], "Running");

  Json statusPatched = must(client->patch(kPods, "default", "p", PatchType::Merge,
                                          R"({"status":{"phase":"Succeeded"}})", {}, "status"));
  EXPECT_EQ(statusPatched["status"]["phase"], "Succeeded");
}

// The *Shared writes answer the server's stored document itself: the same pointer a get of the
// server answers, with what the write stored (uid, resourceVersion, the status only for
// updateStatus), and the same errors as the copying verbs.
TEST_F(InProcessClientTest, SharedWritesAnswerTheStoredDocument) {
  ObjectPtr created = must<ObjectPtr>(client->createShared(kPods, pod("p")));
  EXPECT_EQ(created, must<ObjectPtr>(server->get(kPods, "default", "p")));
  EXPECT_FALSE(meta::uid(*created).empty());

  Json changed = *created;
  meta::setLabel(changed, "app", "web");
  changed["status"] = {{"phase", "Running"}};  // not written by an update: status subresource
  ObjectPtr updated = must<ObjectPtr>(client->updateShared(kPods, changed));
  EXPECT_EQ(updated, must<ObjectPtr>(server->get(kPods, "default", "p")));
  EXPECT_EQ(meta::label(*updated, "app"), "web");
  EXPECT_EQ(updated->value("status", Json()), created->value("status", Json()));
  EXPECT_NE(meta::resourceVersion(*updated), meta::resourceVersion(*created));

  Json withStatus = *updated;
  withStatus["status"] = {{"phase", "Running"}};
  ObjectPtr status = must<ObjectPtr>(client->updateStatusShared(kPods, withStatus));
  EXPECT_EQ(status, must<ObjectPtr>(server->get(kPods, "default", "p")));
  EXPECT_EQ((*status)["status"]["phase"], "Running");
  EXPECT_EQ(meta::label(*status, "app"), "web");

  // A stale write is the same 409 through either verb.
  Json stale = *created;
  stale["status"] = {{"phase", "Failed"}};
  auto copied = client->updateStatus(kPods, stale);
  auto shared = client->updateStatusShared(kPods, stale);
  ASSERT_FALSE(copied.has_value());
  ASSERT_FALSE(shared.has_value());
  EXPECT_EQ(shared.error().toJson(), copied.error().toJson());
  EXPECT_TRUE(failsWith(client->createShared(kPods, pod("p")), 409, "AlreadyExists",
                        "pods \"p\" already exists"));
}

// A Client that implements only the copying verbs still answers the *Shared ones, through them:
// a wrapper that overrides create sees the requests made through createShared.
TEST_F(InProcessClientTest, SharedWritesDefaultToTheCopyingVerbs) {
  class CountingClient : public testing::ForwardingClient {
   public:
    using ForwardingClient::ForwardingClient;
    Result<Json> create(const GroupVersionResource& gvr, Json object,
                        const CreateOptions& options) override {
      ++writes;
      return ForwardingClient::create(gvr, std::move(object), options);
    }
    Result<Json> update(const GroupVersionResource& gvr, Json object,
                        const UpdateOptions& options) override {
      ++writes;
      return ForwardingClient::update(gvr, std::move(object), options);
    }
    Result<Json> updateStatus(const GroupVersionResource& gvr, Json object,
                              const UpdateOptions& options) override {
      ++writes;
      return ForwardingClient::updateStatus(gvr, std::move(object), options);
    }
    int writes = 0;
  };
  CountingClient counting(*client);
  ObjectPtr created = must<ObjectPtr>(counting.createShared(kConfigMaps, configMap("a")));
  EXPECT_EQ(*created, *must<ObjectPtr>(server->get(kConfigMaps, "default", "a")));
  Json changed = *created;
  changed["data"]["key"] = "changed";
  ObjectPtr updated = must<ObjectPtr>(counting.updateShared(kConfigMaps, changed));
  EXPECT_EQ((*updated)["data"]["key"], "changed");
  must(counting.createShared(kPods, pod("p")));
  Json withStatus = *must<ObjectPtr>(server->get(kPods, "default", "p"));
  withStatus["status"] = {{"phase", "Running"}};
  ObjectPtr status = must<ObjectPtr>(counting.updateStatusShared(kPods, withStatus));
  EXPECT_EQ((*status)["status"]["phase"], "Running");
  EXPECT_EQ(counting.writes, 4);
  EXPECT_TRUE(failsWith(counting.createShared(kConfigMaps, configMap("a")), 409, "AlreadyExists",
                        "configmaps \"a\" already exists"));
}

TEST_F(InProcessClientTest, DeleteAnswersTheWireBody) {
  must(client->create(kConfigMaps, configMap("a")));
  Json body = must(client->deleteObject(kConfigMaps, "default", "a"));
  EXPECT_EQ(body["kind"], "Status");
  EXPECT_EQ(body["status"], "Success");
  EXPECT_TRUE(isNotFound(client->get(kConfigMaps, "default", "a")));
  EXPECT_TRUE(failsWith(client->deleteObject(kConfigMaps, "default", "a"), 404, "NotFound",
                        "configmaps \"a\" not found"));

  // A pod's DELETE answers the pod (left terminating for its grace period).
  must(client->create(kPods, pod("p")));
  Json podBody = must(client->deleteObject(kPods, "default", "p"));
  EXPECT_EQ(podBody["kind"], "Pod");
}

TEST_F(InProcessClientTest, DeleteAllOfDeletesWhatTheSelectorPicks) {
  for (const char* name : {"a", "b", "c"}) {
    Json cm = configMap(name);
    meta::setLabel(cm, "app", name == std::string("c") ? "keep" : "drop");
    must(client->create(kConfigMaps, cm));
  }
  ListOptions options;
  options.labelSelector = "app=drop";
  ASSERT_TRUE(client->deleteAllOf(kConfigMaps, "default", options).has_value());
  Json left = must(client->list(kConfigMaps, "default"));
  ASSERT_EQ(left["items"].size(), 1u);
  EXPECT_EQ(meta::name(left["items"][0]), "c");
}

TEST_F(InProcessClientTest, WatchStreamsEvents) {
  Json created = must(client->create(kConfigMaps, configMap("a")));
  WatchOptions options;
  options.resourceVersion = meta::resourceVersion(created);
  auto watch = must(client->watch(kConfigMaps, "default", options));
  must(client->deleteObject(kConfigMaps, "default", "a"));
  auto event = watch->tryNext();
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->type, WatchEventType::Deleted);
  EXPECT_EQ(meta::name(*event->object), "a");
  watch->stop();
}

TEST_F(InProcessClientTest, ListSharedHandsOutTheServersDocuments) {
  must(client->create(kConfigMaps, configMap("a")));
  ObjectList shared = must<ObjectList>(client->listShared(kConfigMaps, "default"));
  ASSERT_EQ(shared.items.size(), 1u);
  EXPECT_EQ(shared.items[0], must<ObjectPtr>(server->get(kConfigMaps, "default", "a")));
  EXPECT_EQ(shared.kind, "ConfigMapList");
}

// A Client that leaves listShared to Reader's default (ForwardingClient passes only the wire
// verbs on) gets it from the wire-shaped list.
TEST_F(InProcessClientTest, DefaultListSharedConvertsTheWireList) {
  must(client->create(kConfigMaps, configMap("a")));
  must(client->create(kConfigMaps, configMap("b")));
  testing::ForwardingClient reader(*client);
  ObjectList shared = must<ObjectList>(reader.listShared(kConfigMaps, "default"));
  Json wire = must(client->list(kConfigMaps, "default"));
  EXPECT_EQ(shared.toJson(), wire);
  EXPECT_EQ(reader.listShared({"", "v1", "nothings"}, "default").error().code, 404);
}

}  // namespace
}  // namespace fakekube
