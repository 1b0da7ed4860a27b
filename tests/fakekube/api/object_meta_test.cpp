// Owner references read in place (OwnerReferenceView) say what the owning decoders say, and the
// controller's reference is the one with controller: true.
#include "fakekube/api/object_meta.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace fakekube {
namespace {

Json podOwnedBy(Json ownerReferences) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", "p"}, {"ownerReferences", std::move(ownerReferences)}}}};
}

TEST(ObjectMetaTest, AViewOfEveryOwnerReferenceReadsWhatTheOwningDecoderReads) {
  const Json pod = podOwnedBy(
      Json::array({{{"apiVersion", "ray.io/v1"},
                    {"kind", "RayCluster"},
                    {"name", "raycluster-sample"},
                    {"uid", "0f8c6a55-2c1e-4d55-9a8e-6a9b1d2c3e4f"},
                    {"controller", true},
                    {"blockOwnerDeletion", true}},
                   {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "cm"}, {"uid", "u2"}},
                   // Members of the wrong type read as empty; an unknown member is ignored.
                   {{"apiVersion", 1}, {"kind", "Other"}, {"controller", "yes"}, {"extra", "x"}}}));
  const auto views = meta::ownerReferenceViews(pod);
  const auto owned = meta::ownerReferences(pod);
  ASSERT_EQ(views.size(), 3u);
  ASSERT_EQ(owned.size(), 3u);
  for (std::size_t i = 0; i < views.size(); ++i) {
    const meta::OwnerReference fromView = views[i].owned();
    EXPECT_EQ(fromView.apiVersion, owned[i].apiVersion);
    EXPECT_EQ(fromView.kind, owned[i].kind);
    EXPECT_EQ(fromView.name, owned[i].name);
    EXPECT_EQ(fromView.uid, owned[i].uid);
    EXPECT_EQ(fromView.controller, owned[i].controller);
    EXPECT_EQ(fromView.blockOwnerDeletion, owned[i].blockOwnerDeletion);
  }
  EXPECT_EQ(views[0].uid, "0f8c6a55-2c1e-4d55-9a8e-6a9b1d2c3e4f");
  EXPECT_TRUE(views[0].controller);
  EXPECT_TRUE(views[0].blockOwnerDeletion);
  EXPECT_FALSE(views[1].controller);
  EXPECT_EQ(views[2].apiVersion, "");
  EXPECT_FALSE(views[2].controller);
}

TEST(ObjectMetaTest, TheControllerReferenceIsTheOneMarkedController) {
  const Json pod = podOwnedBy(
      Json::array({{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "cm"}, {"uid", "u1"}},
                   "not an object",
                   {{"apiVersion", "apps/v1"},
                    {"kind", "ReplicaSet"},
                    {"name", "rs"},
                    {"uid", "u2"},
                    {"controller", true}}}));
  const auto view = meta::controllerRefOf(pod);
  ASSERT_TRUE(view.has_value());
  EXPECT_EQ(view->kind, "ReplicaSet");
  EXPECT_EQ(view->name, "rs");
  const auto owned = meta::controllerOf(pod);
  ASSERT_TRUE(owned.has_value());
  EXPECT_EQ(owned->uid, "u2");

  EXPECT_FALSE(meta::controllerRefOf(podOwnedBy(Json::array(
      {{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "cm"}, {"controller", false}}}))));
  EXPECT_FALSE(meta::controllerRefOf(podOwnedBy(nullptr)));
  EXPECT_FALSE(meta::controllerRefOf(Json::object()));
}

TEST(ObjectMetaTest, TheGroupOfAnApiVersionIsWhatComesBeforeTheSlash) {
  EXPECT_EQ(meta::groupOf("apps/v1"), "apps");
  EXPECT_EQ(meta::groupOf("ray.io/v1"), "ray.io");
  EXPECT_EQ(meta::groupOf("v1"), "");
  EXPECT_EQ(meta::groupOf(""), "");
  EXPECT_EQ(meta::groupOf("/v1"), "");
}

}  // namespace
}  // namespace fakekube
