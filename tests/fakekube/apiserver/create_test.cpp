// POST: the metadata the server owns (uid, creationTimestamp, resourceVersion, generation),
// generateName, object-metadata validation, namespaces, and size limits. Every refused request
// also proves that nothing was written (the revision did not move).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "fakekube/api/resources.h"
#include "fixture.h"
#include "tests/support/validation_messages.h"

namespace fakekube::apitest {
namespace {

using CreateTest = ApiServerTest;

const std::string& kSubdomainMsg = ::fakekube::testing::kValidationMessages.subdomain;
const std::string& kNamePartMsg = ::fakekube::testing::kValidationMessages.namePart;
const std::string& kLabelValueMsg = ::fakekube::testing::kValidationMessages.labelValue;

constexpr std::string_view kNameAlphabet = "bcdfghjklmnpqrstvwxz2456789";

bool isUuidV4(const std::string& s) {
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return false;
    } else if (std::string_view("0123456789abcdef").find(s[i]) == std::string_view::npos) {
      return false;
    }
  }
  return s[14] == '4' && std::string_view("89ab").find(s[19]) != std::string_view::npos;
}

TEST_F(CreateTest, ServerSetsUidAndCreationTimestampFromTheVirtualClock) {
  Json cm = configMap("c1");
  // Whatever the client sends for the server's fields is replaced or dropped.
  cm["metadata"]["uid"] = "client-uid";
  cm["metadata"]["creationTimestamp"] = "1999-01-01T00:00:00Z";
  cm["metadata"]["deletionTimestamp"] = "1999-01-01T00:00:00Z";
  cm["metadata"]["deletionGracePeriodSeconds"] = 5;
  Json created = create(kConfigMaps, cm);

  const std::string uid = meta::uid(created);
  EXPECT_TRUE(isUuidV4(uid)) << uid;
  EXPECT_NE(uid, "client-uid");
  EXPECT_EQ(meta::creationTimestamp(created), "2024-01-01T00:00:00Z");
  EXPECT_FALSE(created["metadata"].contains("deletionTimestamp"));
  EXPECT_FALSE(created["metadata"].contains("deletionGracePeriodSeconds"));
  EXPECT_EQ(created["apiVersion"], "v1");
  EXPECT_EQ(created["kind"], "ConfigMap");
  EXPECT_EQ(created["data"]["key"], "value");
  EXPECT_EQ(get(kConfigMaps, "default", "c1"), created);

  ex.advance(std::chrono::seconds(90));
  Json later = create(kConfigMaps, configMap("c2"));
  EXPECT_EQ(meta::creationTimestamp(later), "2024-01-01T00:01:30Z");
  EXPECT_NE(meta::uid(later), uid);
  EXPECT_TRUE(isUuidV4(meta::uid(later)));

  ex.advance(std::chrono::hours(24) + std::chrono::milliseconds(999));
  // Whole seconds: the fraction is cut, not rounded.
  EXPECT_EQ(meta::creationTimestamp(create(kConfigMaps, configMap("c3"))), "2024-01-02T00:01:30Z");
}

TEST_F(CreateTest, ResourceVersionIsOneGlobalCounterAcrossKinds) {
  const std::int64_t start = server->revision();
  std::vector<Json> created;
  created.push_back(create(kConfigMaps, configMap("c1")));
  created.push_back(create(kPods, pod("p1")));
  created.push_back(create(kNamespaces, namespaceObject("team-a")));
  created.push_back(create(kDeployments, deployment("d1")));
  created.push_back(create(kConfigMaps, configMap("c2", "team-a")));
  std::int64_t expected = start;
  for (const Json& object : created) {
    ++expected;
    EXPECT_EQ(rvNumber(object), expected) << object["kind"];
  }
  EXPECT_EQ(server->revision(), expected);
  // A read does not move it.
  EXPECT_EQ(rvNumber(get(kPods, "default", "p1")), start + 2);
  EXPECT_EQ(server->revision(), expected);
}

