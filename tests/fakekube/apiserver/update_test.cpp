// PUT (and PUT …/status): optimistic concurrency on resourceVersion, the uid precondition,
// generation, the status subresource split, no-op updates, and finalizers on deleting objects.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fakekube/api/resources.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

class UpdateTest : public ApiServerTest {
 protected:
  // The ConfigMap c1, held by the finalizer "a", once its deletion started.
  Json deletingConfigMap() {
    Json cm = configMap("c1");
    cm["metadata"]["finalizers"] = Json::array({"a"});
    create(kConfigMaps, cm);
    return remove(kConfigMaps, "default", "c1");
  }
};

const std::string kModified =
    "the object has been modified; please apply your changes to the latest version and try again";

TEST_F(UpdateTest, UpdateWithTheCurrentResourceVersionWritesANewOne) {
  Json cm = create(kConfigMaps, configMap("c1"));
  cm["data"]["key"] = "changed";
  Json updated = update(kConfigMaps, cm);
  EXPECT_EQ(rvNumber(updated), rvNumber(cm) + 1);
  EXPECT_EQ(rvNumber(updated), server->revision());
  EXPECT_EQ(updated["data"]["key"], "changed");
  EXPECT_EQ(meta::uid(updated), meta::uid(cm));
  EXPECT_EQ(get(kConfigMaps, "default", "c1"), updated);
}

// ValidatePodUpdate: only images, activeDeadlineSeconds, tolerations and
// terminationGracePeriodSeconds may change in a pod's spec.
TEST_F(UpdateTest, PodSpecMayChangeOnlyInItsMutableFields) {
  Json p = pod("p1");
  p["spec"]["containers"].push_back({{"name", "sidecar"}, {"image", "envoy:1"}});
  Json current = create(kPods, p);

  Json images = current;
  images["spec"]["containers"][0]["image"] = "nginx:1.28";
  images["spec"]["containers"][1]["image"] = "envoy:2";
  images["spec"]["activeDeadlineSeconds"] = 60;
  images["spec"]["tolerations"] = {{{"key", "k"}, {"operator", "Exists"}}};
  images["spec"]["terminationGracePeriodSeconds"] = 5;
  current = update(kPods, images);
  EXPECT_EQ(current["spec"]["containers"][1]["image"], "envoy:2");

  const std::string message =
      "Pod \"p1\" is invalid: spec: Forbidden: pod updates may not change fields other than "
      "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
      "`spec.tolerations` (only additions to existing tolerations),"
      "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously "
      "negative)";
  auto refused = [&](Json changed, const char* what) {
    const std::int64_t before = server->revision();
    auto result = server->update(kPods, "default", std::move(changed));
    ASSERT_FALSE(result) << what;
    EXPECT_EQ(result.error().code, 422) << what;
    EXPECT_EQ(result.error().message, message) << what;
    EXPECT_EQ(server->revision(), before) << what;
  };
  Json command = current;
  command["spec"]["containers"][0]["command"] = {"sh"};
  refused(command, "a container's command");
  Json added = current;
  added["spec"]["containers"].push_back({{"name", "third"}, {"image", "busybox"}});
  refused(added, "a container added");
  Json renamed = current;
  renamed["spec"]["containers"][1]["name"] = "proxy";
  refused(renamed, "a container renamed");
  Json selector = current;
  selector["spec"]["nodeSelector"] = {{"disk", "ssd"}};
  refused(selector, "a nodeSelector added");
  Json removed = current;
  removed["spec"].erase("restartPolicy");
  removed["spec"]["dnsPolicy"] = "Default";
  refused(removed, "dnsPolicy changed");
}

