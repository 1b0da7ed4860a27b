// A controller built on the runtime, in this process, over the REST client, against
// `fakekube serve` in another process: the same code that runs in-process in unit tests.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/client/kubeconfig.h"
#include "fakekube/client/rest_client.h"
#include "fakekube/runtime/builder.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/thread_pool_executor.h"
#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {
namespace {

// Mirrors every ConfigMap labelled mirror=yes into "<name>-mirror", owned by the source.
ReconcileOutcome reconcileMirror(Client& client, Reader& cache, const ReconcileRequest& request) {
  auto source = cache.get(kConfigMaps, request.namespace_, request.name);
  if (!source) {
    if (isNotFound(source.error())) return ReconcileResult{};  // the GC removes the mirror
    return reconcileError(source.error());
  }
  if (meta::label(*source, "mirror") != "yes") return ReconcileResult{};
  Json mirror = {{"apiVersion", "v1"},
                 {"kind", "ConfigMap"},
                 {"metadata",
                  {{"name", request.name + "-mirror"},
                   {"namespace", request.namespace_},
                   {"ownerReferences",
                    {{{"apiVersion", "v1"},
                      {"kind", "ConfigMap"},
                      {"name", request.name},
                      {"uid", meta::uid(*source)},
                      {"controller", true},
                      {"blockOwnerDeletion", true}}}}}},
                 {"data", source->value("data", Json::object())}};
  auto existing = client.get(kConfigMaps, request.namespace_, request.name + "-mirror");
  if (!existing) {
    if (!isNotFound(existing.error())) return reconcileError(existing.error());
    auto created = client.create(kConfigMaps, mirror);
    if (!created && !isAlreadyExists(created.error())) return reconcileError(created.error());
    return ReconcileResult{};
  }
  if ((*existing).value("data", Json::object()) == mirror["data"]) return ReconcileResult{};
  (*existing)["data"] = mirror["data"];
  auto updated = client.update(kConfigMaps, *existing);
  if (!updated) return reconcileError(updated.error());
  return ReconcileResult{};
}

class RemoteControllerTest : public ::testing::Test {
 protected:
  TemporaryDirectory dir;
  Serve serve{dir.path()};
};

TEST_F(RemoteControllerTest, AControllerOverTheRestClientMirrorsConfigMaps) {
  auto rest = serve.restClient();
  ASSERT_TRUE(rest.has_value()) << rest.error().message;
  RestClient& client = **rest;

  // What the test observes, on a connection of its own.
  WatchOptions from;
  from.resourceVersion =
      client.list(kConfigMaps, "default")->at("metadata").value("resourceVersion", "");
  auto events = client.watch(kConfigMaps, "default", from);
  ASSERT_TRUE(events.has_value()) << events.error().message;

  ThreadPoolExecutor executor(2);
  {
    Manager manager(executor, client);
    auto controller = ControllerBuilder(manager)
                          .named("mirror")
                          .forResource(kConfigMaps)
                          .forKind("ConfigMap")
                          .complete([&](const ReconcileRequest& request) {
                            return reconcileMirror(manager.client(), manager.client(), request);
                          });
    ASSERT_TRUE(controller.has_value()) << controller.error().message;
    manager.start();

    Json source = {
        {"apiVersion", "v1"},
        {"kind", "ConfigMap"},
        {"metadata",
         {{"name", "settings"}, {"namespace", "default"}, {"labels", {{"mirror", "yes"}}}}},
        {"data", {{"mode", "one"}}}};
    auto created = client.create(kConfigMaps, source);
    ASSERT_TRUE(created.has_value()) << created.error().message;

    // Waits (up to a minute of real time, normally milliseconds) for an event of the mirror.
    auto nextMirrorEvent = [&](WatchEventType type) -> Json {
      while (auto event = (*events)->next(std::chrono::seconds(60))) {
        if (event->type == type && meta::name(*event->object) == "settings-mirror") {
          return *event->object;
        }
      }
      ADD_FAILURE() << "no " << watchEventTypeName(type) << " event for settings-mirror";
      return Json();
    };
    Json mirror = nextMirrorEvent(WatchEventType::Added);
    EXPECT_EQ(mirror["data"]["mode"], "one");
    EXPECT_EQ(mirror["metadata"]["ownerReferences"][0]["uid"], (*created)["metadata"]["uid"]);

    Json changed = *created;
    changed["data"]["mode"] = "two";
    ASSERT_TRUE(client.update(kConfigMaps, changed).has_value());
    EXPECT_EQ(nextMirrorEvent(WatchEventType::Modified)["data"]["mode"], "two");

    // The garbage collector of the serving process removes the mirror with its owner.
    ASSERT_TRUE(client.deleteObject(kConfigMaps, "default", "settings").has_value());
    nextMirrorEvent(WatchEventType::Deleted);
    manager.stop();
  }
  (*events)->stop();
  executor.shutdown();
}

TEST_F(RemoteControllerTest, TheRestClientPassesServerStatusesThrough) {
  auto config = loadKubeconfig(serve.kubeconfig());
  ASSERT_TRUE(config.has_value());
  auto rest = RestClient::create(*config);
  ASSERT_TRUE(rest.has_value());
  RestClient& client = **rest;

  auto missing = client.get(kConfigMaps, "default", "absent");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, 404);
  EXPECT_EQ(missing.error().message, "configmaps \"absent\" not found");