TEST_F(CreateTest, GenerationStartsAtOneForDeploymentsAndCustomResourcesAndIsAbsentForConfigMaps) {
  Json d = deployment("d1");
  d["metadata"]["generation"] = 7;  // clients cannot set it
  EXPECT_EQ(create(kDeployments, d)["metadata"]["generation"], 1);

  installWidgetCrd();
  Json w = widget("w1");
  w["metadata"]["generation"] = 3;
  EXPECT_EQ(create(kWidgets, w)["metadata"]["generation"], 1);

  Json cm = create(kConfigMaps, configMap("c1"));
  EXPECT_FALSE(cm["metadata"].contains("generation"));
}

TEST_F(CreateTest, CreateWithResourceVersionIsRefusedLikeEtcdDoes) {
  const std::int64_t before = server->revision();
  Json cm = configMap("c1");
  cm["metadata"]["resourceVersion"] = "12";
  auto r = server->create(kConfigMaps, "", cm);
  // etcd3 store.Create's plain error, which the API server turns into an untyped 500.
  EXPECT_TRUE(failsWith(r, 500, "", "resourceVersion should not be set on objects to be created"));
  EXPECT_TRUE(r.error().details.empty());
  EXPECT_TRUE(isInternalError(r.error()));
  EXPECT_EQ(server->revision(), before);
  EXPECT_TRUE(isNotFound(server->get(kConfigMaps, "default", "c1")));

  // Validation runs first: a bad name with a resourceVersion is still a 422.
  cm["metadata"]["name"] = "Bad_Name";
  EXPECT_EQ(server->create(kConfigMaps, "", cm).error().code, 422);
  EXPECT_EQ(server->revision(), before);
}

TEST_F(CreateTest, GenerateNameAppendsFiveCharactersFromTheKubernetesAlphabet) {
  std::set<std::string> names;
  for (int i = 0; i < 20; ++i) {
    Json cm = configMap("");
    cm["metadata"]["generateName"] = "web-";
    Json created = create(kConfigMaps, cm);
    const std::string name = meta::name(created);
    ASSERT_EQ(name.size(), 9u) << name;
    EXPECT_EQ(name.substr(0, 4), "web-");
    for (char c : name.substr(4)) {
      EXPECT_NE(kNameAlphabet.find(c), std::string_view::npos) << name;
    }
    EXPECT_EQ(created["metadata"]["generateName"], "web-");
    EXPECT_EQ(get(kConfigMaps, "default", name), created);
    names.insert(name);
  }
  EXPECT_EQ(names.size(), 20u);

  // A long prefix is cut to 58 characters so that the name fits in 63.
  Json cm = configMap("");
  cm["metadata"]["generateName"] = std::string(70, 'a');
  const std::string name = meta::name(create(kConfigMaps, cm));
  ASSERT_EQ(name.size(), 63u);
  EXPECT_EQ(name.substr(0, 58), std::string(58, 'a'));
}

TEST_F(CreateTest, AnExplicitNameWinsOverGenerateName) {
  Json cm = configMap("fixed");
  cm["metadata"]["generateName"] = "web-";
  EXPECT_EQ(meta::name(create(kConfigMaps, cm)), "fixed");
}

// The names a server seeded with `seed` generates for prefix "gen-" after `warmup` plain
// creates: each name is read from the 422 of a create that fails validation after its name was
// generated (so no uid is drawn between two names, exactly as between two retries).
std::vector<std::string> generatedNames(SimExecutor& ex, std::uint64_t seed, int warmup,
                                        int count) {
  ApiServerOptions options;
  options.seed = seed;
  auto server = must(ApiServer::open(ex.clock(), options), "open");
  for (int i = 0; i < warmup; ++i) {
    must(server->create(kConfigMaps, "", configMap("warmup-" + std::to_string(i))), "warmup");
  }
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) {
    Json cm = configMap("");
    cm["metadata"]["generateName"] = "gen-";
    cm["metadata"]["labels"] = {{"bad key", "x"}};
    auto r = server->create(kConfigMaps, "", cm);
    EXPECT_FALSE(r);
    if (r) continue;
    EXPECT_EQ(r.error().code, 422);
    names.push_back(r.error().details.name);
  }
  return names;
}

