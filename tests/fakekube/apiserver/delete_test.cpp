// DELETE: the Success Status, finalizers and deletionTimestamp, propagation finalizers,
// preconditions, graceful pod deletion, and namespaces.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fakekube/api/resources.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

class DeleteTest : public ApiServerTest {
 protected:
  // Deletes `name` in "default" under the precondition that its UID is `uid`.
  Result<DeleteResult> deleteWithUid(const GroupVersionResource& gvr, const std::string& name,
                                     const std::string& uid) {
    DeleteOptions options;
    options.preconditions.uid = uid;
    return server->deleteObject(gvr, "default", name, options);
  }
};

Json withFinalizers(Json object, std::vector<std::string> finalizers) {
  object["metadata"]["finalizers"] = finalizers;
  return object;
}

TEST_F(DeleteTest, ConfigMapDeleteAnswersASuccessStatus) {
  Json cm = create(kConfigMaps, configMap("c1"));
  const std::int64_t before = server->revision();
  Json answer = remove(kConfigMaps, "default", "c1");
  EXPECT_EQ(answer,
            Json({{"kind", "Status"},
                  {"apiVersion", "v1"},
                  {"metadata", Json::object()},
                  {"status", "Success"},
                  {"details", {{"name", "c1"}, {"kind", "configmaps"}, {"uid", meta::uid(cm)}}},
                  {"code", 200}}));
  EXPECT_EQ(server->revision(), before + 1) << "a delete is a write";
  EXPECT_TRUE(failsWith(server->get(kConfigMaps, "default", "c1"), 404, "NotFound",
                        "configmaps \"c1\" not found"));
}