  Json object = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "c1"}}}};
  auto first = client.create(kConfigMaps, object);
  ASSERT_TRUE(first.has_value()) << first.error().message;
  EXPECT_EQ(meta::namespace_(*first), "default");  // the kubeconfig's namespace
  Json stale = *first;
  ASSERT_TRUE(client.patch(kConfigMaps, "default", "c1", PatchType::Merge, R"({"data":{"a":"1"}})")
                  .has_value());
  auto conflict = client.update(kConfigMaps, stale);
  ASSERT_FALSE(conflict.has_value());
  EXPECT_EQ(conflict.error().code, 409);
  EXPECT_EQ(conflict.error().reason, "Conflict");

  const GroupVersionResource unknown{"example.com", "v1", "gadgets"};
  auto notServed = client.list(unknown, "default");
  ASSERT_FALSE(notServed.has_value());
  EXPECT_EQ(notServed.error().code, 404);

  auto version = client.getPath("/version");
  ASSERT_TRUE(version.has_value());
  EXPECT_EQ((*version)["major"], "1");

  Kubeconfig nowhere = *config;
  nowhere.server = "http://127.0.0.1:1";
  auto unreachable = RestClient::create(nowhere);
  ASSERT_TRUE(unreachable.has_value());
  auto failed = (*unreachable)->get(kConfigMaps, "default", "c1");
  ASSERT_FALSE(failed.has_value());
  EXPECT_EQ(failed.error().code, 503);

  Kubeconfig notHttp = *config;
  notHttp.server = "ftp://example.com";
  EXPECT_EQ(RestClient::create(notHttp).error().code, 400);
}

TEST(RemoteTlsTest, TheRestClientVerifiesTheServerAndSendsTheToken) {
  TemporaryDirectory dir;
  Serve serve(dir.path(), {"--token", "s3cret"});
  ASSERT_EQ(serve.url().rfind("https://", 0), 0u) << serve.url();
  auto config = loadKubeconfig(serve.kubeconfig());
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_FALSE(config->certificateAuthority.empty());
  auto rest = RestClient::create(*config);
  ASSERT_TRUE(rest.has_value()) << rest.error().message;
  auto listed = (*rest)->list(kConfigMaps, "kube-system");
  ASSERT_TRUE(listed.has_value()) << listed.error().message;

  Kubeconfig wrongToken = *config;
  wrongToken.token = "wrong";
  auto denied = (*RestClient::create(wrongToken))->list(kConfigMaps, "default");
  ASSERT_FALSE(denied.has_value());
  EXPECT_EQ(denied.error().code, 401);

  Kubeconfig untrusted = *config;
  untrusted.certificateAuthority.clear();  // the system roots do not know this server
  auto refused = (*RestClient::create(untrusted))->list(kConfigMaps, "default");
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, 503);
  EXPECT_EQ(serve.stop(), 0);
}

// The RestClient gives a write's warnings back as InProcessClient does (the server's Warning
// headers), and sends a fieldValidation other than the default.
TEST_F(RemoteControllerTest, TheRestClientReturnsUnknownFieldWarnings) {
  auto rest = serve.restClient();
  ASSERT_TRUE(rest.has_value()) << rest.error().message;
  RestClient& client = **rest;
  Json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", "typo"}, {"namespace", "default"}}},
             {"dta", {{"k", "v"}}}};
  std::vector<std::string> warnings;
  CreateOptions options;
  options.warnings = &warnings;
  auto created = client.create(kConfigMaps, cm, options);
  ASSERT_TRUE(created.has_value()) << created.error().message;
  EXPECT_FALSE(created->contains("dta"));
  EXPECT_EQ(warnings, std::vector<std::string>{"unknown field \"dta\""});

  options.fieldValidation = FieldValidation::Strict;
  meta::setName(cm, "typo-2");
  auto refused = client.create(kConfigMaps, cm, options);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, 400);
  EXPECT_EQ(refused.error().message,
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: "
            "unknown field \"dta\"");
  EXPECT_EQ(serve.stop(), 0);
}

}  // namespace
}  // namespace fakekube::e2e
