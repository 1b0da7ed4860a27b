// Interceptors: before() can refuse a request without any write; after() sees the outcome of a
// committed write and can replace the caller's answer (a lost response: the object exists).
#include "fakekube/apiserver/interceptor.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fakekube/api/resources.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

using InterceptorTest = ApiServerTest;

// Records every request it sees and runs the test's hooks.
class Recorder : public Interceptor {
 public:
  struct Seen {
    Verb verb;
    GroupVersionResource resource;
    std::string subresource;
    std::string ns;
    std::string name;
    std::string patch;
    PatchType patchType;
    bool dryRun;
    bool ok;  // the outcome after() saw
  };
  std::function<std::optional<Status>(const Request&)> onBefore;
  std::function<void(const Request&, std::optional<Status>&)> onAfter;
  std::vector<Seen> seen;
  int befores = 0;

  std::optional<Status> before(const Request& request) override {
    ++befores;
    return onBefore ? onBefore(request) : std::nullopt;
  }
  void after(const Request& request, std::optional<Status>& error) override {
    const bool ok = !error.has_value();
    if (onAfter) onAfter(request, error);
    seen.push_back({request.verb, request.resource, request.subresource, request.ns, request.name,
                    std::string(request.patch), request.patchType, request.dryRun, ok});
  }
};