TEST_F(UpdateTest, StaleResourceVersionIs409Conflict) {
  Json original = create(kConfigMaps, configMap("c1"));
  Json first = original;
  first["data"]["key"] = "first";
  update(kConfigMaps, first);

  const std::int64_t before = server->revision();
  Json stale = original;
  stale["data"]["key"] = "second";
  auto r = server->update(kConfigMaps, "", stale);
  EXPECT_TRUE(failsWith(r, 409, "Conflict",
                        "Operation cannot be fulfilled on configmaps \"c1\": " + kModified));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().details.name, "c1");
  EXPECT_EQ(r.error().details.kind, "configmaps");
  EXPECT_EQ(r.error().details.group, "");
  EXPECT_TRUE(r.error().details.causes.empty());
  // The wire form is exactly the one in the spec.
  Json wire = r.error().toJson();
  EXPECT_EQ(wire, Json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},
    "status":"Failure","message":"Operation cannot be fulfilled on configmaps \"c1\": the object has been modified; please apply your changes to the latest version and try again",
    "reason":"Conflict","details":{"name":"c1","kind":"configmaps"},"code":409})"));
  EXPECT_EQ(server->revision(), before);
  EXPECT_EQ(get(kConfigMaps, "default", "c1")["data"]["key"], "first");
}

TEST_F(UpdateTest, StaleResourceVersionOnACustomResourceNamesTheGroup) {
  installWidgetCrd();
  Json original = create(kWidgets, widget("w1"));
  Json first = original;
  first["spec"]["size"] = 2;
  update(kWidgets, first);

  const std::int64_t before = server->revision();
  Json stale = original;
  stale["spec"]["size"] = 3;
  auto r = server->update(kWidgets, "", stale);
  EXPECT_TRUE(
      failsWith(r, 409, "Conflict",
                "Operation cannot be fulfilled on widgets.example.com \"w1\": " + kModified));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().details.name, "w1");
  EXPECT_EQ(r.error().details.group, "example.com");
  EXPECT_EQ(r.error().details.kind, "widgets");
  EXPECT_EQ(server->revision(), before);
}

TEST_F(UpdateTest, ConfigMapUpdateWithoutResourceVersionIsUnconditional) {
  create(kConfigMaps, configMap("c1"));
  Json blind = configMap("c1");
  blind["data"]["key"] = "blind";
  Json updated = update(kConfigMaps, blind);
  EXPECT_EQ(updated["data"]["key"], "blind");
  EXPECT_EQ(rvNumber(updated), server->revision());
}

