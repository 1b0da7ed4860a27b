// LIST: the list's resourceVersion, label and field selectors, namespaces, limit/continue pages,
// and the resourceVersion / resourceVersionMatch rules with their 410 and 504 answers.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "fakekube/api/resources.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

using ListTest = ApiServerTest;

std::vector<std::string> names(const Json& list) {
  std::vector<std::string> out;
  for (const auto& item : list["items"]) out.push_back(meta::name(item));
  return out;
}

using Names = std::vector<std::string>;

Json labelled(const std::string& name, Json labels) {
  Json cm = configMap(name);
  cm["metadata"]["labels"] = std::move(labels);
  return cm;
}

TEST_F(ListTest, ListCarriesTheCurrentRevisionAndItsKind) {
  create(kConfigMaps, configMap("b"));
  create(kConfigMaps, configMap("a"));
  create(kPods, pod("p1"));  // a later write of another kind moves the list RV too
  Json list = must(server->list(kConfigMaps, "default"));
  EXPECT_EQ(list["kind"], "ConfigMapList");
  EXPECT_EQ(list["apiVersion"], "v1");
  EXPECT_EQ(list["metadata"]["resourceVersion"], std::to_string(server->revision()));
  EXPECT_FALSE(list["metadata"].contains("continue"));
  EXPECT_EQ(names(list), (Names{"a", "b"}));
  EXPECT_EQ(list["items"][0], get(kConfigMaps, "default", "a"));

  Json empty = must(server->list(kSecrets, "default"));
  EXPECT_EQ(empty["kind"], "SecretList");
  EXPECT_TRUE(empty["items"].empty());
  EXPECT_EQ(empty["metadata"]["resourceVersion"], std::to_string(server->revision()));
}

TEST_F(ListTest, NamespaceScopesTheListAndEmptyMeansAll) {
  create(kNamespaces, namespaceObject("team-a"));
  create(kConfigMaps, configMap("x", "team-a"));
  create(kConfigMaps, configMap("y", "default"));
  EXPECT_EQ(names(must(server->list(kConfigMaps, "team-a"))), (Names{"x"}));
  EXPECT_EQ(names(must(server->list(kConfigMaps, "default"))), (Names{"y"}));
  EXPECT_EQ(names(must(server->list(kConfigMaps, ""))), (Names{"y", "x"}));
  // A namespace that is a prefix of another does not leak into it.
  create(kNamespaces, namespaceObject("team"));
  EXPECT_TRUE(must(server->list(kConfigMaps, "team"))["items"].empty());
}

TEST_F(ListTest, LabelSelectorPicksMatchingObjects) {
  create(kConfigMaps, labelled("a", {{"app", "web"}, {"tier", "front"}}));
  create(kConfigMaps, labelled("b", {{"app", "web"}, {"tier", "back"}}));
  create(kConfigMaps, labelled("c", {{"app", "db"}}));
  create(kConfigMaps, configMap("d"));
  auto select = [&](const std::string& selector) {
    ListOptions options;
    options.labelSelector = selector;
    return names(must(server->list(kConfigMaps, "default", options)));
  };
  EXPECT_EQ(select("app=web"), (Names{"a", "b"}));
  EXPECT_EQ(select("app==web,tier=back"), (Names{"b"}));
  EXPECT_EQ(select("app!=web"), (Names{"c", "d"}));
  EXPECT_EQ(select("tier in (front,back)"), (Names{"a", "b"}));
  EXPECT_EQ(select("tier notin (front)"), (Names{"b", "c", "d"}));
  EXPECT_EQ(select("tier"), (Names{"a", "b"}));
  EXPECT_EQ(select("!app"), (Names{"d"}));
  EXPECT_EQ(select(""), (Names{"a", "b", "c", "d"}));

  const std::int64_t before = server->revision();
  ListOptions bad;
  bad.labelSelector = "app in web";
  auto r = server->list(kConfigMaps, "default", bad);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, 400);
  EXPECT_EQ(r.error().reason, "BadRequest");
  EXPECT_EQ(server->revision(), before);
}

TEST_F(ListTest, FieldSelectorOnMetadataName) {
  create(kConfigMaps, configMap("a"));
  create(kConfigMaps, configMap("b"));
  ListOptions options;
  options.fieldSelector = "metadata.name=b";
  EXPECT_EQ(names(must(server->list(kConfigMaps, "default", options))), (Names{"b"}));
  options.fieldSelector = "metadata.name!=b";
  EXPECT_EQ(names(must(server->list(kConfigMaps, "default", options))), (Names{"a"}));
  options.fieldSelector = "metadata.namespace=default,metadata.name==a";
  EXPECT_EQ(names(must(server->list(kConfigMaps, "", options))), (Names{"a"}));
}