TEST_F(InterceptorTest, BeforeCanFailARequestWithoutAnyWrite) {
  auto recorder = std::make_shared<Recorder>();
  recorder->onBefore = [](const Request& r) -> std::optional<Status> {
    if (r.verb == Verb::Create && r.resource == kConfigMaps) {
      return Status::tooManyRequests("slow down", 3);
    }
    return std::nullopt;
  };
  server->addInterceptor(recorder);

  const std::int64_t before = server->revision();
  auto r = server->create(kConfigMaps, "", configMap("c1"));
  EXPECT_TRUE(failsWith(r, 429, "TooManyRequests", "slow down"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().details.retryAfterSeconds, 3);
  EXPECT_EQ(server->revision(), before);
  EXPECT_TRUE(isNotFound(server->get(kConfigMaps, "default", "c1")));

  // after() still sees the refused request, with its outcome.
  ASSERT_EQ(recorder->seen.size(), 2u);
  EXPECT_EQ(recorder->seen[0].verb, Verb::Create);
  EXPECT_EQ(recorder->seen[0].name, "c1");
  EXPECT_FALSE(recorder->seen[0].ok);
  EXPECT_EQ(recorder->seen[1].verb, Verb::Get);
  EXPECT_FALSE(recorder->seen[1].ok);

  // Other requests go through.
  EXPECT_TRUE(server->create(kPods, "", pod("p1")));
  EXPECT_EQ(server->revision(), before + 1);
}

TEST_F(InterceptorTest, BeforeRefusesEveryVerbWithoutWriting) {
  Json cm = create(kConfigMaps, configMap("c1"));
  auto recorder = std::make_shared<Recorder>();
  recorder->onBefore = [](const Request&) -> std::optional<Status> {
    return Status::serviceUnavailable("injected");
  };
  server->addInterceptor(recorder);
  const std::int64_t before = server->revision();

  Json changed = cm;
  changed["data"]["key"] = "x";
  EXPECT_TRUE(
      failsWith(server->update(kConfigMaps, "", changed), 503, "ServiceUnavailable", "injected"));
  EXPECT_TRUE(failsWith(
      server->patch(kConfigMaps, "default", "c1", PatchType::Merge, R"({"data":{"key":"y"}})"), 503,
      "ServiceUnavailable", "injected"));
  EXPECT_TRUE(failsWith(server->deleteObject(kConfigMaps, "default", "c1"), 503,
                        "ServiceUnavailable", "injected"));
  EXPECT_TRUE(failsWith(server->deleteCollection(kConfigMaps, "default", {}), 503,
                        "ServiceUnavailable", "injected"));
  EXPECT_EQ(server->revision(), before);

  server->removeInterceptor(recorder.get());
  EXPECT_EQ(get(kConfigMaps, "default", "c1"), cm);
}

TEST_F(InterceptorTest, AfterCanLoseTheResponseOfACommittedCreate) {
  auto recorder = std::make_shared<Recorder>();
  bool lose = true;
  recorder->onAfter = [&](const Request& r, std::optional<Status>& error) {
    if (lose && r.verb == Verb::Create && !error) {
      error = Status::internal("connection reset by peer");
    }
  };
  server->addInterceptor(recorder);

  const std::int64_t before = server->revision();
  auto r = server->create(kConfigMaps, "", configMap("c1"));
  EXPECT_TRUE(
      failsWith(r, 500, "InternalError", "Internal error occurred: connection reset by peer"));
  // The write committed: the object exists and the revision moved.
  EXPECT_EQ(server->revision(), before + 1);
  Json stored = get(kConfigMaps, "default", "c1");
  EXPECT_EQ(rvNumber(stored), before + 1);

  // A client retrying the create learns that it already happened.
  lose = false;
  EXPECT_TRUE(failsWith(server->create(kConfigMaps, "", configMap("c1")), 409, "AlreadyExists",
                        "configmaps \"c1\" already exists"));
  EXPECT_EQ(server->revision(), before + 1);
}

TEST_F(InterceptorTest, AfterCanReplaceAnErrorWithAnother) {
  auto recorder = std::make_shared<Recorder>();
  recorder->onAfter = [](const Request& r, std::optional<Status>& error) {
    if (r.verb == Verb::Get && error && isNotFound(*error)) {
      error = Status::serviceUnavailable("the server is currently unable to handle the request");
    }
  };
  server->addInterceptor(recorder);
  EXPECT_TRUE(failsWith(server->get(kConfigMaps, "default", "missing"), 503, "ServiceUnavailable",
                        "the server is currently unable to handle the request"));
  server->removeInterceptor(recorder.get());
  EXPECT_TRUE(failsWith(server->get(kConfigMaps, "default", "missing"), 404, "NotFound",
                        "configmaps \"missing\" not found"));
}

TEST_F(InterceptorTest, InterceptorsSeeWhatEachRequestAddresses) {
  installWidgetCrd();
  auto recorder = std::make_shared<Recorder>();
  server->addInterceptor(recorder);

  Json w = create(kWidgets, widget("w1"));
  w["status"] = {{"phase", "Ready"}};
  updateStatus(kWidgets, w);
  must(server->patch(kWidgets, "default", "w1", PatchType::Json,
                     R"([{"op":"replace","path":"/spec/size","value":2}])"));
  must(server->list(kWidgets, "default"));
  DeleteOptions dry;
  dry.dryRun = true;
  remove(kWidgets, "default", "w1", dry);

  ASSERT_EQ(recorder->seen.size(), 5u);
  EXPECT_EQ(recorder->befores, 5);
  const auto& s = recorder->seen;
  EXPECT_EQ(s[0].verb, Verb::Create);
  EXPECT_EQ(s[0].resource, kWidgets);
  EXPECT_EQ(s[0].name, "w1");
  EXPECT_EQ(s[1].verb, Verb::Update);
  EXPECT_EQ(s[1].subresource, "status");
  EXPECT_EQ(s[2].verb, Verb::Patch);
  EXPECT_EQ(s[2].ns, "default");
  EXPECT_EQ(s[2].patchType, PatchType::Json);
  EXPECT_EQ(s[2].patch, R"([{"op":"replace","path":"/spec/size","value":2}])");
  EXPECT_EQ(s[3].verb, Verb::List);
  EXPECT_EQ(s[4].verb, Verb::Delete);
  EXPECT_TRUE(s[4].dryRun);
  for (const auto& seen : s) EXPECT_TRUE(seen.ok);
  EXPECT_STREQ(verbName(Verb::DeleteCollection), "deletecollection");
}

TEST_F(InterceptorTest, TheFirstRefusalWinsAndLaterBeforesAreSkipped) {
  auto first = std::make_shared<Recorder>();
  auto second = std::make_shared<Recorder>();
  first->onBefore = [](const Request&) -> std::optional<Status> {
    return Status::forbidden({"", "configmaps"}, "c1", "no");
  };
  second->onBefore = [](const Request&) -> std::optional<Status> {
    return Status::badRequest("never");
  };
  server->addInterceptor(first);
  server->addInterceptor(second);
  EXPECT_TRUE(failsWith(server->get(kConfigMaps, "default", "c1"), 403, "Forbidden",
                        "configmaps \"c1\" is forbidden: no"));
  EXPECT_EQ(first->befores, 1);
  EXPECT_EQ(second->befores, 0);
  EXPECT_EQ(second->seen.size(), 1u) << "every after() runs";
}

}  // namespace
}  // namespace fakekube::apitest
