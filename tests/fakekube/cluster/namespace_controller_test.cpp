// The namespace controller: a deleted namespace stays Terminating while its contents go, refuses
// new content meanwhile, and is removed once its last object is.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster_fixture.h"
#include "fakekube/api/resources.h"

namespace fakekube::clustertest {
namespace {

class NamespaceControllerTest : public ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    startNamespaceController();
    create(kNamespaces, namespaceObject("team"));
  }
};

TEST_F(NamespaceControllerTest, EmptyNamespaceIsRemoved) {
  Json deleting = remove(kNamespaces, "", "team");
  EXPECT_EQ(deleting["status"]["phase"], "Terminating");
  settle();
  EXPECT_FALSE(exists(kNamespaces, "", "team"));
}

TEST_F(NamespaceControllerTest, ContentsAreDeletedAndTheFinalizerHoldsTheNamespace) {
  create(kConfigMaps, withFinalizer(configMap("held", "team"), "example.com/hold"));
  create(kConfigMaps, configMap("plain", "team"));
  create(kPods, pod("worker", "team"));
  create(kSecrets, {{"apiVersion", "v1"},
                    {"kind", "Secret"},
                    {"metadata", {{"name", "token"}, {"namespace", "team"}}}});
  create(kConfigMaps, configMap("elsewhere", "default"));

  remove(kNamespaces, "", "team");
  settle();
  Json ns = get(kNamespaces, "", "team");
  EXPECT_TRUE(meta::isDeleting(ns));
  EXPECT_EQ(ns["status"]["phase"], "Terminating");
  EXPECT_EQ(ns["spec"]["finalizers"], Json::array({"kubernetes"}));
  EXPECT_FALSE(exists(kConfigMaps, "team", "plain"));
  EXPECT_FALSE(exists(kPods, "team", "worker"));
  EXPECT_FALSE(exists(kSecrets, "team", "token"));
  EXPECT_TRUE(meta::isDeleting(get(kConfigMaps, "team", "held")));
  EXPECT_TRUE(exists(kConfigMaps, "default", "elsewhere")) << "other namespaces are untouched";
  EXPECT_EQ(namespaces->terminating(), 1u);

  // Still there a minute later.
  settle(std::chrono::seconds(60));
  EXPECT_TRUE(exists(kNamespaces, "", "team"));

  // New content is refused while it terminates.
  EXPECT_TRUE(failsWith(server->create(kConfigMaps, "team", configMap("late", "team")), 403,
                        "Forbidden",
                        "configmaps \"late\" is forbidden: unable to create new content in "
                        "namespace team because it is being terminated"));

  release(kConfigMaps, "team", "held");
  settle(std::chrono::seconds(2));
  EXPECT_FALSE(exists(kConfigMaps, "team", "held"));
  EXPECT_FALSE(exists(kNamespaces, "", "team"));
  EXPECT_EQ(namespaces->terminating(), 0u);

  // And once it is gone, creating in it is 404.
  EXPECT_TRUE(failsWith(server->create(kConfigMaps, "team", configMap("later", "team")), 404,
                        "NotFound", "namespaces \"team\" not found"));
}

TEST_F(NamespaceControllerTest, CreatingInAMissingNamespaceIsNotFound) {
  EXPECT_TRUE(failsWith(server->create(kConfigMaps, "nowhere", configMap("cm", "nowhere")), 404,
                        "NotFound", "namespaces \"nowhere\" not found"));
}

TEST_F(NamespaceControllerTest, CustomResourcesAndOwnedObjectsGoToo) {
  installWidgetCrd();
  settle();
  Json owner = create(kWidgets, widget("w", "team"));
  create(kConfigMaps, ownedBy(configMap("owned", "team"), {ownerRef(owner)}));
  // Foreground deletion in progress inside the namespace: the collector and the namespace
  // controller work together.
  create(kConfigMaps, ownedBy(withFinalizer(configMap("held-child", "team"), "example.com/hold"),
                              {ownerRef(owner)}));
  settle();
  remove(kNamespaces, "", "team");
  settle();
  EXPECT_FALSE(exists(kWidgets, "team", "w"));
  EXPECT_FALSE(exists(kConfigMaps, "team", "owned"));
  EXPECT_TRUE(exists(kNamespaces, "", "team"));

  release(kConfigMaps, "team", "held-child");
  settle(std::chrono::seconds(2));
  EXPECT_FALSE(exists(kNamespaces, "", "team"));
}

TEST_F(NamespaceControllerTest, NamespaceAlreadyTerminatingWhenTheControllerStartsIsFinished) {
  namespaces.reset();
  remove(kNamespaces, "", "team");
  ex.runUntilIdle();
  EXPECT_TRUE(exists(kNamespaces, "", "team"));
  startNamespaceController();
  settle();
  EXPECT_FALSE(exists(kNamespaces, "", "team"));
}

}  // namespace
}  // namespace fakekube::clustertest