TEST_F(UpdateTest, CustomResourceUpdateWithoutResourceVersionIs422) {
  installWidgetCrd();
  create(kWidgets, widget("w1"));
  const std::int64_t before = server->revision();
  Json blind = widget("w1");
  blind["spec"]["size"] = 5;
  auto r = server->update(kWidgets, "", blind);
  EXPECT_TRUE(failsWith(r, 422, "Invalid",
                        "Widget.example.com \"w1\" is invalid: metadata.resourceVersion: Invalid "
                        "value: 0x0: must be specified for an update"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().details.name, "w1");
  EXPECT_EQ(r.error().details.group, "example.com");
  EXPECT_EQ(r.error().details.kind, "Widget");
  EXPECT_EQ(r.error().details.causes,
            (std::vector<StatusCause>{cause("FieldValueInvalid",
                                            "Invalid value: 0x0: must be specified for an update",
                                            "metadata.resourceVersion")}));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(UpdateTest, UidInTheBodyIsAPrecondition) {
  Json cm = create(kConfigMaps, configMap("c1"));
  const std::int64_t before = server->revision();
  Json other = cm;
  other["metadata"]["uid"] = "00000000-0000-4000-8000-000000000000";
  other["data"]["key"] = "x";
  auto r = server->update(kConfigMaps, "", other);
  EXPECT_TRUE(failsWith(r, 409, "Conflict",
                        "Operation cannot be fulfilled on configmaps \"c1\": Precondition failed: "
                        "UID in precondition: 00000000-0000-4000-8000-000000000000, UID in object "
                        "meta: " +
                            meta::uid(cm)));
  EXPECT_EQ(server->revision(), before);

  // The uid is checked before the resourceVersion, as etcd3's GuaranteedUpdate does.
  other["metadata"]["resourceVersion"] = "1";
  auto both = server->update(kConfigMaps, "", other);
  ASSERT_FALSE(both);
  EXPECT_NE(both.error().message.find("Precondition failed: UID in precondition"),
            std::string::npos)
      << both.error().message;
  EXPECT_EQ(server->revision(), before);

  // Without a uid the stored one is kept.
  Json noUid = cm;
  noUid["metadata"].erase("uid");
  noUid["data"]["key"] = "y";
  EXPECT_EQ(meta::uid(update(kConfigMaps, noUid)), meta::uid(cm));
}

TEST_F(UpdateTest, UpdateOfAMissingObjectIs404) {
  const std::int64_t before = server->revision();
  auto r = server->update(kConfigMaps, "", configMap("nope"));
  EXPECT_TRUE(failsWith(r, 404, "NotFound", "configmaps \"nope\" not found"));
  EXPECT_EQ(server->revision(), before);

  installWidgetCrd();
  const std::int64_t afterCrd = server->revision();
  EXPECT_TRUE(failsWith(server->update(kWidgets, "", widget("nope")), 404, "NotFound",
                        "widgets.example.com \"nope\" not found"));
  EXPECT_EQ(server->revision(), afterCrd);
}

TEST_F(UpdateTest, NoOpUpdateKeepsTheResourceVersion) {
  Json cm = create(kConfigMaps, configMap("c1"));
  const std::int64_t before = server->revision();
  Json same = update(kConfigMaps, cm);
  EXPECT_EQ(rv(same), rv(cm));
  EXPECT_EQ(same, cm);
  EXPECT_EQ(server->revision(), before);

  // Also without a resourceVersion in the body, and with server fields left out.
  Json bare = configMap("c1");
  EXPECT_EQ(rv(update(kConfigMaps, bare)), rv(cm));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(UpdateTest, ServerFieldsAreCopiedFromTheStoredObject) {
  Json cm = create(kConfigMaps, configMap("c1"));
  ex.advance(std::chrono::seconds(10));
  Json changed = cm;
  changed["metadata"]["creationTimestamp"] = "2030-01-01T00:00:00Z";
  changed["metadata"]["generation"] = 4;
  changed["data"]["key"] = "x";
  Json updated = update(kConfigMaps, changed);
  EXPECT_EQ(meta::creationTimestamp(updated), "2024-01-01T00:00:00Z");
  EXPECT_FALSE(updated["metadata"].contains("generation"));
}

TEST_F(UpdateTest, DeploymentGenerationFollowsSpecChangesOnly) {
  Json d = create(kDeployments, deployment("d1"));
  ASSERT_EQ(d["metadata"]["generation"], 1);

  d["spec"]["replicas"] = 3;
  d = update(kDeployments, d);
  EXPECT_EQ(d["metadata"]["generation"], 2);

  d["metadata"]["labels"] = {{"team", "a"}};
  d["metadata"]["annotations"] = {{"note", "x"}};
  d = update(kDeployments, d);
  EXPECT_EQ(d["metadata"]["generation"], 2);

  // Clients cannot move it.
  d["metadata"]["generation"] = 42;
  d["metadata"]["labels"]["team"] = "b";
  d = update(kDeployments, d);
  EXPECT_EQ(d["metadata"]["generation"], 2);
}

TEST_F(UpdateTest, CustomResourceGenerationBumpsOnSpecButNotOnStatusOrMetadata) {
  installWidgetCrd(/*statusSubresource=*/true);
  Json w = create(kWidgets, widget("w1"));
  ASSERT_EQ(w["metadata"]["generation"], 1);

  w["spec"]["size"] = 2;
  w = update(kWidgets, w);
  EXPECT_EQ(w["metadata"]["generation"], 2);

  w["status"] = {{"ready", true}};
  w = updateStatus(kWidgets, w);
  EXPECT_EQ(w["status"]["ready"], true);
  EXPECT_EQ(w["metadata"]["generation"], 2);

  w["metadata"]["labels"] = {{"tier", "gold"}};
  w["metadata"]["finalizers"] = Json::array({"example.com/keep"});
  w = update(kWidgets, w);
  EXPECT_EQ(w["metadata"]["labels"]["tier"], "gold");
  EXPECT_EQ(w["metadata"]["generation"], 2);

  // Anything outside metadata counts, not only spec.
  w["extra"] = "field";
  w = update(kWidgets, w);
  EXPECT_EQ(w["metadata"]["generation"], 3);
}

TEST_F(UpdateTest, WithAStatusSubresourceEachEndpointOnlyChangesItsPart) {
  installWidgetCrd(/*statusSubresource=*/true);
  Json w = widget("w1");
  w["status"] = {{"phase", "Ready"}};
  Json created = create(kWidgets, w);
  EXPECT_FALSE(created.contains("status")) << "create drops status";

  Json withStatus = created;
  withStatus["status"] = {{"phase", "Ready"}};
  Json s = updateStatus(kWidgets, withStatus);
  EXPECT_EQ(s["status"]["phase"], "Ready");

  // Main resource: the status change is ignored, the spec change kept.
  Json main = s;
  main["status"]["phase"] = "Broken";
  main["spec"]["size"] = 9;
  Json afterMain = update(kWidgets, main);
  EXPECT_EQ(afterMain["status"]["phase"], "Ready");
  EXPECT_EQ(afterMain["spec"]["size"], 9);
  EXPECT_EQ(afterMain["metadata"]["generation"], 2);

  // A main-resource PUT that only changes status changes nothing at all.
  Json onlyStatus = afterMain;
  onlyStatus["status"]["phase"] = "Broken";
  EXPECT_EQ(rv(update(kWidgets, onlyStatus)), rv(afterMain));

  // Status: the spec and metadata changes are ignored, the status change kept.
  Json status = afterMain;
  status["status"]["phase"] = "Degraded";
  status["spec"]["size"] = 1;
  status["metadata"]["labels"] = {{"sneaky", "yes"}};
  Json afterStatus = updateStatus(kWidgets, status);
  EXPECT_EQ(afterStatus["status"]["phase"], "Degraded");
  EXPECT_EQ(afterStatus["spec"]["size"], 9);
  EXPECT_FALSE(afterStatus["metadata"].contains("labels"));
  EXPECT_EQ(afterStatus["metadata"]["generation"], 2);
  EXPECT_EQ(get(kWidgets, "default", "w1"), afterStatus);
}

// A status write whose body is the stored object with a new status (what a read-modify-write
// client sends) keeps the stored rest exactly; one that also changed a spec value, or wrote an
// integer as a float, still gets the stored value, text for text.
TEST_F(UpdateTest, StatusUpdateOfTheWholeObjectKeepsTheStoredRestExactly) {
  Json stored = create(kPods, pod("p1"));
  stored["spec"]["activeDeadlineSeconds"] = 60;
  stored = update(kPods, stored);

  Json whole = stored;
  whole["status"] = {{"phase", "Pending"}};
  Json afterWhole = updateStatus(kPods, whole);
  EXPECT_EQ(afterWhole["status"]["phase"], "Pending");
  EXPECT_EQ(afterWhole["spec"], stored["spec"]);
  EXPECT_EQ(rvNumber(afterWhole), rvNumber(stored) + 1);

  Json changedSpec = afterWhole;
  changedSpec["status"]["phase"] = "Running";
  changedSpec["spec"]["activeDeadlineSeconds"] = 30;  // same members, another value
  Json afterChanged = updateStatus(kPods, changedSpec);
  EXPECT_EQ(afterChanged["status"]["phase"], "Running");
  EXPECT_EQ(afterChanged["spec"]["activeDeadlineSeconds"], 60);

  EXPECT_EQ(get(kPods, "default", "p1"), afterChanged);

  // A field no schema types (a pod's would refuse 60.0 outright).
  installWidgetCrd(/*statusSubresource=*/true);
  Json w = widget("w1");
  w["extra"] = 60;
  w = create(kWidgets, w);
  Json asFloat = w;
  asFloat["status"] = {{"phase", "Ready"}};
  asFloat["extra"] = 60.0;  // equal by value, not by text
  Json afterFloat = updateStatus(kWidgets, asFloat);
  EXPECT_EQ(afterFloat["status"]["phase"], "Ready");
  EXPECT_TRUE(afterFloat["extra"].is_number_integer());
  EXPECT_EQ(get(kWidgets, "default", "w1"), afterFloat);
}

TEST_F(UpdateTest, StatusUpdateChecksTheResourceVersionToo) {
  installWidgetCrd(/*statusSubresource=*/true);
  Json w = create(kWidgets, widget("w1"));
  Json fresh = w;
  fresh["status"] = {{"phase", "A"}};
  updateStatus(kWidgets, fresh);
  const std::int64_t before = server->revision();
  Json stale = w;
  stale["status"] = {{"phase", "B"}};
  EXPECT_TRUE(
      failsWith(server->updateStatus(kWidgets, "", stale), 409, "Conflict",
                "Operation cannot be fulfilled on widgets.example.com \"w1\": " + kModified));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(UpdateTest, WithoutAStatusSubresourceStatusIsPartOfTheObject) {
  installWidgetCrd(/*statusSubresource=*/false);
  Json w = widget("w1");
  w["status"] = {{"phase", "Ready"}};
  Json created = create(kWidgets, w);
  EXPECT_EQ(created["status"]["phase"], "Ready") << "create keeps status";
  EXPECT_EQ(created["metadata"]["generation"], 1);

  created["status"]["phase"] = "Degraded";
  Json updated = update(kWidgets, created);
  EXPECT_EQ(updated["status"]["phase"], "Degraded");
  EXPECT_EQ(updated["metadata"]["generation"], 2);

  // There is no …/status endpoint.
  const std::int64_t before = server->revision();
  EXPECT_TRUE(failsWith(server->updateStatus(kWidgets, "", updated), 404, "NotFound",
                        "the server could not find the requested resource"));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(UpdateTest, UpdateCannotSetADeletionTimestamp) {
  Json cm = create(kConfigMaps, configMap("c1"));
  const std::int64_t before = server->revision();
  cm["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z";
  auto r = server->update(kConfigMaps, "", cm);
  EXPECT_TRUE(failsWith(r, 422, "Invalid",
                        "ConfigMap \"c1\" is invalid: metadata.deletionTimestamp: Invalid value: "
                        "2024-01-01 00:00:00 +0000 UTC: field is immutable"));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(UpdateTest, UpdateValidatesMetadataLikeCreate) {
  Json cm = create(kConfigMaps, configMap("c1"));
  const std::int64_t before = server->revision();
  cm["metadata"]["labels"] = {{"app", "-bad-"}};
  EXPECT_TRUE(failsWithMessageStarting(
      server->update(kConfigMaps, "", cm), 422, "Invalid",
      "ConfigMap \"c1\" is invalid: metadata.labels: Invalid value: \"-bad-\": "));
  EXPECT_EQ(server->revision(), before);
}

// --- finalizers on a deleting object ---

TEST_F(UpdateTest, NoNewFinalizersOnceDeletionStarted) {
  Json deleting = deletingConfigMap();
  ASSERT_TRUE(meta::isDeleting(deleting));

  const std::int64_t before = server->revision();
  Json added = deleting;
  added["metadata"]["finalizers"] = Json::array({"a", "b"});
  auto r = server->update(kConfigMaps, "", added);
  const std::string detail =
      "no new finalizers can be added if the object is being deleted, found new finalizers "
      "[]string{\"b\"}";
  EXPECT_TRUE(failsWith(r, 422, "Invalid",
                        "ConfigMap \"c1\" is invalid: metadata.finalizers: Forbidden: " + detail));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().details.causes,
            (std::vector<StatusCause>{
                cause("FieldValueForbidden", "Forbidden: " + detail, "metadata.finalizers")}));
  EXPECT_EQ(server->revision(), before);

  // Through a patch too.
  auto patched = server->patch(kConfigMaps, "default", "c1", PatchType::Merge,
                               R"({"metadata":{"finalizers":["a","b"]}})");
  EXPECT_TRUE(failsWith(patched, 422, "Invalid",
                        "ConfigMap \"c1\" is invalid: metadata.finalizers: Forbidden: " + detail));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(UpdateTest, NewFinalizersAreListedSortedAndOnce) {
  Json deleting = deletingConfigMap();
  const std::int64_t before = server->revision();
  // Kubernetes reports sets.NewString(new...).Difference(old).List(): sorted, no repeats.
  deleting["metadata"]["finalizers"] = Json::array({"a", "z.io/f", "m.io/f", "z.io/f"});
  auto r = server->update(kConfigMaps, "", deleting);
  EXPECT_TRUE(failsWith(r, 422, "Invalid",
                        "ConfigMap \"c1\" is invalid: metadata.finalizers: Forbidden: no new "
                        "finalizers can be added if the object is being deleted, found new "
                        "finalizers []string{\"m.io/f\", \"z.io/f\"}"));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(UpdateTest, RemovingTheLastFinalizerOfADeletingObjectDeletesIt) {
  Json cm = configMap("c1");
  cm["metadata"]["finalizers"] = Json::array({"example.com/a", "example.com/b"});
  create(kConfigMaps, cm);
  Json deleting = remove(kConfigMaps, "default", "c1");
  ASSERT_TRUE(meta::isDeleting(deleting));
  EXPECT_EQ(deleting["metadata"]["deletionGracePeriodSeconds"], 0);

  deleting["metadata"]["finalizers"] = Json::array({"example.com/b"});
  Json stillThere = update(kConfigMaps, deleting);
  EXPECT_EQ(meta::finalizers(stillThere), std::vector<std::string>{"example.com/b"});
  EXPECT_EQ(meta::deletionTimestamp(stillThere), meta::deletionTimestamp(deleting));
  EXPECT_TRUE(server->get(kConfigMaps, "default", "c1"));

  const std::int64_t before = server->revision();
  stillThere["metadata"].erase("finalizers");
  Json last = update(kConfigMaps, stillThere);
  // 200 with the object as it was removed, at a new revision.
  EXPECT_EQ(meta::name(last), "c1");
  EXPECT_EQ(rvNumber(last), before + 1);
  EXPECT_EQ(server->revision(), before + 1);
  EXPECT_TRUE(failsWith(server->get(kConfigMaps, "default", "c1"), 404, "NotFound",
                        "configmaps \"c1\" not found"));
}

TEST_F(UpdateTest, ClearingFinalizersWithAPatchDeletesTheObject) {
  installWidgetCrd();
  Json w = widget("w1");
  w["metadata"]["finalizers"] = Json::array({"example.com/cleanup"});
  create(kWidgets, w);
  Json deleting = remove(kWidgets, "default", "w1");
  ASSERT_TRUE(meta::isDeleting(deleting));
  EXPECT_EQ(deleting["metadata"]["generation"], 2) << "deletion bumps a generation > 0";

  Json patched = must(server->patch(kWidgets, "default", "w1", PatchType::Merge,
                                    R"({"metadata":{"finalizers":null}})"));
  EXPECT_EQ(meta::name(patched), "w1");
  EXPECT_TRUE(isNotFound(server->get(kWidgets, "default", "w1")));
}

}  // namespace
}  // namespace fakekube::apitest