TEST_F(CreateTest, GenerateNameRetriesWhenTheGeneratedNameIsTaken) {
  const std::vector<std::string> names = generatedNames(ex, 7, 3, 8);
  ASSERT_EQ(names.size(), 8u);
  ASSERT_EQ(std::set<std::string>(names.begin(), names.end()).size(), 8u);

  // Same seed: take the first three names the generator will produce (three creates, as the
  // warm-up did), then ask for a generated name.
  auto second = openServer(7);
  for (int i = 0; i < 3; ++i) must(second->create(kConfigMaps, "", configMap(names[i])), "taken");
  const std::int64_t before = second->revision();
  Json cm = configMap("");
  cm["metadata"]["generateName"] = "gen-";
  Json created = must(second->create(kConfigMaps, "", cm), "generated");
  EXPECT_EQ(meta::name(created), names[3]);
  EXPECT_EQ(second->revision(), before + 1);
}

TEST_F(CreateTest, GenerateNameGivesUpAfterEightCollisions) {
  const std::vector<std::string> names = generatedNames(ex, 11, 8, 8);
  ASSERT_EQ(names.size(), 8u);
  auto second = openServer(11);
  for (const auto& name : names) must(second->create(kConfigMaps, "", configMap(name)), "taken");

  const std::int64_t before = second->revision();
  Json cm = configMap("");
  cm["metadata"]["generateName"] = "gen-";
  auto r = second->create(kConfigMaps, "", cm);
  EXPECT_TRUE(failsWith(r, 409, "AlreadyExists",
                        "configmaps \"" + names[7] +
                            "\" already exists, the server was not able to generate a unique "
                            "name for the object"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().details.name, names[7]);
  EXPECT_EQ(r.error().details.kind, "configmaps");
  EXPECT_EQ(r.error().details.group, "");
  EXPECT_EQ(r.error().details.retryAfterSeconds, 1);
  EXPECT_TRUE(isAlreadyExists(r.error()));
  EXPECT_EQ(second->revision(), before);
}

TEST_F(CreateTest, NeitherNameNorGenerateNameIs422) {
  const std::int64_t before = server->revision();
  auto r = server->create(kConfigMaps, "", configMap(""));
  EXPECT_TRUE(failsWith(r, 422, "Invalid",
                        "ConfigMap \"\" is invalid: metadata.name: Required value: name or "
                        "generateName is required"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().details.kind, "ConfigMap");
  EXPECT_EQ(r.error().details.name, "");
  EXPECT_EQ(r.error().details.causes,
            (std::vector<StatusCause>{cause("FieldValueRequired",
                                            "Required value: name or generateName is required",
                                            "metadata.name")}));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(CreateTest, InvalidNameIs422WithTheFullKubernetesMessage) {
  const std::int64_t before = server->revision();
  auto r = server->create(kConfigMaps, "", configMap("Bad_Name"));
  EXPECT_TRUE(failsWith(r, 422, "Invalid",
                        "ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: "
                        "\"Bad_Name\": " +
                            kSubdomainMsg));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().details.name, "Bad_Name");
  EXPECT_EQ(r.error().details.kind, "ConfigMap");
  EXPECT_EQ(
      r.error().details.causes,
      (std::vector<StatusCause>{cause(
          "FieldValueInvalid", "Invalid value: \"Bad_Name\": " + kSubdomainMsg, "metadata.name")}));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(CreateTest, NamespaceNamesAreDns1123Labels) {
  const std::int64_t before = server->revision();
  auto r = server->create(kNamespaces, "", namespaceObject("a.b"));
  EXPECT_TRUE(failsWith(
      r, 422, "Invalid",
      R"(Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'))"));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(CreateTest, BadLabelKeyIs422) {
  const std::int64_t before = server->revision();
  Json cm = configMap("c1");
  cm["metadata"]["labels"] = {{"bad key", "ok"}};
  auto r = server->create(kConfigMaps, "", cm);
  EXPECT_TRUE(failsWith(
      r, 422, "Invalid",
      "ConfigMap \"c1\" is invalid: metadata.labels: Invalid value: \"bad key\": " + kNamePartMsg));
  ASSERT_FALSE(r);
  EXPECT_EQ(
      r.error().details.causes,
      (std::vector<StatusCause>{cause(
          "FieldValueInvalid", "Invalid value: \"bad key\": " + kNamePartMsg, "metadata.labels")}));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(CreateTest, BadLabelValueIs422) {
  const std::int64_t before = server->revision();
  Json cm = configMap("c1");
  cm["metadata"]["labels"] = {{"app", "-web-"}};
  auto r = server->create(kConfigMaps, "", cm);
  EXPECT_TRUE(failsWith(
      r, 422, "Invalid",
      "ConfigMap \"c1\" is invalid: metadata.labels: Invalid value: \"-web-\": " + kLabelValueMsg));
  ASSERT_FALSE(r);
  EXPECT_EQ(
      r.error().details.causes,
      (std::vector<StatusCause>{cause(
          "FieldValueInvalid", "Invalid value: \"-web-\": " + kLabelValueMsg, "metadata.labels")}));
  EXPECT_EQ(server->revision(), before);

  // Too long: 64 characters.
  cm["metadata"]["labels"] = {{"app", std::string(64, 'a')}};
  auto tooLong = server->create(kConfigMaps, "", cm);
  EXPECT_TRUE(failsWith(tooLong, 422, "Invalid",
                        "ConfigMap \"c1\" is invalid: metadata.labels: Invalid value: \"" +
                            std::string(64, 'a') + "\": must be no more than 63 characters"));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(CreateTest, AnnotationsOverTheTotalLimitAre422) {
  const std::int64_t before = server->revision();
  Json cm = configMap("c1");
  cm["metadata"]["annotations"] = {{"a", std::string(256 * 1024, 'x')}};
  auto r = server->create(kConfigMaps, "", cm);
  EXPECT_TRUE(failsWith(r, 422, "Invalid",
                        "ConfigMap \"c1\" is invalid: metadata.annotations: Too long: must have at "
                        "most 262144 bytes"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().details.causes,
            (std::vector<StatusCause>{cause("FieldValueTooLong",
                                            "Too long: must have at most 262144 bytes",
                                            "metadata.annotations")}));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(CreateTest, TwoControllerOwnerReferencesAre422) {
  const std::int64_t before = server->revision();
  Json cm = configMap("c1");
  cm["metadata"]["ownerReferences"] = Json::array({
      {{"apiVersion", "apps/v1"},
       {"kind", "ReplicaSet"},
       {"name", "a"},
       {"uid", "u1"},
       {"controller", true}},
      {{"apiVersion", "apps/v1"},
       {"kind", "ReplicaSet"},
       {"name", "b"},
       {"uid", "u2"},
       {"controller", true},
       {"blockOwnerDeletion", true}},
  });
  auto r = server->create(kConfigMaps, "", cm);
  const std::string value =
      R"([]v1.OwnerReference{v1.OwnerReference{APIVersion:"apps/v1", Kind:"ReplicaSet", Name:"a", UID:"u1", Controller:(*bool)(0xc000000000), BlockOwnerDeletion:(*bool)(nil)}, v1.OwnerReference{APIVersion:"apps/v1", Kind:"ReplicaSet", Name:"b", UID:"u2", Controller:(*bool)(0xc000000000), BlockOwnerDeletion:(*bool)(0xc000000000)}})";
  const std::string detail =
      "Only one reference can have Controller set to true. Found \"true\" in references for "
      "ReplicaSet/a and ReplicaSet/b";
  EXPECT_TRUE(failsWith(r, 422, "Invalid",
                        "ConfigMap \"c1\" is invalid: metadata.ownerReferences: Invalid value: " +
                            value + ": " + detail));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().details.causes,
            (std::vector<StatusCause>{cause("FieldValueInvalid",
                                            "Invalid value: " + value + ": " + detail,
                                            "metadata.ownerReferences")}));
  EXPECT_EQ(server->revision(), before);

  // One controller is fine.
  cm["metadata"]["ownerReferences"][1]["controller"] = false;
  EXPECT_TRUE(server->create(kConfigMaps, "", cm));
}

TEST_F(CreateTest, ExistingNameIs409AlreadyExists) {
  create(kConfigMaps, configMap("c1"));
  const std::int64_t before = server->revision();
  auto r = server->create(kConfigMaps, "", configMap("c1"));
  EXPECT_TRUE(failsWith(r, 409, "AlreadyExists", "configmaps \"c1\" already exists"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().details.name, "c1");
  EXPECT_EQ(r.error().details.kind, "configmaps");
  EXPECT_EQ(r.error().details.retryAfterSeconds, 0);
  EXPECT_EQ(server->revision(), before);

  // The same name in another namespace is another object.
  create(kNamespaces, namespaceObject("other"));
  EXPECT_TRUE(server->create(kConfigMaps, "", configMap("c1", "other")));
}

TEST_F(CreateTest, UnknownResourceIs404) {
  const std::int64_t before = server->revision();
  EXPECT_TRUE(failsWith(server->create({"", "v1", "gizmos"}, "default", configMap("g1")), 404,
                        "NotFound", "the server could not find the requested resource"));
  // A known resource at a version it is not served at.
  EXPECT_TRUE(
      failsWith(server->create({"apps", "v1beta7", "deployments"}, "default", deployment("d1")),
                404, "NotFound", "the server could not find the requested resource"));
  EXPECT_TRUE(failsWith(server->get({"", "v1", "gizmos"}, "default", "g1"), 404, "NotFound",
                        "the server could not find the requested resource"));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(CreateTest, MissingNamespaceIs404) {
  const std::int64_t before = server->revision();
  auto r = server->create(kConfigMaps, "", configMap("c1", "nope"));
  EXPECT_TRUE(failsWith(r, 404, "NotFound", "namespaces \"nope\" not found"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().details.name, "nope");
  EXPECT_EQ(r.error().details.kind, "namespaces");
  EXPECT_EQ(server->revision(), before);
}

TEST_F(CreateTest, NamespaceOfTheObjectMustMatchTheRequest) {
  const std::int64_t before = server->revision();
  EXPECT_TRUE(failsWith(server->create(kConfigMaps, "kube-system", configMap("c1", "default")), 400,
                        "BadRequest",
                        "the namespace of the provided object does not match the namespace sent "
                        "on the request"));
  EXPECT_EQ(server->revision(), before);
  // An object without a namespace takes the request's.
  Json cm = configMap("c1");
  cm["metadata"].erase("namespace");
  EXPECT_EQ(meta::namespace_(must(server->create(kConfigMaps, "kube-system", cm))), "kube-system");
}

TEST_F(CreateTest, ClusterScopedObjectsDropANamespace) {
  // EnsureObjectNamespaceMatchesRequestNamespace clears it for cluster-scoped kinds.
  Json ns = namespaceObject("team-a");
  ns["metadata"]["namespace"] = "default";
  Json created = create(kNamespaces, ns);
  EXPECT_FALSE(created["metadata"].contains("namespace"));
  EXPECT_EQ(created["status"]["phase"], "Active");
  EXPECT_EQ(created["spec"]["finalizers"], Json::array({"kubernetes"}));
}

TEST_F(CreateTest, CreatingInATerminatingNamespaceIs403) {
  create(kNamespaces, namespaceObject("doomed"));
  Json deleting = remove(kNamespaces, "", "doomed");
  // spec.finalizers ["kubernetes"] keep it: it is Terminating, not gone.
  EXPECT_EQ(deleting["spec"]["finalizers"], Json::array({"kubernetes"}));
  EXPECT_EQ(deleting["status"]["phase"], "Terminating");
  EXPECT_EQ(meta::deletionTimestamp(deleting), "2024-01-01T00:00:00Z");
  EXPECT_EQ(get(kNamespaces, "", "doomed")["status"]["phase"], "Terminating");

  const std::int64_t before = server->revision();
  auto r = server->create(kConfigMaps, "", configMap("c1", "doomed"));
  EXPECT_TRUE(failsWith(r, 403, "Forbidden",
                        "configmaps \"c1\" is forbidden: unable to create new content in "
                        "namespace doomed because it is being terminated"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().details.name, "c1");
  EXPECT_EQ(r.error().details.kind, "configmaps");
  EXPECT_EQ(
      r.error().details.causes,
      (std::vector<StatusCause>{cause(
          "NamespaceTerminating", "namespace doomed is being terminated", "metadata.namespace")}));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(CreateTest, ObjectOverEtcdsLimitIs413) {
  const std::int64_t before = server->revision();
  Json cm = configMap("big");
  cm["data"]["blob"] = std::string(1536 * 1024 + 1, 'x');
  auto r = server->create(kConfigMaps, "", cm);
  EXPECT_TRUE(failsWith(r, 413, "RequestEntityTooLarge",
                        "Request entity too large: limit is 1572864: etcdserver: request is too "
                        "large"));
  EXPECT_EQ(server->revision(), before);
  EXPECT_TRUE(isNotFound(server->get(kConfigMaps, "default", "big")));

  // Just under the limit is fine.
  cm["data"]["blob"] = std::string(1024 * 1024, 'x');
  EXPECT_TRUE(server->create(kConfigMaps, "", cm));
}

TEST_F(CreateTest, MismatchedTypeMetaIs400) {
  const std::int64_t before = server->revision();
  Json cm = configMap("c1");
  cm["kind"] = "Secret";
  EXPECT_TRUE(failsWith(server->create(kConfigMaps, "", cm), 400, "BadRequest",
                        "the kind in the data (Secret) does not match the expected kind "
                        "(ConfigMap)"));
  EXPECT_EQ(server->revision(), before);
  // In-process callers may leave apiVersion and kind out; the server fills them in.
  Json bare = {{"metadata", {{"name", "c2"}, {"namespace", "default"}}}};
  Json created = must(server->create(kConfigMaps, "", bare));
  EXPECT_EQ(created["apiVersion"], "v1");
  EXPECT_EQ(created["kind"], "ConfigMap");
}

TEST_F(CreateTest, DryRunValidatesButWritesNothing) {
  const std::int64_t before = server->revision();
  CreateOptions options;
  options.dryRun = true;
  Json answered = must(server->create(kConfigMaps, "", configMap("c1"), options));
  EXPECT_EQ(meta::name(answered), "c1");
  EXPECT_EQ(server->revision(), before);
  EXPECT_TRUE(isNotFound(server->get(kConfigMaps, "default", "c1")));
}

TEST_F(CreateTest, PodsStartPendingWithDefaults) {
  Json p = pod("p1");
  p["status"] = {{"phase", "Running"}};  // status is not the client's to set on create
  Json created = create(kPods, p);
  EXPECT_EQ(created["status"]["phase"], "Pending");
  EXPECT_EQ(created["spec"]["restartPolicy"], "Always");
  EXPECT_EQ(created["spec"]["terminationGracePeriodSeconds"], 30);
  EXPECT_EQ(created["metadata"]["generation"], 1);
}

}  // namespace
}  // namespace fakekube::apitest