TEST_F(DeleteTest, DeleteOfAMissingObjectIs404) {
  const std::int64_t before = server->revision();
  auto r = server->deleteObject(kConfigMaps, "default", "nope");
  EXPECT_TRUE(failsWith(r, 404, "NotFound", "configmaps \"nope\" not found"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().details.name, "nope");
  EXPECT_EQ(r.error().details.kind, "configmaps");
  EXPECT_EQ(server->revision(), before);
}

TEST_F(DeleteTest, FinalizersKeepTheObjectWithADeletionTimestamp) {
  create(kConfigMaps, withFinalizers(configMap("c1"), {"example.com/hold"}));
  ex.advance(std::chrono::seconds(10));
  const std::int64_t before = server->revision();
  Json deleting = remove(kConfigMaps, "default", "c1");
  EXPECT_EQ(deleting["kind"], "ConfigMap") << "the object, not a Status";
  EXPECT_EQ(meta::deletionTimestamp(deleting), "2024-01-01T00:00:10Z");
  EXPECT_EQ(deleting["metadata"]["deletionGracePeriodSeconds"], 0);
  EXPECT_EQ(meta::finalizers(deleting), std::vector<std::string>{"example.com/hold"});
  EXPECT_EQ(rvNumber(deleting), before + 1);
  EXPECT_EQ(get(kConfigMaps, "default", "c1"), deleting);

  // Deleting again is a no-op that answers the object.
  ex.advance(std::chrono::seconds(10));
  Json again = remove(kConfigMaps, "default", "c1");
  EXPECT_EQ(again, deleting);
  EXPECT_EQ(server->revision(), before + 1);
}

TEST_F(DeleteTest, RemovingTheLastFinalizerRemovesTheObject) {
  create(kConfigMaps, withFinalizers(configMap("c1"), {"example.com/hold"}));
  Json deleting = remove(kConfigMaps, "default", "c1");
  deleting["metadata"]["finalizers"] = Json::array();
  Json removed = update(kConfigMaps, deleting);
  EXPECT_EQ(meta::name(removed), "c1");
  EXPECT_EQ(rvNumber(removed), server->revision());
  EXPECT_TRUE(failsWith(server->get(kConfigMaps, "default", "c1"), 404, "NotFound",
                        "configmaps \"c1\" not found"));
}

TEST_F(DeleteTest, NewFinalizerOnADeletingObjectIs422) {
  create(kConfigMaps, withFinalizers(configMap("c1"), {"a"}));
  Json deleting = remove(kConfigMaps, "default", "c1");
  const std::int64_t before = server->revision();
  deleting["metadata"]["finalizers"] = Json::array({"a", "b"});
  EXPECT_TRUE(failsWith(server->update(kConfigMaps, "", deleting), 422, "Invalid",
                        "ConfigMap \"c1\" is invalid: metadata.finalizers: Forbidden: no new "
                        "finalizers can be added if the object is being deleted, found new "
                        "finalizers []string{\"b\"}"));
  EXPECT_EQ(server->revision(), before);
  EXPECT_EQ(meta::finalizers(get(kConfigMaps, "default", "c1")), std::vector<std::string>{"a"});
}

TEST_F(DeleteTest, OrphanPolicyAddsTheOrphanFinalizer) {
  create(kConfigMaps, configMap("c1"));
  DeleteOptions options;
  options.propagationPolicy = "Orphan";
  Json deleting = remove(kConfigMaps, "default", "c1", options);
  EXPECT_EQ(meta::finalizers(deleting), std::vector<std::string>{"orphan"});
  EXPECT_TRUE(meta::isDeleting(deleting));
  EXPECT_EQ(deleting["metadata"]["deletionGracePeriodSeconds"], 0);
  EXPECT_TRUE(server->get(kConfigMaps, "default", "c1"));
}

TEST_F(DeleteTest, ForegroundPolicyAddsTheForegroundDeletionFinalizer) {
  create(kDeployments, withFinalizers(deployment("d1"), {"example.com/hold"}));
  DeleteOptions options;
  options.propagationPolicy = "Foreground";
  Json deleting = remove(kDeployments, "default", "d1", options);
  EXPECT_EQ(meta::finalizers(deleting),
            (std::vector<std::string>{"example.com/hold", "foregroundDeletion"}));
  EXPECT_TRUE(meta::isDeleting(deleting));
  EXPECT_EQ(deleting["metadata"]["generation"], 2) << "the first deletion bumps the generation";

  // Propagation finalizers change only when deletion starts.
  DeleteOptions orphan;
  orphan.propagationPolicy = "Orphan";
  EXPECT_EQ(meta::finalizers(remove(kDeployments, "default", "d1", orphan)),
            (std::vector<std::string>{"example.com/hold", "foregroundDeletion"}));
}

TEST_F(DeleteTest, BackgroundPolicyDropsPropagationFinalizers) {
  create(kConfigMaps, withFinalizers(configMap("c1"), {"orphan"}));
  DeleteOptions options;
  options.propagationPolicy = "Background";
  Json answer = remove(kConfigMaps, "default", "c1", options);
  EXPECT_EQ(answer["kind"], "Status");
  EXPECT_EQ(answer["status"], "Success");
  EXPECT_TRUE(isNotFound(server->get(kConfigMaps, "default", "c1")));
}

TEST_F(DeleteTest, UidPreconditionMismatchIs409) {
  Json cm = create(kConfigMaps, configMap("c1"));
  const std::int64_t before = server->revision();
  auto r = deleteWithUid(kConfigMaps, "c1", "not-the-uid");
  // rest.BeforeDelete's early check, which names the Kind rather than the resource.
  EXPECT_TRUE(failsWith(r, 409, "Conflict",
                        "Operation cannot be fulfilled on ConfigMap \"c1\": the UID in the "
                        "precondition (not-the-uid) does not match the UID in record (" +
                            meta::uid(cm) +
                            "). The object might have been deleted and then recreated"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().details.name, "c1");
  EXPECT_EQ(r.error().details.kind, "ConfigMap");
  EXPECT_EQ(r.error().details.group, "");
  EXPECT_EQ(server->revision(), before);
  EXPECT_TRUE(server->get(kConfigMaps, "default", "c1"));

  DeleteOptions matching;
  matching.preconditions.uid = meta::uid(cm);
  EXPECT_EQ(remove(kConfigMaps, "default", "c1", matching)["status"], "Success");
}

TEST_F(DeleteTest, ResourceVersionPreconditionMismatchIs409) {
  Json cm = create(kConfigMaps, configMap("c1"));
  Json newer = mergePatch(kConfigMaps, "default", "c1", {{"data", {{"key", "v2"}}}});
  const std::int64_t before = server->revision();
  DeleteOptions options;
  options.preconditions.resourceVersion = rv(cm);
  EXPECT_TRUE(failsWith(server->deleteObject(kConfigMaps, "default", "c1", options), 409,
                        "Conflict",
                        "Operation cannot be fulfilled on ConfigMap \"c1\": the ResourceVersion in "
                        "the precondition (" +
                            rv(cm) + ") does not match the ResourceVersion in record (" +
                            rv(newer) + "). The object might have been modified"));
  EXPECT_EQ(server->revision(), before);

  options.preconditions.resourceVersion = rv(newer);
  EXPECT_EQ(remove(kConfigMaps, "default", "c1", options)["status"], "Success");
}

TEST_F(DeleteTest, PreconditionConflictNamesTheKindAndGroup) {
  Json d = create(kDeployments, deployment("d1"));
  const std::int64_t before = server->revision();
  auto r = deleteWithUid(kDeployments, "d1", "x");
  EXPECT_TRUE(failsWith(r, 409, "Conflict",
                        "Operation cannot be fulfilled on Deployment.apps \"d1\": the UID in the "
                        "precondition (x) does not match the UID in record (" +
                            meta::uid(d) +
                            "). The object might have been deleted and then recreated"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().details.group, "apps");
  EXPECT_EQ(r.error().details.kind, "Deployment");
  EXPECT_EQ(server->revision(), before);
}

TEST_F(DeleteTest, UnknownPropagationPolicyIs422) {
  create(kConfigMaps, configMap("c1"));
  const std::int64_t before = server->revision();
  DeleteOptions options;
  options.propagationPolicy = "Sideways";
  auto r = server->deleteObject(kConfigMaps, "default", "c1", options);
  const std::string body =
      R"(Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil")";
  EXPECT_TRUE(failsWith(r, 422, "Invalid",
                        "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: " + body));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().details.kind, "DeleteOptions");
  EXPECT_EQ(r.error().details.group, "meta.k8s.io");
  EXPECT_EQ(r.error().details.causes,
            (std::vector<StatusCause>{cause("FieldValueNotSupported", body, "propagationPolicy")}));
  EXPECT_EQ(server->revision(), before);
  EXPECT_TRUE(server->get(kConfigMaps, "default", "c1"));
}

TEST_F(DeleteTest, PodWithoutANodeIsDeletedAtOnceAndAnswersThePod) {
  Json p = create(kPods, pod("p1"));
  const std::int64_t before = server->revision();
  Json answer = remove(kPods, "default", "p1");
  EXPECT_EQ(answer["kind"], "Pod");
  EXPECT_EQ(meta::name(answer), "p1");
  EXPECT_EQ(meta::uid(answer), meta::uid(p));
  EXPECT_EQ(rvNumber(answer), before + 1);
  EXPECT_TRUE(
      failsWith(server->get(kPods, "default", "p1"), 404, "NotFound", "pods \"p1\" not found"));
}

TEST_F(DeleteTest, PodOnANodeIsDeletedGracefully) {
  Json p = pod("p1");
  p["spec"]["nodeName"] = "node-1";
  create(kPods, p);
  ex.advance(std::chrono::seconds(5));
  Json deleting = remove(kPods, "default", "p1");
  EXPECT_EQ(deleting["kind"], "Pod");
  EXPECT_EQ(meta::deletionTimestamp(deleting), "2024-01-01T00:00:35Z");
  EXPECT_EQ(deleting["metadata"]["deletionGracePeriodSeconds"], 30);

  // Nothing removes it but the kubelet's confirmation.
  ex.advance(std::chrono::seconds(120));
  EXPECT_EQ(get(kPods, "default", "p1"), deleting);
  EXPECT_EQ(remove(kPods, "default", "p1"), deleting) << "a second plain delete is a no-op";

  DeleteOptions now;
  now.gracePeriodSeconds = 0;
  Json gone = remove(kPods, "default", "p1", now);
  EXPECT_EQ(gone["kind"], "Pod");
  EXPECT_TRUE(isNotFound(server->get(kPods, "default", "p1")));
}

TEST_F(DeleteTest, PodGracePeriodComesFromTheRequestOrTheSpec) {
  Json p = pod("p1");
  p["spec"]["nodeName"] = "node-1";
  create(kPods, p);
  DeleteOptions ten;
  ten.gracePeriodSeconds = 10;
  Json deleting = remove(kPods, "default", "p1", ten);
  EXPECT_EQ(meta::deletionTimestamp(deleting), "2024-01-01T00:00:10Z");
  EXPECT_EQ(deleting["metadata"]["deletionGracePeriodSeconds"], 10);

  // A later delete may shorten the grace period, never extend it.
  ex.advance(std::chrono::seconds(2));
  DeleteOptions three;
  three.gracePeriodSeconds = 3;
  Json shorter = remove(kPods, "default", "p1", three);
  // Counted from when deletion was requested, not from now (rest.BeforeDelete).
  EXPECT_EQ(meta::deletionTimestamp(shorter), "2024-01-01T00:00:03Z");
  EXPECT_EQ(shorter["metadata"]["deletionGracePeriodSeconds"], 3);
  EXPECT_EQ(remove(kPods, "default", "p1", ten), shorter);

  Json q = pod("p2");
  q["spec"]["nodeName"] = "node-1";
  q["spec"]["terminationGracePeriodSeconds"] = 7;
  create(kPods, q);
  EXPECT_EQ(remove(kPods, "default", "p2")["metadata"]["deletionGracePeriodSeconds"], 7);
}

TEST_F(DeleteTest, AShortenedGracePeriodNeverMovesTheDeadlineIntoThePast) {
  Json p = pod("p1");
  p["spec"]["nodeName"] = "node-1";
  create(kPods, p);
  remove(kPods, "default", "p1");  // deadline 00:00:30
  ex.advance(std::chrono::seconds(20));
  DeleteOptions five;
  five.gracePeriodSeconds = 5;  // 00:00:05 is past: now, with the minimal graceful period
  Json shorter = remove(kPods, "default", "p1", five);
  EXPECT_EQ(meta::deletionTimestamp(shorter), "2024-01-01T00:00:20Z");
  EXPECT_EQ(shorter["metadata"]["deletionGracePeriodSeconds"], 1);
  EXPECT_TRUE(server->get(kPods, "default", "p1"));
}

TEST_F(DeleteTest, NegativeGracePeriodCountsAsOneSecond) {
  Json p = pod("p1");
  p["spec"]["nodeName"] = "node-1";
  create(kPods, p);
  DeleteOptions negative;
  negative.gracePeriodSeconds = -5;
  Json deleting = remove(kPods, "default", "p1", negative);
  EXPECT_EQ(deleting["metadata"]["deletionGracePeriodSeconds"], 1);
  EXPECT_EQ(meta::deletionTimestamp(deleting), "2024-01-01T00:00:01Z");
  EXPECT_TRUE(server->get(kPods, "default", "p1"));
}

TEST_F(DeleteTest, FinishedPodsAreDeletedAtOnce) {
  Json p = pod("p1");
  p["spec"]["nodeName"] = "node-1";
  Json created = create(kPods, p);
  created["status"]["phase"] = "Succeeded";
  updateStatus(kPods, created);
  remove(kPods, "default", "p1");
  EXPECT_TRUE(isNotFound(server->get(kPods, "default", "p1")));
}

TEST_F(DeleteTest, DeletingANamespaceMakesItTerminating) {
  create(kNamespaces, namespaceObject("team-a"));
  ex.advance(std::chrono::seconds(3));
  Json ns = remove(kNamespaces, "", "team-a");
  EXPECT_EQ(ns["kind"], "Namespace");
  EXPECT_EQ(ns["status"]["phase"], "Terminating");
  EXPECT_EQ(ns["spec"]["finalizers"], Json::array({"kubernetes"}));
  EXPECT_EQ(meta::deletionTimestamp(ns), "2024-01-01T00:00:03Z");
  EXPECT_EQ(get(kNamespaces, "", "team-a"), ns);
}

TEST_F(DeleteTest, SystemNamespacesCannotBeDeleted) {
  const std::int64_t before = server->revision();
  EXPECT_TRUE(failsWith(server->deleteObject(kNamespaces, "", "default"), 403, "Forbidden",
                        "namespaces \"default\" is forbidden: this namespace may not be deleted"));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(DeleteTest, CustomResourceDeleteAnswersASuccessStatusWithItsGroup) {
  installWidgetCrd();
  Json w = create(kWidgets, widget("w1"));
  Json answer = remove(kWidgets, "default", "w1");
  EXPECT_EQ(answer["status"], "Success");
  EXPECT_EQ(
      answer["details"],
      Json({{"name", "w1"}, {"group", "example.com"}, {"kind", "widgets"}, {"uid", meta::uid(w)}}));
  EXPECT_TRUE(isNotFound(server->get(kWidgets, "default", "w1")));
}

TEST_F(DeleteTest, DryRunDeleteRemovesNothing) {
  create(kConfigMaps, configMap("c1"));
  const std::int64_t before = server->revision();
  DeleteOptions options;
  options.dryRun = true;
  EXPECT_EQ(remove(kConfigMaps, "default", "c1", options)["status"], "Success");
  EXPECT_EQ(server->revision(), before);
  EXPECT_TRUE(server->get(kConfigMaps, "default", "c1"));
}

TEST_F(DeleteTest, DeleteCollectionDeletesWhatTheSelectorPicks) {
  for (const char* name : {"a", "b", "c"}) {
    Json cm = configMap(name);
    cm["metadata"]["labels"] = {{"app", std::string(name) == "c" ? "other" : "web"}};
    create(kConfigMaps, cm);
  }
  ListOptions selector;
  selector.labelSelector = "app=web";
  Json deleted = must(server->deleteCollection(kConfigMaps, "default", selector));
  EXPECT_EQ(deleted["kind"], "ConfigMapList");
  ASSERT_EQ(deleted["items"].size(), 2u);
  EXPECT_TRUE(isNotFound(server->get(kConfigMaps, "default", "a")));
  EXPECT_TRUE(isNotFound(server->get(kConfigMaps, "default", "b")));
  EXPECT_TRUE(server->get(kConfigMaps, "default", "c"));
}

}  // namespace
}  // namespace fakekube::apitest
