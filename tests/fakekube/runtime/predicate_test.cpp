// Predicates and event handlers as functions of objects (predicate.h, handler.h).
#include "fakekube/runtime/predicate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "fakekube/api/object_meta.h"
#include "fakekube/runtime/handler.h"
#include "fakekube/runtime/runtime_fixture.h"

namespace fakekube::runtimetest {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

ObjectPtr object(Json j) { return std::make_shared<const Json>(std::move(j)); }

Json base() {
  return {{"apiVersion", "example.com/v1"},
          {"kind", "Widget"},
          {"metadata",
           {{"name", "w"},
            {"namespace", "default"},
            {"generation", 1},
            {"resourceVersion", "10"},
            {"labels", {{"app", "a"}}},
            {"annotations", {{"note", "x"}}}}}};
}

Json with(Json j, const std::string& field, Json value) {
  j["metadata"][field] = std::move(value);
  return j;
}

TEST(PredicateTest, GenerationChangedPassesOnlyNewGenerations) {
  auto p = predicate::generationChanged();
  auto old = object(base());
  EXPECT_FALSE(p.onUpdate(old, object(with(base(), "resourceVersion", "11"))));  // status only
  EXPECT_TRUE(p.onUpdate(old, object(with(base(), "generation", 2))));
  EXPECT_FALSE(p.onUpdate(nullptr, old));
  EXPECT_TRUE(p.onCreate(old));
  EXPECT_TRUE(p.onDelete(old));
  EXPECT_TRUE(p.onGeneric(old));
}

TEST(PredicateTest, LabelAnnotationAndResourceVersionChanged) {
  auto old = object(base());
  auto relabelled = object(with(base(), "labels", {{"app", "b"}}));
  auto annotated = object(with(base(), "annotations", {{"note", "y"}}));
  auto newer = object(with(base(), "resourceVersion", "11"));
  EXPECT_TRUE(predicate::labelChanged().onUpdate(old, relabelled));
  EXPECT_FALSE(predicate::labelChanged().onUpdate(old, annotated));
  EXPECT_TRUE(predicate::annotationChanged().onUpdate(old, annotated));
  EXPECT_FALSE(predicate::annotationChanged().onUpdate(old, relabelled));
  EXPECT_TRUE(predicate::resourceVersionChanged().onUpdate(old, newer));
  EXPECT_FALSE(predicate::resourceVersionChanged().onUpdate(old, old));
  // Labels removed entirely is a change too.
  Json noLabels = base();
  noLabels["metadata"].erase("labels");
  EXPECT_TRUE(predicate::labelChanged().onUpdate(old, object(noLabels)));
}

TEST(PredicateTest, AndOrNotCombine) {
  auto old = object(base());
  auto relabelled = object(with(base(), "labels", {{"app", "b"}}));
  auto kuberay = predicate::or_(
      {predicate::generationChanged(), predicate::labelChanged(), predicate::annotationChanged()});
  EXPECT_TRUE(kuberay.onUpdate(old, relabelled));
  EXPECT_FALSE(kuberay.onUpdate(old, object(with(base(), "resourceVersion", "11"))));
  EXPECT_FALSE(predicate::and_({predicate::generationChanged(), predicate::labelChanged()})
                   .onUpdate(old, relabelled));
  EXPECT_TRUE(predicate::not_(predicate::generationChanged()).onUpdate(old, relabelled));
  EXPECT_FALSE(predicate::not_(predicate::generationChanged()).onCreate(old));
  EXPECT_TRUE(predicate::and_({}).onCreate(old));
  EXPECT_FALSE(predicate::or_({}).onCreate(old));
}

TEST(PredicateTest, LambdasAndFilters) {
  auto onlyApp = predicate::fromFilter([](const Json& o) { return meta::label(o, "app") == "a"; });
  auto old = object(base());
  auto relabelled = object(with(base(), "labels", {{"app", "b"}}));
  EXPECT_TRUE(onlyApp.onCreate(old));
  EXPECT_FALSE(onlyApp.onCreate(relabelled));
  EXPECT_FALSE(onlyApp.onUpdate(old, relabelled));  // judged on the new object
  EXPECT_TRUE(onlyApp.onDelete(old));

  Predicate noDeletes;
  noDeletes.delete_ = [](const ObjectPtr&) { return false; };
  EXPECT_TRUE(noDeletes.onCreate(old));
  EXPECT_TRUE(noDeletes.onUpdate(old, relabelled));
  EXPECT_FALSE(noDeletes.onDelete(old));
}

Json ownedBy(std::vector<meta::OwnerReference> refs) {
  Json cm = configMap("child");
  for (const auto& r : refs) meta::addOwnerReference(cm, r);
  return cm;
}

TEST(HandlerTest, ForObjectEnqueuesTheObject) {
  auto h = enqueueRequestForObject();
  EXPECT_THAT(h.create(object(base())), ElementsAre(req("w")));
  Json cluster = {{"metadata", {{"name", "node-1"}}}};
  EXPECT_THAT(h.delete_(object(cluster)), ElementsAre(ReconcileRequest{"", "node-1"}));
  EXPECT_EQ(ReconcileRequest::fromKey("default/w"), req("w"));
  EXPECT_EQ(ReconcileRequest::fromKey("node-1").key(), "node-1");
}

TEST(HandlerTest, ForOwnerEnqueuesOnlyTheControllerOwnerOfTheGroupAndKind) {
  meta::OwnerReference controller{"example.com/v1", "Widget", "a", "uid-a", true, true};
  meta::OwnerReference notController{"example.com/v1", "Widget", "b", "uid-b", false, false};
  meta::OwnerReference otherGroup{"other.io/v1", "Widget", "c", "uid-c", true, true};
  meta::OwnerReference otherKind{"example.com/v1", "Gadget", "d", "uid-d", true, true};
  auto child = object(ownedBy({notController, controller, otherGroup, otherKind}));

  auto h = enqueueRequestForOwner("example.com", "Widget");
  EXPECT_THAT(h.create(child), ElementsAre(req("a")));
  auto all = enqueueRequestForOwner("example.com", "Widget", /*onlyController=*/false);
  EXPECT_THAT(all.create(child), ElementsAre(req("b"), req("a")));
  auto cluster = enqueueRequestForOwner("example.com", "Widget", true, /*ownerNamespaced=*/false);
  EXPECT_THAT(cluster.create(child), ElementsAre(ReconcileRequest{"", "a"}));
  EXPECT_THAT(h.create(object(configMap("orphan"))), IsEmpty());

  // An update that moves the child to another owner reconciles both.
  meta::OwnerReference moved{"example.com/v1", "Widget", "z", "uid-z", true, true};
  EXPECT_THAT(h.update(child, object(ownedBy({moved}))), ElementsAre(req("a"), req("z")));
}

TEST(HandlerTest, MapFuncEnqueuesWhatItAnswers) {
  auto h = enqueueRequestsFromMapFunc(
      [](const Json& o) { return std::vector<ReconcileRequest>{req("for-" + meta::name(o))}; });
  EXPECT_THAT(h.create(object(base())), ElementsAre(req("for-w")));
  EXPECT_THAT(h.update(object(base()), object(base())), ElementsAre(req("for-w")));
}

}  // namespace
}  // namespace fakekube::runtimetest