TEST_F(ListTest, PodFieldSelectorsOnNodeNameAndPhase) {
  Json onNode = pod("on-node");
  onNode["spec"]["nodeName"] = "node-1";
  create(kPods, onNode);
  create(kPods, pod("pending"));
  Json done = create(kPods, pod("done"));
  done["status"]["phase"] = "Succeeded";
  updateStatus(kPods, done);

  auto select = [&](const std::string& selector) {
    ListOptions options;
    options.fieldSelector = selector;
    return names(must(server->list(kPods, "default", options)));
  };
  EXPECT_EQ(select("spec.nodeName=node-1"), (Names{"on-node"}));
  EXPECT_EQ(select("spec.nodeName="), (Names{"done", "pending"}));
  EXPECT_EQ(select("status.phase=Pending"), (Names{"on-node", "pending"}));
  EXPECT_EQ(select("status.phase!=Pending"), (Names{"done"}));
  EXPECT_EQ(select("status.phase=Pending,spec.nodeName!=node-1"), (Names{"pending"}));
}

TEST_F(ListTest, UnsupportedFieldSelectorIs400) {
  create(kConfigMaps, configMap("a"));
  const std::int64_t before = server->revision();
  ListOptions options;
  options.fieldSelector = "spec.foo=bar";
  EXPECT_TRUE(failsWith(server->list(kConfigMaps, "default", options), 400, "BadRequest",
                        "field label not supported: spec.foo"));
  // Pod-only fields are not supported on other kinds.
  options.fieldSelector = "spec.nodeName=node-1";
  EXPECT_TRUE(failsWith(server->list(kConfigMaps, "default", options), 400, "BadRequest",
                        "field label not supported: spec.nodeName"));
  // metadata.namespace is for namespaced kinds only.
  options.fieldSelector = "metadata.namespace=default";
  EXPECT_TRUE(failsWith(server->list(kNamespaces, "", options), 400, "BadRequest",
                        "field label not supported: metadata.namespace"));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(ListTest, LimitAndContinueCoverEveryItemExactlyOnce) {
  for (int i = 0; i < 7; ++i) create(kConfigMaps, configMap("cm-" + std::to_string(i)));
  const std::string listRv = std::to_string(server->revision());

  std::vector<std::string> seen;
  std::vector<std::size_t> pageSizes;
  ListOptions options;
  options.limit = 3;
  for (int page = 0; page < 10; ++page) {
    Json list = must(server->list(kConfigMaps, "default", options));
    EXPECT_EQ(list["metadata"]["resourceVersion"], listRv);
    pageSizes.push_back(list["items"].size());
    for (const auto& n : names(list)) seen.push_back(n);
    if (!list["metadata"].contains("continue")) break;
    options.continueToken = list["metadata"]["continue"].get<std::string>();
    ASSERT_FALSE(options.continueToken.empty());
  }
  EXPECT_EQ(pageSizes, (std::vector<std::size_t>{3, 3, 1}));
  EXPECT_EQ(seen, (Names{"cm-0", "cm-1", "cm-2", "cm-3", "cm-4", "cm-5", "cm-6"}));
}

TEST_F(ListTest, ContinuePagesWorkWithSelectorsAndAcrossNamespaces) {
  create(kNamespaces, namespaceObject("a-ns"));
  for (int i = 0; i < 4; ++i) {
    create(kConfigMaps, labelled("d" + std::to_string(i), {{"keep", i % 2 == 0 ? "y" : "n"}}));
    Json other = configMap("a" + std::to_string(i), "a-ns");
    other["metadata"]["labels"] = {{"keep", "y"}};
    create(kConfigMaps, other);
  }
  std::vector<std::string> seen;
  ListOptions options;
  options.limit = 2;
  options.labelSelector = "keep=y";
  for (int page = 0; page < 10; ++page) {
    Json list = must(server->list(kConfigMaps, "", options));
    for (const auto& item : list["items"]) seen.push_back(meta::namespacedName(item));
    if (!list["metadata"].contains("continue")) break;
    options.continueToken = list["metadata"]["continue"].get<std::string>();
  }
  EXPECT_EQ(seen, (Names{"a-ns/a0", "a-ns/a1", "a-ns/a2", "a-ns/a3", "default/d0", "default/d2"}));
}

TEST_F(ListTest, ContinueTokenPinsTheListResourceVersion) {
  for (int i = 0; i < 4; ++i) create(kConfigMaps, configMap("cm-" + std::to_string(i)));
  ListOptions options;
  options.limit = 2;
  Json first = must(server->list(kConfigMaps, "default", options));
  const std::string listRv = first["metadata"]["resourceVersion"];
  create(kConfigMaps, configMap("cm-9"));
  options.continueToken = first["metadata"]["continue"];
  Json second = must(server->list(kConfigMaps, "default", options));
  EXPECT_EQ(second["metadata"]["resourceVersion"], listRv);
}

TEST_F(ListTest, ContinueTokenOlderThanTheCompactionIs410) {
  for (int i = 0; i < 4; ++i) create(kConfigMaps, configMap("cm-" + std::to_string(i)));
  ListOptions options;
  options.limit = 2;
  Json first = must(server->list(kConfigMaps, "default", options));
  create(kConfigMaps, configMap("later"));
  ASSERT_TRUE(server->compact(server->revision()));

  const std::int64_t before = server->revision();
  options.continueToken = first["metadata"]["continue"];
  EXPECT_TRUE(failsWith(
      server->list(kConfigMaps, "default", options), 410, "Expired",
      "The provided continue parameter is too old to display a consistent list result. You can "
      "start a new list without the continue parameter, or use the continue token in this "
      "response to retrieve the remainder of the results. Continuing with the provided token "
      "results in an inconsistent list - objects that were created, modified, or deleted between "
      "the time the first chunk was returned and now may show up in the list."));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(ListTest, MalformedContinueTokenIs400) {
  ListOptions options;
  options.continueToken = "not base64!";
  EXPECT_TRUE(failsWithMessageStarting(server->list(kConfigMaps, "default", options), 400,
                                       "BadRequest", "continue key is not valid: "));
}

TEST_F(ListTest, ResourceVersionNewerThanTheServerIs504) {
  create(kConfigMaps, configMap("a"));
  const std::int64_t current = server->revision();
  ListOptions options;
  options.resourceVersion = std::to_string(current + 100);
  auto r = server->list(kConfigMaps, "default", options);
  EXPECT_TRUE(failsWith(r, 504, "Timeout",
                        "Timeout: Too large resource version: " + std::to_string(current + 100) +
                            ", current: " + std::to_string(current)));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().details.retryAfterSeconds, 1);
  EXPECT_EQ(r.error().details.causes,
            (std::vector<StatusCause>{
                cause("ResourceVersionTooLarge", "Too large resource version", "")}));
  EXPECT_EQ(server->revision(), current);
}

TEST_F(ListTest, ResourceVersionSemantics) {
  create(kConfigMaps, configMap("a"));
  const std::int64_t first = server->revision();
  create(kConfigMaps, configMap("b"));
  const std::int64_t current = server->revision();

  ListOptions notOlder;
  notOlder.resourceVersion = std::to_string(first);
  Json list = must(server->list(kConfigMaps, "default", notOlder));
  EXPECT_EQ(names(list), (Names{"a", "b"})) << "NotOlderThan answers the newest state";
  EXPECT_EQ(list["metadata"]["resourceVersion"], std::to_string(current));

  ListOptions exact;
  exact.resourceVersion = std::to_string(current);
  exact.resourceVersionMatch = "Exact";
  EXPECT_EQ(names(must(server->list(kConfigMaps, "default", exact))), (Names{"a", "b"}));

  // Below the compaction mark the state is gone.
  ASSERT_TRUE(server->compact(current));
  exact.resourceVersion = std::to_string(first);
  EXPECT_TRUE(failsWith(
      server->list(kConfigMaps, "default", exact), 410, "Expired",
      "too old resource version: " + std::to_string(first) + " (" + std::to_string(current) + ")"));
  EXPECT_EQ(server->revision(), current);

  // "0": any state will do, served without paging.
  ListOptions any;
  any.resourceVersion = "0";
  any.limit = 1;
  Json all = must(server->list(kConfigMaps, "default", any));
  EXPECT_EQ(names(all), (Names{"a", "b"}));
  EXPECT_FALSE(all["metadata"].contains("continue"));
}

TEST_F(ListTest, InvalidResourceVersionOptions) {
  ListOptions match;
  match.resourceVersionMatch = "Exact";
  auto r = server->list(kConfigMaps, "default", match);
  EXPECT_TRUE(failsWith(r, 422, "Invalid",
                        "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
                        "resourceVersionMatch is forbidden unless resourceVersion is provided"));
  ListOptions unknown;
  unknown.resourceVersion = "5";
  unknown.resourceVersionMatch = "Newest";
  EXPECT_TRUE(failsWith(server->list(kConfigMaps, "default", unknown), 422, "Invalid",
                        "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: "
                        "Unsupported value: \"Newest\": supported values: \"Exact\", "
                        "\"NotOlderThan\", \"\""));
}

}  // namespace
}  // namespace fakekube::apitest
